//! libslurm's comma-list parsers that fill a caller's `List`: `slurm_addto_char_list[_with_case]` (names, with
//! quoting, `host[1-3]` expansion and duplicates moved to the end) and `slurm_addto_step_list`
//! (`job[_task|+offset][.step[+comp]]` into `slurm_selected_step_t` items). Both return how many new items they
//! added. Items are plain `malloc` memory, released by the list's destructor (or `slurm_xfree`).

use std::ffi::{c_char, c_int, c_void, CStr, CString};

use slurm_headers::{slurm_selected_step_t, List};
use spur_core::grammar::hostlist::Hostlist;

use crate::ffi::{c_calloc, c_string, guard, NO_VAL};
use crate::list;
use crate::print_misc::log_error;

const SLURM_BATCH_SCRIPT: u32 = 0xffff_fffb;
const SLURM_EXTERN_CONT: u32 = 0xffff_fffc;
const SLURM_INTERACTIVE_STEP: u32 = 0xffff_fffa;

/// libslurm's `fatal()`: the line, then the process exits with status 1.
fn fatal(message: &str) -> ! {
    crate::ffi::log_plain(&format!("{}: fatal: {message}", program_name()));
    std::process::exit(1)
}

fn program_name() -> String {
    std::env::args_os()
        .next()
        .and_then(|a| {
            std::path::Path::new(&a)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_default()
}

/// Adds one name as libslurm does: an existing item equal to it (any case) is deleted and the name appended at
/// the end (not counted); a new name is appended and counted.
///
/// # Safety
/// `l` is a live list of C strings.
unsafe fn add_name(l: List, name: &[u8], lower: bool, count: &mut c_int) {
    // SAFETY: the caller's contract: every item is a C string.
    let found = unsafe {
        list::delete_first(l, |x| {
            !x.is_null()
                && CStr::from_ptr(x as *const c_char)
                    .to_bytes()
                    .eq_ignore_ascii_case(name)
        })
    };
    if !found {
        *count += 1;
    }
    let mut text = name.to_vec();
    if lower {
        text.make_ascii_lowercase();
    }
    let item = c_string(&String::from_utf8_lossy(&text));
    // SAFETY: as above.
    unsafe { list::append(l, item as *mut c_void) };
}

/// `slurm_addto_char_list_with_case` on the bytes of `names`; the caller's quote characters inside the text are
/// replaced by backquotes in `names` itself, as libslurm does.
///
/// # Safety
/// `l` is a live list of C strings.
unsafe fn addto_char_list(l: List, names: &mut [u8], lower: bool) -> c_int {
    let mut count = 0;
    let mut i = 0;
    let mut quote = None;
    if matches!(names.first(), Some(b'"') | Some(b'\'')) {
        quote = names.first().copied();
        i = 1;
    }
    let mut start = i;
    // SAFETY: the caller's contract.
    let before = unsafe { list::count(l) };
    let (mut brack_not, mut first_brack) = (false, false);
    while i < names.len() {
        let c = names[i];
        if quote == Some(c) {
            break;
        } else if c == b'"' || c == b'\'' {
            names[i] = b'`';
        } else if c == b'[' {
            first_brack = true;
        } else if c == b',' && !first_brack {
            if !brack_not {
                // A trailing comma is ignored.
                if i + 1 == names.len() {
                    break;
                }
                if i != start {
                    // SAFETY: the caller's contract.
                    unsafe { add_name(l, &names[start..i], lower, &mut count) };
                }
                start = i + 1;
            } else {
                brack_not = false;
                start = i + 1;
            }
        } else if c == b']' {
            brack_not = true;
            first_brack = false;
            let expr = String::from_utf8_lossy(&names[start..=i]).into_owned();
            if let Ok(hosts) = Hostlist::parse(&expr) {
                for host in hosts.expand() {
                    // SAFETY: the caller's contract.
                    unsafe { add_name(l, host.as_bytes(), lower, &mut count) };
                    start = i + 1;
                }
            }
        }
        i += 1;
    }
    // An empty value (`user=''`) still adds one empty name when nothing else was added.
    // SAFETY: the caller's contract.
    if before == unsafe { list::count(l) } || i > start {
        let end = i.max(start);
        // SAFETY: the caller's contract.
        unsafe { add_name(l, &names[start..end], lower, &mut count) };
    }
    count
}

/// # Safety
/// `char_list` is NULL or a live list of C strings; `names` is NULL or a writable C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_addto_char_list_with_case(
    char_list: List,
    names: *mut c_char,
    lower_case_normalization: bool,
) -> c_int {
    guard("slurm_addto_char_list_with_case", 0, || {
        if char_list.is_null() {
            log_error("No list was given to fill in");
            return 0;
        }
        if names.is_null() {
            return 0;
        }
        // SAFETY: the caller's contract.
        let bytes = unsafe { CStr::from_ptr(names) }.to_bytes();
        let mut text = bytes.to_vec();
        // SAFETY: the caller's contract.
        let added = unsafe { addto_char_list(char_list, &mut text, lower_case_normalization) };
        for (at, (&old, &new)) in bytes.iter().zip(&text).enumerate() {
            if old != new {
                // SAFETY: a byte of the caller's writable string, rewritten as libslurm rewrites it.
                unsafe { *names.add(at) = new as c_char };
            }
        }
        added
    })
}

/// # Safety
/// As [`slurm_addto_char_list_with_case`].
#[no_mangle]
pub unsafe extern "C" fn slurm_addto_char_list(char_list: List, names: *mut c_char) -> c_int {
    // SAFETY: the caller's contract.
    guard("slurm_addto_char_list", 0, || unsafe {
        slurm_addto_char_list_with_case(char_list, names, true)
    })
}

/// `slurm_parse_step_str`: one `job[_task|+offset][.step[+comp]]` token (starting with a digit).
fn parse_step(token: &[u8]) -> slurm_selected_step_t {
    let text = String::from_utf8_lossy(token).into_owned();
    let c = |s: &str| CString::new(s).unwrap_or_default();
    // SAFETY: atoi/strtoul on NUL-terminated copies.
    let atoi = |s: &str| unsafe { libc::atoi(c(s).as_ptr()) };
    // SAFETY: as above.
    let atoul = |s: &str| unsafe { libc::strtoul(c(s).as_ptr(), std::ptr::null_mut(), 10) } as u32;
    let digit_first = |s: &str| s.as_bytes().first().is_some_and(u8::is_ascii_digit);
    // SAFETY: slurm_selected_step_t is plain integers, valid when zeroed.
    let mut step: slurm_selected_step_t = unsafe { std::mem::zeroed() };
    step.step_id.step_het_comp = NO_VAL;
    let (mut name, dot) = match text.split_once('.') {
        Some((n, d)) => (n.to_string(), Some(d.to_string())),
        None => (text.clone(), None),
    };
    let mut het_step = false;
    match dot {
        Some(dot) => {
            step.step_id.step_id = match dot.as_str() {
                "batch" => SLURM_BATCH_SCRIPT,
                "extern" => SLURM_EXTERN_CONT,
                "interactive" => SLURM_INTERACTIVE_STEP,
                d if digit_first(d) => atoi(d) as u32,
                _ => fatal(&format!("Bad step specified: {name}")),
            };
            if let Some((_, comp)) = dot.split_once('+') {
                het_step = true;
                step.step_id.step_het_comp = atoul(comp);
            }
        }
        None => step.step_id.step_id = NO_VAL,
    }
    if let Some((job, task)) = name.clone().split_once('_') {
        name = job.to_string();
        if !digit_first(task) {
            fatal(&format!("Bad job array element specified: {name}"));
        }
        step.array_task_id = atoi(task) as u32;
        step.het_job_offset = NO_VAL;
    } else if let Some((job, offset)) = name.clone().split_once('+').filter(|_| !het_step) {
        step.array_task_id = NO_VAL;
        name = job.to_string();
        if !digit_first(offset) {
            fatal(&format!("Bad hetjob offset specified: {name}"));
        }
        step.het_job_offset = atoi(offset) as u32;
    } else {
        step.array_task_id = NO_VAL;
        step.het_job_offset = NO_VAL;
    }
    step.step_id.job_id = atoi(&name) as u32;
    step
}

fn same_step(a: &slurm_selected_step_t, b: &slurm_selected_step_t) -> bool {
    a.step_id.job_id == b.step_id.job_id
        && a.step_id.step_het_comp == b.step_id.step_het_comp
        && a.step_id.step_id == b.step_id.step_id
        && a.array_task_id == b.array_task_id
        && a.het_job_offset == b.het_job_offset
}

/// Adds one step token; 1 when new, 0 when the list already holds the same step.
///
/// # Safety
/// `l` is a live list of `slurm_selected_step_t`.
unsafe fn add_step(l: List, token: &[u8]) -> c_int {
    if !token.first().is_some_and(u8::is_ascii_digit) {
        fatal(&format!(
            "Bad job/step specified: {}",
            String::from_utf8_lossy(token)
        ));
    }
    let step = parse_step(token);
    let mut present = false;
    // SAFETY: the caller's contract.
    unsafe {
        list::for_each(l, |x| {
            if !x.is_null() && same_step(&*(x as *const slurm_selected_step_t), &step) {
                present = true;
            }
        })
    };
    if present {
        return 0;
    }
    let item = c_calloc::<slurm_selected_step_t>(1);
    if item.is_null() {
        return 0;
    }
    // SAFETY: fresh allocation of one record; the list takes it.
    unsafe {
        *item = step;
        list::append(l, item as *mut c_void);
    }
    1
}

/// libslurm's `slurm_parse_char_list` tokenizer: optional leading quote (ending the text at its match), other
/// quotes read as backquotes, empty tokens skipped.
fn tokens(names: &[u8]) -> Vec<Vec<u8>> {
    let mut text = names.to_vec();
    let mut i = 0;
    let mut quote = None;
    if matches!(text.first(), Some(b'"') | Some(b'\'')) {
        quote = text.first().copied();
        i = 1;
    }
    let mut start = i;
    let mut out = Vec::new();
    while i < text.len() {
        let c = text[i];
        if quote == Some(c) {
            text.truncate(i);
            break;
        } else if c == b'"' || c == b'\'' {
            text[i] = b'`';
        } else if c == b',' {
            if i != start {
                out.push(text[start..i].to_vec());
            }
            start = i + 1;
        }
        i += 1;
    }
    if start < text.len() {
        out.push(text[start..].to_vec());
    }
    out
}

/// # Safety
/// `step_list` is NULL or a live list of `slurm_selected_step_t`; `names` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_addto_step_list(step_list: List, names: *mut c_char) -> c_int {
    guard("slurm_addto_step_list", 0, || {
        if step_list.is_null() {
            log_error("No list was given to fill in");
            return 0;
        }
        if names.is_null() {
            return 0;
        }
        // SAFETY: the caller's contract.
        let text = unsafe { CStr::from_ptr(names) }.to_bytes();
        tokens(text)
            .iter()
            // SAFETY: the caller's contract.
            .map(|t| unsafe { add_step(step_list, t) })
            .sum()
    })
}

/// Adds `name` unless an equal item (any case) is there; 1 when added.
///
/// # Safety
/// `l` is a live list of C strings.
unsafe fn add_unique(l: List, name: &str) -> c_int {
    let mut present = false;
    // SAFETY: the caller's contract: every item is a C string.
    unsafe {
        list::for_each(l, |x| {
            if !x.is_null()
                && CStr::from_ptr(x as *const c_char)
                    .to_bytes()
                    .eq_ignore_ascii_case(name.as_bytes())
            {
                present = true;
            }
        })
    };
    if present {
        return 0;
    }
    // SAFETY: the caller's contract.
    unsafe { list::append(l, c_string(name) as *mut c_void) };
    1
}

/// libslurm's `uid_from_string`/`gid_from_string`: a user (group) name, or a number naming an existing one.
fn id_from_string(name: &str, gid: bool) -> Option<u32> {
    use nix::unistd::{Gid, Group, Uid, User};
    let by_name = if gid {
        Group::from_name(name)
            .ok()
            .flatten()
            .map(|g| g.gid.as_raw())
    } else {
        User::from_name(name).ok().flatten().map(|u| u.uid.as_raw())
    };
    if by_name.is_some() {
        return by_name;
    }
    // strtol's rules: optional leading blanks and sign, all of the rest digits, 0..=INT_MAX.
    let n: i64 = name.trim_start().parse().ok()?;
    let n = u32::try_from(n).ok().filter(|&n| n <= i32::MAX as u32)?;
    let exists = if gid {
        Group::from_gid(Gid::from_raw(n)).ok().flatten().is_some()
    } else {
        User::from_uid(Uid::from_raw(n)).ok().flatten().is_some()
    };
    exists.then_some(n)
}

/// Runs `add` on each token as `slurm_parse_char_list` does: the sum of its results, or `SLURM_ERROR` at the
/// first token it refuses.
fn each_token(names: &[u8], mut add: impl FnMut(&str) -> c_int) -> c_int {
    let mut count = 0;
    for token in tokens(names) {
        let rc = add(&String::from_utf8_lossy(&token));
        if rc == crate::ffi::SLURM_ERROR {
            return rc;
        }
        count += rc;
    }
    count
}

/// Adds the uid (or gid) of each name; an unknown one logs `Invalid user id: NAME` (`group`), empties the list
/// and fails with -1.
///
/// # Safety
/// `char_list` is NULL or a live list of C strings; `names` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_addto_id_char_list(
    char_list: List,
    names: *mut c_char,
    gid: bool,
) -> c_int {
    guard("slurm_addto_id_char_list", 0, || {
        if char_list.is_null() {
            log_error("No list was given to fill in");
            return 0;
        }
        if names.is_null() {
            return 0;
        }
        // SAFETY: the caller's contract.
        let text = unsafe { CStr::from_ptr(names) }.to_bytes();
        each_token(text, |name| match id_from_string(name, gid) {
            // SAFETY: the caller's contract.
            Some(id) => unsafe { add_unique(char_list, &id.to_string()) },
            None => {
                let kind = if gid { "group" } else { "user" };
                log_error(&format!("Invalid {kind} id: {name}"));
                // SAFETY: the caller's contract.
                unsafe { list::flush(char_list) };
                crate::ffi::SLURM_ERROR
            }
        })
    })
}

/// Adds each name with its mode prefix (`+name`, `-name`, or `mode` when it has none, e.g. `+`); a list mixing
/// prefixed and plain names logs libslurm's error, empties the list and fails with -1.
///
/// # Safety
/// `char_list` is NULL or a live list of C strings; `names` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_addto_mode_char_list(
    char_list: List,
    names: *mut c_char,
    mode: c_int,
) -> c_int {
    guard("slurm_addto_mode_char_list", 0, || {
        if char_list.is_null() {
            log_error("No list was given to fill in");
            return 0;
        }
        if names.is_null() {
            return 0;
        }
        // SAFETY: the caller's contract.
        let text = unsafe { CStr::from_ptr(names) }.to_bytes();
        let (mut add_set, mut equal_set) = (false, false);
        let refuse = || {
            log_error("You can't use '=' and '+' or '-' in the same line");
            // SAFETY: the caller's contract.
            unsafe { list::flush(char_list) };
            crate::ffi::SLURM_ERROR
        };
        each_token(text, |name| {
            let (tmp_mode, rest) = match name.as_bytes().first() {
                Some(&c @ (b'+' | b'-')) => (c_int::from(c), &name[1..]),
                _ => (mode, name),
            };
            let item = if tmp_mode != 0 {
                if equal_set {
                    return refuse();
                }
                add_set = true;
                // printf's %c: the mode's low byte.
                format!("{}{rest}", char::from(tmp_mode as u8))
            } else {
                if add_set {
                    return refuse();
                }
                equal_set = true;
                rest.to_string()
            };
            // SAFETY: the caller's contract.
            unsafe { add_unique(char_list, &item) }
        })
    })
}

/// Parses one `job[_task|+offset][.step[+comp]]` id into a new (malloc'd) `slurm_selected_step_t`, cutting
/// `name` at its first separator as libslurm does; a malformed id is fatal.
///
/// # Safety
/// `name` is a writable C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_parse_step_str(name: *mut c_char) -> *mut slurm_selected_step_t {
    guard("slurm_parse_step_str", std::ptr::null_mut(), || {
        if name.is_null() {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's contract.
        let bytes = unsafe { CStr::from_ptr(name) }.to_bytes().to_vec();
        let step = parse_step(&bytes);
        let item = c_calloc::<slurm_selected_step_t>(1);
        if item.is_null() {
            return item;
        }
        // libslurm writes NULs at the '.', then at a '_' (or the job's '+') before it.
        let dot = bytes.iter().position(|&b| b == b'.');
        let job = &bytes[..dot.unwrap_or(bytes.len())];
        let het_step = dot.is_some_and(|d| bytes[d..].contains(&b'+'));
        let cut = job.iter().position(|&b| b == b'_').or_else(|| {
            (!het_step)
                .then(|| job.iter().position(|&b| b == b'+'))
                .flatten()
        });
        // SAFETY: positions inside the caller's string; the record is fresh.
        unsafe {
            if let Some(d) = dot {
                *name.add(d) = 0;
            }
            if let Some(c) = cut {
                *name.add(c) = 0;
            }
            *item = step;
        }
        item
    })
}
