//! The exported names of libslurm's variadic functions (`slurm_error`, `slurm_info`, `slurm_log_var`,
//! `slurm_xstrdup_printf`, ...). Stable Rust cannot define a C-variadic function, and a cdylib exports only the
//! symbols rustc knows of, so each export here is a naked function that jumps to its C body in `variadic.c`
//! (`spur_va_<name>`) with the caller's registers and stack as they were: the C function sees exactly the call the
//! program made. Each is written out (not macro-generated) so that build.rs's scan lists it.

#[cfg(target_arch = "x86_64")]
macro_rules! jump {
    ($target:ident) => {
        core::arch::naked_asm!("jmp {}", sym $target)
    };
}
#[cfg(target_arch = "aarch64")]
macro_rules! jump {
    ($target:ident) => {
        core::arch::naked_asm!("b {}", sym $target)
    };
}

extern "C" {
    fn spur_va_slurm_error();
    fn spur_va_slurm_info();
    fn spur_va_slurm_verbose();
    fn spur_va_slurm_debug();
    fn spur_va_slurm_debug2();
    fn spur_va_slurm_debug3();
    fn spur_va_slurm_debug4();
    fn spur_va_slurm_debug5();
    fn spur_va_slurm_sched_error();
    fn spur_va_slurm_sched_info();
    fn spur_va_slurm_sched_verbose();
    fn spur_va_slurm_log_var();
    fn spur_va_slurm_fatal();
    fn spur_va_slurm_fatal_abort();
    fn spur_va_slurm_spank_log();
    fn spur_va_slurm_xstrdup_printf();
    fn spur_va_slurm_xstrfmtcat();
    fn spur_va_slurm_xstrfmtcatat();
    fn spur_va_slurm_env_array_append_fmt();
    fn spur_va_slurm_env_array_overwrite_fmt();
    fn spur_va_slurm_env_array_overwrite_het_fmt();
    fn spur_va_slurm_setenvpf();
}

#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn slurm_error() {
    jump!(spur_va_slurm_error)
}

#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn slurm_info() {
    jump!(spur_va_slurm_info)
}

#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn slurm_verbose() {
    jump!(spur_va_slurm_verbose)
}

#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn slurm_debug() {
    jump!(spur_va_slurm_debug)
}

#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn slurm_debug2() {
    jump!(spur_va_slurm_debug2)
}

#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn slurm_debug3() {
    jump!(spur_va_slurm_debug3)
}

#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn slurm_debug4() {
    jump!(spur_va_slurm_debug4)
}

#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn slurm_debug5() {
    jump!(spur_va_slurm_debug5)
}

#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn slurm_sched_error() {
    jump!(spur_va_slurm_sched_error)
}

#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn slurm_sched_info() {
    jump!(spur_va_slurm_sched_info)
}

#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn slurm_sched_verbose() {
    jump!(spur_va_slurm_sched_verbose)
}

#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn slurm_log_var() {
    jump!(spur_va_slurm_log_var)
}

#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn slurm_fatal() {
    jump!(spur_va_slurm_fatal)
}

#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn slurm_fatal_abort() {
    jump!(spur_va_slurm_fatal_abort)
}

#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn slurm_spank_log() {
    jump!(spur_va_slurm_spank_log)
}

#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn slurm_xstrdup_printf() {
    jump!(spur_va_slurm_xstrdup_printf)
}

#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn slurm_xstrfmtcat() {
    jump!(spur_va_slurm_xstrfmtcat)
}

#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn slurm_xstrfmtcatat() {
    jump!(spur_va_slurm_xstrfmtcatat)
}

#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn slurm_env_array_append_fmt() {
    jump!(spur_va_slurm_env_array_append_fmt)
}

#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn slurm_env_array_overwrite_fmt() {
    jump!(spur_va_slurm_env_array_overwrite_fmt)
}

#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn slurm_env_array_overwrite_het_fmt() {
    jump!(spur_va_slurm_env_array_overwrite_het_fmt)
}

#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn slurm_setenvpf() {
    jump!(spur_va_slurm_setenvpf)
}
