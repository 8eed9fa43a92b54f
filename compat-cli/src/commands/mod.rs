//! One module per Slurm command; each takes its arguments and returns the process exit code.

pub mod admin;
mod interactive;
mod rest;
pub mod sacct;
pub mod sacctmgr;
mod sacctmgr_parse;
pub mod salloc;
pub mod sattach;
pub mod sbatch;
pub mod scancel;
pub mod scontrol;
mod scontrol_node;
mod scontrol_ops;
mod scontrol_part;
mod scontrol_resv;
pub mod sinfo;
pub mod sprio;
pub mod squeue;
pub mod srun;
pub mod sshare;
pub mod sstat;

pub fn run(command: &str, args: &[String]) -> u8 {
    match command {
        "sacct" => sacct::run(args),
        "sacctmgr" => sacctmgr::run(args),
        "salloc" => salloc::run(args),
        "sattach" => sattach::run(args),
        "sbatch" => sbatch::run(args),
        "scancel" => scancel::run(args),
        "scontrol" => scontrol::run(args),
        "sinfo" => sinfo::run(args),
        "sprio" => sprio::run(args),
        "squeue" => squeue::run(args),
        "sshare" => sshare::run(args),
        "srun" => srun::run(args),
        "sstat" => sstat::run(args),
        "slurmrestd" => rest::run(args),
        _ => 1,
    }
}

/// Hands a listing's records to the end of the process instead of freeing them: each command prints one listing
/// and exits, and freeing 100,000 decoded records one allocation at a time costs tens of milliseconds that the
/// exit does for nothing.
fn release_at_exit<T>(records: T) {
    std::mem::forget(records);
}
