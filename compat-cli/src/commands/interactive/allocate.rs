//! Getting an allocation for salloc and srun: submit an interactive job (no batch script, so the controller starts
//! nothing for it), wait until it runs while printing Slurm's progress messages, and give it back at the end.

use std::time::{Duration, Instant};

use nix::sys::signal::Signal;
use spur_core::model::job::JobRecord;
use spur_core::model::states::JobBaseState;
use spur_core::wire::api::{
    ApiError, ControlRequest, JobListing, JobSelector, SlurmErrno, SubmitRequest,
};

use super::events::{Event, Events};
use super::print_api_error;
use crate::client::{Client, ClientError};

/// Poll interval while the scheduler has not looked at the job yet (it usually starts within milliseconds).
const FIRST_POLL: Duration = Duration::from_millis(50);
/// Poll interval while the job waits for resources.
const PENDING_POLL: Duration = Duration::from_millis(250);
/// How long a job the scheduler has not evaluated may stay quiet before it is reported as queued.
const PENDING_GRACE: Duration = Duration::from_secs(2);

/// Which command is allocating: the messages differ in small ways.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prog {
    Srun,
    Salloc,
}

impl Prog {
    pub fn name(self) -> &'static str {
        match self {
            Prog::Srun => "srun",
            Prog::Salloc => "salloc",
        }
    }

    /// `srun: Job allocation 12 has been revoked` (srun writes no full stop, salloc does).
    pub fn revoked_line(self, job_id: u32) -> String {
        match self {
            Prog::Srun => format!("srun: Job allocation {job_id} has been revoked"),
            Prog::Salloc => format!("salloc: Job allocation {job_id} has been revoked."),
        }
    }
}

/// `-I`/`--immediate`: without a value the controller must start the job at once; with seconds, the client waits
/// that long before giving up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Immediate {
    No,
    Now,
    Within(Duration),
}

impl Immediate {
    pub fn from_option(given: bool, value: Option<&str>) -> Immediate {
        match (given, value.and_then(|v| v.trim().parse::<u64>().ok())) {
            (false, _) => Immediate::No,
            (true, Some(secs)) if secs > 0 => Immediate::Within(Duration::from_secs(secs)),
            (true, _) => Immediate::Now,
        }
    }
}

/// Submits the allocation and waits until it runs. On failure the messages are printed and the exit code returned.
pub fn allocate(
    client: &Client,
    events: &Events,
    prog: Prog,
    mut request: SubmitRequest,
    immediate: Immediate,
) -> Result<JobRecord, u8> {
    request.interactive = true;
    request.immediate = immediate == Immediate::Now;
    let job_id = match client.submit(&request) {
        Ok(reply) => reply.job_id,
        Err(e) => {
            // A refusal that used up a job id: salloc names the job as revoked (srun does not). slurmctld's
            // revoke of an `-I` job reaches salloc before the error; the node-selection refusal's after it.
            let revoked = match &e {
                // slurmctld refuses `-N0` before it tells salloc of the job it made.
                ClientError::Api(ApiError {
                    errno,
                    job_id: Some(job_id),
                    ..
                }) if prog == Prog::Salloc && *errno != SlurmErrno::InvalidNodeCount => {
                    Some((*job_id, *errno))
                }
                _ => None,
            };
            let revoked_first = |errno: SlurmErrno| {
                matches!(
                    errno,
                    SlurmErrno::NotTopPriority
                        | SlurmErrno::NodesBusy
                        | SlurmErrno::RequestedPartConfigUnavailable
                )
            };
            if let Some((job_id, _)) = revoked.filter(|(_, errno)| revoked_first(*errno)) {
                eprintln!("{}", prog.revoked_line(job_id));
            }
            print_api_error(prog.name(), submit_lead(prog, &e), &e);
            if let Some((job_id, _)) = revoked.filter(|(_, errno)| !revoked_first(*errno)) {
                eprintln!("{}", prog.revoked_line(job_id));
            }
            return Err(1);
        }
    };
    wait_until_running(client, events, prog, job_id, immediate)
}

/// salloc words errors that are not about `--immediate` as a failed submission.
fn submit_lead(prog: Prog, error: &ClientError) -> &'static str {
    let busy = matches!(
        error,
        ClientError::Api(e) if matches!(e.errno, SlurmErrno::NodesBusy | SlurmErrno::NotTopPriority)
    );
    match prog {
        Prog::Salloc if !busy => "Job submit/allocate failed",
        _ => "Unable to allocate resources",
    }
}

fn wait_until_running(
    client: &Client,
    events: &Events,
    prog: Prog,
    job_id: u32,
    immediate: Immediate,
) -> Result<JobRecord, u8> {
    let name = prog.name();
    let started = Instant::now();
    let mut announced = false;
    let mut configuring = Configuring::default();
    // Slurm says a job is queued as soon as the submission comes back without resources, so a wait that ends
    // before the scheduler looked at the job still reports it.
    let announce = |announced: &mut bool, due: bool, beyond_partition: bool| {
        if due && !*announced {
            // slurmctld's answer to a request beyond its partition's limits carries that error, which libslurm
            // prints before it waits.
            if beyond_partition {
                eprintln!(
                    "{name}: {}",
                    SlurmErrno::RequestedPartConfigUnavailable.text()
                );
            }
            if prog == Prog::Salloc {
                eprintln!("salloc: Pending job allocation {job_id}");
            }
            eprintln!("{name}: job {job_id} queued and waiting for resources");
            *announced = true;
        }
    };
    let mut granted = false;
    loop {
        match fetch_job(client, job_id) {
            Some(job) if job.state == JobBaseState::Running && !job.completing => {
                if !granted {
                    if announced {
                        eprintln!("{name}: job {job_id} has been allocated resources");
                    }
                    if prog == Prog::Salloc {
                        eprintln!("salloc: Granted job allocation {job_id}");
                    }
                    granted = true;
                    configuring.waits_for(&job, prog);
                }
                if job.prolog_pending.is_empty() {
                    configuring.ready(&job, prog);
                    return Ok(job);
                }
            }
            Some(job) if job.state == JobBaseState::Pending => {
                let evaluated = job.last_sched_eval.is_some() || started.elapsed() > PENDING_GRACE;
                let beyond_partition = matches!(
                    job.reason,
                    spur_core::model::states::JobReason::PartConfig
                        | spur_core::model::states::JobReason::PartNodeLimit
                );
                announce(&mut announced, evaluated, beyond_partition);
            }
            Some(job) => {
                if let Some(node) = job.prolog_failed_node.as_deref() {
                    // As salloc and srun: the allocation was granted, then revoked because a node's prolog
                    // failed (a quick failure ends it before the first look).
                    if !granted && prog == Prog::Salloc {
                        eprintln!("salloc: Granted job allocation {job_id}");
                        eprintln!("salloc: Waiting for resource configuration");
                    }
                    eprintln!("{name}: Prolog failure on node {node}");
                    eprintln!("{}", prog.revoked_line(job_id));
                    eprintln!("{name}: error: Job allocation {job_id} has been revoked");
                } else if !granted && job.state == JobBaseState::Cancelled {
                    // Cancelled while it waited: libslurm hears that its job is complete before any allocation
                    // and fails the request with ESLURM_ALREADY_DONE.
                    eprintln!("{name}: Job has been cancelled");
                    let lead = match prog {
                        Prog::Srun => "Unable to allocate resources",
                        Prog::Salloc => "Job submit/allocate failed",
                    };
                    eprintln!("{name}: error: {lead}: {}", SlurmErrno::AlreadyDone.text());
                } else {
                    eprintln!("{}", prog.revoked_line(job_id));
                }
                return Err(1);
            }
            // Not visible yet (or the controller did not answer): ask again.
            None => {}
        }
        if let Immediate::Within(limit) = immediate {
            if !granted && started.elapsed() >= limit {
                announce(&mut announced, true, false);
                complete(client, job_id, 0, 0);
                match prog {
                    Prog::Srun => eprintln!(
                        "srun: error: Unable to allocate resources: {}",
                        SlurmErrno::NodesBusy.text()
                    ),
                    Prog::Salloc => {
                        eprintln!(
                            "salloc: error: Unable to allocate resources: Connection timed out"
                        );
                        eprintln!("{}", prog.revoked_line(job_id));
                    }
                }
                return Err(1);
            }
        }
        let poll = if announced || granted {
            PENDING_POLL
        } else {
            FIRST_POLL
        };
        if let Some(Event::Signal(signal)) = events.next(poll) {
            if is_abort(signal) {
                announce(&mut announced, true, false);
                complete(client, job_id, 0, 0);
                eprintln!("{}", prog.revoked_line(job_id));
                match prog {
                    Prog::Srun => eprintln!("srun: Force Terminated JobId={job_id}"),
                    Prog::Salloc => eprintln!("salloc: Job aborted due to signal"),
                }
                return Err(1);
            }
        }
    }
}

/// `PrologFlags=Alloc`: a granted allocation is not ready until every node's prolog ran. salloc says it waits
/// and when the nodes are ready (srun says nothing).
#[derive(Debug, Default)]
struct Configuring {
    waited: bool,
}

impl Configuring {
    fn waits_for(&mut self, job: &JobRecord, prog: Prog) {
        if job.prolog_pending.is_empty() {
            return;
        }
        self.waited = true;
        if prog == Prog::Salloc {
            eprintln!("salloc: Waiting for resource configuration");
        }
    }

    fn ready(&self, job: &JobRecord, prog: Prog) {
        if self.waited && prog == Prog::Salloc {
            let nodes = job
                .alloc
                .as_ref()
                .map(|a| spur_core::grammar::hostlist::compress(&a.node_names))
                .unwrap_or_default();
            eprintln!("salloc: Nodes {nodes} are ready for job");
        }
    }
}

/// Signals that abandon a pending allocation.
fn is_abort(signal: Signal) -> bool {
    matches!(
        signal,
        Signal::SIGINT | Signal::SIGTERM | Signal::SIGHUP | Signal::SIGQUIT
    )
}

/// The job's record, or `None` when it is unknown or the controller did not answer.
pub fn fetch_job(client: &Client, job_id: u32) -> Option<JobRecord> {
    // Whole: the granted record's environment is the one the allocation's commands get.
    match client.job_list(JobListing::whole_job(job_id)) {
        Ok(list) => list.jobs.into_iter().find(|j| j.job_id == job_id),
        Err(_) => None,
    }
}

/// `slurm_complete_job`: the allocation's work is over (a pending allocation is withdrawn). Failures are not
/// reported: the job may already have been ended by scancel or its time limit.
pub fn complete(client: &Client, job_id: u32, exit_code: u32, signal: u32) {
    let request = ControlRequest::Complete {
        job: JobSelector {
            job_id,
            array_task: None,
        },
        exit_code,
        signal,
    };
    let _ = client.control(&request);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn immediate_values() {
        assert_eq!(Immediate::from_option(false, None), Immediate::No);
        assert_eq!(Immediate::from_option(true, None), Immediate::Now);
        assert_eq!(
            Immediate::from_option(true, Some("3")),
            Immediate::Within(Duration::from_secs(3))
        );
    }

    #[test]
    fn revoked_lines_differ_by_command() {
        assert_eq!(
            Prog::Srun.revoked_line(12),
            "srun: Job allocation 12 has been revoked"
        );
        assert_eq!(
            Prog::Salloc.revoked_line(9),
            "salloc: Job allocation 9 has been revoked."
        );
    }
}
