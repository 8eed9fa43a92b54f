//! Jobs beyond their partition's limits (issue 31): accepted and kept pending with Slurm's reasons, never started;
//! refused only where Slurm refuses them (`EnforcePartLimits`) or a site asks Spur to
//! (`SchedulerParameters=spur_refuse_unrunnable`).

use pretty_assertions::assert_eq;

use spur_core::model::job::JobSpec;
use spur_core::model::states::{JobBaseState, JobReason};
use spur_core::wire::api::SlurmErrno;

use super::tests::{spec, Harness};
use super::Command;

fn submit(h: &mut Harness, spec: JobSpec) -> Result<u32, (SlurmErrno, Option<String>)> {
    let now = h.now;
    h.apply(Command::Submit {
        spec: Box::new(spec),
        now,
    })
    .map(|applied| applied.job_id.unwrap_or(0))
    .map_err(|e| (e.errno, e.detail))
}

/// The lead's measurements on one 2-CPU node: what Slurm 22.05 queues, with its reason and the `NumNodes=` it shows.
fn beyond() -> Vec<(&'static str, JobSpec, JobReason, u32)> {
    vec![
        (
            "-n2 -c3",
            JobSpec {
                ntasks: Some(2),
                cpus_per_task: 3,
                ..spec("a")
            },
            JobReason::PartConfig,
            2,
        ),
        (
            "-c3",
            JobSpec {
                cpus_per_task: 3,
                ..spec("b")
            },
            JobReason::PartConfig,
            1,
        ),
        (
            "-n64",
            JobSpec {
                ntasks: Some(64),
                ..spec("c")
            },
            JobReason::PartConfig,
            32,
        ),
        (
            "-n3",
            JobSpec {
                ntasks: Some(3),
                ..spec("d")
            },
            JobReason::PartConfig,
            2,
        ),
        (
            "-N2",
            JobSpec {
                nodes_min: 2,
                nodes_max: Some(2),
                ..spec("e")
            },
            JobReason::PartNodeLimit,
            2,
        ),
    ]
}

#[test]
fn requests_beyond_the_partition_pend_with_slurms_reasons_and_never_start() {
    let mut h = Harness::new();
    let mut ids = Vec::new();
    for (what, spec, reason, nodes) in beyond() {
        let id = submit(&mut h, spec).unwrap_or_else(|e| panic!("{what} refused: {e:?}"));
        ids.push((what, id, reason, nodes));
    }
    assert_eq!(h.schedule(), Vec::<u32>::new());
    for (what, id, reason, nodes) in ids {
        let job = &h.state.jobs[&id];
        assert_eq!(job.state, JobBaseState::Pending, "{what}");
        assert_eq!(job.reason, reason, "{what}");
        let view = spur_core::format::job_view::JobView::single(job);
        assert_eq!(view.num_nodes(), nodes, "{what}");
    }
    // What no node could hold within the limits is still refused, as by slurmctld.
    let memory = JobSpec {
        mem_per_node_mb: Some(999_999),
        ..spec("m")
    };
    assert_eq!(
        submit(&mut h, memory),
        Err((
            SlurmErrno::RequestedNodeConfigUnavailable,
            Some("Memory specification can not be satisfied".to_string())
        ))
    );
}

#[test]
fn beyond_the_partition_is_refused_asked_to_start_at_once() {
    let mut h = Harness::new();
    for (what, spec, _, _) in beyond() {
        let immediate = JobSpec {
            immediate: true,
            ..spec
        };
        assert_eq!(
            submit(&mut h, immediate).map_err(|e| e.0),
            Err(SlurmErrno::RequestedPartConfigUnavailable),
            "{what}"
        );
    }
}

#[test]
fn enforce_part_limits_refuses_with_slurms_errors() {
    let mut h = Harness::new();
    h.state.settings.enforce_part_limits = true;
    let expected = |reason: JobReason| match reason {
        JobReason::PartNodeLimit => SlurmErrno::InvalidNodeCount,
        _ => SlurmErrno::TooManyRequestedCpus,
    };
    for (what, spec, reason, _) in beyond() {
        assert_eq!(
            submit(&mut h, spec.clone()).map_err(|e| e.0),
            Err(expected(reason)),
            "{what}"
        );
        // Held or not: slurmctld checks the limits before anything else of the job.
        let held = JobSpec { hold: true, ..spec };
        assert_eq!(
            submit(&mut h, held).map_err(|e| e.0),
            Err(expected(reason)),
            "{what} held"
        );
    }
    // Refused before the job exists, these used up no job id.
    assert_eq!(submit(&mut h, spec("ok")), Ok(1));
}

#[test]
fn spur_refuse_unrunnable_keeps_the_old_refusals() {
    let mut h = Harness::new();
    h.state.settings.refuse_unrunnable = true;
    for (what, spec, _, _) in beyond() {
        assert_eq!(
            submit(&mut h, spec).map_err(|e| e.0),
            Err(SlurmErrno::RequestedNodeConfigUnavailable),
            "{what}"
        );
    }
}

#[test]
fn partition_node_limits_hold_jobs_outside_them() {
    let mut h = Harness::new();
    let debug = h
        .state
        .partitions
        .iter_mut()
        .find(|p| p.name == "debug")
        .expect("debug partition");
    debug.max_nodes = Some(1);
    debug.min_nodes = 1;
    // `-N1-2` where MaxNodes=1: PartitionNodeLimit, as slurmctld compares the job's maximum.
    let range = submit(
        &mut h,
        JobSpec {
            nodes_max: Some(2),
            ..spec("range")
        },
    )
    .expect("accepted");
    let plain = submit(&mut h, spec("plain")).expect("accepted");
    assert_eq!(h.schedule(), vec![plain]);
    assert_eq!(h.state.jobs[&range].reason, JobReason::PartNodeLimit);
}
