//! Job listings (squeue, `scontrol show job`, `slurm_load_jobs`) carry every job record but leave out what no
//! listing prints and what makes records big: the batch script and the environment (a few KB per job from
//! `sbatch`'s default `--export=ALL`). The records keep their one model: the two fields are serialized empty
//! while a listing is being encoded, so the same types serve the log, the snapshots and the wire.

use std::cell::Cell;

use serde::{Serialize, Serializer};

use crate::model::job::JobRecord;

thread_local! {
    static SLIM: Cell<bool> = const { Cell::new(false) };
    /// The job id the record being encoded is shown under, when it is not its own (see [`showing_id`]).
    static SHOWN_ID: Cell<Option<u32>> = const { Cell::new(None) };
}

/// Runs `encode` with the job record it encodes shown under job id `shown`: an array task waiting to start is
/// listed under its array's id without copying its record (a pending array of 100,000 tasks would be copied whole
/// at every squeue).
pub fn showing_id<R>(shown: u32, encode: impl FnOnce() -> R) -> R {
    struct Restore(Option<u32>);
    impl Drop for Restore {
        fn drop(&mut self) {
            SHOWN_ID.with(|s| s.set(self.0));
        }
    }
    let _restore = Restore(SHOWN_ID.with(|s| s.replace(Some(shown))));
    encode()
}

/// `JobRecord::job_id` as encoded now: its own, or the one [`showing_id`] shows it under.
pub(crate) fn shown_id(id: &u32) -> u32 {
    SHOWN_ID.with(Cell::get).unwrap_or(*id)
}

/// `JobRecord::job_id`'s encoding (see [`showing_id`]).
pub(crate) fn job_id<S: Serializer>(id: &u32, s: S) -> Result<S::Ok, S::Error> {
    shown_id(id).serialize(s)
}

/// Runs `encode` with job records serialized as listing entries (no script text, no environment).
pub fn slim<R>(encode: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            SLIM.with(|s| s.set(self.0));
        }
    }
    let _restore = Restore(SLIM.with(|s| s.replace(true)));
    encode()
}

fn is_slim() -> bool {
    SLIM.with(Cell::get)
}

/// `JobSpec::script`: in a listing, an empty script for a batch job, so that "has a script" (Slurm's
/// BatchFlag) still holds.
pub(crate) fn script<S: Serializer>(script: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
    if is_slim() {
        script.as_ref().map(|_| "").serialize(s)
    } else {
        script.serialize(s)
    }
}

/// `JobSpec::environment`: empty in a listing.
pub(crate) fn environment<S: Serializer>(
    env: &[(String, String)],
    s: S,
) -> Result<S::Ok, S::Error> {
    if is_slim() {
        <&[(String, String)]>::default().serialize(s)
    } else {
        env.serialize(s)
    }
}

/// What the controller encodes for a [`crate::wire::api::JobList`]: records borrowed from its state where it can,
/// so that a listing of 100,000 jobs is not cloned first. Serializes exactly as `JobList`.
#[derive(Debug, Serialize)]
pub struct JobListRef<'a> {
    pub jobs: Vec<ListedJob<'a>>,
    pub now: i64,
}

/// One record of a [`JobListRef`]: the controller's own, or a copy changed for the listing (its dependency's
/// state filled in). The copy is boxed so that the list stays a list of pointers: records inline (as in a
/// `Cow`) would make every listing of 100,000 jobs build, and fault in, a 130 MB array.
#[derive(Debug)]
pub enum ListedJob<'a> {
    Borrowed(&'a JobRecord),
    Owned(Box<JobRecord>),
    /// The controller's own record, listed under another job id (an array task waiting to start, under its
    /// array's).
    Shown(&'a JobRecord, u32),
}

impl ListedJob<'_> {
    /// The record; for `Shown`, with its own job id (encode it with [`ListedJob::encode`]).
    pub fn record(&self) -> &JobRecord {
        match self {
            ListedJob::Borrowed(job) | ListedJob::Shown(job, _) => job,
            ListedJob::Owned(job) => job,
        }
    }

    /// The job id it is listed under.
    pub fn listed_id(&self) -> u32 {
        match self {
            ListedJob::Shown(_, id) => *id,
            other => other.record().job_id,
        }
    }

    /// Runs `encode` on the record, which it encodes under the job id it is listed under.
    pub fn encode<R>(&self, encode: impl FnOnce(&JobRecord) -> R) -> R {
        match self {
            ListedJob::Shown(job, id) => showing_id(*id, || encode(job)),
            other => encode(other.record()),
        }
    }
}

impl Serialize for ListedJob<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.encode(|job| job.serialize(s))
    }
}

/// Bytes a listed record is expected to take packed (a held batch job takes about 150): what the encoder reserves
/// up front, so the reply buffer is not copied over and over while it grows.
pub const PACKED_JOB_BYTES_HINT: usize = 256;

/// `value` packed (postcard) into a buffer with `capacity` bytes reserved up front: an estimate, so that a big
/// listing is written into one allocation instead of growing through reallocations (more is used if needed).
pub fn pack<T: Serialize + ?Sized>(value: &T, capacity: usize) -> postcard::Result<Vec<u8>> {
    let mut buffer = Vec::new();
    // Without the room reserved the buffer simply grows as it would have.
    let _ = buffer.try_reserve_exact(capacity);
    postcard::serialize_with_flavor::<T, _, _>(value, Packing(buffer))
}

/// postcard's output into a `Vec` whose room the caller chose (postcard's own `AllocVec` starts empty).
pub(crate) struct Packing(pub(crate) Vec<u8>);

impl postcard::ser_flavors::Flavor for Packing {
    type Output = Vec<u8>;

    #[inline]
    fn try_push(&mut self, data: u8) -> postcard::Result<()> {
        self.0.push(data);
        Ok(())
    }

    #[inline]
    fn try_extend(&mut self, data: &[u8]) -> postcard::Result<()> {
        self.0.extend_from_slice(data);
        Ok(())
    }

    fn finalize(self) -> postcard::Result<Vec<u8>> {
        Ok(self.0)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::model::job::{Allocation, GresRequest, HoldKind, JobSpec, OpenMode};
    use crate::model::states::{JobBaseState, JobReason};
    use crate::model::step::StepRecord;
    use crate::wire::api::JobList;

    /// A record with every kind of field set to something other than its default: a positional encoding that
    /// lost its place anywhere would not read it back equal.
    pub(crate) fn populated() -> JobRecord {
        let spec = JobSpec {
            name: "train".into(),
            user_id: 1000,
            group_id: 1000,
            user_name: "alice".into(),
            account: Some("ml".into()),
            partition: Some("gpu".into()),
            time_limit_min: Some(90),
            nodes_min: 2,
            nodes_max: Some(4),
            ntasks: Some(16),
            cpus_per_task: 4,
            mem_per_cpu_mb: Some(2048),
            gres: vec![GresRequest {
                name: "gpu".into(),
                gres_type: Some("mi300x".into()),
                count: 8,
            }],
            gres_text: Some("gpu:mi300x:8".into()),
            dependency: Some("afterok:7".into()),
            begin_time: Some(1_700_000_000),
            nice: -5,
            requeue: false,
            work_dir: "/home/alice".into(),
            stdout: Some("out-%j.txt".into()),
            open_mode: OpenMode::Append,
            script: Some("#!/bin/bash\nsrun python train.py\n".into()),
            argv: vec!["a".into(), "b".into()],
            environment: vec![
                ("HOME".into(), "/home/alice".into()),
                ("X".into(), "1".into()),
            ],
            signal: Some((10, 60, true)),
            options: BTreeMap::from([("gres".into(), "gpu:mi300x:8".into())]),
            kill_on_invalid_dep: Some(false),
            alloc_node: Some("login1".into()),
            ..JobSpec::default()
        };
        let mut job = JobRecord::pending(42, spec, "gpu".into(), 1_700_000_000, 4_294_000_000);
        job.array_job_id = Some(40);
        job.array_task_id = Some(2);
        job.state = JobBaseState::Running;
        job.completing = true;
        job.reason = JobReason::Resources;
        job.hold = Some(HoldKind::Admin);
        job.start_time = Some(1_700_000_100);
        job.alloc = Some(Allocation {
            node_names: vec!["n1".into(), "n2".into()],
            cpus: 32,
            mem_mb: 65_536,
            gres_indices: BTreeMap::from([("gpu".into(), vec![0, 1, 2, 3, 4, 5, 6, 7])]),
            core_ids: vec![0, 1, 2],
            oversubscribe: 0,
            shard_gpus: Vec::new(),
            node_units: Vec::new(),
        });
        job.exit_code = 3;
        job.dependency_status = Some("afterok:7(unfulfilled)".into());
        job.steps.push(StepRecord {
            step_id: 0,
            name: "python".into(),
            state: JobBaseState::Running,
            start_time: 1_700_000_101,
            end_time: None,
            node_list: "n[1-2]".into(),
            num_nodes: 2,
            num_tasks: 16,
            num_cpus: 64,
            time_limit_min: None,
            exit_code: 0,
            exit_signal: 0,
            srun_host: "n1".into(),
            srun_pid: 4242,
            node_ranks: Vec::new(),
            usage: None,
        });
        job.pre_suspend_secs = -1;
        job
    }

    fn fresh() -> JobRecord {
        JobRecord::pending(1, JobSpec::default(), "debug".into(), 0, 0)
    }

    #[test]
    fn records_survive_the_packed_encoding() {
        for job in [populated(), fresh()] {
            let bytes = postcard::to_allocvec(&job).expect("pack");
            let back: JobRecord = postcard::from_bytes(&bytes).expect("unpack");
            assert_eq!(back, job);
        }
    }

    #[test]
    fn listings_leave_out_script_and_environment_but_keep_batchness() {
        let job = populated();
        let listed: JobRecord = slim(|| postcard::to_allocvec(&job))
            .map(|bytes| postcard::from_bytes(&bytes).expect("unpack"))
            .expect("pack");
        assert_eq!(listed.spec.script.as_deref(), Some(""));
        assert!(listed.spec.environment.is_empty());
        let mut expected = job.clone();
        expected.spec.script = Some(String::new());
        expected.spec.environment.clear();
        assert_eq!(listed, expected);

        let allocation = JobRecord {
            spec: JobSpec {
                script: None,
                ..job.spec.clone()
            },
            ..job.clone()
        };
        let json = slim(|| serde_json::to_value(&allocation)).expect("json");
        assert_eq!(json["spec"]["script"], serde_json::Value::Null);
        // Outside a listing (the log, snapshots) nothing is left out.
        let full: JobRecord =
            serde_json::from_value(serde_json::to_value(&job).expect("json")).expect("read");
        assert_eq!(full, job);
    }

    #[test]
    fn a_borrowed_listing_encodes_as_the_owned_one() {
        let jobs = vec![populated(), fresh()];
        let owned = JobList {
            jobs: jobs.clone(),
            now: 77,
        };
        let borrowed = JobListRef {
            jobs: vec![
                ListedJob::Borrowed(&jobs[0]),
                ListedJob::Owned(Box::new(jobs[1].clone())),
            ],
            now: 77,
        };
        let packed = postcard::to_allocvec(&borrowed).expect("pack");
        assert_eq!(packed, postcard::to_allocvec(&owned).expect("pack"));
        let json = serde_json::to_string(&borrowed).expect("json");
        assert_eq!(json, serde_json::to_string(&owned).expect("json"));
        // The reserving packer writes what postcard's own does, and both encodings read back as the owned list.
        assert_eq!(pack(&borrowed, 1 << 16).expect("pack"), packed);
        assert_eq!(pack(&borrowed, 0).expect("pack"), packed);
        assert_eq!(
            postcard::from_bytes::<JobList>(&packed).expect("unpack"),
            owned
        );
        assert_eq!(
            serde_json::from_str::<JobList>(&json).expect("parse"),
            owned
        );
    }

    #[test]
    fn a_shown_record_encodes_as_a_copy_under_the_id_it_is_shown_under() {
        let waiting = JobRecord {
            job_id: 0x8000_0003,
            array_job_id: Some(40),
            array_task_id: Some(2),
            ..populated()
        };
        let copy = JobRecord {
            job_id: 40,
            ..waiting.clone()
        };
        let shown = JobListRef {
            jobs: vec![
                ListedJob::Shown(&waiting, 40),
                ListedJob::Borrowed(&waiting),
            ],
            now: 5,
        };
        let expected = JobList {
            jobs: vec![copy.clone(), waiting.clone()],
            now: 5,
        };
        let packed = postcard::to_allocvec(&shown).expect("pack");
        assert_eq!(packed, postcard::to_allocvec(&expected).expect("pack"));
        assert_eq!(shown.jobs[0].listed_id(), 40);
        assert_eq!(shown.jobs[1].listed_id(), 0x8000_0003);
        // Rows of a field, and of every field, say the same; afterwards the record is its own again.
        use crate::wire::listing_rows::{ListField, RowWriter};
        let mut ids = RowWriter::new(&[ListField::JobId], 1);
        shown.jobs[0].encode(|job| ids.push(job)).expect("row");
        let mut plain = RowWriter::new(&[ListField::JobId], 1);
        plain.push(&copy).expect("row");
        assert_eq!(ids.finish(5).expect("rows"), plain.finish(5).expect("rows"));
        let json = serde_json::to_value(&waiting).expect("json");
        assert_eq!(json["job_id"], 0x8000_0003_u32);
    }
}
