//! libslurm's logging (`slurm_log_init`, `slurm_error`, `slurm_info`, ..., `slurm_log_var`), with its defaults and
//! its line formats, for programs (pam_slurm_adopt, plugins, the Perl API) that log through it.
//!
//! - Before `slurm_log_init`, every level passes the first check (`slurm_get_log_level()` is `LOG_LEVEL_END`, 10);
//!   the first message then sets up stderr-only logging at `info` and is filtered by it, as libslurm does.
//! - stderr: `prog: error: text` (`prog` the base name of `log_init`'s argument, else of the program), info and
//!   verbose lines without a level word, `debug:  ` (two spaces), `debug2: ` ... ; stdout is flushed first.
//! - log file (`logfile_level`): `[yyyy-mm-ddThh:mm:ss.mmm] prefix` + the same level word + text.
//! - syslog (`syslog_level`): `openlog(prog, LOG_PID, facility)`, the level word + text, at most 500 bytes.
//! - `%m` (the text of the caller's errno: Slurm's for Slurm numbers, the C library's otherwise), `%t`, `%T` and `%M`
//!   are expanded before the printf conversions, as libslurm's `vxstrfmt` does; `%pA`/`%pJ`/`%ps`/`%pS` need
//!   slurmctld's internal records and are left to printf (`%p`).
//! - The `buffered` option is accepted and ignored: lines are written at once, so there is never pending data.
//!
//! The variadic entry points are in `variadic.c`; they format the message and end in [`spur_log_emit`].

use std::ffi::{c_char, c_int, c_void, CString};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Mutex;

use crate::ffi::guard;
use crate::xmem::c_bytes;

pub const LEVEL_QUIET: c_int = 0;
pub const LEVEL_FATAL: c_int = 1;
pub const LEVEL_ERROR: c_int = 2;
pub const LEVEL_INFO: c_int = 3;
pub const LEVEL_VERBOSE: c_int = 4;
pub const LEVEL_DEBUG: c_int = 5;
pub const LEVEL_END: c_int = 10;

/// `log_options_t` (src/common/log.h): three `log_level_t` then three `bool`s.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LogOptions {
    pub stderr_level: c_int,
    pub syslog_level: c_int,
    pub logfile_level: c_int,
    pub prefix_level: bool,
    pub buffered: bool,
    pub raw: bool,
}

/// `LOG_OPTS_STDERR_ONLY`: what a program that never called `log_init` gets.
const STDERR_ONLY: LogOptions = LogOptions {
    stderr_level: LEVEL_INFO,
    syslog_level: LEVEL_QUIET,
    logfile_level: LEVEL_QUIET,
    prefix_level: true,
    buffered: false,
    raw: false,
};

struct Log {
    argv0: CString,
    fpfx: Vec<u8>,
    logfp: *mut libc::FILE,
    facility: c_int,
    opt: LogOptions,
    initialized: bool,
}

// SAFETY: the FILE pointer is only used under the LOG mutex.
unsafe impl Send for Log {}

static LOG: Mutex<Option<Log>> = Mutex::new(None);
/// The highest level any destination takes (`get_log_level`); `LOG_LEVEL_END` until logging is set up.
static HIGHEST: AtomicI32 = AtomicI32::new(LEVEL_END);

extern "C" {
    static program_invocation_name: *mut c_char;
    // In variadic.c.
    fn spur_c_write_stderr(line: *const c_char);
    fn spur_c_stderr() -> *mut libc::FILE;
    fn spur_c_set_prog_name(name: *const c_char);
    fn spur_c_clear_prog_name();
}

fn basename(path: &[u8]) -> &[u8] {
    path.iter()
        .rposition(|&c| c == b'/')
        .map_or(path, |i| &path[i + 1..])
}

fn cstring(b: &[u8]) -> CString {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    CString::new(&b[..end]).unwrap_or_default()
}

/// libslurm's `_log_init` under the lock: 0, or the errno of a log file that would not open.
///
/// # Safety
/// `prog` and `logfile` are NULL or strings.
unsafe fn init_locked(
    slot: &mut Option<Log>,
    prog: *const c_char,
    opt: LogOptions,
    fac: c_int,
    logfile: *const c_char,
) -> c_int {
    let log = slot.get_or_insert_with(|| Log {
        argv0: CString::default(),
        fpfx: Vec::new(),
        logfp: std::ptr::null_mut(),
        facility: 0,
        opt,
        initialized: false,
    });
    // SAFETY: the caller's contract; program_invocation_name is glibc's NUL-terminated argv[0] (or NULL).
    unsafe {
        if let Some(p) = c_bytes(prog) {
            log.argv0 = cstring(basename(p));
        } else if log.argv0.as_bytes().is_empty() {
            log.argv0 = cstring(basename(c_bytes(program_invocation_name).unwrap_or(b"")));
        }
        if !log.argv0.as_bytes().is_empty() {
            spur_c_set_prog_name(log.argv0.as_ptr());
        }
    }
    log.opt = opt;
    if opt.syslog_level > LEVEL_QUIET {
        log.facility = fac;
    }
    if !logfile.is_null() && opt.logfile_level > LEVEL_QUIET {
        // SAFETY: open/fdopen of the caller's path.
        unsafe {
            let fd = libc::open(
                logfile,
                libc::O_CREAT | libc::O_WRONLY | libc::O_APPEND | libc::O_CLOEXEC,
                0o600,
            );
            let fp = if fd >= 0 {
                libc::fdopen(fd, c"a".as_ptr())
            } else {
                std::ptr::null_mut()
            };
            if fp.is_null() {
                let err = crate::ffi::errno();
                let prog = c_bytes(prog).map_or("(null)".into(), String::from_utf8_lossy);
                let path = String::from_utf8_lossy(c_bytes(logfile).unwrap_or(b""));
                let line = format!(
                    "{prog}: _log_init: Unable to open logfile `{path}': {}\n",
                    crate::errno::text(err)
                );
                write_stderr(&line);
                if fd >= 0 {
                    libc::close(fd);
                }
                return err;
            }
            if !log.logfp.is_null() {
                libc::fclose(log.logfp);
            }
            log.logfp = fp;
        }
    }
    HIGHEST.store(
        opt.syslog_level
            .max(opt.logfile_level)
            .max(opt.stderr_level),
        Ordering::SeqCst,
    );
    log.initialized = true;
    0
}

/// One line on stderr through C's stream (stdout flushed first, as libslurm does).
fn write_stderr(line: &str) {
    let c = cstring(line.as_bytes());
    // SAFETY: a NUL-terminated line.
    unsafe { spur_c_write_stderr(c.as_ptr()) };
}

fn lock() -> std::sync::MutexGuard<'static, Option<Log>> {
    LOG.lock().unwrap_or_else(|e| e.into_inner())
}

/// The level word libslurm puts before a message, and its syslog priority.
fn prefix(level: c_int, sched: bool, spank: bool) -> (&'static str, c_int) {
    match level {
        LEVEL_FATAL => ("fatal: ", libc::LOG_CRIT),
        LEVEL_ERROR if spank => ("", libc::LOG_ERR),
        LEVEL_ERROR if sched => ("error: sched: ", libc::LOG_ERR),
        LEVEL_ERROR => ("error: ", libc::LOG_ERR),
        LEVEL_INFO | LEVEL_VERBOSE if sched => ("sched: ", libc::LOG_INFO),
        LEVEL_INFO | LEVEL_VERBOSE => ("", libc::LOG_INFO),
        5 if sched => ("debug:  sched: ", libc::LOG_DEBUG),
        5 => ("debug:  ", libc::LOG_DEBUG),
        6 if sched => ("debug2: sched: ", libc::LOG_DEBUG),
        6 => ("debug2: ", libc::LOG_DEBUG),
        7 if sched => ("debug3: sched: ", libc::LOG_DEBUG),
        7 => ("debug3: ", libc::LOG_DEBUG),
        8 => ("debug4: ", libc::LOG_DEBUG),
        9 => ("debug5: ", libc::LOG_DEBUG),
        _ => ("internal error: ", libc::LOG_ERR),
    }
}

/// libslurm's `_log_msg` for an already formatted message.
pub fn log_msg(level: c_int, sched: bool, spank: bool, buf: &str) {
    let mut slot = lock();
    if !slot.as_ref().is_some_and(|l| l.initialized) {
        // SAFETY: NULL program and log file.
        unsafe {
            init_locked(
                &mut slot,
                std::ptr::null(),
                STDERR_ONLY,
                0,
                std::ptr::null(),
            )
        };
    }
    let Some(log) = slot.as_mut() else { return };
    let eol = if log.opt.raw { "\r\n" } else { "\n" };
    if level > HIGHEST.load(Ordering::SeqCst) {
        return;
    }
    let (pfx, priority) = if log.opt.prefix_level || log.opt.syslog_level > level {
        prefix(level, sched, spank)
    } else {
        ("", libc::LOG_INFO)
    };
    if level <= log.opt.stderr_level {
        let line = if spank {
            format!("{buf}{eol}")
        } else {
            format!("{}: {pfx}{buf}{eol}", log.argv0.to_string_lossy())
        };
        write_stderr(&line);
    }
    if level <= log.opt.logfile_level && !log.logfp.is_null() {
        let line = format!(
            "[{}] {}{pfx}{buf}\n",
            crate::xstring::timestamp(true, false),
            String::from_utf8_lossy(&log.fpfx)
        );
        let c = cstring(line.as_bytes());
        // SAFETY: the open log file.
        unsafe {
            if libc::fileno(log.logfp) >= 0 {
                libc::fputs(c.as_ptr(), log.logfp);
                libc::fflush(log.logfp);
            }
        }
    }
    if level <= log.opt.syslog_level {
        let saved = crate::ffi::errno();
        let msg = cstring(format!("{pfx}{buf}").as_bytes());
        // SAFETY: syslog with a constant format and our strings; argv0 outlives closelog.
        unsafe {
            libc::openlog(log.argv0.as_ptr(), libc::LOG_PID, log.facility);
            libc::syslog(priority, c"%.500s".as_ptr(), msg.as_ptr());
            libc::closelog();
            *libc::__errno_location() = saved;
        }
    }
}

/// The out-of-memory line (`file:line: func: malloc failed`) to the log file and stderr, as `log_oom`.
pub fn log_oom_line(text: &str) {
    let slot = lock();
    let line = format!("{text}\n");
    if let Some(log) = slot.as_ref() {
        if !log.logfp.is_null() {
            let c = cstring(line.as_bytes());
            // SAFETY: the open log file.
            unsafe { libc::fputs(c.as_ptr(), log.logfp) };
        }
    }
    if slot.as_ref().is_none_or(|l| l.opt.stderr_level != 0) {
        write_stderr(&line);
    }
}

/// Called by variadic.c: whether a message at `level` passes libslurm's first check.
#[no_mangle]
pub extern "C" fn spur_log_wants(level: c_int) -> c_int {
    c_int::from(level <= HIGHEST.load(Ordering::SeqCst))
}

/// Called by variadic.c with the formatted message.
///
/// # Safety
/// `msg` is a string.
#[no_mangle]
pub unsafe extern "C" fn spur_log_emit(
    level: c_int,
    sched: c_int,
    spank: c_int,
    msg: *const c_char,
) {
    guard("log", (), || {
        // SAFETY: the caller's contract.
        let text = unsafe { c_bytes(msg) }.unwrap_or(b"");
        log_msg(
            level,
            sched != 0,
            spank != 0,
            &String::from_utf8_lossy(text),
        );
    })
}

/// libslurm's `vxstrfmt` first pass: expands `%m` (with `errno_at_call`), `%t`, `%T` and `%M`, doubling any `%` in
/// what they insert; the bool says whether printf conversions remain (otherwise the text is final as it is).
pub fn expand_slurm_formats(fmt: &[u8], errno_at_call: i32) -> (Vec<u8>, bool) {
    let mut out = Vec::with_capacity(fmt.len());
    let mut rest = fmt;
    let mut other = false;
    loop {
        let Some(first) = rest.iter().position(|&c| c == b'%') else {
            out.extend_from_slice(rest);
            break;
        };
        // Find the first of our conversions, noting any other '%' met on the way.
        let mut p = Some(first);
        let mut ours = None;
        while let Some(at) = p {
            match rest.get(at + 1) {
                Some(b'm' | b't' | b'T' | b'M') => {
                    ours = Some(at);
                    break;
                }
                _ => other = true,
            }
            p = rest[at + 1..]
                .iter()
                .position(|&c| c == b'%')
                .map(|i| at + 1 + i);
        }
        let Some(at) = ours else {
            out.extend_from_slice(rest);
            break;
        };
        out.extend_from_slice(&rest[..at]);
        let text: Vec<u8> = match rest[at + 1] {
            b'm' => crate::errno::text(errno_at_call).into_bytes(),
            b't' => local_time(b"%x %X"),
            b'T' => local_time(b"%a, %d %b %Y %H:%M:%S %z"),
            _ => crate::xstring::timestamp(true, false).into_bytes(),
        };
        for &c in &text {
            if c == b'%' {
                out.extend_from_slice(b"%%");
            } else {
                out.push(c);
            }
        }
        rest = &rest[at + 2..];
    }
    (out, other)
}

fn local_time(fmt: &[u8]) -> Vec<u8> {
    let Ok(fmt) = CString::new(fmt) else {
        return Vec::new();
    };
    let mut buf = [0u8; 256];
    // SAFETY: time/localtime_r/strftime with valid buffers.
    unsafe {
        let t = libc::time(std::ptr::null_mut());
        let mut tm: libc::tm = std::mem::zeroed();
        libc::localtime_r(&t, &mut tm);
        let n = libc::strftime(
            buf.as_mut_ptr() as *mut c_char,
            buf.len(),
            fmt.as_ptr(),
            &tm,
        );
        buf[..n].to_vec()
    }
}

/// Called by variadic.c: the malloc'd format after [`expand_slurm_formats`], and in `*printf` whether it still
/// needs printf.
///
/// # Safety
/// `fmt` is a string; `printf` a writable int.
#[no_mangle]
pub unsafe extern "C" fn spur_log_expand(
    fmt: *const c_char,
    errno_at_call: c_int,
    printf: *mut c_int,
) -> *mut c_char {
    guard("log", std::ptr::null_mut(), || {
        // SAFETY: the caller's contract.
        let fmt = unsafe { c_bytes(fmt) }.unwrap_or(b"");
        let (out, other) = expand_slurm_formats(fmt, errno_at_call);
        if !printf.is_null() {
            // SAFETY: the caller's contract.
            unsafe { *printf = c_int::from(other) };
        }
        crate::xmem::bytes_or_abort(&out)
    })
}

/// # Safety
/// `prog` and `logfile` are NULL or strings.
#[no_mangle]
pub unsafe extern "C" fn slurm_log_init(
    prog: *mut c_char,
    opt: LogOptions,
    fac: c_int,
    logfile: *mut c_char,
) -> c_int {
    // SAFETY: the caller's contract.
    guard("slurm_log_init", -1, || unsafe {
        init_locked(&mut lock(), prog, opt, fac, logfile)
    })
}

/// As `slurm_log_init` keeping the program name.
///
/// # Safety
/// `logfile` is NULL or a string.
#[no_mangle]
pub unsafe extern "C" fn slurm_log_alter(
    opt: LogOptions,
    fac: c_int,
    logfile: *mut c_char,
) -> c_int {
    // SAFETY: the caller's contract.
    guard("slurm_log_alter", -1, || unsafe {
        init_locked(&mut lock(), std::ptr::null(), opt, fac, logfile)
    })
}

/// As `slurm_log_alter`, logging to the caller's open `fp` (closing the previous log file).
///
/// # Safety
/// `fp` is NULL or an open stream that stays open while logging uses it.
#[no_mangle]
pub unsafe extern "C" fn slurm_log_alter_with_fp(
    opt: LogOptions,
    fac: c_int,
    fp: *mut libc::FILE,
) -> c_int {
    guard("slurm_log_alter_with_fp", -1, || {
        let mut slot = lock();
        // SAFETY: NULL program and file; fp is the caller's.
        unsafe {
            let rc = init_locked(&mut slot, std::ptr::null(), opt, fac, std::ptr::null());
            if let Some(log) = slot.as_mut() {
                if !log.logfp.is_null() {
                    libc::fclose(log.logfp);
                }
                log.logfp = if !fp.is_null() && libc::fileno(fp) >= 0 {
                    fp
                } else {
                    std::ptr::null_mut()
                };
            }
            rc
        }
    })
}

/// Ends logging: closes the log file and forgets the settings (the next message sets up stderr-only logging).
#[no_mangle]
pub extern "C" fn slurm_log_fini() {
    guard("slurm_log_fini", (), || {
        let mut slot = lock();
        if let Some(log) = slot.take() {
            if !log.logfp.is_null() {
                // SAFETY: the file this module opened (or was handed).
                unsafe { libc::fclose(log.logfp) };
            }
            // SAFETY: frees the name log_init recorded.
            unsafe { spur_c_clear_prog_name() };
        }
    })
}

/// libslurm re-initialises its log mutex (after fork); Rust's needs nothing.
#[no_mangle]
pub extern "C" fn slurm_log_reinit() {}

/// Sets the prefix of log-file lines, taking ownership of `*prefix` (malloc'd) and clearing it.
///
/// # Safety
/// `prefix` is NULL or points to NULL or a malloc'd string.
#[no_mangle]
pub unsafe extern "C" fn slurm_log_set_fpfx(prefix: *mut *mut c_char) {
    guard("slurm_log_set_fpfx", (), || {
        let mut slot = lock();
        // SAFETY: the caller's contract.
        unsafe {
            let taken = if prefix.is_null() || (*prefix).is_null() {
                Vec::new()
            } else {
                let v = c_bytes(*prefix).unwrap_or(b"").to_vec();
                libc::free(*prefix as *mut c_void);
                *prefix = std::ptr::null_mut();
                v
            };
            if let Some(log) = slot.as_mut() {
                log.fpfx = taken;
            }
        }
    })
}

/// The log file's stream, or stderr when there is none.
#[no_mangle]
pub extern "C" fn slurm_log_fp() -> *mut libc::FILE {
    guard("slurm_log_fp", std::ptr::null_mut(), || {
        let slot = lock();
        match slot.as_ref() {
            Some(log) if !log.logfp.is_null() => log.logfp,
            // SAFETY: returns C's stderr stream.
            _ => unsafe { spur_c_stderr() },
        }
    })
}

/// # Safety
/// `file` and `func` are NULL or strings.
#[no_mangle]
pub unsafe extern "C" fn slurm_log_oom(file: *const c_char, line: c_int, func: *const c_char) {
    guard("slurm_log_oom", (), || {
        // SAFETY: the caller's contract.
        let text =
            |p| unsafe { crate::ffi::opt_str(p) }.map_or("(null)".to_string(), |s| s.into_owned());
        log_oom_line(&format!(
            "{}:{line}: {}: malloc failed",
            text(file),
            text(func)
        ));
    })
}

/// Lines are written at once, so nothing is ever waiting.
#[no_mangle]
pub extern "C" fn slurm_log_has_data() -> bool {
    false
}

/// Nothing is buffered here; flushes the log file's stream.
#[no_mangle]
pub extern "C" fn slurm_log_flush() {
    guard("slurm_log_flush", (), || {
        let slot = lock();
        if let Some(log) = slot.as_ref() {
            if !log.logfp.is_null() {
                // SAFETY: the open log file.
                unsafe { libc::fflush(log.logfp) };
            }
        }
    })
}

#[no_mangle]
pub extern "C" fn slurm_get_log_level() -> c_int {
    HIGHEST.load(Ordering::SeqCst)
}

/// The scheduler log (`sched_log_init`) is not part of libslurm's exports, so it is never on in a client: this
/// is the plain log level.
#[no_mangle]
pub extern "C" fn slurm_get_sched_log_level() -> c_int {
    HIGHEST.load(Ordering::SeqCst).max(LEVEL_QUIET)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slurm_conversions_expand_before_printf() {
        let (out, other) = expand_slurm_formats(b"open: %m", 2);
        assert_eq!(
            String::from_utf8_lossy(&out),
            "open: No such file or directory"
        );
        assert!(!other);
        let (out, other) = expand_slurm_formats(b"%s: %m (%d)", 2017);
        assert_eq!(
            String::from_utf8_lossy(&out),
            "%s: Invalid job id specified (%d)"
        );
        assert!(other);
        let (out, other) = expand_slurm_formats(b"100%% done", 0);
        assert_eq!((out.as_slice(), other), (&b"100%% done"[..], true));
        assert_eq!(
            expand_slurm_formats(b"plain", 0),
            (b"plain".to_vec(), false)
        );
    }

    #[test]
    fn level_words() {
        assert_eq!(prefix(LEVEL_ERROR, false, false).0, "error: ");
        assert_eq!(prefix(LEVEL_DEBUG, false, false).0, "debug:  ");
        assert_eq!(prefix(LEVEL_INFO, false, false).0, "");
        assert_eq!(prefix(42, false, false).0, "internal error: ");
    }
}
