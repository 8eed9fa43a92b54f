//! Which fields of a job record a squeue invocation reads: its columns, sort keys and filters. squeue asks the
//! controller for rows of just these ([`crate::wire::listing_rows`]); a field left out here would print as its default,
//! which the tests below rule out by rendering every column and sort key from rows and from whole records.

use crate::format::squeue::{JobField, SortField, SqueueOptions};
use crate::wire::listing_rows::ListField;

use JobField as F;
use ListField as L;

/// What every table reads: ids (`%i`, `-j`), the state (the default filter, `CG`), the start time (the
/// pre-sort) and what pending array tasks fold by.
const BASE: &[ListField] = &[
    L::JobId,
    L::ArrayJobId,
    L::ArrayTaskId,
    L::Het,
    L::State,
    L::Completing,
    L::EpilogPending,
    L::StartTime,
    L::SpecName,
    L::Partition,
    L::SpecArray,
];

const ALLOC_NODE: &[ListField] = &[L::SpecAllocNode, L::SpecSubmitHost];
const NODES: &[ListField] = &[L::Alloc, L::SpecNodesMin, L::NodeEstimate];
const CPUS: &[ListField] = &[
    L::Alloc,
    L::SpecNtasks,
    L::SpecNtasksPerNode,
    L::SpecNodesMin,
    L::SpecCpusPerTask,
];
const MEMORY: &[ListField] = &[L::SpecMemPerCpuMb, L::SpecMemPerNodeMb];
const REASON: &[ListField] = &[L::Reason, L::StateDesc];
const END: &[ListField] = &[L::EndTime, L::TimeLimitMin, L::ExpectedStart];
const USED: &[ListField] = &[L::SuspendTime, L::PreSuspendSecs, L::EndTime];
const STDIO: &[ListField] = &[L::SpecScript, L::SpecStdout, L::SpecStderr, L::SpecWorkDir];

/// The fields `field`'s text is made of, beyond [`BASE`].
fn column_needs(field: JobField) -> &'static [&'static [ListField]] {
    match field {
        F::Account => &[&[L::SpecAccount]],
        F::AccrueTime => &[&[L::AccrueTime]],
        F::AllocNodes => &[ALLOC_NODE],
        F::AllocSid => &[&[L::AllocSid]],
        F::ReqSwitch | F::Wait4Switch => &[&[L::SpecSwitches]],
        F::BatchFlag => &[&[L::SpecScript]],
        F::BatchHost => &[&[L::SpecScript, L::Alloc], ALLOC_NODE],
        F::Command => &[&[L::SpecCommand]],
        F::Comment => &[&[L::SpecComment]],
        F::Cores
        | F::Sockets
        | F::Threads
        | F::Sct
        | F::TresPerJob
        | F::TresPerSocket
        | F::TresPerTask => &[&[L::SpecOptions, L::SpecExclusive]],
        F::OverSubscribe => &[&[L::SpecOptions, L::SpecExclusive, L::Sharing]],
        F::CpusPerTask => &[&[L::SpecCpusPerTask]],
        F::CpusPerTres => &[&[L::SpecCpusPerGpu, L::SpecDefCpusPerGpu]],
        F::MemPerTres => &[&[L::SpecMemPerGpuMb, L::SpecDefMemPerGpuMb]],
        F::Deadline => &[&[L::SpecDeadline]],
        F::Dependency => &[&[L::DependencyStatus, L::SpecDependency]],
        F::EligibleTime => &[&[L::EligibleTime]],
        F::EndTime => &[END],
        F::ExcNodes => &[&[L::SpecExcludedNodes]],
        F::ReqNodes => &[&[L::SpecRequiredNodes]],
        F::ExitCode => &[&[L::SpecScript, L::ExitCode, L::ExitSignal]],
        F::Features => &[&[L::SpecConstraint]],
        F::GroupId | F::GroupName => &[&[L::SpecGroupId]],
        F::LastSchedEval => &[&[L::LastSchedEval]],
        F::Reservation => &[&[L::SpecReservation]],
        F::Licenses => &[&[L::SpecLicenses]],
        F::MaxCpus | F::NumCpus | F::NumTasks => &[CPUS],
        F::MaxNodes => &[NODES, &[L::SpecNodesMax]],
        F::MinCpus => &[&[
            L::SpecNtasksPerNode,
            L::SpecCpusPerTask,
            L::SpecMinCpusPerNode,
        ]],
        F::MinMemory => &[MEMORY],
        F::MinTmpDisk => &[&[L::SpecTmpDiskMb]],
        F::Nice => &[&[L::SpecNice]],
        F::NodeList => &[&[L::Alloc]],
        F::NtasksPerNode => &[&[L::SpecNtasksPerNode]],
        F::NumNodes => &[NODES],
        F::PendingTime | F::SubmitTime => &[&[L::SubmitTime]],
        F::Priority | F::PriorityLong => &[&[L::Priority]],
        F::Qos => &[&[L::SpecQos]],
        F::Reason => &[REASON],
        F::ReasonList => &[REASON, &[L::Alloc]],
        F::Requeue => &[&[L::SpecRequeue]],
        F::RestartCount => &[&[L::Restarts]],
        F::SchedNodes => &[&[L::SchedNodes]],
        F::StartTime => &[&[L::ExpectedStart]],
        F::StdErr | F::StdOut => &[STDIO],
        F::StdIn => &[&[L::SpecStdin, L::SpecScript]],
        F::TimeLeft => &[USED, &[L::TimeLimitMin]],
        F::TimeLimit => &[&[L::TimeLimitMin]],
        F::TimeUsed => &[USED],
        F::TresAlloc => &[
            &[L::TresAlloc, L::TresReq, L::BillingWeights, L::SpecGres],
            CPUS,
            MEMORY,
        ],
        F::TresPerNode => &[&[L::SpecGresText, L::SpecOptions]],
        F::UserId | F::UserName => &[&[L::SpecUserId]],
        F::WorkDir => &[&[L::SpecWorkDir]],
        F::HetJobId | F::HetJobIdSet | F::HetJobOffset | F::JobArrayId | F::JobId => &[],
        F::ArrayJobId | F::ArrayTaskId | F::Name | F::Partition => &[],
        F::State | F::StateCompact => &[],
        F::AdminComment
        | F::AssocId
        | F::BoardsPerNode
        | F::BurstBuffer
        | F::BurstBufferState
        | F::Cluster
        | F::ClusterFeatures
        | F::Container
        | F::Contiguous
        | F::CoreSpec
        | F::DelayBoot
        | F::DerivedExitCode
        | F::McsLabel
        | F::MinTime
        | F::Network
        | F::NtasksPerBoard
        | F::NtasksPerCore
        | F::NtasksPerSocket
        | F::Origin
        | F::OriginRaw
        | F::PreemptTime
        | F::Prefer
        | F::Profile
        | F::Reboot
        | F::ResizeTime
        | F::SelectJobInfo
        | F::SiblingsActive
        | F::SiblingsActiveRaw
        | F::SiblingsViable
        | F::SiblingsViableRaw
        | F::SocketsPerBoard
        | F::SystemComment
        | F::TresBind
        | F::TresFreq
        | F::WcKey => &[],
    }
}

/// The fields sorting by `field` compares, beyond [`BASE`].
fn sort_needs(field: SortField) -> &'static [&'static [ListField]] {
    use SortField as S;
    match field {
        S::BatchHost | S::NodeList => &[&[L::Alloc]],
        S::NumCpus => &[CPUS],
        S::MinTmpDisk => &[&[L::SpecTmpDiskMb]],
        S::NumNodes => &[NODES],
        S::EndTime => &[END],
        S::GroupName | S::GroupId => &[&[L::SpecGroupId]],
        S::TimeLimit => &[&[L::TimeLimitMin]],
        S::TimeLeft => &[USED, &[L::TimeLimitMin]],
        S::MinMemory => &[MEMORY],
        S::TimeUsed => &[USED],
        S::Priority => &[&[L::Priority]],
        S::UserName | S::UserId => &[&[L::SpecUserId]],
        S::SubmitTime => &[&[L::SubmitTime]],
        S::Cluster
        | S::Sockets
        | S::JobId
        | S::Cores
        | S::Name
        | S::Threads
        | S::Partition
        | S::StartTime
        | S::StateCompact
        | S::State
        | S::Reservation
        | S::Sct
        | S::Ignored => &[],
    }
}

/// The fields `opts` reads, each once, in the model's order.
pub fn listed_fields(opts: &SqueueOptions) -> Vec<ListField> {
    let mut fields: Vec<ListField> = BASE.to_vec();
    let columns = opts.layout.columns.iter().filter_map(|c| c.field);
    for group in columns.flat_map(column_needs) {
        fields.extend_from_slice(group);
    }
    for group in opts.sort.iter().flat_map(|k| sort_needs(k.key)) {
        fields.extend_from_slice(group);
    }
    if opts.reservations.is_some() {
        fields.push(L::SpecReservation);
    }
    if opts.accounts.is_some() {
        fields.push(L::SpecAccount);
    }
    if opts.qos.is_some() {
        fields.push(L::SpecQos);
    }
    if opts.licenses.is_some() {
        fields.push(L::SpecLicenses);
    }
    if opts.users.is_some() {
        fields.push(L::SpecUserId);
    }
    if opts.nodes.is_some() {
        fields.push(L::Alloc);
    }
    fields.sort_unstable();
    fields.dedup();
    fields
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::squeue::render;
    use crate::format::test_records::{array_task, ctx, pending, running, NOW};
    use crate::model::job::{HetMembership, HoldKind, JobRecord};
    use crate::model::states::{JobBaseState, JobReason};
    use crate::wire::listing::tests::populated;
    use crate::wire::listing_rows::{RowWriter, Rows};

    /// Records that differ in every field some column or sort key reads.
    fn varied() -> Vec<JobRecord> {
        let mut jobs = vec![running(), pending(), populated()];
        let mut held = pending();
        held.job_id = 60;
        held.hold = Some(HoldKind::User);
        held.reason = JobReason::HeldUser;
        held.state_desc = Some("job requeued in held state".into());
        held.spec.script = None;
        held.spec.stdin = Some("/in".into());
        held.spec.account = Some("acct".into());
        held.spec.qos = Some("high".into());
        held.spec.reservation = Some("maint".into());
        held.spec.mem_per_node_mb = Some(4096);
        held.spec.nodes_max = Some(3);
        held.spec.deadline = Some(NOW + 99);
        held.spec
            .options
            .insert("sockets-per-node".into(), "2".into());
        held.spec.options.insert("gpus".into(), "2".into());
        held.spec.options.insert("gpus-per-task".into(), "1".into());
        held.spec.excluded_nodes = Some("n1,n2".into());
        held.spec.required_nodes = Some("n[3-4]".into());
        held.spec.constraint = Some("fast".into());
        held.spec.licenses = Some("fluent:2".into());
        held.spec.command = Some("/bin/job.sh".into());
        held.spec.comment = Some("note".into());
        held.spec.switches = Some(crate::model::job::SwitchRequest {
            count: 2,
            wait_secs: Some(60),
        });
        held.expected_start = Some(NOW + 600);
        held.sched_nodes = Some("n[1-2]".into());
        held.spec.tmp_disk_mb = 100;
        held.spec.nice = 10;
        held.spec.requeue = true;
        held.spec.group_id = 77;
        held.spec.user_id = 1001;
        held.spec.min_cpus_per_node = Some(9);
        held.spec.exclusive = true;
        held.submit_time = NOW - 50;
        held.eligible_time = Some(NOW - 40);
        held.accrue_time = Some(NOW - 30);
        held.last_sched_eval = Some(NOW - 20);
        held.alloc_sid = 4242;
        held.restarts = 2;
        held.priority = 77;
        jobs.push(held);
        let mut suspended = running();
        suspended.job_id = 61;
        suspended.state = JobBaseState::Suspended;
        suspended.suspend_time = Some(NOW - 100);
        suspended.pre_suspend_secs = 300;
        suspended.time_limit_min = None;
        suspended.tres_alloc = Some("cpu=4,node=2".into());
        suspended.tres_req = Some("cpu=4,node=1".into());
        suspended.spec.alloc_node = Some("login9".into());
        suspended.spec.gres_text = Some("gpu:2".into());
        // What its partition's `OverSubscribe=FORCE` made of it (squeue `%h` reads it over the spec).
        suspended.sharing = Some(crate::policy::oversubscribe::ResolvedSharing::Shares);
        jobs.push(suspended);
        let mut done = running();
        done.job_id = 62;
        done.state = JobBaseState::Failed;
        done.end_time = Some(NOW - 10);
        done.exit_code = 3;
        done.exit_signal = 9;
        done.epilog_pending = vec!["n2".into()];
        done.dependency_status = Some("afterok:7(failed)".into());
        jobs.push(done);
        let mut het = pending();
        het.job_id = 63;
        het.het = Some(HetMembership {
            job_id: 63,
            offset: 0,
            size: 2,
        });
        het.spec.dependency = Some("afterany:1".into());
        jobs.push(het);
        let mut t3 = array_task(72, 3);
        t3.reason = JobReason::Resources;
        jobs.extend([array_task(70, 1), array_task(71, 2), t3]);
        jobs
    }

    /// squeue's output from rows of [`listed_fields`], as the client reads them.
    fn render_from_rows(jobs: &[JobRecord], opts: &SqueueOptions) -> String {
        let fields = listed_fields(opts);
        let mut writer = RowWriter::new(&fields, jobs.len());
        for job in jobs {
            writer.push(job).expect("write");
        }
        let bytes = writer.finish(NOW).expect("finish");
        let rows = Rows::parse(&bytes).expect("parse");
        let ctx = ctx();
        let mut table = crate::format::squeue::Table::new(opts, &ctx);
        rows.for_each(&fields, |job| table.push(job)).expect("read");
        table.finish()
    }

    /// Every `-O` name squeue knows (each column there is, some twice).
    const LONG_NAMES: &str = "account,accruetime,admin_comment,allocnodes,allocsid,arrayjobid,arraytaskid,\
        associd,batchflag,batchhost,boardspernode,burstbuffer,burstbufferstate,cluster,clusterfeature,command,\
        comment,container,contiguous,cores,corespec,cpuspertask,cpus-per-tres,deadline,delayboot,dependency,\
        derivedec,eligibletime,endtime,exit_code,feature,gres,groupid,groupname,hetjobid,hetjobidset,\
        hetjoboffset,jobarrayid,jobid,lastschedeval,licenses,maxcpus,maxnodes,mcslabel,mem-per-tres,mincpus,\
        minmemory,mintime,mintmpdisk,name,network,nice,nodelist,ntperboard,ntpercore,ntpernode,ntpersocket,\
        numcpus,numnodes,numtasks,origin,originraw,oversubscribe,partition,pendingtime,preempttime,prefer,\
        priority,prioritylong,profile,qos,reason,reasonlist,reboot,reqnodes,reqswitch,requeue,reservation,\
        resizetime,restartcnt,schednodes,sct,selectjobinfo,siblingsactive,siblingsactiveraw,siblingsviable,\
        siblingsviableraw,sockets,sperboard,starttime,state,statecompact,stderr,stdin,stdout,submittime,\
        system_comment,threads,timeleft,timelimit,timeused,tres,tres-bind,tres-freq,tres-per-job,\
        tres-per-socket,tres-per-task,userid,username,wait4switch,wckey,workdir";

    #[test]
    fn every_column_prints_the_same_from_rows() {
        let jobs = varied();
        let all = SqueueOptions::default().with_format("%all");
        assert_eq!(render_from_rows(&jobs, &all), render(&jobs, &all, &ctx()));
        for name in LONG_NAMES.split(',') {
            let opts = SqueueOptions::default()
                .with_long_format(name)
                .with_states("all")
                .expect("states");
            assert!(opts.layout.warnings.is_empty(), "{name}");
            for expand_arrays in [false, true] {
                let opts = SqueueOptions {
                    expand_arrays,
                    ..opts.clone()
                };
                let whole = render(&jobs, &opts, &ctx());
                assert_eq!(render_from_rows(&jobs, &opts), whole, "-O {name}");
            }
        }
    }

    #[test]
    fn every_sort_key_orders_the_same_from_rows() {
        let jobs = varied();
        for letter in "BbCdDeEgGHiIjJlLmMNpPQStTuUvVz".chars() {
            for sign in ["", "-"] {
                let Ok(opts) = SqueueOptions::default()
                    .with_format("%i")
                    .with_states("all")
                    .and_then(|o| o.with_sort(&format!("{sign}{letter}")))
                else {
                    continue;
                };
                let whole = render(&jobs, &opts, &ctx());
                assert_eq!(render_from_rows(&jobs, &opts), whole, "-S {sign}{letter}");
            }
        }
    }

    #[test]
    fn filters_select_the_same_from_rows() {
        let jobs = varied();
        let fmt = || {
            SqueueOptions::default()
                .with_format("%i")
                .with_states("all")
                .expect("states")
        };
        let cases = [
            SqueueOptions {
                users: Some(vec![1001]),
                ..fmt()
            },
            SqueueOptions {
                reservations: Some(vec!["maint".into()]),
                ..fmt()
            },
            SqueueOptions {
                accounts: Some(vec!["ACCT".into()]),
                ..fmt()
            },
            SqueueOptions {
                nodes: Some(vec!["n2".into()]),
                ..fmt()
            },
            SqueueOptions {
                names: Some(vec!["wait".into()]),
                ..fmt()
            },
            SqueueOptions {
                partitions: Some(vec!["debug".into()]),
                ..fmt()
            },
            SqueueOptions::default(),
            SqueueOptions::long(),
            SqueueOptions::start(),
        ];
        for opts in cases {
            assert_eq!(render_from_rows(&jobs, &opts), render(&jobs, &opts, &ctx()));
        }
    }

    #[test]
    fn the_default_table_reads_a_fifth_of_the_record() {
        let fields = listed_fields(&SqueueOptions::default());
        assert!(fields.len() < ListField::ALL.len() / 4, "{fields:?}");
        let short = SqueueOptions::default().with_format("%i %t");
        assert_eq!(listed_fields(&short).len(), BASE.len() + 1);
    }
}
