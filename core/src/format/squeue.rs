//! `squeue`'s table: which jobs it shows (state, partition, user, name and id filters), how it folds pending array
//! tasks (`24_[1-3]`, or one line per task with `-r`), the order (`-S`, default `P,t,-p`) and the columns (`-o`,
//! `-O`, `-l`, `--start`).

use crate::format::columns::{parse_long, parse_short_or_all, Layout};
pub use crate::format::squeue_fields::JobField;
pub use crate::format::squeue_sort::{parse_sort, SortField, SortKey, DEFAULT_SORT};
pub use crate::format::squeue_table::Table;
use crate::format::{FormatContext, FormatError};
use crate::model::job::JobRecord;
use crate::model::states::JobBaseState;
use crate::wire::api::JobSelector;

/// squeue's default columns.
pub const DEFAULT_FORMAT: &str = "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R";
/// `squeue -l`.
pub const LONG_FORMAT: &str = "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R";
/// `squeue --start`.
pub const START_FORMAT: &str = "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R";

/// A state `-t` can select.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateMatch {
    State(JobBaseState),
    /// The COMPLETING flag (`CG`).
    Completing,
    /// A Slurm state Spur never produces (`CONFIGURING`, `STAGE_OUT`, ...): valid, matches nothing.
    Never,
}

/// What squeue shows and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqueueOptions {
    pub layout: Layout<JobField>,
    pub no_header: bool,
    /// The `ctime` line above the header (`-l`, `-i`).
    pub print_date: bool,
    /// `-r`: one line per array task instead of `24_[1-3]`.
    pub expand_arrays: bool,
    pub sort: Vec<SortKey>,
    /// `None`: pending, running, suspended and completing jobs (Slurm's default).
    pub states: Option<Vec<StateMatch>>,
    pub partitions: Option<Vec<String>>,
    /// `-A`: only jobs charged to these accounts (any case, as squeue compares them).
    pub accounts: Option<Vec<String>>,
    /// `-R`: only jobs of these reservations.
    pub reservations: Option<Vec<String>>,
    /// `-q`: only jobs of these QOS (any case).
    pub qos: Option<Vec<String>>,
    /// `-L`: only jobs that asked for any of these licenses (by name, counts ignored).
    pub licenses: Option<Vec<String>>,
    pub users: Option<Vec<u32>>,
    pub names: Option<Vec<String>>,
    /// `-w`: jobs allocated any of these nodes (a pending job has none).
    pub nodes: Option<Vec<String>>,
    /// Job ids; an array's id selects all its tasks, `12_3` one task.
    pub job_ids: Option<Vec<JobSelector>>,
}

impl Default for SqueueOptions {
    fn default() -> SqueueOptions {
        SqueueOptions {
            layout: short_layout(DEFAULT_FORMAT),
            no_header: false,
            print_date: false,
            expand_arrays: false,
            sort: parse_sort(DEFAULT_SORT).unwrap_or_default(),
            states: None,
            partitions: None,
            accounts: None,
            reservations: None,
            qos: None,
            licenses: None,
            users: None,
            names: None,
            nodes: None,
            job_ids: None,
        }
    }
}

impl SqueueOptions {
    /// `squeue -l`.
    pub fn long() -> SqueueOptions {
        SqueueOptions {
            layout: short_layout(LONG_FORMAT),
            print_date: true,
            ..SqueueOptions::default()
        }
    }

    /// `squeue --start`: expected start times of pending jobs, soonest first.
    pub fn start() -> SqueueOptions {
        SqueueOptions {
            layout: short_layout(START_FORMAT),
            sort: parse_sort("S").unwrap_or_default(),
            states: Some(vec![StateMatch::State(JobBaseState::Pending)]),
            ..SqueueOptions::default()
        }
    }

    /// `-o FORMAT` (`%all` included).
    pub fn with_format(mut self, format: &str) -> SqueueOptions {
        self.layout = short_layout(format);
        self
    }

    /// `-O FORMAT`.
    pub fn with_long_format(mut self, format: &str) -> SqueueOptions {
        self.layout = parse_long(format, "job", JobField::from_name);
        self
    }

    /// `-S LIST`.
    pub fn with_sort(mut self, spec: &str) -> Result<SqueueOptions, FormatError> {
        self.sort = parse_sort(spec)?;
        Ok(self)
    }

    /// `-t LIST` (`all` selects every state).
    pub fn with_states(mut self, spec: &str) -> Result<SqueueOptions, FormatError> {
        self.states = parse_states(spec)?;
        Ok(self)
    }
}

fn short_layout(format: &str) -> Layout<JobField> {
    parse_short_or_all(format, "", "job", JobField::from_letter)
}

/// Every job state, for `-t all`.
const ALL_STATES: [JobBaseState; 12] = [
    JobBaseState::Pending,
    JobBaseState::Running,
    JobBaseState::Suspended,
    JobBaseState::Completed,
    JobBaseState::Cancelled,
    JobBaseState::Failed,
    JobBaseState::Timeout,
    JobBaseState::NodeFail,
    JobBaseState::Preempted,
    JobBaseState::BootFail,
    JobBaseState::Deadline,
    JobBaseState::OutOfMemory,
];

/// Parses `-t`: long or compact state names, any case; `all` lists every state.
pub fn parse_states(spec: &str) -> Result<Option<Vec<StateMatch>>, FormatError> {
    if spec.eq_ignore_ascii_case("all") {
        let mut all: Vec<StateMatch> = ALL_STATES.iter().map(|s| StateMatch::State(*s)).collect();
        all.push(StateMatch::Completing);
        return Ok(Some(all));
    }
    spec.split(',')
        .filter(|s| !s.is_empty())
        .map(|s| parse_state(s).ok_or_else(|| FormatError::InvalidJobState(s.to_string())))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

fn parse_state(name: &str) -> Option<StateMatch> {
    if let Some(state) = ALL_STATES.iter().find(|s| {
        s.long_name().eq_ignore_ascii_case(name) || s.compact_name().eq_ignore_ascii_case(name)
    }) {
        return Some(StateMatch::State(*state));
    }
    let upper = name.to_ascii_uppercase();
    match upper.as_str() {
        "CG" | "COMPLETING" => Some(StateMatch::Completing),
        "CF" | "CONFIGURING" | "RD" | "RESV_DEL_HOLD" | "RF" | "REQUEUE_FED" | "RH"
        | "REQUEUE_HOLD" | "RS" | "RESIZING" | "RV" | "REVOKED" | "SI" | "SIGNALING" | "SE"
        | "SPECIAL_EXIT" | "SO" | "STAGE_OUT" | "ST" | "STOPPED" => Some(StateMatch::Never),
        _ => None,
    }
}

/// Whether every job the state filter can select waits, runs, is suspended or completes (then the controller
/// need not list finished jobs: `JobListing::live_only`).
pub fn selects_only_live(states: &Option<Vec<StateMatch>>) -> bool {
    match states {
        None => true,
        Some(list) => list.iter().all(|m| match m {
            StateMatch::State(s) => !s.is_finished(),
            StateMatch::Completing | StateMatch::Never => true,
        }),
    }
}

fn state_selected(job: &JobRecord, states: &Option<Vec<StateMatch>>) -> bool {
    match states {
        None => {
            job.is_completing()
                || matches!(
                    job.state,
                    JobBaseState::Pending | JobBaseState::Running | JobBaseState::Suspended
                )
        }
        Some(list) => list.iter().any(|m| match m {
            StateMatch::State(s) => *s == job.state && !job.is_completing(),
            StateMatch::Completing => job.is_completing(),
            StateMatch::Never => false,
        }),
    }
}

/// `12` selects job 12 or every task of array 12; `12_3` only task 3 of array 12.
pub fn id_selects(id: &JobSelector, job: &JobRecord) -> bool {
    match id.array_task {
        // A heterogeneous job's leader id names every component.
        None => {
            id.job_id == job.job_id
                || Some(id.job_id) == job.array_job_id
                || job.het.as_ref().is_some_and(|h| h.job_id == id.job_id)
        }
        Some(task) => Some(id.job_id) == job.array_job_id && Some(task) == job.array_task_id,
    }
}

pub(crate) fn selected(job: &JobRecord, opts: &SqueueOptions) -> bool {
    state_selected(job, &opts.states)
        && opts
            .partitions
            .as_ref()
            .is_none_or(|p| p.contains(&job.partition))
        && opts.accounts.as_ref().is_none_or(|accounts| {
            job.spec
                .account
                .as_ref()
                .is_some_and(|a| accounts.iter().any(|x| x.eq_ignore_ascii_case(a)))
        })
        && opts.qos.as_ref().is_none_or(|wanted| {
            job.spec
                .qos
                .as_ref()
                .is_some_and(|q| wanted.iter().any(|x| x.eq_ignore_ascii_case(q)))
        })
        && opts.licenses.as_ref().is_none_or(|wanted| {
            // `fluent:2,ansys`: the names before any count.
            job.spec.licenses.as_deref().is_some_and(|held| {
                held.split(',')
                    .map(|l| l.split(':').next().unwrap_or(l))
                    .any(|name| wanted.iter().any(|w| w == name))
            })
        })
        && opts.reservations.as_ref().is_none_or(|r| {
            job.spec
                .reservation
                .as_ref()
                .is_some_and(|name| r.contains(name))
        })
        && opts
            .users
            .as_ref()
            .is_none_or(|u| u.contains(&job.spec.user_id))
        && opts.names.as_ref().is_none_or(|n| {
            n.iter()
                .any(|name| name.eq_ignore_ascii_case(&job.spec.name))
        })
        && opts.nodes.as_ref().is_none_or(|nodes| {
            job.alloc
                .as_ref()
                .is_some_and(|a| a.node_names.iter().any(|n| nodes.contains(n)))
        })
        && opts
            .job_ids
            .as_ref()
            .is_none_or(|ids| ids.iter().any(|id| id_selects(id, job)))
}

/// Renders squeue's output for `jobs` (in the controller's order, which breaks ties like Slurm's job table).
pub fn render(jobs: &[JobRecord], opts: &SqueueOptions, ctx: &FormatContext) -> String {
    let mut table = Table::new(opts, ctx);
    jobs.iter().for_each(|job| table.push(job));
    table.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_names_parse_in_both_forms() {
        assert_eq!(
            parse_states("PD").unwrap(),
            Some(vec![StateMatch::State(JobBaseState::Pending)])
        );
        assert_eq!(
            parse_states("running,cg").unwrap(),
            Some(vec![
                StateMatch::State(JobBaseState::Running),
                StateMatch::Completing
            ])
        );
        assert_eq!(parse_states("all").unwrap().map(|v| v.len()), Some(13));
        assert_eq!(parse_states("so").unwrap(), Some(vec![StateMatch::Never]));
        assert_eq!(
            parse_states("bogus").unwrap_err().to_string(),
            "Invalid job state specified: bogus"
        );
    }

    #[test]
    fn only_filters_of_unfinished_states_leave_finished_jobs_out_of_the_listing() {
        let live = |spec: Option<&str>| {
            let states = spec.map_or(Ok(None), parse_states).unwrap();
            selects_only_live(&states)
        };
        assert!(live(None));
        assert!(live(Some("PD,R,S,CG")));
        assert!(live(Some("so")));
        for finished in ["all", "CD", "R,F", "cancelled", "TO", "OOM"] {
            assert!(!live(Some(finished)), "{finished}");
        }
    }

    #[test]
    fn all_format_lists_every_job_letter() {
        let opts = SqueueOptions::default().with_format("%all");
        assert!(opts.layout.warnings.is_empty());
        assert_eq!(
            opts.layout
                .columns
                .iter()
                .filter(|c| c.field.is_some())
                .count(),
            52
        );
    }
}

#[cfg(test)]
mod render_tests {
    use super::*;
    use crate::format::test_records::{array_task, ctx, pending, running, NOW};

    fn ids(out: &str) -> Vec<String> {
        out.lines()
            .skip(1)
            .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
            .collect()
    }

    #[test]
    fn folds_array_tasks_with_throttle_and_merged_reasons() {
        let mut t3 = array_task(52, 3);
        t3.reason = crate::model::states::JobReason::Resources;
        let jobs = vec![array_task(50, 4), array_task(51, 1), t3, array_task(53, 2)];
        let opts = SqueueOptions::default().with_format("%i|%A|%K|%r");
        let out = render(&jobs, &opts, &ctx());
        assert_eq!(
            out,
            "JOBID|JOBID|ARRAY_TASK_ID|REASON\n50_[1-4%2]|50|1-4%2|Priority,Resources\n"
        );
        let expanded = render(
            &jobs,
            &SqueueOptions {
                expand_arrays: true,
                ..opts
            },
            &ctx(),
        );
        assert_eq!(
            ids(&expanded),
            vec![
                "50_1|51|1|Priority",
                "50_2|53|2|Priority",
                "50_3|52|3|Resources",
                "50_4|50|4|Priority"
            ]
        );
    }

    /// Checked against Slurm 22.05 with a held `--array=1-3`: `-j A_2` prints `A_2`, `-j A_2,A_3` folds to
    /// `A_[2-3]`, `-j A` shows every task.
    #[test]
    fn array_task_ids_select_single_tasks() {
        let task = |id, task| {
            let mut job = array_task(id, task);
            job.spec.array = Some("1-3".into());
            job
        };
        let jobs = vec![task(50, 1), task(51, 2), task(52, 3)];
        let pick = |tasks: &[Option<u32>]| {
            let opts = SqueueOptions {
                job_ids: Some(
                    tasks
                        .iter()
                        .map(|t| JobSelector {
                            job_id: 50,
                            array_task: *t,
                        })
                        .collect(),
                ),
                no_header: true,
                ..SqueueOptions::default().with_format("%i")
            };
            render(&jobs, &opts, &ctx())
        };
        assert_eq!(pick(&[Some(2)]), "50_2\n");
        assert_eq!(pick(&[Some(2), Some(3)]), "50_[2-3]\n");
        assert_eq!(pick(&[None]), "50_[1-3]\n");
        assert_eq!(pick(&[Some(7)]), "");
    }

    /// Checked against a live Slurm 22.05 (`sbatch --hold --array=7`).
    #[test]
    fn lone_pending_task_keeps_brackets() {
        let opts = SqueueOptions {
            no_header: true,
            ..SqueueOptions::default().with_format("%i|%K|%A")
        };
        let mut lone = array_task(57, 7);
        lone.spec.array = Some("7".into());
        assert_eq!(render(&[lone], &opts, &ctx()), "50_[7]|7|57\n");
        let mut running_task = array_task(57, 7);
        running_task.state = JobBaseState::Running;
        assert_eq!(render(&[running_task], &opts, &ctx()), "50_7|7|57\n");
    }

    #[test]
    fn default_order_is_partition_state_then_priority_descending() {
        let mut low = pending();
        low.job_id = 44;
        low.priority = 5;
        let mut other_part = running();
        other_part.job_id = 45;
        other_part.partition = "aaa".into();
        let jobs = vec![low, running(), pending(), other_part];
        let out = render(&jobs, &SqueueOptions::default().with_format("%i"), &ctx());
        assert_eq!(ids(&out), vec!["45", "43", "44", "42"]);
        let by_id_desc = SqueueOptions::default()
            .with_format("%i")
            .with_sort("-i")
            .unwrap();
        assert_eq!(
            ids(&render(&jobs, &by_id_desc, &ctx())),
            vec!["45", "44", "43", "42"]
        );
    }

    /// Checked against a live Slurm 22.05: held jobs (no start time) list newest first, after jobs with a start time
    /// (latest first, ties in id order); `-S S` and `-S -S` both turn the held ones back.
    #[test]
    fn jobs_without_start_time_reverse_on_each_start_sort() {
        let held = |id: u32| {
            let mut job = pending();
            job.job_id = id;
            job.priority = 0;
            job
        };
        let begin = |id: u32, start: i64| {
            let mut job = held(id);
            job.start_time = Some(start);
            job
        };
        let jobs = vec![
            begin(8, NOW + 7200),
            begin(9, NOW + 3600),
            held(10),
            begin(11, NOW + 3600),
            held(12),
        ];
        let by = |sort: &str| {
            let opts = SqueueOptions::default().with_format("%i");
            let opts = if sort.is_empty() {
                opts
            } else {
                opts.with_sort(sort).unwrap()
            };
            ids(&render(&jobs, &opts, &ctx()))
        };
        assert_eq!(by(""), vec!["8", "9", "11", "12", "10"]);
        assert_eq!(by("P"), vec!["8", "9", "11", "12", "10"]);
        assert_eq!(by("S"), vec!["9", "11", "8", "10", "12"]);
        assert_eq!(by("-S"), vec!["8", "9", "11", "10", "12"]);
    }

    #[test]
    fn filters_by_state_partition_user_name_and_id() {
        let mut done = running();
        done.job_id = 46;
        done.state = JobBaseState::Completed;
        let jobs = vec![running(), pending(), done];
        let fmt = || SqueueOptions::default().with_format("%i");
        assert_eq!(ids(&render(&jobs, &fmt(), &ctx())), vec!["43", "42"]);
        let all = fmt().with_states("all").unwrap();
        assert_eq!(render(&jobs, &all, &ctx()).lines().count(), 4);
        let cd = fmt().with_states("CD").unwrap();
        assert_eq!(ids(&render(&jobs, &cd, &ctx())), vec!["46"]);
        let named = SqueueOptions {
            names: Some(vec!["WAIT".into()]),
            ..fmt()
        };
        assert_eq!(ids(&render(&jobs, &named, &ctx())), vec!["43"]);
        let by_id = SqueueOptions {
            job_ids: Some(vec![JobSelector {
                job_id: 42,
                array_task: None,
            }]),
            ..fmt()
        };
        assert_eq!(ids(&render(&jobs, &by_id, &ctx())), vec!["42"]);
        let nobody = SqueueOptions {
            users: Some(vec![1]),
            ..fmt()
        };
        assert_eq!(render(&jobs, &nobody, &ctx()), "JOBID\n");
        let part = SqueueOptions {
            partitions: Some(vec!["other".into()]),
            ..fmt()
        };
        assert_eq!(render(&jobs, &part, &ctx()), "JOBID\n");
        let mut charged = jobs.clone();
        charged[1].spec.account = Some("physics".into());
        let account = |name: &str| SqueueOptions {
            accounts: Some(vec![name.into()]),
            ..fmt()
        };
        assert_eq!(
            ids(&render(&charged, &account("physics"), &ctx())),
            vec!["43"]
        );
        assert_eq!(
            ids(&render(&charged, &account("PHYSICS"), &ctx())),
            vec!["43"]
        );
        assert_eq!(render(&charged, &account("chemistry"), &ctx()), "JOBID\n");
        let mut in_resv = jobs.clone();
        in_resv[1].spec.reservation = Some("maint".into());
        let resv = |name: &str| SqueueOptions {
            reservations: Some(vec![name.into()]),
            ..fmt()
        };
        assert_eq!(ids(&render(&in_resv, &resv("maint"), &ctx())), vec!["43"]);
        assert_eq!(render(&in_resv, &resv("other"), &ctx()), "JOBID\n");
        // Job 42 runs on n[1-2]; a pending job is on no node.
        let on = |names: &[&str]| SqueueOptions {
            nodes: Some(names.iter().map(|n| n.to_string()).collect()),
            ..fmt()
        };
        assert_eq!(ids(&render(&jobs, &on(&["n2", "n9"]), &ctx())), vec!["42"]);
        assert_eq!(render(&jobs, &on(&["n3"]), &ctx()), "JOBID\n");
    }

    #[test]
    fn invalid_letters_stay_literal() {
        let opts = SqueueOptions::default().with_format("%i %-8j");
        assert_eq!(
            opts.layout.warnings,
            vec!["Invalid job format specification: -".to_string()]
        );
        let out = render(
            &[running()],
            &SqueueOptions {
                no_header: true,
                ..opts
            },
            &ctx(),
        );
        assert_eq!(out, "42 %-8j\n");
    }

    #[test]
    fn long_format_pads_and_suffixes() {
        let opts = SqueueOptions::default().with_long_format("JobID:.6|,Name:3,State");
        let out = render(&[running()], &opts, &ctx());
        assert_eq!(
            out,
            " JOBID|NAMSTATE               \n    42|traRUNNING             \n"
        );
    }
}
