//! srun's MPI plugin selection (docs/mpi.md): `--mpi` (or `SLURM_MPI_TYPE`), else slurm.conf `MpiDefault`;
//! `--mpi=list`; Slurm's errors for a type Spur does not have; what srun adds to the step's environment.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::{Duration, Instant};

use spur_core::wire::api::{ControlReply, SlurmErrno};

use crate::client::ClientError;

use spur_core::grammar::options::{OptId, OptionSet};
use spur_core::model::mpi::{self, MpiType};

/// Whether this build's step supervisors host a PMIx server (pmix-plugin/, linked into spurstepd). Without it
/// `pmix` and `pmix_v4` would be unknown types, as in a Slurm whose mpi_pmix.so is missing.
pub const PMIX_BUILT: bool = true;

/// What `srun --mpi=list` prints on stdout (Slurm's plugin rack listing) for the plugins this build has.
pub fn list_text() -> String {
    if PMIX_BUILT {
        return mpi::list_text();
    }
    let mut text = String::from("MPI plugin types are...\n");
    for plugin in mpi::AVAILABLE.iter().filter(|p| !p.is_pmix()) {
        text.push('\t');
        text.push_str(plugin.name());
        text.push('\n');
    }
    text
}

/// The step's plugin is pmix (set once srun has chosen it), and the code a pmix task aborted the step with.
static PMIX_STEP: AtomicBool = AtomicBool::new(false);
static ABORT_CODE: AtomicI32 = AtomicI32::new(0);

/// Records srun's plugin for [`record_abort`].
pub fn set_plugin(plugin: MpiType) {
    PMIX_STEP.store(plugin.is_pmix(), Ordering::SeqCst);
}

/// A task aborted the step with `code` (`MPI_Abort`). Slurm's pmix plugin hands srun the abort's code, which
/// becomes srun's exit code instead of the killed tasks' status; its pmi2 plugin does not.
pub fn record_abort(code: i32) {
    if PMIX_STEP.load(Ordering::SeqCst) && code != 0 {
        ABORT_CODE.store(code, Ordering::SeqCst);
    }
}

/// The exit code a pmix abort gives srun, if one happened.
pub fn abort_code() -> Option<i32> {
    Some(ABORT_CODE.load(Ordering::SeqCst)).filter(|&c| c != 0)
}

/// `--mpi=list`, from the option or `SLURM_MPI_TYPE`.
pub fn wants_list(set: &OptionSet) -> bool {
    set.value(OptId::Mpi) == Some("list")
}

/// The step's plugin: the option (or its variable), else `MpiDefault`; Slurm's error lines for one this build
/// does not have.
pub fn select(set: &OptionSet, mpi_default: Option<&str>) -> Result<MpiType, Vec<String>> {
    let name = set
        .value(OptId::Mpi)
        .or(mpi_default)
        .unwrap_or("none")
        .to_string();
    // Slurm has dropped its openmpi plugin, which did nothing, and takes the name as none.
    let name = if name == "openmpi" {
        "none".to_string()
    } else {
        name
    };
    match MpiType::parse(&name) {
        Some(plugin) if PMIX_BUILT || !plugin.is_pmix() => Ok(plugin),
        _ => Err(unknown_lines(&name)),
    }
}

/// Slurm's srun error lines (after `srun: error: `) for a type whose plugin cannot be loaded (exit code 1).
pub fn unknown_lines(name: &str) -> Vec<String> {
    vec![
        format!("Couldn't find the specified plugin name for mpi/{name} looking at all files"),
        format!("cannot find mpi plugin for mpi/{name}"),
        format!("MPI: Cannot create context for mpi/{name}"),
        "MPI: Unable to load any plugin".to_string(),
        format!("Invalid MPI type '{name}', --mpi=list for acceptable types"),
    ]
}

/// What srun adds to the step's environment: `SLURM_MPI_TYPE` (Slurm's srun sets it in its own environment, so
/// every task sees it; slurmstepd takes `none` out again, so a step without a plugin shows none), and for pmi2 the
/// process mapping and node list the supervisors read and take out (pmi2's and pmix's servers both use them).
pub fn add_env(env: &mut Vec<(String, String)>, plugin: MpiType, mapping: &str, step_nodes: &str) {
    let mut set = |key: &str, value: &str| match env.iter_mut().find(|(k, _)| k == key) {
        Some(slot) => slot.1 = value.to_string(),
        None => env.push((key.to_string(), value.to_string())),
    };
    if plugin == MpiType::None {
        env.retain(|(k, _)| k != "SLURM_MPI_TYPE");
        return;
    }
    set("SLURM_MPI_TYPE", plugin.name());
    if plugin != MpiType::None {
        set("SLURM_PMI2_PROC_MAPPING", mapping);
        set("SLURM_PMI2_STEP_NODES", step_nodes);
    }
}

/// `--resv-ports[=N]` (or `SLURM_RESV_PORTS`) as the step request carries it: `Some(0)` without a count (no ports,
/// whatever `MpiParams` says, as Slurm's srun sends it), `None` when not given (the controller decides).
pub fn resv_port_cnt(set: &OptionSet) -> Option<u16> {
    if !set.is_set(OptId::ResvPorts) {
        return None;
    }
    match set.value(OptId::ResvPorts).map(str::trim) {
        None | Some("") => Some(0),
        // The option table has checked that it is a number; Slurm keeps the low 16 bits of a larger one.
        Some(n) => Some(n.parse::<u64>().map_or(0, |n| (n & 0xffff) as u16)),
    }
}

/// How srun gives up on a step whose ports are busy: `--immediate` (`Some(0)`: at once; `Some(secs)`: after that
/// long, 1 being at once too as in Slurm), else never.
pub type ImmediateSecs = Option<u64>;

/// Creates the step with `create`, and while the controller answers that the ports it needs are in use, waits and
/// asks again as Slurm's srun does: `srun: Job J step creation temporarily disabled, retrying (Required ports are
/// in use)` the first time, `... still disabled ...` after that, `srun: Step created for job J` once it is made.
/// slurmctld wakes no srun when ports are released, so Slurm's srun sleeps its step wait (60 to 69 s with the
/// default `SlurmctldTimeout`, at most 309 s) between tries; so does this one. `--immediate` ends the wait with
/// the error.
pub fn create_retrying_busy_ports(
    job_id: u32,
    immediate: ImmediateSecs,
    mut create: impl FnMut() -> Result<ControlReply, ClientError>,
) -> Result<ControlReply, ClientError> {
    let begin = Instant::now();
    let mut tries = 0u32;
    loop {
        match create() {
            Ok(reply) => {
                if tries > 0 {
                    eprintln!("srun: Step created for job {job_id}");
                }
                return Ok(reply);
            }
            Err(ClientError::Api(e)) if e.errno == SlurmErrno::PortsBusy => {
                let wait = match immediate {
                    Some(secs) if secs <= 1 || begin.elapsed().as_secs() >= secs => {
                        return Err(ClientError::Api(e))
                    }
                    Some(secs) => {
                        Duration::from_secs(secs.saturating_sub(begin.elapsed().as_secs()).max(1))
                    }
                    None => step_wait(),
                };
                let how = if tries == 0 { "temporarily" } else { "still" };
                eprintln!("srun: Job {job_id} step creation {how} disabled, retrying ({e})");
                tries = tries.saturating_add(1);
                std::thread::sleep(wait);
            }
            Err(e) => return Err(e),
        }
    }
}

/// Slurm's srun step wait: its pid modulo 10 plus `SlurmctldTimeout` held between 60 and 300 seconds.
fn step_wait() -> Duration {
    let timeout = crate::config::load_slurm_conf()
        .and_then(|c| c.get_u32("SlurmctldTimeout"))
        .unwrap_or(120)
        .clamp(60, 300);
    Duration::from_secs(u64::from(std::process::id() % 10) + u64::from(timeout))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_shows_only_what_this_build_has() {
        let text = list_text();
        assert!(text.starts_with("MPI plugin types are...\n"));
        assert!(text.contains("\tnone\n") && text.contains("\tpmi2\n"));
        assert_eq!(text.contains("pmix"), PMIX_BUILT);
    }

    #[test]
    fn busy_ports_are_retried_and_other_errors_are_not() {
        use spur_core::wire::api::ApiError;
        let busy = || Err(ClientError::Api(ApiError::new(SlurmErrno::PortsBusy)));
        let reply = ControlReply {
            failures: Vec::new(),
            step_id: Some(3),
            reservation: None,
            acct: None,
            edited_jobs: Vec::new(),
            resv_ports: Some("12001-12002".into()),
        };
        let mut answers = vec![Ok(reply.clone()), busy()];
        let got = create_retrying_busy_ports(5, Some(2), || answers.pop().unwrap());
        assert_eq!(got.unwrap().resv_ports.as_deref(), Some("12001-12002"));
        // --immediate: no retry.
        let mut calls = 0;
        let got = create_retrying_busy_ports(5, Some(0), || {
            calls += 1;
            busy()
        });
        assert!(matches!(got, Err(ClientError::Api(e)) if e.errno == SlurmErrno::PortsBusy));
        assert_eq!(calls, 1);
        let got = create_retrying_busy_ports(5, None, || {
            Err(ClientError::Api(ApiError::new(SlurmErrno::PortsInvalid)))
        });
        assert!(matches!(got, Err(ClientError::Api(e)) if e.errno == SlurmErrno::PortsInvalid));
    }

    #[test]
    fn unknown_types_get_slurms_lines() {
        let lines = unknown_lines("foo");
        assert_eq!(
            lines.last().map(String::as_str),
            Some("Invalid MPI type 'foo', --mpi=list for acceptable types")
        );
    }

    #[test]
    fn pmi2_steps_carry_the_mapping_for_the_supervisors() {
        let mut env = vec![("SLURM_MPI_TYPE".to_string(), "old".to_string())];
        add_env(&mut env, MpiType::Pmi2, "(vector,(0,3,2))", "n[1-3]");
        assert_eq!(
            env,
            vec![
                ("SLURM_MPI_TYPE".to_string(), "pmi2".to_string()),
                (
                    "SLURM_PMI2_PROC_MAPPING".to_string(),
                    "(vector,(0,3,2))".to_string()
                ),
                ("SLURM_PMI2_STEP_NODES".to_string(), "n[1-3]".to_string()),
            ]
        );
        let mut plain = vec![("SLURM_MPI_TYPE".to_string(), "none".to_string())];
        add_env(&mut plain, MpiType::None, "", "");
        assert_eq!(plain, Vec::new());
    }
}
