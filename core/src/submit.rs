//! Stage two of option handling: one parsed [`OptionSet`] becomes the [`JobSpec`] sbatch, srun and salloc submit.
//! Syntax was checked while reading (crate::options); here values are interpreted with Slurm's rules (memory
//! units, node ranges, `--export`, defaults such as the job name) and combinations Slurm refuses are refused.
//! Pure: the submitter's identity, directory, environment and clock come in through [`SubmitContext`].

use std::collections::BTreeMap;

use crate::job::{GresRequest, JobSpec, OpenMode};
use crate::options::{def, Command, ErrCtx, ErrorKind, ExitClass, OptError, OptId, OptionSet};
use crate::values::begin::{parse_begin, LocalNow};
use crate::values::gres::{parse_gpus, parse_gres};
use crate::values::nodes::parse_node_count;
use crate::values::size::{parse_mem, parse_tmp};
use crate::values::time::{parse_job_time_limit, TimeLimit};

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

pub fn resolve(ctx: &SubmitContext<'_>, set: &OptionSet, script: &ScriptInput) -> Result<JobSpec, OptError> {
    let err = ErrCtx::new(ctx.cmd);
    let value = |id: OptId| set.value(id);
    let invalid = |name: &str| err.error(ErrorKind::InvalidValue(OptId::Time), ExitClass::Minus1, &[&format!("Invalid --{name} specification")]);

    let time_limit_min = match value(OptId::Time) {
        Some(text) => match parse_job_time_limit(text).map_err(|_| invalid("time"))? {
            TimeLimit::Minutes(m) => Some(m),
            TimeLimit::Unlimited => None,
        },
        None => None,
    };
    let time_min_min = match value(OptId::TimeMin) {
        Some(text) => match parse_job_time_limit(text).map_err(|_| invalid("time-min"))? {
            TimeLimit::Minutes(m) => Some(m),
            TimeLimit::Unlimited => None,
        },
        None => None,
    };
    let (nodes_min, nodes_max) = match value(OptId::Nodes) {
        Some(text) => {
            let count = parse_node_count(text).map_err(|e| err.error(ErrorKind::InvalidValue(OptId::Nodes), ExitClass::Minus1, &[&e.to_string()]))?;
            (count.min.max(1), Some(count.max).filter(|m| *m > 0))
        }
        None => (1, None),
    };
    let ntasks = numeric(&err, set, OptId::Ntasks)?;
    let ntasks_per_node = numeric(&err, set, OptId::NtasksPerNode)?;
    let cpus_per_task = numeric(&err, set, OptId::CpusPerTask)?.unwrap_or(1);
    let mem_options = [OptId::Mem, OptId::MemPerCpu, OptId::MemPerGpu];
    if mem_options.iter().filter(|id| set.is_set(**id)).count() > 1 {
        return Err(err.fatal(
            ErrorKind::InvalidValue(OptId::Mem),
            "--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.",
        ));
    }
    let mem_per_node_mb = match value(OptId::Mem) {
        Some(text) => Some(parse_mem(text).map_err(|_| invalid("mem"))?.0),
        None => None,
    };
    let mem_per_cpu_mb = match value(OptId::MemPerCpu) {
        Some(text) => Some(parse_mem(text).map_err(|_| invalid("mem-per-cpu"))?.0),
        None => None,
    };
    let tmp_disk_mb = match value(OptId::Tmp) {
        Some(text) => parse_tmp(text).map_err(|_| invalid("tmp"))?.0,
        None => 0,
    };
    let gres_err = |e: crate::values::gres::GresError| {
        err.error(ErrorKind::InvalidValue(OptId::Gres), ExitClass::One, &[&e.to_string()])
    };
    let mut gres: Vec<GresRequest> = Vec::new();
    if let Some(text) = value(OptId::Gres) {
        gres.extend(parse_gres(text, ctx.gres_types).map_err(gres_err)?.into_iter().map(gres_request));
    }
    for id in [OptId::Gpus, OptId::GpusPerNode] {
        if let Some(text) = value(id) {
            let gpus = parse_gpus(text, ctx.gres_types).map_err(gres_err)?;
            // `--gpus` on a one-node job is a per-node count; the steps issue spreads it across nodes.
            for request in gpus.into_iter().map(gres_request) {
                if !gres.iter().any(|g| g.name == request.name) {
                    gres.push(request);
                }
            }
        }
    }
    let gres_text = if gres.is_empty() {
        None
    } else {
        Some(
            gres.iter()
                .map(|g| match &g.gres_type {
                    Some(t) => format!("gres:{}:{}:{}", g.name, t, g.count),
                    None => format!("gres:{}:{}", g.name, g.count),
                })
                .collect::<Vec<_>>()
                .join(","),
        )
    };
    let begin_time = match value(OptId::Begin) {
        Some(text) => Some(parse_begin(text, ctx.now).map_err(|e| {
            let mut lines: Vec<String> = Vec::new();
            // Slurm's time parser prints its own line before sbatch's error.
            let crate::values::begin::BeginError::Invalid(detail) = e;
            if let Some(detail) = detail {
                lines.push(detail.to_string());
            }
            lines.push(format!("{}: error: Invalid --begin specification", ctx.cmd));
            err.raw(ErrorKind::InvalidValue(OptId::Begin), lines, ExitClass::Minus1)
        })?),
        None => None,
    };
    let nice = match value(OptId::Nice) {
        Some(text) => crate::options::validate::strtol(text).clamp(-2_147_483_645, 2_147_483_645) as i32,
        None if set.is_set(OptId::Nice) => 100,
        None => 0,
    };
    let work_dir = match value(OptId::Chdir) {
        Some(dir) if dir.starts_with('/') => dir.to_string(),
        Some(dir) => format!("{}/{}", ctx.cwd.trim_end_matches('/'), dir),
        None => ctx.cwd.to_string(),
    };
    let name = value(OptId::JobName).map(str::to_string).unwrap_or_else(|| script.name.clone());
    let open_mode = match value(OptId::OpenMode) {
        Some(v) if v.starts_with(['a', 'A']) => OpenMode::Append,
        _ => OpenMode::Truncate,
    };
    let requeue = !set.is_set(OptId::NoRequeue);
    let signal = match value(OptId::Signal) {
        Some(text) => {
            let spec = crate::values::signal::parse_signal_spec(text, ctx.cmd == Command::Sbatch)
                .map_err(|_| invalid("signal"))?;
            Some((i32::from(spec.signal), u32::from(spec.time), spec.batch_only))
        }
        None => None,
    };
    let environment = exported_environment(value(OptId::Export), ctx.env);
    let options: BTreeMap<String, String> = set
        .iter()
        .map(|(id, entry)| (def(id).long.to_string(), entry.value.clone().unwrap_or_default()))
        .collect();
    Ok(JobSpec {
        name,
        user_id: ctx.uid,
        group_id: ctx.gid,
        user_name: ctx.user_name.to_string(),
        account: value(OptId::Account).map(str::to_string),
        qos: value(OptId::Qos).map(str::to_string),
        partition: value(OptId::Partition).map(str::to_string),
        time_limit_min,
        time_min_min,
        nodes_min,
        nodes_max,
        ntasks,
        ntasks_per_node,
        cpus_per_task,
        mem_per_node_mb,
        mem_per_cpu_mb,
        tmp_disk_mb,
        gres,
        gres_text,
        exclusive: set.is_set(OptId::Exclusive),
        required_nodes: value(OptId::Nodelist).map(str::to_string),
        excluded_nodes: value(OptId::Exclude).map(str::to_string),
        constraint: value(OptId::Constraint).map(str::to_string),
        array: value(OptId::Array).filter(|a| !a.is_empty()).map(str::to_string),
        dependency: value(OptId::Dependency).filter(|d| !d.is_empty()).map(str::to_string),
        begin_time,
        hold: set.is_set(OptId::Hold),
        nice,
        requeue,
        work_dir,
        stdout: value(OptId::Output).map(str::to_string),
        stderr: value(OptId::Error).map(str::to_string),
        stdin: value(OptId::Input).map(str::to_string),
        open_mode,
        script: script.body.clone(),
        argv: script.argv.clone(),
        command: script.path.clone(),
        environment,
        signal,
        comment: value(OptId::Comment).map(str::to_string),
        submit_host: ctx.submit_host.to_string(),
        options,
    })
}

fn gres_request(r: crate::values::gres::GresRequest) -> GresRequest {
    GresRequest {
        count: r.count_value(),
        name: r.name,
        gres_type: r.type_name,
    }
}

/// A positive count (`-n`, `-c`, `--ntasks-per-node`), with sbatch's `Invalid numeric value` error.
fn numeric(err: &ErrCtx, set: &OptionSet, id: OptId) -> Result<Option<u32>, OptError> {
    match set.get(id) {
        None => Ok(None),
        Some(entry) => {
            let text = entry.value.as_deref().unwrap_or("");
            let value = crate::options::validate::numeric(err, id, &format!("--{}", def(id).long), Some(text), true)?;
            Ok(Some(u32::try_from(value).unwrap_or(u32::MAX)))
        }
    }
}

/// `--export`: `ALL` (default) passes the whole environment, `NONE` none of it, a list only the named variables
/// (plus `SLURM_*`), and `NAME=value` items set values; `ALL,NAME=value` adds to everything.
pub fn exported_environment(export: Option<&str>, env: &[(String, String)]) -> Vec<(String, String)> {
    let export = export.unwrap_or("ALL");
    let items: Vec<&str> = export.split(',').filter(|i| !i.is_empty()).collect();
    let all = items.iter().any(|i| i.eq_ignore_ascii_case("ALL"));
    let none = items.iter().any(|i| i.eq_ignore_ascii_case("NONE"));
    let mut out: Vec<(String, String)> = if all {
        env.to_vec()
    } else if none && items.len() == 1 {
        Vec::new()
    } else {
        env.iter().filter(|(k, _)| k.starts_with("SLURM_")).cloned().collect()
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
        assert_eq!(exported_environment(Some("NONE"), &env()), vec![]);
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
}
