//! spurstepd: Spur's per-job supervisor. Usage: `spurstepd <job_dir>` for a batch job (see the `spur_stepd`
//! library), `spurstepd --step` with a step launch on stdin for one node's tasks of an srun step.

fn main() {
    let code = if std::env::args_os().nth(1).is_some_and(|a| a == "--step") {
        spur_stepd::step_tasks::main_entry()
    } else {
        spur_stepd::daemon::main_entry(std::env::args_os())
    };
    std::process::exit(code);
}
