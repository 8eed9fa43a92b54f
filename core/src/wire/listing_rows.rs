//! Job listings as rows: each job reduced to the fields the caller's listing reads, so that a client listing
//! 100,000 jobs neither receives nor builds 100,000 whole records (a record is over 1 KB in memory and its derived
//! decoder walks about a hundred fields; squeue's default columns read about twenty).
//!
//! A row is a projection of the one job model, not a second one: [`ListField`] names fields of [`JobRecord`] by
//! their path, each is written with the model's own serde encoding (postcard, as packed listings are) and read
//! back into a record whose other fields keep their defaults. The client turns the rows into records one at a
//! time, reusing one record, and formats each before reading the next. Rows are only exchanged between builds of
//! the same model (the packed schema); every other caller gets the whole [`crate::wire::api::JobList`].

use std::collections::BTreeSet;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::model::job::{JobRecord, JobSpec};
use crate::wire::listing::Packing;

/// `JobSpec::script` in a listing: an empty script for a batch job (see [`crate::wire::listing`]).
fn listed_script(script: &Option<String>) -> Option<&'static str> {
    script.as_ref().map(|_| "")
}

/// `JobSpec::environment` in a listing: empty.
fn listed_environment(_: &[(String, String)]) -> &'static [(String, String)] {
    &[]
}

/// The value a row carries for a field: the record's, or what listings send in its place.
macro_rules! listed_value {
    ($value:expr) => {
        $value
    };
    ($value:expr, $listed:path) => {
        &$listed($value)
    };
}

macro_rules! list_fields {
    ($($variant:ident = $name:literal => $($path:ident).+ $(as $listed:path)?,)*) => {
        /// A field of [`JobRecord`] a listing can ask for, named by its path (`spec.name`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum ListField {
            $($variant,)*
        }

        impl ListField {
            /// Every field: rows of all of them read back as the listed record.
            pub const ALL: &'static [ListField] = &[$(ListField::$variant,)*];

            /// The field's path in the record, as the wire names it.
            pub fn name(self) -> &'static str {
                match self {
                    $(ListField::$variant => $name,)*
                }
            }

            fn write(self, job: &JobRecord, out: &mut Writer) -> postcard::Result<()> {
                match self {
                    $(ListField::$variant => listed_value!(&job.$($path).+ $(, $listed)?).serialize(out),)*
                }
            }

            fn read(self, input: &mut Reader<'_>, job: &mut JobRecord) -> postcard::Result<()> {
                match self {
                    $(ListField::$variant => take(input, &mut job.$($path).+),)*
                }
            }
        }
    };
}

list_fields! {
    JobId = "job_id" => job_id as crate::wire::listing::shown_id,
    ArrayJobId = "array_job_id" => array_job_id,
    ArrayTaskId = "array_task_id" => array_task_id,
    State = "state" => state,
    Completing = "completing" => completing,
    RequeuePending = "requeue_pending" => requeue_pending,
    WarningSignalSent = "warning_signal_sent" => warning_signal_sent,
    Reason = "reason" => reason,
    Hold = "hold" => hold,
    Priority = "priority" => priority,
    SubmitTime = "submit_time" => submit_time,
    EligibleTime = "eligible_time" => eligible_time,
    StartTime = "start_time" => start_time,
    EndTime = "end_time" => end_time,
    LastSchedEval = "last_sched_eval" => last_sched_eval,
    TimeLimitMin = "time_limit_min" => time_limit_min,
    Alloc = "alloc" => alloc,
    ExitCode = "exit_code" => exit_code,
    ExitSignal = "exit_signal" => exit_signal,
    Restarts = "restarts" => restarts,
    ResizeTime = "resize_time" => resize_time,
    Partition = "partition" => partition,
    AccrueTime = "accrue_time" => accrue_time,
    AllocSid = "alloc_sid" => alloc_sid,
    SchedNodes = "sched_nodes" => sched_nodes,
    ExpectedStart = "expected_start" => expected_start,
    PriorityFixed = "priority_fixed" => priority_fixed,
    BackfillScheduled = "backfill_scheduled" => backfill_scheduled,
    DependencyStatus = "dependency_status" => dependency_status,
    TresReq = "tres_req" => tres_req,
    TresAlloc = "tres_alloc" => tres_alloc,
    StateDesc = "state_desc" => state_desc,
    Steps = "steps" => steps,
    NextStepId = "next_step_id" => next_step_id,
    SuspendTime = "suspend_time" => suspend_time,
    PreSuspendSecs = "pre_suspend_secs" => pre_suspend_secs,
    PreemptableTime = "preemptable_time" => preemptable_time,
    PreemptTime = "preempt_time" => preempt_time,
    NodeEstimate = "node_estimate" => node_estimate,
    PreemptSuspended = "preempt_suspended" => preempt_suspended,
    Notices = "notices" => notices,
    PrologPending = "prolog_pending" => prolog_pending,
    EpilogPending = "epilog_pending" => epilog_pending,
    PrologFailedNode = "prolog_failed_node" => prolog_failed_node,
    ExternStep = "extern_step" => extern_step,
    CancelledBy = "cancelled_by" => cancelled_by,
    Het = "het" => het,
    Sharing = "sharing" => sharing,
    SpecName = "spec.name" => spec.name,
    SpecUserId = "spec.user_id" => spec.user_id,
    SpecGroupId = "spec.group_id" => spec.group_id,
    SpecUserName = "spec.user_name" => spec.user_name,
    SpecAccount = "spec.account" => spec.account,
    SpecQos = "spec.qos" => spec.qos,
    SpecPartition = "spec.partition" => spec.partition,
    SpecTimeLimitMin = "spec.time_limit_min" => spec.time_limit_min,
    SpecTimeMinMin = "spec.time_min_min" => spec.time_min_min,
    SpecNodesMin = "spec.nodes_min" => spec.nodes_min,
    SpecNodesMax = "spec.nodes_max" => spec.nodes_max,
    SpecNtasks = "spec.ntasks" => spec.ntasks,
    SpecNtasksPerNode = "spec.ntasks_per_node" => spec.ntasks_per_node,
    SpecCpusPerTask = "spec.cpus_per_task" => spec.cpus_per_task,
    SpecMemPerNodeMb = "spec.mem_per_node_mb" => spec.mem_per_node_mb,
    SpecMemPerCpuMb = "spec.mem_per_cpu_mb" => spec.mem_per_cpu_mb,
    SpecTmpDiskMb = "spec.tmp_disk_mb" => spec.tmp_disk_mb,
    SpecGres = "spec.gres" => spec.gres,
    SpecGresText = "spec.gres_text" => spec.gres_text,
    SpecExclusive = "spec.exclusive" => spec.exclusive,
    SpecRequiredNodes = "spec.required_nodes" => spec.required_nodes,
    SpecExcludedNodes = "spec.excluded_nodes" => spec.excluded_nodes,
    SpecConstraint = "spec.constraint" => spec.constraint,
    SpecArray = "spec.array" => spec.array,
    SpecDependency = "spec.dependency" => spec.dependency,
    SpecBeginTime = "spec.begin_time" => spec.begin_time,
    SpecDeadline = "spec.deadline" => spec.deadline,
    SpecHold = "spec.hold" => spec.hold,
    SpecNice = "spec.nice" => spec.nice,
    SpecRequeue = "spec.requeue" => spec.requeue,
    SpecNoKill = "spec.no_kill" => spec.no_kill,
    SpecWorkDir = "spec.work_dir" => spec.work_dir,
    SpecStdout = "spec.stdout" => spec.stdout,
    SpecStderr = "spec.stderr" => spec.stderr,
    SpecStdin = "spec.stdin" => spec.stdin,
    SpecOpenMode = "spec.open_mode" => spec.open_mode,
    SpecRlimits = "spec.rlimits" => spec.rlimits,
    SpecScript = "spec.script" => spec.script as listed_script,
    SpecArgv = "spec.argv" => spec.argv,
    SpecCommand = "spec.command" => spec.command,
    SpecEnvironment = "spec.environment" => spec.environment as listed_environment,
    SpecSignal = "spec.signal" => spec.signal,
    SpecComment = "spec.comment" => spec.comment,
    SpecSubmitHost = "spec.submit_host" => spec.submit_host,
    SpecSubmitSid = "spec.submit_sid" => spec.submit_sid,
    SpecOptions = "spec.options" => spec.options,
    SpecKillOnInvalidDep = "spec.kill_on_invalid_dep" => spec.kill_on_invalid_dep,
    SpecAllocNode = "spec.alloc_node" => spec.alloc_node,
    SpecReservation = "spec.reservation" => spec.reservation,
    SpecLicenses = "spec.licenses" => spec.licenses,
    SpecSwitches = "spec.switches" => spec.switches,
    SpecMinCpusPerNode = "spec.min_cpus_per_node" => spec.min_cpus_per_node,
    SpecImmediate = "spec.immediate" => spec.immediate,
    SpecCpusPerGpu = "spec.cpus_per_gpu" => spec.cpus_per_gpu,
    SpecMemPerGpuMb = "spec.mem_per_gpu_mb" => spec.mem_per_gpu_mb,
    SpecDefCpusPerGpu = "spec.def_cpus_per_gpu" => spec.def_cpus_per_gpu,
    SpecDefMemPerGpuMb = "spec.def_mem_per_gpu_mb" => spec.def_mem_per_gpu_mb,
    BillingWeights = "billing_weights" => billing_weights,
    BatchUsage = "batch_usage" => batch_usage,
}

impl ListField {
    /// The field named `name` ([`ListField::name`]); `None` for a name this build does not know.
    pub fn from_name(name: &str) -> Option<ListField> {
        ListField::ALL.iter().copied().find(|f| f.name() == name)
    }
}

/// Rows are written by one serializer and read by one deserializer, field after field.
type Writer = postcard::Serializer<Packing>;
type Reader<'de> = postcard::Deserializer<'de, postcard::de_flavors::Slice<'de>>;

fn take<T: DeserializeOwned>(input: &mut Reader<'_>, slot: &mut T) -> postcard::Result<()> {
    *slot = T::deserialize(input)?;
    Ok(())
}

/// What precedes the rows in a [`JobRows`] document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Head {
    now: i64,
    rows: u32,
    /// Each listed job's owner and group, once: the names a client looks up before it prints any row.
    owners: Vec<(u32, u32)>,
}

/// The rows answer to [`crate::wire::api::JobListing`] with `fields` (document kind `JobRows`): a head, then one row
/// per job, each the listed fields in the order asked.
pub struct JobRows;

/// Builds a [`JobRows`] document, one job at a time (the controller, under its state's read lock).
pub struct RowWriter<'f> {
    fields: &'f [ListField],
    rows: Writer,
    count: u32,
    owners: BTreeSet<(u32, u32)>,
    /// The owner of the row before: a queue lists the same owner many times in a row.
    last_owner: Option<(u32, u32)>,
}

impl<'f> RowWriter<'f> {
    /// A writer for `jobs_hint` rows of `fields` (the room is reserved up front; more is used if needed).
    pub fn new(fields: &'f [ListField], jobs_hint: usize) -> RowWriter<'f> {
        let mut rows = Vec::new();
        let _ = rows
            .try_reserve_exact(jobs_hint.saturating_mul(ROW_BYTES_HINT * fields.len().min(32) / 8));
        RowWriter {
            fields,
            rows: postcard::Serializer {
                output: Packing(rows),
            },
            count: 0,
            owners: BTreeSet::new(),
            last_owner: None,
        }
    }

    pub fn push(&mut self, job: &JobRecord) -> postcard::Result<()> {
        if every_field(self.fields) {
            crate::wire::listing::slim(|| job.serialize(&mut self.rows))?;
        } else {
            for field in self.fields {
                field.write(job, &mut self.rows)?;
            }
        }
        self.count += 1;
        let owner = (job.spec.user_id, job.spec.group_id);
        if self.last_owner != Some(owner) {
            self.owners.insert(owner);
            self.last_owner = Some(owner);
        }
        Ok(())
    }

    /// The document's bytes: the head, then the rows.
    pub fn finish(self, now: i64) -> postcard::Result<Vec<u8>> {
        let head = Head {
            now,
            rows: self.count,
            owners: self.owners.into_iter().collect(),
        };
        let mut out = postcard::to_allocvec(&head)?;
        out.extend_from_slice(&self.rows.output.0);
        Ok(out)
    }
}

/// Bytes one field of a row is expected to take, times eight (most are a byte or two, names a few more).
const ROW_BYTES_HINT: usize = 24;

/// A [`JobRows`] document as the client reads it: the rows stay in the reply's buffer until they are read.
#[derive(Debug)]
pub struct Rows<'a> {
    pub now: i64,
    pub owners: Vec<(u32, u32)>,
    count: u32,
    rows: &'a [u8],
}

impl<'a> Rows<'a> {
    pub fn parse(bytes: &'a [u8]) -> postcard::Result<Rows<'a>> {
        let (head, rows) = postcard::take_from_bytes::<Head>(bytes)?;
        Ok(Rows {
            now: head.now,
            owners: head.owners,
            count: head.rows,
            rows,
        })
    }

    pub fn len(&self) -> usize {
        self.count as usize
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Calls `each` with every row read into one record: the `fields` the rows were asked with are the row's,
    /// every other field keeps its value in [`blank_record`].
    pub fn for_each(
        &self,
        fields: &[ListField],
        mut each: impl FnMut(&JobRecord),
    ) -> postcard::Result<()> {
        let mut input = postcard::Deserializer::from_bytes(self.rows);
        if every_field(fields) {
            for _ in 0..self.count {
                each(&JobRecord::deserialize(&mut input)?);
            }
            return Ok(());
        }
        let mut job = blank_record();
        for _ in 0..self.count {
            for field in fields {
                field.read(&mut input, &mut job)?;
            }
            each(&job);
        }
        Ok(())
    }
}

/// Rows of every field are whole listed records in the model's own order: the derived encoding and decoding of a
/// whole record is faster than a hundred fields one by one (and reads back the same record).
fn every_field(fields: &[ListField]) -> bool {
    fields == ListField::ALL
}

/// The record rows are read into: every field at its default.
pub fn blank_record() -> JobRecord {
    JobRecord::pending(0, JobSpec::default(), String::new(), 0, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::listing::tests::populated;

    fn round_trip(jobs: &[JobRecord], fields: &[ListField]) -> Vec<JobRecord> {
        let mut writer = RowWriter::new(fields, jobs.len());
        for job in jobs {
            writer.push(job).expect("write");
        }
        let bytes = writer.finish(77).expect("finish");
        let rows = Rows::parse(&bytes).expect("parse");
        assert_eq!(rows.now, 77);
        assert_eq!(rows.len(), jobs.len());
        let mut out = Vec::new();
        rows.for_each(fields, |job| out.push(job.clone()))
            .expect("read");
        out
    }

    /// Every field of the model is a [`ListField`]: adding one to `JobRecord` or `JobSpec` fails to compile here
    /// until it is listed (with its path) in the table above.
    #[test]
    fn every_field_of_the_model_is_listed() {
        let job = populated();
        let JobRecord {
            job_id: _,
            array_job_id: _,
            array_task_id: _,
            state: _,
            completing: _,
            requeue_pending: _,
            warning_signal_sent: _,
            reason: _,
            hold: _,
            priority: _,
            submit_time: _,
            eligible_time: _,
            start_time: _,
            end_time: _,
            last_sched_eval: _,
            time_limit_min: _,
            alloc: _,
            exit_code: _,
            exit_signal: _,
            restarts: _,
            resize_time: _,
            partition: _,
            accrue_time: _,
            alloc_sid: _,
            sched_nodes: _,
            expected_start: _,
            priority_fixed: _,
            backfill_scheduled: _,
            dependency_status: _,
            tres_req: _,
            tres_alloc: _,
            state_desc: _,
            steps: _,
            next_step_id: _,
            suspend_time: _,
            pre_suspend_secs: _,
            preemptable_time: _,
            preempt_time: _,
            node_estimate: _,
            preempt_suspended: _,
            notices: _,
            prolog_pending: _,
            epilog_pending: _,
            prolog_failed_node: _,
            extern_step: _,
            cancelled_by: _,
            het: _,
            sharing: _,
            billing_weights: _,
            batch_usage: _,
            spec,
        } = job.clone();
        let JobSpec {
            name: _,
            user_id: _,
            group_id: _,
            user_name: _,
            account: _,
            qos: _,
            partition: _,
            time_limit_min: _,
            time_min_min: _,
            nodes_min: _,
            nodes_max: _,
            ntasks: _,
            ntasks_per_node: _,
            cpus_per_task: _,
            mem_per_node_mb: _,
            mem_per_cpu_mb: _,
            tmp_disk_mb: _,
            gres: _,
            gres_text: _,
            exclusive: _,
            required_nodes: _,
            excluded_nodes: _,
            constraint: _,
            array: _,
            dependency: _,
            begin_time: _,
            deadline: _,
            hold: _,
            nice: _,
            requeue: _,
            no_kill: _,
            work_dir: _,
            stdout: _,
            stderr: _,
            stdin: _,
            open_mode: _,
            rlimits: _,
            script: _,
            argv: _,
            command: _,
            environment: _,
            signal: _,
            comment: _,
            submit_host: _,
            submit_sid: _,
            options: _,
            kill_on_invalid_dep: _,
            alloc_node: _,
            reservation: _,
            licenses: _,
            switches: _,
            min_cpus_per_node: _,
            immediate: _,
            cpus_per_gpu: _,
            mem_per_gpu_mb: _,
            def_cpus_per_gpu: _,
            def_mem_per_gpu_mb: _,
        } = spec;
        assert_eq!(ListField::ALL.len(), 107);
        for field in ListField::ALL {
            assert_eq!(ListField::from_name(field.name()), Some(*field));
        }
    }

    #[test]
    fn rows_of_every_field_read_back_as_the_listed_record() {
        let jobs = vec![populated(), blank_record(), populated()];
        let mut expected = jobs.clone();
        for job in &mut expected {
            job.spec.script = job.spec.script.as_ref().map(|_| String::new());
            job.spec.environment.clear();
        }
        assert_eq!(round_trip(&jobs, ListField::ALL), expected);
        // Field by field (any other list is written that way) reads back the same.
        let mut reversed = ListField::ALL.to_vec();
        reversed.reverse();
        assert_eq!(round_trip(&jobs, &reversed), expected);
    }

    #[test]
    fn rows_of_some_fields_leave_the_rest_at_their_defaults() {
        let job = populated();
        let fields = [ListField::JobId, ListField::SpecName, ListField::Alloc];
        let back = round_trip(std::slice::from_ref(&job), &fields);
        let mut expected = blank_record();
        expected.job_id = job.job_id;
        expected.spec.name = job.spec.name.clone();
        expected.alloc = job.alloc.clone();
        assert_eq!(back, vec![expected]);
        assert_eq!(ListField::from_name("spec.name"), Some(ListField::SpecName));
        assert_eq!(ListField::from_name("spec.nonesuch"), None);
    }

    #[test]
    fn owners_are_listed_once_each() {
        let mut other = populated();
        other.spec.user_id = 7;
        let jobs = [populated(), other, populated()];
        let mut writer = RowWriter::new(&[ListField::JobId], 3);
        for job in &jobs {
            writer.push(job).expect("write");
        }
        let bytes = writer.finish(0).expect("finish");
        assert_eq!(
            Rows::parse(&bytes).expect("parse").owners,
            vec![(7, 1000), (1000, 1000)]
        );
    }
}
