//! `spur`: one binary for every Slurm command. The name it is called by (`sbatch` as a symlink) or, when called as
//! `spur`, its first argument picks the command, so `spur sbatch job.sh` and `sbatch job.sh` behave the same.

mod client;
mod commands;
mod config;

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;

/// The Slurm commands this binary answers to, for symlink installation and `spur --list`.
pub const COMMANDS: &[&str] = &[
    "sacct",
    "sacctmgr",
    "salloc",
    "sattach",
    "sbatch",
    "sbcast",
    "scancel",
    "scontrol",
    "seff",
    "sinfo",
    "slurmrestd",
    "sprio",
    "squeue",
    "sreport",
    "srun",
    "sshare",
    "sstat",
    "strigger",
];

/// The Slurm release whose behaviour Spur reproduces, as `--version` prints it.
pub const SLURM_VERSION: &str = "22.05.8";

/// What every command's `--version` prints: Debian's Slurm packages call themselves `slurm-wlm`.
pub fn version_line() -> String {
    format!("slurm-wlm {SLURM_VERSION}")
}

/// `spur conformance ...`: the side-by-side suite (`spur-conformance`, installed beside `spur`), so a site checks
/// its own scripts against its live Slurm with `spur conformance against ...`.
fn run_conformance(args: &[OsString]) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join("spur-conformance")))
        .filter(|path| path.is_file());
    let program = beside.unwrap_or_else(|| "spur-conformance".into());
    let error = std::process::Command::new(&program).args(args).exec();
    eprintln!(
        "spur: cannot run {}: {error}; build it with `cargo build -p spur-conformance`",
        program.display()
    );
    ExitCode::from(1)
}

/// The commands that run a session of their own (I/O forwarding, a terminal, a server) rather than print a
/// report and exit.
const SESSION_COMMANDS: &[&str] = &["salloc", "sattach", "slurmrestd", "srun"];

/// Slurm's commands are C programs: one whose output goes to a pipe that closes early (`squeue | head`) ends
/// quietly, killed by SIGPIPE. Rust starts with SIGPIPE ignored, so the next print would panic with a backtrace
/// instead. The session commands keep it ignored: their async sockets write with `writev`, which a peer's close
/// would otherwise turn into a kill.
fn end_quietly_on_closed_output(command: &str) {
    if SESSION_COMMANDS.contains(&command) {
        return;
    }
    use nix::sys::signal::{signal, SigHandler, Signal};
    // SAFETY: the default disposition installs no handler; this runs first in main, before any thread exists.
    let _ = unsafe { signal(Signal::SIGPIPE, SigHandler::SigDfl) };
}

fn main() -> ExitCode {
    let mut args: Vec<OsString> = std::env::args_os().collect();
    let invoked = args
        .first()
        .and_then(|a| Path::new(a).file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "spur".to_string());
    let command = if COMMANDS.contains(&invoked.as_str()) {
        invoked
    } else {
        args.remove(0);
        match args.first().map(|a| a.to_string_lossy().into_owned()) {
            Some(name) if name == "--list" => {
                end_quietly_on_closed_output("--list");
                for c in COMMANDS {
                    println!("{c}");
                }
                return ExitCode::SUCCESS;
            }
            Some(name) if COMMANDS.contains(&name.as_str()) => name,
            Some(name) if name == "conformance" => return run_conformance(&args[1..]),
            Some(name) if name == "admin" => {
                let rest: Vec<String> = args[1..]
                    .iter()
                    .map(|a| a.to_string_lossy().into_owned())
                    .collect();
                return ExitCode::from(commands::admin::run(&rest));
            }
            Some(name) if name == "migrate" => {
                let rest: Vec<String> = args[1..]
                    .iter()
                    .map(|a| a.to_string_lossy().into_owned())
                    .collect();
                return ExitCode::from(commands::migrate::run(&rest));
            }
            Some(name) => {
                eprintln!(
                    "spur: unknown command '{name}'; one of: {}",
                    COMMANDS.join(" ")
                );
                return ExitCode::from(1);
            }
            None => {
                eprintln!(
                    "usage: spur <command> [args...]; commands: {}",
                    COMMANDS.join(" ")
                );
                return ExitCode::from(1);
            }
        }
    };
    let args: Vec<String> = args
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    end_quietly_on_closed_output(&command);
    let code = commands::run(&command, &args);
    ExitCode::from(code)
}
