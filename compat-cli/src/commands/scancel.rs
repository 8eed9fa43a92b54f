//! `scancel`: cancel or signal jobs by id (`12`, `12_3`, `12_[1-3]`) or by filters (`-n`, `-u`, `-t`, `-p`).

use spur_core::grammar::options::query::SCANCEL;
use spur_core::grammar::options::EnvLookup;
use spur_core::model::job::JobRecord;
use spur_core::wire::api::{ControlRequest, JobListing, JobSelector, SignalScope, SlurmErrno};

use crate::client::{Client, ClientError};

#[derive(Debug, Default, PartialEq)]
struct Args {
    signal: Option<i32>,
    batch: bool,
    full: bool,
    name: Option<String>,
    user: Option<String>,
    states: Vec<String>,
    partition: Option<String>,
    /// `-A`, `-q`: only jobs of this account, QOS (compared lower-cased, as Slurm stores them).
    account: Option<String>,
    qos: Option<String>,
    /// `--wckey`: only jobs with this workload characterization key.
    wckey: Option<String>,
    /// Environment values reported and ignored (`Unrecognized SCANCEL_BATCH value: x`).
    env_errors: Vec<String>,
    /// `-R`: only jobs of this reservation.
    reservation: Option<String>,
    quiet: bool,
    /// `-v`, counted.
    verbose: u8,
    /// `-V`/`--version`, `--usage`: print and stop.
    early: Option<Early>,
    ids: Vec<JobSelector>,
    /// `JOB.STEP` arguments.
    steps: Vec<(u32, u32)>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Early {
    Version,
    Usage,
    Help,
}

#[derive(Debug, PartialEq)]
enum ArgError {
    /// getopt's complete message (both lines).
    Getopt(String),
    InvalidJobId(String),
    /// A line printed as it is (Slurm's `fprintf(stderr, ...)` before exiting).
    Message(String),
    /// A state name scancel does not know: its message (from `-t` or `SCANCEL_STATE`), without a prefix.
    InvalidState(String),
}

/// Slurm's largest possible MaxArraySize: task ids in a selector cannot exceed it.
const ARRAY_TASK_ID_LIMIT: u32 = 4_000_001;

fn parse_args<E: EnvLookup + ?Sized>(args: &[String], env: &E) -> Result<Args, ArgError> {
    let scanned = SCANCEL
        .parse_env(args, env)
        .map_err(|e| ArgError::Getopt(e.to_string()))?;
    let mut parsed = Args {
        env_errors: scanned.env_errors.clone(),
        ..Args::default()
    };
    for (key, value) in &scanned.options {
        apply_option(&mut parsed, key, value.clone())?;
    }
    // Slurm checks a state as it reads it, the environment's before the command line's: one state name.
    let bad_state = |state: &str| {
        state.contains(',') || spur_core::format::squeue::parse_states(state).is_err()
    };
    if let Some(state) = scanned.env_value("state").filter(|s| bad_state(s)) {
        return Err(ArgError::InvalidState(format!(
            "Unrecognized SCANCEL_STATE value: {state}"
        )));
    }
    if let Some(state) = scanned
        .value("state")
        .filter(|s| scanned.cli_has("state") && bad_state(s))
    {
        return Err(ArgError::InvalidState(format!(
            "Invalid job state specified: {state}"
        )));
    }
    for id in &scanned.positional {
        match id.split_once('.') {
            Some((job, step)) if !job.contains('_') => {
                let invalid = || ArgError::InvalidJobId(id.to_string());
                parsed.steps.push((
                    job.parse().map_err(|_| invalid())?,
                    step.parse().map_err(|_| invalid())?,
                ));
            }
            _ => parsed.ids.extend(parse_job_ids(id)?),
        }
    }
    Ok(parsed)
}

fn apply_option(parsed: &mut Args, key: &str, value: Option<String>) -> Result<(), ArgError> {
    let value_text = value.clone().unwrap_or_default();
    match key {
        "signal" => {
            let signal = spur_core::grammar::values::signal::parse_scancel_signal(&value_text)
                .map(i32::from)
                .map_err(|_| ArgError::Message(format!("Unknown job signal: {value_text}")))?;
            parsed.signal = Some(signal);
        }
        "batch" => parsed.batch = true,
        "full" => parsed.full = true,
        "name" | "jobname" => parsed.name = value,
        "user" => parsed.user = value,
        "state" => {
            parsed.states = value_text
                .split(',')
                .map(|s| s.to_ascii_uppercase())
                .collect()
        }
        "partition" => parsed.partition = value,
        "account" => parsed.account = value.map(|v| v.to_lowercase()),
        "qos" => parsed.qos = value.map(|v| v.to_lowercase()),
        "wckey" => parsed.wckey = value,
        "reservation" => parsed.reservation = value,
        "quiet" => parsed.quiet = true,
        "verbose" => parsed.verbose = parsed.verbose.saturating_add(1),
        "version" => parsed.early = parsed.early.or(Some(Early::Version)),
        "usage" => parsed.early = parsed.early.or(Some(Early::Usage)),
        "help" => parsed.early = parsed.early.or(Some(Early::Help)),
        // Accepted and kept quiet: Spur has one cluster and no QOS.
        _ => {}
    }
    Ok(())
}

/// `12`, `12_3`, `12_[1-3,5]`, `12+1` (a heterogeneous job's component), `12.0` (a step: the job, until steps
/// exist).
fn parse_job_ids(text: &str) -> Result<Vec<JobSelector>, ArgError> {
    let invalid = || ArgError::InvalidJobId(text.to_string());
    let base = text.split('.').next().unwrap_or(text);
    // `93+1`: that component of a heterogeneous job alone.
    if let Some(job_id) = spur_core::model::het_step::component_job_id(base) {
        return Ok(vec![JobSelector {
            job_id,
            array_task: None,
        }]);
    }
    let (job, task) = match base.split_once('_') {
        Some((job, task)) => (job, Some(task)),
        None => (base, None),
    };
    let job_id: u32 = job.parse().map_err(|_| invalid())?;
    match task {
        None => Ok(vec![JobSelector {
            job_id,
            array_task: None,
        }]),
        Some(task) => {
            let inner = task.trim_start_matches('[').trim_end_matches(']');
            let spec =
                spur_core::grammar::values::array::parse_array_spec(inner, ARRAY_TASK_ID_LIMIT)
                    .map_err(|_| invalid())?;
            Ok(spec
                .task_ids()
                .map(|t| JobSelector {
                    job_id,
                    array_task: Some(t),
                })
                .collect())
        }
    }
}

pub fn run(args: &[String]) -> u8 {
    let parsed = match parse_args(args, &super::process_env()) {
        Ok(parsed) => parsed,
        Err(ArgError::Getopt(text)) => {
            eprintln!("{text}");
            return 1;
        }
        Err(ArgError::InvalidJobId(id)) => {
            eprintln!("scancel: error: Invalid job id {id}");
            return 1;
        }
        Err(ArgError::Message(line)) => {
            eprintln!("{line}");
            return 1;
        }
        Err(ArgError::InvalidState(message)) => {
            eprintln!("{message}");
            eprintln!("Valid job states are PENDING, RUNNING, and SUSPENDED");
            return 1;
        }
    };
    for error in &parsed.env_errors {
        eprintln!("scancel: error: {error}");
    }
    match parsed.early {
        Some(Early::Version) => {
            println!("{}", crate::version_line());
            return 0;
        }
        Some(Early::Usage) => {
            print!("{}", SCANCEL.usage_text());
            return 0;
        }
        Some(Early::Help) => {
            print!("{}", SCANCEL.help_text());
            return 0;
        }
        None => {}
    }
    let has_filter = parsed.name.is_some()
        || parsed.user.is_some()
        || !parsed.states.is_empty()
        || parsed.partition.is_some()
        || parsed.account.is_some()
        || parsed.qos.is_some()
        || parsed.wckey.is_some()
        || parsed.reservation.is_some();
    if parsed.ids.is_empty() && parsed.steps.is_empty() && !has_filter {
        eprintln!("scancel: error: No job identification provided");
        return 1;
    }
    let client = match Client::from_environment() {
        Ok(c) => c,
        Err(e) => return report_unreachable(&e),
    };
    let targets = if has_filter {
        match filtered_targets(&client, &parsed) {
            Ok(t) => t,
            Err(e) => return report_unreachable(&e),
        }
    } else {
        parsed.ids.clone()
    };
    // As in Slurm: `-b` the batch shell, `-f` everything, neither the steps' tasks alone (a job without running
    // steps keeps running untouched).
    let scope = match (parsed.batch, parsed.full) {
        (true, false) => SignalScope::BatchShell,
        (_, true) => SignalScope::All,
        (false, false) => SignalScope::Steps,
    };
    let mut worst: Option<SlurmErrno> = None;
    let mut step_failed = false;
    for &(job_id, step_id) in &parsed.steps {
        let request = match parsed.signal {
            // `-b`/`-f` name the job's batch shell or every process, whatever the step; a plain signal goes to
            // the step's tasks alone.
            Some(signal) if scope != SignalScope::Steps => ControlRequest::Signal {
                job: JobSelector {
                    job_id,
                    array_task: None,
                },
                signal,
                scope,
            },
            Some(signal) => ControlRequest::SignalStep {
                job_id,
                step_id,
                signal,
            },
            None => ControlRequest::CancelStep { job_id, step_id },
        };
        if parsed.verbose > 0 {
            eprintln!("scancel: Terminating step {job_id}.{step_id}");
        }
        match client.control(&request) {
            Ok(_) => {}
            // Unlike a job, a step that is gone is an error scancel reports and counts.
            Err(ClientError::Api(error)) => {
                if !parsed.quiet {
                    eprintln!(
                        "scancel: error: Kill job error on job step id {job_id}.{step_id}: {}",
                        error.errno.text()
                    );
                }
                step_failed = true;
            }
            Err(e) => return report_unreachable(&e),
        }
    }
    let requests: Vec<(String, ControlRequest)> = targets
        .into_iter()
        .map(|job| {
            let display = match job.array_task {
                Some(t) => format!("{}_{}", job.job_id, t),
                None => job.job_id.to_string(),
            };
            (display, job_request(&parsed, scope, job))
        })
        .collect();
    let verbose = parsed.verbose > 0;
    let answers = send_all(&client, &requests);
    for ((display, _), answer) in requests.iter().zip(answers) {
        if verbose {
            eprintln!("scancel: {}", verbose_action(&parsed, display));
        }
        match answer {
            Ok(reply) => {
                for (id, error) in reply.failures {
                    worst = worse(
                        worst,
                        report_job_error(&id, error.errno, parsed.quiet, verbose),
                    );
                }
            }
            Err(ClientError::Api(error)) => {
                worst = worse(
                    worst,
                    report_job_error(display, error.errno, parsed.quiet, verbose),
                )
            }
            Err(e) => return report_unreachable(&e),
        }
    }
    // Job errors exit with their errno (below); a failed step request exits 1, as checked against Slurm for steps.
    worst.map_or(u8::from(step_failed), exit_status)
}

/// What scancel asks of one job, given `-s`, `-b` and `-f`.
fn job_request(parsed: &Args, scope: SignalScope, job: JobSelector) -> ControlRequest {
    match parsed.signal {
        // SIGKILL for the steps alone is a plain cancel in Slurm: the job ends CANCELLED.
        Some(libc::SIGKILL) if scope == SignalScope::Steps => ControlRequest::Cancel { job },
        Some(signal) => ControlRequest::Signal { job, signal, scope },
        // `--batch`/`--full` without `-s` deliver SIGKILL to that scope, as in Slurm.
        None if parsed.batch || parsed.full => ControlRequest::Signal {
            job,
            signal: 9,
            scope,
        },
        None => ControlRequest::Cancel { job },
    }
}

/// How many requests scancel has in flight at once. Each is a commit the controller makes durable; requests that
/// arrive together share one sync, so `scancel -u USER` over thousands of jobs no longer waits for a sync per job
/// (Slurm's scancel also sends its per-job requests from several threads).
const IN_FLIGHT: usize = 8;

/// Sends every request, up to [`IN_FLIGHT`] at a time, and returns the answers in the requests' order, so what
/// scancel prints does not depend on which answer came first.
fn send_all(
    client: &Client,
    requests: &[(String, ControlRequest)],
) -> Vec<Result<spur_core::wire::api::ControlReply, ClientError>> {
    if requests.len() <= 1 {
        return requests
            .iter()
            .map(|(_, request)| control_retrying(client, request))
            .collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = IN_FLIGHT.min(requests.len());
    let mut answered: Vec<(usize, Result<_, ClientError>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some((_, request)) = requests.get(i) else {
                            break;
                        };
                        mine.push((i, control_retrying(client, request)));
                    }
                    mine
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    answered.sort_by_key(|(i, _)| *i);
    answered.into_iter().map(|(_, answer)| answer).collect()
}

/// How many times scancel asks about a job the controller cannot change yet (Slurm's `MAX_CANCEL_RETRY`).
const MAX_CANCEL_RETRY: u64 = 10;

/// One job's request, asked again while the controller answers "try again later" (a signal for a job that is
/// not running yet): after 5 s, 6 s, ... as Slurm's scancel does, so a signal sent just after submission reaches
/// the job once it runs.
fn control_retrying(
    client: &Client,
    request: &ControlRequest,
) -> Result<spur_core::wire::api::ControlReply, ClientError> {
    let mut attempt = 0;
    loop {
        let answer = client.control(request);
        let again = matches!(
            &answer,
            Err(ClientError::Api(e)) if e.errno == SlurmErrno::TransitionStateNoUpdate
        );
        if !again || attempt + 1 >= MAX_CANCEL_RETRY {
            return answer;
        }
        std::thread::sleep(std::time::Duration::from_secs(5 + attempt));
        attempt += 1;
    }
}

fn worse(a: Option<SlurmErrno>, b: Option<SlurmErrno>) -> Option<SlurmErrno> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if b.code() > a.code() { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// scancel exits with the (largest) Slurm errno it met, as the process status keeps it: the low eight bits
/// (`Access/permission denied`, 2002, exits 210). An errno without a positive number exits 1.
fn exit_status(errno: SlurmErrno) -> u8 {
    let code = errno.code();
    u8::try_from(code & 0xff)
        .ok()
        .filter(|c| *c != 0 && code > 0)
        .unwrap_or(1)
}

/// What `scancel -v` says before each request: `Terminating job 12`, `Signal 10 to batch job 12`, ...
fn verbose_action(parsed: &Args, display: &str) -> String {
    let whose = if parsed.batch && !parsed.full {
        "batch job"
    } else if parsed.full {
        "full job"
    } else {
        "job"
    };
    match parsed.signal {
        Some(signal) => format!("Signal {signal} to {whose} {display}"),
        None => format!("Terminating {whose} {display}"),
    }
}

/// Prints Slurm's per-job error; returns it where it counts as a failure.
fn report_job_error(id: &str, errno: SlurmErrno, quiet: bool, verbose: bool) -> Option<SlurmErrno> {
    // Slurm does not count jobs that are already gone or finishing, and names them only when verbose.
    if matches!(errno, SlurmErrno::InvalidJobId | SlurmErrno::AlreadyDone) {
        if verbose && !quiet {
            eprintln!(
                "scancel: error: Kill job error on job id {id}: {}",
                errno.text()
            );
        }
        return None;
    }
    if !quiet {
        eprintln!(
            "scancel: error: Kill job error on job id {id}: {}",
            errno.text()
        );
    }
    Some(errno)
}

fn report_unreachable(error: &ClientError) -> u8 {
    eprintln!("scancel: error: {error}");
    1
}

fn filtered_targets(client: &Client, parsed: &Args) -> Result<Vec<JobSelector>, ClientError> {
    let jobs = client.job_list(JobListing::default())?.jobs;
    let uid = parsed.user.as_deref().map(crate::config::uid_of);
    Ok(jobs
        .iter()
        .filter(|j| !j.is_finished())
        .filter(|j| parsed.ids.is_empty() || parsed.ids.iter().any(|s| selects(s, j)))
        .filter(|j| parsed.name.as_ref().is_none_or(|n| &j.spec.name == n))
        .filter(|j| uid.is_none_or(|u| Some(j.spec.user_id) == u))
        .filter(|j| parsed.partition.as_ref().is_none_or(|p| &j.partition == p))
        .filter(|j| {
            parsed
                .account
                .as_ref()
                .is_none_or(|a| j.spec.account.as_ref() == Some(a))
        })
        .filter(|j| {
            parsed
                .qos
                .as_ref()
                .is_none_or(|q| j.spec.qos.as_ref() == Some(q))
        })
        // Spur's jobs carry no wckey (Slurm's are empty without TrackWCKey): a wckey filter selects none.
        .filter(|_| parsed.wckey.is_none())
        .filter(|j| {
            parsed
                .reservation
                .as_ref()
                .is_none_or(|r| j.spec.reservation.as_ref() == Some(r))
        })
        .filter(|j| parsed.states.is_empty() || parsed.states.iter().any(|s| state_matches(s, j)))
        .map(|j| JobSelector {
            job_id: j.job_id,
            array_task: None,
        })
        .collect())
}

fn selects(selector: &JobSelector, job: &JobRecord) -> bool {
    spur_core::format::squeue::id_selects(selector, job)
}

fn state_matches(wanted: &str, job: &JobRecord) -> bool {
    let long = job.full_state().long_name();
    let short = job.full_state().compact_name();
    wanted == long || wanted == short
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Result<Args, ArgError> {
        let no_env: Vec<(String, String)> = Vec::new();
        parse_args(
            &list.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            &no_env,
        )
    }

    #[test]
    fn parses_ids_arrays_and_options() {
        let a = args(&["12", "13_2", "-s", "USR1", "--batch"]).unwrap();
        assert_eq!(a.signal, Some(10));
        assert!(a.batch);
        assert_eq!(
            a.ids,
            vec![
                JobSelector {
                    job_id: 12,
                    array_task: None
                },
                JobSelector {
                    job_id: 13,
                    array_task: Some(2)
                }
            ]
        );
        let b = args(&["14_[1-3]", "--name=x", "-uroot", "-t", "pending"]).unwrap();
        assert_eq!(b.ids.len(), 3);
        assert_eq!(b.name.as_deref(), Some("x"));
        assert_eq!(b.user.as_deref(), Some("root"));
        assert_eq!(b.states, vec!["PENDING".to_string()]);
    }

    #[test]
    fn rejects_bad_input() {
        assert_eq!(
            args(&["abc"]).unwrap_err(),
            ArgError::InvalidJobId("abc".into())
        );
        assert_eq!(
            args(&["--frob"]).unwrap_err(),
            ArgError::Getopt("scancel: unrecognized option '--frob'\nTry \"scancel --help\" for more information".into())
        );
        assert!(matches!(args(&["-s"]), Err(ArgError::Getopt(_))));
        // Short flags cluster as getopt allows: `-bf` is --batch --full.
        let clustered = args(&["-bf", "7"]).unwrap();
        assert!(clustered.batch && clustered.full);
        assert!(matches!(
            args(&["-s", "NOSUCH", "1"]),
            Err(ArgError::Message(_))
        ));
    }
}
