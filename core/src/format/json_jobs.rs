//! One job of `squeue --json` (v0.0.38 field order), including the `job_resources` block of allocated jobs.

use crate::format::arrays::fold_pending_tasks;
use crate::format::job_view::JobView;
use crate::format::json::Json;
use crate::format::squeue_fields::{tres_per_job, tres_per_node, tres_per_task};
use crate::format::units::tres_value;
use crate::format::FormatContext;
use crate::model::job::JobRecord;

/// Each job as v0.0.38 lists it (squeue --json and slurmrestd), pending array tasks folded.
pub fn jobs(jobs: &[JobRecord], ctx: &FormatContext) -> Vec<Json> {
    let refs: Vec<&JobRecord> = jobs.iter().collect();
    fold_pending_tasks(&refs)
        .iter()
        .map(|v| job(v, ctx))
        .collect()
}

fn s(v: Option<String>) -> Json {
    Json::Str(v.unwrap_or_default())
}

fn int(v: impl Into<i64>) -> Json {
    Json::Int(v.into())
}

fn opt_int<T: Into<i64>>(v: Option<T>) -> Json {
    v.map_or(Json::Null, |v| Json::Int(v.into()))
}

fn job(view: &JobView<'_>, ctx: &FormatContext) -> Json {
    let j = view.job;
    let spec = &j.spec;
    let tasks_str = view.array_tasks.clone();
    // The task string keeps its `%N` throttle, which also shows as array_max_tasks.
    let throttle = tasks_str
        .as_deref()
        .and_then(|t| t.split_once('%'))
        .map_or(0, |(_, limit)| limit.parse::<i64>().unwrap_or(0));
    let alloc = view.tres_alloc();
    let flags = if view.is_running() {
        vec![Json::str("JOB_WAS_RUNNING")]
    } else if view.batch_flag() && j.is_finished() && alloc.is_some() {
        vec![Json::str("TRES_STR_CALC")]
    } else {
        Vec::new()
    };
    let billable = alloc
        .as_deref()
        .and_then(|t| tres_value(t, "billing"))
        .map_or(Json::Null, |b| Json::Float(b as f64));
    let derived = if !view.batch_flag() && j.start_time.is_some() {
        view.exit_raw()
    } else {
        let (code, signal) = crate::model::step::derived_exit(&j.steps);
        (code << 8) | (signal & 0x7f)
    };
    let (mem, per) = view.min_memory();
    let mut pairs: Vec<(&str, Json)> = vec![
        ("account", s(spec.account.clone())),
        ("accrue_time", int(j.accrue_time.unwrap_or(0))),
        ("admin_comment", Json::str("")),
        ("array_job_id", int(j.array_job_id.unwrap_or(0))),
        (
            "array_task_id",
            if tasks_str.is_some() {
                Json::Null
            } else {
                opt_int(j.array_task_id)
            },
        ),
        ("array_max_tasks", Json::Int(throttle)),
        ("array_task_string", s(tasks_str.clone())),
        ("association_id", int(0)),
        ("batch_features", Json::str("")),
        ("batch_flag", Json::Bool(view.batch_flag())),
        ("batch_host", s(view.batch_host().map(str::to_string))),
        ("flags", Json::Arr(flags)),
        ("burst_buffer", Json::str("")),
        ("burst_buffer_state", Json::str("")),
        ("cluster", Json::str(ctx.cluster_name.clone())),
        ("cluster_features", Json::str("")),
        ("command", s(spec.command.clone())),
        ("comment", s(spec.comment.clone())),
        ("container", Json::str("")),
        ("contiguous", Json::Bool(false)),
        ("core_spec", Json::Null),
        ("thread_spec", Json::Null),
        ("cores_per_socket", option_int(spec, "cores-per-socket")),
        ("billable_tres", billable),
        (
            "cpus_per_task",
            if spec.cpus_per_task > 1 {
                int(spec.cpus_per_task)
            } else {
                Json::Null
            },
        ),
        ("cpu_frequency_minimum", Json::Null),
        ("cpu_frequency_maximum", Json::Null),
        ("cpu_frequency_governor", Json::Null),
        ("cpus_per_tres", Json::str("")),
        ("deadline", int(spec.deadline.unwrap_or(0))),
        ("delay_boot", int(0)),
        ("dependency", s(view.dependency())),
        ("derived_exit_code", Json::Int(derived.into())),
        ("eligible_time", int(j.eligible_time.unwrap_or(0))),
        ("end_time", int(view.end_time().unwrap_or(0))),
        ("excluded_nodes", s(spec.excluded_nodes.clone())),
        ("exit_code", Json::Int(view.exit_raw().into())),
        ("features", s(spec.constraint.clone())),
        ("federation_origin", Json::str("")),
        ("federation_siblings_active", Json::str("")),
        ("federation_siblings_viable", Json::str("")),
        ("gres_detail", Json::Arr(gres_detail(view, ctx))),
        ("group_id", int(spec.group_id)),
        ("group_name", Json::str(ctx.group_name(spec.group_id))),
        ("job_id", int(j.job_id)),
    ];
    if let Some(resources) = job_resources(view) {
        pairs.push(("job_resources", resources));
    }
    pairs.extend([
        ("job_state", Json::str(view.state_long())),
        ("last_sched_evaluation", int(j.last_sched_eval.unwrap_or(0))),
        (
            "licenses",
            Json::str(spec.licenses.as_deref().unwrap_or("")),
        ),
        ("max_cpus", int(0)),
        ("max_nodes", int(spec.nodes_max.unwrap_or(0))),
        ("mcs_label", Json::str("")),
        ("memory_per_tres", Json::str("")),
        ("name", Json::str(spec.name.clone())),
        ("nodes", Json::str(view.node_list())),
        (
            "nice",
            if spec.nice == 0 {
                Json::Null
            } else {
                int(spec.nice)
            },
        ),
        ("tasks_per_core", Json::Null),
        ("tasks_per_node", int(spec.ntasks_per_node.unwrap_or(0))),
        ("tasks_per_socket", Json::Null),
        ("tasks_per_board", int(0)),
        // A job that ended without running and never asked for a task count has no CPU count either.
        (
            "cpus",
            match view.num_tasks() {
                Some(_) => int(view.num_cpus()),
                None => Json::Null,
            },
        ),
        ("node_count", int(view.num_nodes())),
        ("tasks", opt_int(view.num_tasks())),
        ("het_job_id", int(j.het.as_ref().map_or(0, |h| h.job_id))),
        (
            "het_job_id_set",
            Json::str(j.het.as_ref().map_or_else(String::new, |h| h.id_set())),
        ),
        (
            "het_job_offset",
            int(j.het.as_ref().map_or(0, |h| h.offset)),
        ),
        ("partition", Json::str(j.partition.clone())),
        ("prefer", Json::str("")),
        (
            "memory_per_node",
            if per == "Node" && mem > 0 {
                mem_json(mem)
            } else {
                Json::Null
            },
        ),
        (
            "memory_per_cpu",
            if per == "CPU" {
                mem_json(mem)
            } else {
                Json::Null
            },
        ),
        ("minimum_cpus_per_node", int(view.min_cpus_per_node())),
        ("minimum_tmp_disk_per_node", mem_json(spec.tmp_disk_mb)),
        ("preempt_time", int(0)),
        ("pre_sus_time", int(0)),
        ("priority", int(j.priority)),
        ("profile", Json::Null),
        ("qos", s(spec.qos.clone())),
        ("reboot", Json::Bool(false)),
        ("required_nodes", s(spec.required_nodes.clone())),
        ("requeue", Json::Bool(spec.requeue)),
        ("resize_time", int(0)),
        ("restart_cnt", int(j.restarts)),
        (
            "resv_name",
            Json::str(spec.reservation.as_deref().unwrap_or("")),
        ),
        (
            "shared",
            match crate::policy::oversubscribe::label(spec, j.sharing) {
                "YES" => Json::str("shared"),
                "NO" => Json::str("none"),
                _ => Json::Null,
            },
        ),
        (
            "show_flags",
            Json::Arr(vec![
                Json::str("SHOW_ALL"),
                Json::str("SHOW_DETAIL"),
                Json::str("SHOW_LOCAL"),
            ]),
        ),
        ("sockets_per_board", int(0)),
        ("sockets_per_node", option_int(spec, "sockets-per-node")),
        ("start_time", int(j.start_time.unwrap_or(0))),
        ("state_description", s(view.reason_desc.clone())),
        ("state_reason", Json::str(j.reason.name())),
        ("standard_error", s(spec.stderr.clone())),
        (
            "standard_input",
            s(spec
                .stdin
                .clone()
                .or_else(|| view.batch_flag().then(|| "/dev/null".to_string()))),
        ),
        ("standard_output", s(spec.stdout.clone())),
        ("submit_time", int(j.submit_time)),
        ("suspend_time", int(0)),
        ("system_comment", Json::str("")),
        ("time_limit", opt_int(j.time_limit_min)),
        ("time_minimum", int(spec.time_min_min.unwrap_or(0))),
        ("threads_per_core", option_int(spec, "threads-per-core")),
        ("tres_bind", Json::str("")),
        ("tres_freq", Json::str("")),
        ("tres_per_job", s(tres_per_job(view))),
        ("tres_per_node", s(tres_per_node(view))),
        ("tres_per_socket", Json::str("")),
        ("tres_per_task", s(tres_per_task(view))),
        ("tres_req_str", Json::str(view.tres_req())),
        ("tres_alloc_str", s(alloc)),
        ("user_id", int(spec.user_id)),
        ("user_name", Json::str(ctx.user_name(spec.user_id))),
        ("wckey", Json::str("")),
        (
            "current_working_directory",
            Json::str(spec.work_dir.clone()),
        ),
    ]);
    Json::obj(pairs)
}

fn mem_json(mb: u64) -> Json {
    Json::Int(i64::try_from(mb).unwrap_or(i64::MAX))
}

fn option_int(spec: &crate::model::job::JobSpec, key: &str) -> Json {
    spec.options
        .get(key)
        .and_then(|v| v.parse::<i64>().ok())
        .map_or(Json::Null, Json::Int)
}

/// `gpu:a100:2(IDX:0-1)` for each GRES of a running job on each of its nodes: one entry per GRES when its nodes
/// hold the same, else one entry per node (its GRES joined by commas).
fn gres_detail(view: &JobView<'_>, ctx: &FormatContext) -> Vec<Json> {
    let Some(alloc) = &view.job.alloc else {
        return Vec::new();
    };
    let on_node = |at: usize| -> Vec<String> {
        let (units, shard_gpus) = alloc.units_on(at);
        let node_types = alloc
            .node_names
            .get(at)
            .and_then(|node| ctx.node_gres_types.get(node));
        units
            .iter()
            .map(|(name, idx)| {
                // The type the node has the GRES under, as slurmctld names it; shards only by the job's request.
                let node_type = node_types
                    .filter(|_| name != crate::policy::gpu_shard::SHARD_GRES)
                    .and_then(|types| types.get(name))
                    .cloned();
                let kind = node_type.or_else(|| {
                    view.job
                        .spec
                        .gres
                        .iter()
                        .find(|g| g.name == *name)
                        .and_then(|g| g.gres_type.clone())
                });
                // Shards are shown by the GPU they belong to, as in `scontrol -d show job`.
                let mut sorted = if name == crate::policy::gpu_shard::SHARD_GRES {
                    shard_gpus.to_vec()
                } else {
                    idx.clone()
                };
                sorted.sort_unstable();
                let ranges = crate::format::arrays::format_task_ids(&sorted);
                let head = match kind {
                    Some(t) => format!("{name}:{t}:{}", idx.len()),
                    None => format!("{name}:{}", idx.len()),
                };
                format!("{head}(IDX:{ranges})")
            })
            .collect()
    };
    if alloc.node_units.is_empty() {
        return on_node(0).into_iter().map(Json::Str).collect();
    }
    (0..alloc.node_names.len())
        .map(|at| Json::Str(on_node(at).join(",")))
        .collect()
}

/// Cores are listed under socket 0 (Spur tracks core indices, not sockets); memory is split evenly over nodes.
fn job_resources(view: &JobView<'_>) -> Option<Json> {
    let alloc = view
        .job
        .alloc
        .as_ref()
        .filter(|a| !a.node_names.is_empty())?;
    let hosts = alloc.node_names.len() as u32;
    let cpus_per_node = alloc.cpus;
    let mem_per_node = if alloc.mem_mb > 0 {
        alloc.mem_mb
    } else {
        mem_from_tres(&view.tres_alloc().unwrap_or_default()) / u64::from(hosts.max(1))
    };
    let nodes = alloc
        .node_names
        .iter()
        .map(|name| {
            let ids: Vec<u32> = if alloc.core_ids.is_empty() {
                (0..cpus_per_node).collect()
            } else {
                alloc.core_ids.clone()
            };
            let cores = ids
                .iter()
                .map(|c| (c.to_string(), Json::str("allocated")))
                .collect();
            Json::obj(vec![
                (
                    "sockets",
                    Json::Obj(vec![(
                        "0".to_string(),
                        Json::obj(vec![("cores", Json::Obj(cores))]),
                    )]),
                ),
                ("nodename", Json::str(name.clone())),
                ("cpus_used", int(0)),
                ("memory_used", int(0)),
                ("memory_allocated", mem_json(mem_per_node)),
            ])
        })
        .collect();
    Some(Json::obj(vec![
        ("nodes", Json::str(view.node_list())),
        ("allocated_cores", int(alloc.cpus * hosts)),
        ("allocated_hosts", int(hosts)),
        ("allocated_nodes", Json::Arr(nodes)),
    ]))
}

/// Megabytes from a TRES `mem=` value (`2G` -> 2048).
fn mem_from_tres(tres: &str) -> u64 {
    let Some(value) = tres.split(',').find_map(|p| p.strip_prefix("mem=")) else {
        return 0;
    };
    let digits: String = value.chars().take_while(char::is_ascii_digit).collect();
    let n: u64 = digits.parse().unwrap_or(0);
    match value[digits.len()..].chars().next() {
        Some('G') => n * 1024,
        Some('T') => n * 1024 * 1024,
        Some('P') => n * 1024 * 1024 * 1024,
        _ => n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::test_records::{array_task, ctx, running, NOW};

    fn field<'a>(job: &'a Json, key: &str) -> &'a Json {
        match job {
            Json::Obj(pairs) => &pairs.iter().find(|(k, _)| k == key).unwrap().1,
            _ => panic!("not an object"),
        }
    }

    /// Checked against a live Slurm 22.05: held jobs cancelled before they ran, with and without `-n`.
    #[test]
    fn cancelled_before_running_has_cpus_only_with_a_task_count() {
        let mut job = crate::format::test_records::pending();
        job.state = crate::model::states::JobBaseState::Cancelled;
        job.spec.ntasks = None;
        let out = jobs(std::slice::from_ref(&job), &ctx());
        assert_eq!(field(&out[0], "cpus"), &Json::Null);
        assert_eq!(field(&out[0], "tasks"), &Json::Null);
        job.spec.ntasks = Some(2);
        let out = jobs(&[job], &ctx());
        assert_eq!(field(&out[0], "cpus"), &Json::Int(2));
        assert_eq!(field(&out[0], "tasks"), &Json::Int(2));
    }

    /// Checked against a live Slurm 22.05: null for a plain job, `shared` for `-s` or a job of an
    /// `OverSubscribe=FORCE:2` partition the scheduler tried, `none` for `--exclusive`.
    #[test]
    fn shared_follows_the_jobs_sharing() {
        use crate::policy::oversubscribe::ResolvedSharing;
        let mut job = crate::format::test_records::pending();
        let shared =
            |job: &JobRecord| field(&jobs(std::slice::from_ref(job), &ctx())[0], "shared").clone();
        assert_eq!(shared(&job), Json::Null);
        job.spec.exclusive = true;
        assert_eq!(shared(&job), Json::str("none"));
        job.sharing = Some(ResolvedSharing::Shares);
        assert_eq!(shared(&job), Json::str("shared"));
        job.spec.exclusive = false;
        job.sharing = None;
        job.spec
            .options
            .insert("oversubscribe".to_string(), String::new());
        assert_eq!(shared(&job), Json::str("shared"));
    }

    /// Checked against a live Slurm 22.05 (`squeue --json` of `sbatch -H --wrap true : -n1`, second component).
    #[test]
    fn a_het_component_names_its_job_and_place() {
        let mut job = crate::format::test_records::pending();
        job.job_id = 40;
        job.het = Some(crate::model::job::HetMembership {
            job_id: 39,
            offset: 1,
            size: 2,
        });
        let out = jobs(&[job], &ctx());
        assert_eq!(field(&out[0], "het_job_id"), &Json::Int(39));
        assert_eq!(field(&out[0], "het_job_id_set"), &Json::str("39-40"));
        assert_eq!(field(&out[0], "het_job_offset"), &Json::Int(1));
    }

    /// Checked against a live Slurm 22.05 (`sbatch --array=1-4%2`, an unlimited running job).
    #[test]
    fn throttled_array_and_unlimited_running_job() {
        let out = jobs(
            &[
                array_task(50, 1),
                array_task(51, 2),
                array_task(52, 3),
                array_task(53, 4),
            ],
            &ctx(),
        );
        assert_eq!(out.len(), 1);
        assert_eq!(field(&out[0], "array_task_string"), &Json::str("1-4%2"));
        assert_eq!(field(&out[0], "array_max_tasks"), &Json::Int(2));
        assert_eq!(field(&out[0], "array_task_id"), &Json::Null);
        let mut job = running();
        job.time_limit_min = None;
        let out = jobs(&[job], &ctx());
        assert_eq!(
            field(&out[0], "end_time"),
            &Json::Int(NOW - 65 + 365 * 86_400)
        );
        assert_eq!(
            field(&out[0], "flags"),
            &Json::Arr(vec![Json::str("JOB_WAS_RUNNING")])
        );
        assert_eq!(field(&out[0], "billable_tres"), &Json::Float(4.0));
        assert_eq!(field(&out[0], "nodes"), &Json::str("n[1-2]"));
    }
}
