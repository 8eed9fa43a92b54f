//! Device confinement on cgroup v2, which has no devices controller: a tiny eBPF program of type
//! `BPF_PROG_TYPE_CGROUP_DEVICE` attached to the job's cgroup refuses the listed device nodes and allows
//! everything else (the same policy the v1 `devices.deny` rules express). The program is assembled here and
//! loaded with the raw `bpf(2)` system call, so no BPF toolchain or library is needed.
//!
//! The kernel passes the program a `struct bpf_cgroup_dev_ctx { u32 access_type; u32 major; u32 minor; }`,
//! where the low 16 bits of `access_type` are the device type (1 block, 2 char); returning 0 denies the access.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::Path;

/// One device rule: type (`BPF_DEVCG_DEV_BLOCK` 1, `BPF_DEVCG_DEV_CHAR` 2), major, minor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Device {
    pub kind: u32,
    pub major: u32,
    pub minor: u32,
}

pub(crate) const DEV_BLOCK: u32 = 1;
pub(crate) const DEV_CHAR: u32 = 2;

const BPF_PROG_LOAD: libc::c_long = 5;
const BPF_PROG_ATTACH: libc::c_long = 8;
const BPF_PROG_TYPE_CGROUP_DEVICE: u32 = 15;
const BPF_CGROUP_DEVICE: u32 = 6;
/// Lets programs of parent cgroups (systemd's, for instance) keep running alongside ours.
const BPF_F_ALLOW_MULTI: u32 = 2;

/// Most devices one program denies: each costs five instructions, far below the verifier's limits.
pub(crate) const MAX_DEVICES: usize = 1024;

/// `struct bpf_insn`: opcode, registers (dst low nibble, src high nibble), offset, immediate.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Insn {
    code: u8,
    regs: u8,
    off: i16,
    imm: i32,
}

const fn insn(code: u8, dst: u8, src: u8, off: i16, imm: i32) -> Insn {
    Insn {
        code,
        regs: (src << 4) | (dst & 0x0f),
        off,
        imm,
    }
}

/// `r{dst} = *(u32 *)(r{src} + off)`
const fn load_u32(dst: u8, src: u8, off: i16) -> Insn {
    insn(0x61, dst, src, off, 0)
}
/// `r{dst} &= imm`
const fn and_imm(dst: u8, imm: i32) -> Insn {
    insn(0x57, dst, 0, 0, imm)
}
/// `if r{dst} != imm goto +off`
const fn jne_imm(dst: u8, imm: i32, off: i16) -> Insn {
    insn(0x55, dst, 0, off, imm)
}
/// `r{dst} = imm`
const fn mov_imm(dst: u8, imm: i32) -> Insn {
    insn(0xb7, dst, 0, 0, imm)
}
const EXIT: Insn = insn(0x95, 0, 0, 0, 0);

/// The program: compare (type, major, minor) with each denied device, return 0 on a match, 1 otherwise.
fn program(denied: &[Device]) -> Vec<Insn> {
    let mut prog = vec![
        load_u32(2, 1, 0),
        and_imm(2, 0xffff),
        load_u32(3, 1, 4),
        load_u32(4, 1, 8),
    ];
    for d in denied {
        // Immediates are sign-extended 32-bit values; device numbers fit (majors < 2^12, minors < 2^20).
        let (kind, major, minor) = (d.kind as i32, d.major as i32, d.minor as i32);
        prog.extend([
            jne_imm(2, kind, 4),
            jne_imm(3, major, 3),
            jne_imm(4, minor, 2),
            mov_imm(0, 0),
            EXIT,
        ]);
    }
    prog.extend([mov_imm(0, 1), EXIT]);
    prog
}

/// The leading fields of `union bpf_attr` for `BPF_PROG_LOAD`; the kernel takes a shorter attr as zero-filled.
#[repr(C)]
struct ProgLoadAttr {
    prog_type: u32,
    insn_cnt: u32,
    insns: u64,
    license: u64,
    log_level: u32,
    log_size: u32,
    log_buf: u64,
    kern_version: u32,
    prog_flags: u32,
    prog_name: [u8; 16],
    prog_ifindex: u32,
    expected_attach_type: u32,
}

/// The fields of `union bpf_attr` for `BPF_PROG_ATTACH`.
#[repr(C)]
struct ProgAttachAttr {
    target_fd: u32,
    attach_bpf_fd: u32,
    attach_type: u32,
    attach_flags: u32,
    replace_bpf_fd: u32,
}

fn bpf<T>(cmd: libc::c_long, attr: &mut T) -> io::Result<libc::c_long> {
    // SAFETY: attr is a live, correctly laid out bpf_attr prefix of the given size; the kernel reads it (and for
    // PROG_LOAD the instruction, license and log buffers it points to, which outlive the call).
    let rc = unsafe { libc::syscall(libc::SYS_bpf, cmd, attr as *mut T, std::mem::size_of::<T>()) };
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(rc)
    }
}

/// Loads a program denying `denied` and attaches it to the cgroup directory `dir`. The cgroup keeps the program
/// alive; it goes away with the cgroup.
pub(crate) fn deny_devices(dir: &Path, denied: &[Device]) -> io::Result<()> {
    if denied.len() > MAX_DEVICES {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("more than {MAX_DEVICES} devices to deny"),
        ));
    }
    let insns = program(denied);
    let license = c"GPL";
    let mut log = vec![0u8; 4096];
    let mut name = [0u8; 16];
    name[..9].copy_from_slice(b"spur_devs");
    let mut load = ProgLoadAttr {
        prog_type: BPF_PROG_TYPE_CGROUP_DEVICE,
        insn_cnt: u32::try_from(insns.len()).unwrap_or(u32::MAX),
        insns: insns.as_ptr() as u64,
        license: license.as_ptr() as u64,
        log_level: 1,
        log_size: u32::try_from(log.len()).unwrap_or(0),
        log_buf: log.as_mut_ptr() as u64,
        kern_version: 0,
        prog_flags: 0,
        prog_name: name,
        prog_ifindex: 0,
        expected_attach_type: BPF_CGROUP_DEVICE,
    };
    let prog_fd = bpf(BPF_PROG_LOAD, &mut load).map_err(|e| {
        let text = String::from_utf8_lossy(&log);
        let detail = text.trim_end_matches('\0').trim();
        if detail.is_empty() {
            e
        } else {
            io::Error::new(e.kind(), format!("{e}: {detail}"))
        }
    })?;
    // SAFETY: a successful BPF_PROG_LOAD returns a new file descriptor that nothing else owns.
    let prog = unsafe { OwnedFd::from_raw_fd(i32::try_from(prog_fd).unwrap_or(-1)) };
    let cgroup = std::fs::File::open(dir)?;
    let mut attach = ProgAttachAttr {
        target_fd: u32::try_from(cgroup.as_raw_fd()).unwrap_or(u32::MAX),
        attach_bpf_fd: u32::try_from(prog.as_raw_fd()).unwrap_or(u32::MAX),
        attach_type: BPF_CGROUP_DEVICE,
        attach_flags: BPF_F_ALLOW_MULTI,
        replace_bpf_fd: 0,
    };
    bpf(BPF_PROG_ATTACH, &mut attach)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn program_shape() {
        let p = program(&[Device {
            kind: DEV_CHAR,
            major: 195,
            minor: 1,
        }]);
        assert_eq!(p.len(), 4 + 5 + 2);
        assert_eq!(p[4], insn(0x55, 2, 0, 4, 2));
        assert_eq!(p[5], insn(0x55, 3, 0, 3, 195));
        assert_eq!(p[6], insn(0x55, 4, 0, 2, 1));
        assert_eq!(p[9], mov_imm(0, 1));
        assert_eq!(p.last(), Some(&EXIT));
        assert_eq!(std::mem::size_of::<Insn>(), 8);
        assert_eq!(insn(0x61, 2, 1, 0, 0).regs, 0x12);
    }
}
