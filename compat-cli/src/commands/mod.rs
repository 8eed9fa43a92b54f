//! One module per Slurm command; each takes its arguments and returns the process exit code.

pub mod admin;
mod interactive;
pub mod migrate;
mod rest;
pub mod sacct;
mod sacct_select;
pub mod sacctmgr;
mod sacctmgr_file;
mod sacctmgr_job;
mod sacctmgr_parse;
pub mod salloc;
pub mod sattach;
pub mod sbatch;
pub mod sbcast;
pub mod scancel;
pub mod scontrol;
mod scontrol_node;
mod scontrol_ops;
mod scontrol_part;
mod scontrol_resv;
pub mod seff;
pub mod sinfo;
pub mod sprio;
pub mod squeue;
pub mod sreport;
mod sreport_assoc;
mod sreport_shell;
pub mod srun;
pub mod sshare;
pub mod sstat;
pub mod strigger;

pub fn run(command: &str, args: &[String]) -> u8 {
    match command {
        "sacct" => sacct::run(args),
        "sacctmgr" => sacctmgr::run(args),
        "salloc" => salloc::run(args),
        "sattach" => sattach::run(args),
        "sbcast" => sbcast::run(args),
        "sbatch" => sbatch::run(args),
        "scancel" => scancel::run(args),
        "scontrol" => scontrol::run(args),
        "sinfo" => sinfo::run(args),
        "sprio" => sprio::run(args),
        "squeue" => squeue::run(args),
        "sreport" => sreport::run(args),
        "sshare" => sshare::run(args),
        "srun" => srun::run(args),
        "sstat" => sstat::run(args),
        "strigger" => strigger::run(args),
        "seff" => seff::run(args),
        "slurmrestd" => rest::run(args),
        _ => 1,
    }
}

/// The start every query command shares: parse `args` with the command's option table and the input environment
/// variables its rows name, print a getopt error (exit 1) or, for `-V/--version`, the version line (exit 0).
/// `Err` holds the status the command ends with.
fn parse_or_finish(
    table: &spur_core::grammar::options::query::QueryTable,
    args: &[String],
) -> Result<spur_core::grammar::options::query::Parsed, u8> {
    let parsed = table.parse_env(args, &process_env()).map_err(|e| {
        eprintln!("{e}");
        1
    })?;
    for error in &parsed.env_errors {
        eprintln!("{}: error: {error}", table.program);
    }
    if parsed.has("version") {
        println!("{}", crate::version_line());
        return Err(0);
    }
    Ok(parsed)
}

/// Hands a listing's records to the end of the process instead of freeing them: each command prints one listing
/// and exits, and freeing 100,000 decoded records one allocation at a time costs tens of milliseconds that the
/// exit does for nothing.
fn release_at_exit<T>(records: T) {
    std::mem::forget(records);
}

/// A listing's rows with its head: the controller's clock and each job owner once (uid, gid).
type LoadedRows = (crate::client::ListingReply, i64, Vec<(u32, u32)>);

/// The rows of `fields` of a listing with its head, or the exit code after slurm_load_jobs' error line.
fn load_job_rows(
    client: &crate::client::Client,
    listing: spur_core::wire::api::JobListing,
    fields: &[spur_core::wire::listing_rows::ListField],
) -> Result<LoadedRows, u8> {
    let listed = client
        .job_rows(listing, fields)
        .and_then(|reply| reply.head().map(|(now, owners)| (reply, now, owners)));
    listed.map_err(|e| {
        eprintln!("slurm_load_jobs error: {e}");
        1
    })
}

/// The process's environment, for the option tables' input variables (names or values that are not UTF-8 are
/// left out: no variable the tables name can be one).
pub(crate) fn process_env() -> std::collections::HashMap<String, String> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}
