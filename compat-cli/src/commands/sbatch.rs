//! `sbatch`: read options (command line, environment, `#SBATCH`), resolve them into a job spec, submit, and print
//! `Submitted batch job N` (or `N` with `--parsable`), exactly as Slurm does, including its errors and exit codes.

use spur_core::grammar::options::{
    help_text_for, parse_sbatch, usage_text, Command, EarlyAction, OptId, OptionSet, Outcome,
};
use spur_core::grammar::values::begin::LocalNow;
use spur_core::model::submit::{resolve, ScriptInput, SubmitContext};
use spur_core::wire::api::{ApiError, JobListing, SubmitRequest};

use crate::client::{Client, ClientError};
use crate::config;

/// How often `sbatch --wait` polls the controller.
const WAIT_POLL: std::time::Duration = std::time::Duration::from_millis(200);

pub fn run(args: &[String]) -> u8 {
    let env: Vec<(String, String)> = std::env::vars().collect();
    let outcome = parse_sbatch(args, &env, |path| match path {
        Some(p) => std::fs::read(p)
            .ok()
            .filter(|_| !std::path::Path::new(p).is_dir())
            .or_else(|| {
                // Slurm reads a directory as an empty script.
                std::path::Path::new(p).is_dir().then(Vec::new)
            }),
        None => {
            use std::io::Read;
            let mut body = Vec::new();
            std::io::stdin().read_to_end(&mut body).ok().map(|_| body)
        }
    });
    let parsed = match outcome {
        Ok(Outcome::Early(action)) => {
            print!("{}", early_text(action));
            return 0;
        }
        Ok(Outcome::Run(parsed)) => parsed,
        Err(e) => return fail(&e.lines, e.exit_code),
    };
    for warning in &parsed.warnings {
        eprintln!("{warning}");
    }
    let Some(component) = parsed.components.first() else {
        return 1;
    };
    let set = &component.options;
    if let Some(line) = unknown_identity(set) {
        eprintln!("{line}");
        return 255;
    }
    let script = parsed.script.as_ref();
    let script_path = parsed.positional.first().map(|p| absolute(p));
    let input = ScriptInput {
        body: script.map(|s| String::from_utf8_lossy(&s.body).into_owned()),
        path: if script.is_some_and(|s| s.wrapped) {
            None
        } else {
            script_path
        },
        name: script
            .map(|s| {
                if s.name == "stdin" {
                    "sbatch".to_string()
                } else {
                    s.name.clone()
                }
            })
            .unwrap_or_default(),
        argv: parsed.positional.iter().skip(1).cloned().collect(),
    };
    let cwd = std::env::current_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_else(|_| "/tmp".to_string());
    let uid = nix::unistd::getuid().as_raw();
    let gid = nix::unistd::getgid().as_raw();
    let user = config::user_name(uid).unwrap_or_else(|| uid.to_string());
    let host = config::short_hostname();
    let gres_owned = config::gres_types();
    let gres_types: Vec<&str> = gres_owned.iter().map(String::as_str).collect();
    let context = SubmitContext {
        cmd: Command::Sbatch,
        uid,
        gid,
        user_name: &user,
        cwd: &cwd,
        submit_host: &host,
        env: &env,
        now: LocalNow {
            epoch_secs: config::now_epoch(),
            utc_offset_secs: config::utc_offset_secs(),
        },
        gres_types: &gres_types,
        max_array_size: config::max_array_size(),
        submit_sid: nix::unistd::getsid(None)
            .map(|p| u32::try_from(p.as_raw()).unwrap_or(0))
            .unwrap_or(0),
    };
    let spec = match component_spec(&context, set, &input) {
        Ok(spec) => spec,
        Err(code) => return code,
    };
    // The later components of a heterogeneous job: the script runs once, with the first one.
    let mut het_components = Vec::new();
    for component in parsed.components.iter().skip(1) {
        if let Some(line) = unknown_identity(&component.options) {
            eprintln!("{line}");
            return 255;
        }
        match component_spec(&context, &component.options, &input) {
            Ok(mut more) => {
                more.script = Some(String::new());
                het_components.push(more);
            }
            Err(code) => return code,
        }
    }
    // The environment goes with the script.
    for more in &mut het_components {
        more.environment.clear();
    }
    let test_only = set.is_set(OptId::TestOnly);
    let failed = |e: &ClientError| {
        if test_only {
            test_only_failed(e)
        } else {
            submission_failed(e)
        }
    };
    let client = match Client::from_environment() {
        Ok(c) => c,
        Err(e) => return failed(&e),
    };
    if test_only && !het_components.is_empty() {
        let mut specs = vec![spec];
        specs.extend(het_components);
        return het_test_only(&client, specs);
    }
    let request = SubmitRequest {
        spec,
        test_only,
        immediate: set.is_set(OptId::Immediate),
        interactive: false,
        het_components,
    };
    let reply = match client.submit(&request) {
        Ok(reply) => reply,
        Err(e) => return failed(&e),
    };
    if let Some(trial) = reply.test_only {
        let when = spur_core::grammar::values::begin::format_local_time(
            trial.start_time,
            config::utc_offset_secs(),
        );
        eprintln!(
            "sbatch: Job {} to start at {} using {} processors on nodes {} in partition {}",
            reply.job_id,
            when,
            trial.processors,
            spur_core::grammar::hostlist::compress(&trial.nodes),
            trial.partition
        );
        return 0;
    }
    // `-Q` silences even `--parsable`, as in Slurm.
    if !set.is_set(OptId::Quiet) {
        if set.is_set(OptId::Parsable) {
            println!("{}", reply.job_id);
        } else {
            println!("Submitted batch job {}", reply.job_id);
        }
    }
    if set.is_set(OptId::Wait) {
        return wait_for(&client, reply.job_id);
    }
    0
}

/// One component's job spec: resolved options, inherited limits and the submitter's nice value.
fn component_spec(
    context: &SubmitContext<'_>,
    set: &OptionSet,
    input: &ScriptInput,
) -> Result<spur_core::model::job::JobSpec, u8> {
    let mut spec = match resolve(context, set, input) {
        Ok(spec) => spec,
        Err(e) => return Err(fail(&e.lines, e.exit_code)),
    };
    spec.rlimits = match propagated_limits(set) {
        Ok(limits) => limits,
        Err(word) => {
            eprintln!("sbatch: error: Bad rlimit name: {word}");
            eprintln!(
                "sbatch: error: --propagate={} is not valid.",
                set.value(OptId::Propagate).unwrap_or_default()
            );
            return Err(1);
        }
    };
    // sbatch passes its umask (unless the caller set SLURM_UMASK already) for slurmstepd to apply to the script.
    if !spec.environment.iter().any(|(k, _)| k == "SLURM_UMASK") {
        let given = set
            .value(OptId::Umask)
            .and_then(spur_core::grammar::options::resolve::pbs_umask);
        let mask = std::env::var("SLURM_UMASK")
            .unwrap_or_else(|_| format!("{:04o}", given.unwrap_or_else(current_umask) & 0o777));
        spec.environment.push(("SLURM_UMASK".to_string(), mask));
    }
    // As sbatch does, whatever --export says: the job learns the submitter's scheduling priority (nice value).
    // SAFETY: plain syscall wrapper with no pointers.
    let prio = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
    spec.environment.retain(|(k, _)| k != "SLURM_PRIO_PROCESS");
    spec.environment
        .push(("SLURM_PRIO_PROCESS".to_string(), prio.to_string()));
    Ok(spec)
}

fn early_text(action: EarlyAction) -> String {
    match action {
        // Slurm lists --hint and --mem-bind only where task/affinity honours them.
        EarlyAction::Help => {
            let task_plugin = config::load_slurm_conf().and_then(|c| c.get_str("TaskPlugin"));
            help_text_for(Command::Sbatch, task_plugin.unwrap_or_default())
        }
        EarlyAction::Usage => usage_text(Command::Sbatch),
        EarlyAction::Version => format!("{}\n", crate::version_line()),
        // `--gres=help`: the GRES names this cluster tracks.
        EarlyAction::GresList => {
            let mut names = config::gres_types();
            if names.is_empty() {
                names.push("gpu".to_string());
            }
            format!("Valid gres options are:\n{}\n", names.join("\n"))
        }
    }
}

/// `--uid`/`--gid` are root's, and must name an existing user or group, by name or number; Slurm checks while
/// reading options.
/// The option reader is pure and cannot look users up, so the check runs right after it: a job with several
/// errors may report another one first.
fn unknown_identity(set: &OptionSet) -> Option<String> {
    use nix::unistd::{Gid, Group, Uid, User};
    let user_exists = |text: &str| match text.parse::<u32>() {
        Ok(uid) => User::from_uid(Uid::from_raw(uid)).ok().flatten().is_some(),
        Err(_) => User::from_name(text).ok().flatten().is_some(),
    };
    let group_exists = |text: &str| match text.parse::<u32>() {
        Ok(gid) => Group::from_gid(Gid::from_raw(gid)).ok().flatten().is_some(),
        Err(_) => Group::from_name(text).ok().flatten().is_some(),
    };
    // Only root may name another identity, as in Slurm; the controller ignores the request's uid anyway (the
    // credential decides), so this only spares the user a job that runs as themself.
    let root = nix::unistd::getuid().is_root();
    if set.value(OptId::Uid).is_some() && !root {
        return Some("sbatch: error: --uid only permitted by root user".to_string());
    }
    if set.value(OptId::Gid).is_some() && !root {
        return Some("sbatch: error: --gid only permitted by root user".to_string());
    }
    if set.value(OptId::Uid).is_some_and(|v| !user_exists(v)) {
        return Some("sbatch: error: Invalid --uid specification".to_string());
    }
    if set.value(OptId::Gid).is_some_and(|v| !group_exists(v)) {
        return Some("sbatch: error: Invalid --gid specification".to_string());
    }
    None
}

fn absolute(path: &str) -> String {
    if path.starts_with('/') {
        return path.to_string();
    }
    match std::env::current_dir() {
        Ok(dir) => dir.join(path).display().to_string(),
        Err(_) => path.to_string(),
    }
}

fn fail(lines: &[String], code: i32) -> u8 {
    for line in lines {
        eprintln!("{line}");
    }
    u8::try_from(code.rem_euclid(256)).unwrap_or(1)
}

/// Slurm prints the controller's specific complaint first, then `Batch job submission failed: <errno text>`.
fn submission_failed(error: &ClientError) -> u8 {
    match error {
        ClientError::Api(ApiError { errno, detail, .. }) => {
            if let Some(detail) = detail.as_ref().filter(|d| d.as_str() != errno.text()) {
                eprintln!("sbatch: error: {detail}");
            }
            eprintln!(
                "sbatch: error: Batch job submission failed: {}",
                errno.text()
            );
        }
        other => eprintln!("sbatch: error: Batch job submission failed: {other}"),
    }
    1
}

/// `--test-only` of a heterogeneous job: each component is tried on its own, and the line says, as Slurm's does,
/// when the last of them could start, on how many processors in all and which nodes (no partition). A component
/// that would have to share nodes with another is not noticed (docs/compatibility.md).
fn het_test_only(client: &Client, specs: Vec<spur_core::model::job::JobSpec>) -> u8 {
    let mut first_id = None;
    let mut trials = Vec::with_capacity(specs.len());
    for spec in specs {
        let request = SubmitRequest {
            spec,
            test_only: true,
            immediate: false,
            interactive: false,
            het_components: Vec::new(),
        };
        match client.submit(&request) {
            Ok(reply) => {
                first_id.get_or_insert(reply.job_id);
                trials.extend(reply.test_only);
            }
            Err(e) => return test_only_failed(&e),
        }
    }
    let Some(start) = trials.iter().map(|t| t.start_time).max() else {
        return 0;
    };
    let mut nodes: Vec<String> = trials.iter().flat_map(|t| t.nodes.clone()).collect();
    nodes.sort();
    nodes.dedup();
    let processors: u32 = trials.iter().map(|t| t.processors).sum();
    eprintln!(
        "sbatch: Job {} to start at {} using {processors} processors on {}",
        first_id.unwrap_or(0),
        spur_core::grammar::values::begin::format_local_time(start, config::utc_offset_secs()),
        spur_core::grammar::hostlist::compress(&nodes)
    );
    0
}

/// `--test-only` reports a refusal as Slurm's `slurm_perror("allocation failure")` does: the errno text only.
fn test_only_failed(error: &ClientError) -> u8 {
    match error {
        ClientError::Api(ApiError { errno, .. }) => {
            eprintln!("allocation failure: {}", errno.text())
        }
        other => eprintln!("allocation failure: {other}"),
    }
    1
}

/// `--wait`: block until the job ends, then exit with its exit code (or 1 for a job that did not complete).
fn wait_for(client: &Client, job_id: u32) -> u8 {
    loop {
        std::thread::sleep(WAIT_POLL);
        let jobs = match client.job_list(JobListing::job(job_id)) {
            Ok(list) => list.jobs,
            Err(e) => {
                eprintln!("sbatch: error: {e}");
                return 1;
            }
        };
        let Some(job) = jobs.iter().find(|j| j.job_id == job_id) else {
            return 0;
        };
        if job.is_finished() && !job.is_completing() {
            let code = if job.exit_signal != 0 {
                1
            } else {
                job.exit_code
            };
            return u8::try_from(code).unwrap_or(1);
        }
    }
}

/// The submitter's soft limits the job inherits (`--propagate`, else slurm.conf), by Slurm's names.
fn propagated_limits(
    set: &spur_core::grammar::options::OptionSet,
) -> Result<Vec<(String, u64)>, String> {
    use nix::sys::resource::getrlimit;
    let option = set
        .is_set(OptId::Propagate)
        .then(|| set.value(OptId::Propagate).unwrap_or(""));
    let conf = config::load_slurm_conf();
    let names = spur_core::grammar::rlimits::propagated(
        option,
        conf.and_then(|c| c.propagate_resource_limits()),
        conf.and_then(|c| c.propagate_resource_limits_except()),
    )?;
    Ok(names
        .into_iter()
        .filter_map(|name| {
            let resource = spur_stepd::rlimit::resource(name)?;
            let (soft, _) = getrlimit(resource).ok()?;
            Some((name.to_string(), soft))
        })
        .collect())
}

/// This process's umask.
fn current_umask() -> u32 {
    // SAFETY: umask only swaps the process mask; it is put back at once, before sbatch starts any thread.
    unsafe {
        let mask = libc::umask(0);
        libc::umask(mask);
        mask
    }
}
