//! spurstepd: Spur's per-job supervisor. Usage: `spurstepd <job_dir>`; see the `spur_stepd` library.

fn main() {
    std::process::exit(spur_stepd::daemon::main_entry(std::env::args_os()));
}
