//! The job spec sbatch, srun and salloc submit: the typed option values ([`options::resolve`]) plus what only the
//! submitter knows (identity, directory, environment, the script), with `--export` and the defaults Slurm applies
//! (job name from the script, working directory, requeue).
//! Pure: the submitter's identity, directory, environment and clock come in through [`SubmitContext`].

use std::collections::BTreeMap;

use crate::grammar::options::resolve::{OpenMode as ResolvedOpenMode, Sharing};
use crate::grammar::options::{
    self, def, Command, ErrCtx, ErrorKind, ExitClass, OptError, OptId, OptionSet, ResolveConfig,
};
use crate::grammar::values::begin::LocalNow;
use crate::grammar::values::gres::parse_gpus;
use crate::grammar::values::time::TimeLimit;
use crate::model::job::{GresRequest, JobSpec, OpenMode};

/// Facts about the submitter that the options do not carry.
#[derive(Debug, Clone)]
pub struct SubmitContext<'a> {
    pub cmd: Command,
    pub uid: u32,
    pub gid: u32,
    pub user_name: &'a str,
    /// The directory the command runs in (default working directory).
    pub cwd: &'a str,
    pub submit_host: &'a str,
    /// The submitter's environment, in order.
    pub env: &'a [(String, String)],
    pub now: LocalNow,
    /// GRES names the cluster knows (`GresTypes`), for checking `--gres`.
    pub gres_types: &'a [&'a str],
    /// `MaxArraySize` from slurm.conf.
    pub max_array_size: u32,
    /// The submitting process's session id.
    pub submit_sid: u32,
}

/// The script and its name as sbatch read them.
#[derive(Debug, Clone, Default)]
pub struct ScriptInput {
    pub body: Option<String>,
    /// Absolute path of the script file (`Command=`), `None` for `--wrap` or stdin.
    pub path: Option<String>,
    /// The script's base name, the default job name (`wrap` for `--wrap`, `sbatch` for stdin).
    pub name: String,
    pub argv: Vec<String>,
}

pub fn resolve(
    ctx: &SubmitContext<'_>,
    set: &OptionSet,
    script: &ScriptInput,
) -> Result<JobSpec, OptError> {
    let err = ErrCtx::new(ctx.cmd);
    let config = ResolveConfig {
        max_array_size: ctx.max_array_size,
        gres_types: ctx.gres_types.iter().map(|g| g.to_string()).collect(),
        now: Some(ctx.now),
    };
    let r = options::resolve(&err, set, &config)?;
    let minutes = |limit: Option<TimeLimit>| match limit {
        Some(TimeLimit::Minutes(m)) => Some(m),
        _ => None,
    };
    let (nodes_min, nodes_max) = match r.nodes {
        // `-N0` stays 0: the controller refuses it (`Node count specification invalid`), as slurmctld does.
        Some(count) => (count.min, Some(count.max).filter(|m| *m > 0)),
        None => (1, None),
    };
    // Every node `-w` names is allocated, so the list raises the minimum node count; a maximum below it is the
    // client's error, as in Slurm (`-N1 -w n[1-2]`: "invalid number of nodes (-N 2-1)").
    let listed = listed_nodes(r.nodelist.as_deref());
    let nodes_min = nodes_min.max(listed.as_ref().map_or(0, |names| names.len() as u32));
    if let Some(max) = nodes_max.filter(|max| nodes_min > *max) {
        let msg = format!("invalid number of nodes (-N {nodes_min}-{max})");
        return Err(err.error(
            ErrorKind::InvalidValue(OptId::Nodes),
            ExitClass::ErrorExit,
            &[msg.as_str()],
        ));
    }
    let mut gres: Vec<GresRequest> = r
        .gres_requests
        .clone()
        .unwrap_or_default()
        .into_iter()
        .map(gres_request)
        .collect();
    // `--gpus-per-node` is a per-node request like `--gres` (`TresPerNode=`); `--gpus` is the job's (`TresPerJob=`), so
    // the text is taken between the two.
    let gres_text = |gres: &[GresRequest]| {
        (!gres.is_empty()).then(|| {
            gres.iter()
                .map(|g| match &g.gres_type {
                    Some(t) => format!("gres:{}:{}:{}", g.name, t, g.count),
                    None => format!("gres:{}:{}", g.name, g.count),
                })
                .collect::<Vec<_>>()
                .join(",")
        })
    };
    let add_gpus = |option: OptId, gres: &mut Vec<GresRequest>| -> Result<(), OptError> {
        let Some(text) = set.value(option) else {
            return Ok(());
        };
        let gpus = parse_gpus(text, ctx.gres_types).map_err(|e| {
            err.error(
                ErrorKind::InvalidValue(option),
                ExitClass::One,
                &[&e.to_string()],
            )
        })?;
        // `--gpus` on a one-node job is a per-node count; the steps issue spreads it across nodes.
        for request in gpus.into_iter().map(gres_request) {
            if !gres.iter().any(|g| g.name == request.name) {
                gres.push(request);
            }
        }
        Ok(())
    };
    add_gpus(OptId::GpusPerNode, &mut gres)?;
    let gres_text = gres_text(&gres);
    add_gpus(OptId::Gpus, &mut gres)?;
    // `--gpus-per-socket=N` on the `--sockets-per-node` it requires: N for each of those sockets on every node.
    let sockets = set
        .value(OptId::SocketsPerNode)
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|n| *n > 0);
    if let Some(sockets) = sockets {
        let mut per_socket = Vec::new();
        add_gpus(OptId::GpusPerSocket, &mut per_socket)?;
        for mut request in per_socket {
            request.count = request.count.saturating_mul(sockets);
            if !gres.iter().any(|g| g.name == request.name) {
                gres.push(request);
            }
        }
    }
    // `--gpus-per-task`: each node needs the GPUs of the tasks it runs (`TresPerTask=`, not `TresPerNode=`, so
    // after `gres_text`).
    if let Some(text) = set.value(OptId::GpusPerTask) {
        let per_task = parse_gpus(text, ctx.gres_types).map_err(|e| {
            err.error(
                ErrorKind::InvalidValue(OptId::GpusPerTask),
                ExitClass::One,
                &[&e.to_string()],
            )
        })?;
        let node_count = nodes_min.max(1);
        let tasks_per_node = r
            .ntasks_per_node
            .unwrap_or_else(|| r.ntasks.unwrap_or(node_count).div_ceil(node_count))
            .max(1);
        for mut request in per_task.into_iter().map(gres_request) {
            request.count = request.count.saturating_mul(u64::from(tasks_per_node));
            if !gres.iter().any(|g| g.name == request.name) {
                gres.push(request);
            }
        }
    }
    let work_dir = match r.chdir.as_deref() {
        Some(dir) if dir.starts_with('/') => dir.to_string(),
        Some(dir) => format!("{}/{}", ctx.cwd.trim_end_matches('/'), dir),
        None => ctx.cwd.to_string(),
    };
    let options: BTreeMap<String, String> = set
        .iter()
        .map(|(id, entry)| {
            (
                def(id).long.to_string(),
                entry.value.clone().unwrap_or_default(),
            )
        })
        .collect();
    Ok(JobSpec {
        name: r.job_name.clone().unwrap_or_else(|| script.name.clone()),
        user_id: ctx.uid,
        group_id: ctx.gid,
        user_name: ctx.user_name.to_string(),
        account: r.account.clone(),
        qos: r.qos.clone(),
        partition: r.partition.clone(),
        time_limit_min: minutes(r.time_limit),
        time_min_min: minutes(r.time_min),
        nodes_min,
        nodes_max,
        ntasks: r.ntasks,
        ntasks_per_node: r.ntasks_per_node,
        cpus_per_task: r.cpus_per_task.unwrap_or(1),
        mem_per_node_mb: r.mem_per_node.map(|m| m.0),
        mem_per_cpu_mb: r.mem_per_cpu.map(|m| m.0),
        tmp_disk_mb: r.tmp.map_or(0, |m| m.0),
        gres,
        gres_text,
        exclusive: matches!(
            r.sharing,
            Some(Sharing::Exclusive | Sharing::ExclusiveUser | Sharing::ExclusiveMcs)
        ),
        // Slurm keeps the list sorted, without repeats and ranged (`-w n3,n1,n1`: `ReqNodeList=n[1,3]`).
        required_nodes: match &listed {
            Some(names) => Some(crate::grammar::hostlist::compress_sorted(names)),
            None => r.nodelist.clone(),
        },
        excluded_nodes: r.exclude.clone(),
        constraint: r.constraint.clone(),
        array: r
            .array
            .as_ref()
            .and(set.value(OptId::Array))
            .filter(|a| !a.is_empty())
            .map(str::to_string),
        dependency: r
            .dependency
            .as_ref()
            .and(set.value(OptId::Dependency))
            .filter(|d| !d.is_empty())
            .map(str::to_string),
        begin_time: r.begin_epoch,
        deadline: r.deadline_epoch,
        hold: r.hold,
        nice: r.nice.unwrap_or(0),
        requeue: r.requeue.unwrap_or(true),
        no_kill: r.no_kill.unwrap_or(false),
        work_dir,
        stdout: r.output.clone(),
        stderr: r.error.clone(),
        stdin: r.input.clone(),
        open_mode: match r.open_mode {
            Some(ResolvedOpenMode::Append) => OpenMode::Append,
            _ => OpenMode::Truncate,
        },
        // The submitting command reads its own limits (an I/O this crate does not do).
        rlimits: Vec::new(),
        script: script.body.clone(),
        argv: script.argv.clone(),
        command: script.path.clone(),
        environment: if ctx.cmd == Command::Sbatch {
            job_environment(r.export.as_deref(), ctx.env)
        } else {
            exported_environment(r.export.as_deref(), ctx.env)
        },
        signal: r.signal.map(|spec| {
            (
                i32::from(spec.signal),
                u32::from(spec.time),
                spec.batch_only,
            )
        }),
        comment: r.comment.clone(),
        submit_host: ctx.submit_host.to_string(),
        submit_sid: ctx.submit_sid,
        options,
        kill_on_invalid_dep: r.kill_on_invalid_dep,
        alloc_node: None,
        reservation: r.reservation.clone(),
        licenses: r.licenses.clone(),
        switches: r.switches.map(|s| crate::model::job::SwitchRequest {
            count: s.count,
            wait_secs: s.wait_secs,
        }),
        min_cpus_per_node: r.mincpus,
        immediate: false,
        cpus_per_gpu: set
            .value(OptId::CpusPerGpu)
            .and_then(|v| v.trim().parse::<u32>().ok())
            .filter(|n| *n > 0),
        // Slurm takes `--mem-per-gpu=0` for no memory option at all.
        mem_per_gpu_mb: r.mem_per_gpu.map(|m| m.0).filter(|m| *m > 0),
        // The controller fills in the partition's defaults.
        def_cpus_per_gpu: None,
        def_mem_per_gpu_mb: None,
    })
}

/// The distinct nodes of a `--nodelist` hostlist (`n1,n1` is one node). `None` for a list read from a file (a
/// path) or one that does not parse: the controller judges those as written.
fn listed_nodes(nodelist: Option<&str>) -> Option<Vec<String>> {
    let list = nodelist.filter(|l| !l.is_empty() && !l.contains('/'))?;
    let mut names = crate::grammar::hostlist::expand(list).ok()?;
    names.sort_unstable();
    names.dedup();
    Some(names)
}

fn gres_request(r: crate::grammar::values::gres::GresRequest) -> GresRequest {
    GresRequest {
        count: r.count_value(),
        name: r.name,
        gres_type: r.type_name,
    }
}

/// sbatch's job environment: the exported environment plus what sbatch adds for anything but `--export=ALL`: `SLURM_EXPORT_ENV` (the value as
/// given) and `SLURM_GET_USER_ENV=1`, which asks the node to start from the user's login environment.
fn job_environment(export: Option<&str>, env: &[(String, String)]) -> Vec<(String, String)> {
    let mut out = exported_environment(export, env);
    if let Some(export) = export.filter(|e| !e.eq_ignore_ascii_case("ALL")) {
        for (key, value) in [("SLURM_EXPORT_ENV", export), ("SLURM_GET_USER_ENV", "1")] {
            out.retain(|(k, _)| k != key);
            out.push((key.to_string(), value.to_string()));
        }
    }
    out
}

/// `--export`: `ALL` (default) passes the whole environment, `NONE` only the variables named `SLURM*`, a list
/// only the named variables (plus `SLURM_*`), and `NAME=value` items set values; `ALL,NAME=value` adds to
/// everything.
pub fn exported_environment(
    export: Option<&str>,
    env: &[(String, String)],
) -> Vec<(String, String)> {
    let export = export.unwrap_or("ALL");
    let items: Vec<&str> = export.split(',').filter(|i| !i.is_empty()).collect();
    let all = items.iter().any(|i| i.eq_ignore_ascii_case("ALL"));
    let none = items.iter().any(|i| i.eq_ignore_ascii_case("NONE"));
    let mut out: Vec<(String, String)> = if all {
        env.to_vec()
    } else if none && items.len() == 1 {
        // sbatch keeps every variable whose name starts with `SLURM` (`SLURMD_PORT` too), where a list below
        // keeps only `SLURM_*`.
        env.iter()
            .filter(|(k, _)| k.starts_with("SLURM"))
            .cloned()
            .collect()
    } else {
        env.iter()
            .filter(|(k, _)| k.starts_with("SLURM_"))
            .cloned()
            .collect()
    };
    for item in items {
        if item.eq_ignore_ascii_case("ALL") || item.eq_ignore_ascii_case("NONE") {
            continue;
        }
        match item.split_once('=') {
            Some((key, value)) => {
                out.retain(|(k, _)| k != key);
                out.push((key.to_string(), value.to_string()));
            }
            None => {
                if let Some((k, v)) = env.iter().find(|(k, _)| k == item) {
                    out.retain(|(existing, _)| existing != k);
                    out.push((k.clone(), v.clone()));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Vec<(String, String)> {
        vec![
            ("PATH".into(), "/bin".into()),
            ("HOME".into(), "/root".into()),
            ("SLURM_CONF".into(), "/etc/slurm.conf".into()),
        ]
    }

    #[test]
    fn export_all_none_and_lists() {
        assert_eq!(exported_environment(None, &env()), env());
        assert_eq!(
            exported_environment(Some("NONE"), &env()),
            vec![("SLURM_CONF".into(), "/etc/slurm.conf".into())]
        );
        let mut with_port = env();
        with_port.push(("SLURMD_PORT".into(), "7818".into()));
        assert_eq!(
            exported_environment(Some("NONE"), &with_port),
            vec![
                ("SLURM_CONF".into(), "/etc/slurm.conf".into()),
                ("SLURMD_PORT".into(), "7818".into())
            ]
        );
        assert!(!exported_environment(Some("HOME"), &with_port)
            .iter()
            .any(|(k, _)| k == "SLURMD_PORT"));
        let listed = exported_environment(Some("HOME,FOO=bar"), &env());
        assert_eq!(
            listed,
            vec![
                ("SLURM_CONF".into(), "/etc/slurm.conf".into()),
                ("HOME".into(), "/root".into()),
                ("FOO".into(), "bar".into())
            ]
        );
        let added = exported_environment(Some("ALL,PATH=/x"), &env());
        assert!(added.contains(&("PATH".into(), "/x".into())));
        assert_eq!(added.len(), 3);
    }

    /// Checked against sbatch 22.05: only `--export=ALL` (or none) leaves these two out.
    #[test]
    fn export_other_than_all_asks_for_the_login_environment() {
        let marked = |export: Option<&str>| {
            let out = job_environment(export, &env());
            (
                out.iter()
                    .find(|(k, _)| k == "SLURM_EXPORT_ENV")
                    .map(|(_, v)| v.clone()),
                out.iter()
                    .any(|(k, v)| k == "SLURM_GET_USER_ENV" && v == "1"),
            )
        };
        assert_eq!(marked(None), (None, false));
        assert_eq!(marked(Some("ALL")), (None, false));
        assert_eq!(marked(Some("NONE")), (Some("NONE".into()), true));
        assert_eq!(marked(Some("ALL,FOO=1")), (Some("ALL,FOO=1".into()), true));
    }
}
