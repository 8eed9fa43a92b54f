//! The accounting entities in the state machine (`sacctmgr`): applying changes from the log, and the rules jobs
//! meet at submission (`--qos`, `--account` and the defaults of the user's association, docs/accounting.md).

use std::collections::HashSet;

use spur_core::model::assoc::{AcctDb, AcctIndex, AcctRequest, DEFAULT_QOS};
use spur_core::model::job::{JobRecord, JobSpec};
use spur_core::model::states::JobReason;
use spur_core::wire::api::{ApiError, SlurmErrno};

use super::{Applied, ApplyResult, ClusterState};

impl ClusterState {
    /// Gives a state that has none the entities slurmdbd starts a cluster with; a state restored from before
    /// accounting entities existed gets them on its next `ApplyConfig`.
    pub(super) fn seed_accounting_entities(&mut self) {
        if self.acct.qos.is_empty() && self.acct.accounts.is_empty() {
            self.acct = AcctDb::initial(&self.settings.cluster_name);
        } else {
            self.acct.cluster.clone_from(&self.settings.cluster_name);
        }
    }

    /// `sacctmgr add|modify|delete`: only root, SlurmUser and the users sacctmgr made administrators.
    pub(super) fn accounting_request(
        &mut self,
        caller_uid: u32,
        request: &AcctRequest,
    ) -> ApplyResult {
        if !self.is_admin(caller_uid) {
            return Err(ApiError::new(SlurmErrno::AccessDenied));
        }
        let result = self.acct.apply(request);
        Ok(Applied {
            acct: Some(result),
            ..Default::default()
        })
    }

    /// Fills in the account and QOS a job runs under and checks them, as slurmctld does with accounting:
    /// without `AccountingStorageEnforce` a job keeps what it asked for; with it the user needs an association
    /// in the account and may use only its QOS.
    pub(super) fn resolve_job_assoc(
        &self,
        spec: &mut JobSpec,
        partition: &str,
    ) -> Result<(), ApiError> {
        if !self.settings.accounting || !self.settings.enforce_associations {
            return Ok(());
        }
        let user = spec.user_name.clone();
        let account = match &spec.account {
            Some(a) => a.clone(),
            None => match self.acct.users.get(&user) {
                Some(u) => u.default_account.clone(),
                None => return Err(ApiError::new(SlurmErrno::InvalidAccount)),
            },
        };
        let Some(assoc) = self.acct.user_assoc(&user, &account, Some(partition)) else {
            return Err(ApiError::new(SlurmErrno::InvalidAccount));
        };
        let qos = match &spec.qos {
            Some(q) => q.clone(),
            None => default_qos(assoc),
        };
        let allowed = self.acct.qos(&qos).is_some() && assoc.qos.contains(&qos);
        if self.settings.enforce_qos && !allowed {
            return Err(ApiError::new(SlurmErrno::InvalidQos));
        }
        if self.settings.enforce_limits {
            self.check_submit_limits(spec, &qos, &account, assoc)?;
        }
        if spec.account.is_none() {
            spec.account = Some(account);
        }
        if spec.qos.is_none() {
            spec.qos = Some(qos);
        }
        Ok(())
    }
}

impl ClusterState {
    /// The `MaxWall` a job of `spec` (account and QOS resolved) runs under with `limits` enforcement: its QOS's,
    /// else its association's own or the nearest account's above it.
    pub(super) fn max_wall_for(&self, spec: &JobSpec, partition: &str) -> Option<u32> {
        if !self.settings.accounting || !self.settings.enforce_limits {
            return None;
        }
        let qos = spec.qos.as_deref().unwrap_or(DEFAULT_QOS);
        self.acct
            .qos(qos)
            .and_then(|q| q.limits.max_wall_min)
            .or_else(|| {
                let account = spec.account.as_deref()?;
                let assoc = self
                    .acct
                    .user_assoc(&spec.user_name, account, Some(partition))?;
                self.acct.inherited_max(assoc, |l| l.max_wall_min)
            })
    }
}

impl ClusterState {
    /// The limits on jobs waiting and running at once that slurmctld checks as a job is submitted, in its order:
    /// the QOS's `GrpSubmitJobs` (every user's jobs of the QOS), `MaxSubmitJobsPerAccount` (the jobs of the QOS in
    /// the job's account) and `MaxSubmitJobsPerUser`, then the user's
    /// association's `GrpSubmitJobs` and `MaxSubmitJobs` (its own, else the nearest account's above it, since
    /// slurmdbd hands an account's `Max` limits down to the associations under it), then `GrpSubmitJobs` of each
    /// account above (the jobs of everyone under it). Each counts the jobs not yet finished, held ones included,
    /// this one on top.
    fn check_submit_limits(
        &self,
        spec: &JobSpec,
        qos: &str,
        account: &str,
        assoc: &spur_core::model::assoc::Association,
    ) -> Result<(), ApiError> {
        let qos_limits = self.acct.qos(qos).map(|q| &q.limits);
        let qos_grp = qos_limits.and_then(|l| l.grp_submit);
        let qos_per_user = qos_limits.and_then(|l| l.max_submit_jobs_per_user);
        let qos_per_account = qos_limits.and_then(|l| l.max_submit_jobs_per_account);
        let assoc_max = self.acct.inherited_max(assoc, |l| l.max_submit);
        // The account chain from the user's own association up to root, with each one's GrpSubmitJobs.
        let mut grp_chain: Vec<(Option<&str>, u32)> = Vec::new();
        if let Some(max) = assoc.limits.grp_submit {
            grp_chain.push((None, max));
        }
        for node in self.acct.account_chain(account) {
            if let Some(max) = node.limits.grp_submit {
                grp_chain.push((Some(node.account.as_str()), max));
            }
        }
        if qos_grp.is_none()
            && qos_per_user.is_none()
            && qos_per_account.is_none()
            && assoc_max.is_none()
            && grp_chain.is_empty()
        {
            return Ok(());
        }
        // The accounts at or below `top`, found once per limit rather than by walking up from every job's
        // account (thousands of jobs times a search of the associations per step).
        let accounts_under = |top: &str| -> HashSet<&str> {
            let index = AcctIndex::new(&self.acct);
            self.acct
                .assocs
                .iter()
                .filter(|a| a.user.is_none())
                .map(|a| a.account.as_str())
                .filter(|name| index.chain(name).any(|node| node.account == top))
                .collect()
        };
        let live: Vec<&JobRecord> = self
            .jobs
            .values()
            .filter(|j| !j.state.is_finished())
            .collect();
        fn job_qos(job: &JobRecord) -> &str {
            job.spec.qos.as_deref().unwrap_or(DEFAULT_QOS)
        }
        let mine = |j: &&&JobRecord| {
            j.spec.user_name == spec.user_name && j.spec.account.as_deref() == Some(account)
        };
        let full = |count: usize, max: u32| count >= max as usize;
        let refuse = |reason: JobReason| {
            Err(ApiError::with_detail(
                SlurmErrno::AccountingPolicy,
                reason.name(),
            ))
        };
        if let Some(max) = qos_grp {
            if full(live.iter().filter(|j| job_qos(j) == qos).count(), max) {
                return refuse(JobReason::QosGrpSubJob);
            }
        }
        if let Some(max) = qos_per_account {
            let count = live
                .iter()
                .filter(|j| job_qos(j) == qos && j.spec.account.as_deref() == Some(account))
                .count();
            if full(count, max) {
                return refuse(JobReason::QosMaxSubJobPerAcct);
            }
        }
        if let Some(max) = qos_per_user {
            let count = live
                .iter()
                .filter(|j| j.spec.user_id == spec.user_id && job_qos(j) == qos)
                .count();
            if full(count, max) {
                return refuse(JobReason::QosMaxSubJob);
            }
        }
        let mut grp_chain = grp_chain.into_iter().peekable();
        if let Some((None, max)) = grp_chain.peek().copied() {
            grp_chain.next();
            if full(live.iter().filter(mine).count(), max) {
                return refuse(JobReason::AssocGrpSubJob);
            }
        }
        if let Some(max) = assoc_max {
            if full(live.iter().filter(mine).count(), max) {
                return refuse(JobReason::AssocMaxSubJob);
            }
        }
        for (level, max) in grp_chain {
            let count = match level {
                None => live.iter().filter(mine).count(),
                Some(top) => {
                    let under = accounts_under(top);
                    live.iter()
                        .filter(|j| j.spec.account.as_deref().is_some_and(|a| under.contains(a)))
                        .count()
                }
            };
            if full(count, max) {
                return refuse(JobReason::AssocGrpSubJob);
            }
        }
        Ok(())
    }
}

/// The association's default QOS, else its only QOS, else `normal` (slurmctld's order).
fn default_qos(assoc: &spur_core::model::assoc::Association) -> String {
    if let Some(q) = &assoc.default_qos {
        return q.clone();
    }
    match assoc.qos.as_slice() {
        [only] => only.clone(),
        _ => DEFAULT_QOS.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use spur_core::model::assoc::{AcctRequest, AssocSet, ListEdit, QosSet};
    use spur_core::wire::api::{ApiError, ControlRequest, SlurmErrno};

    use crate::scheduler::scenario::{job, node, partition, Scenario};
    use crate::state::{Command, Settings};

    fn cluster(settings: Settings) -> Scenario {
        let nodes = vec!["n1".to_string()];
        Scenario::new(
            vec![node("n1", 2, 4000, 0)],
            vec![partition("debug", &nodes, true)],
            settings,
            1_000,
        )
        .unwrap()
    }

    fn acct(s: &mut Scenario, uid: u32, request: AcctRequest) -> Result<(), ApiError> {
        let now = s.now;
        let applied = s.apply(Command::Control {
            caller_uid: uid,
            request: ControlRequest::Accounting { request },
            now,
        })?;
        assert!(matches!(applied.acct, Some(Ok(_))), "{applied:?}");
        s.state.check_invariants().unwrap();
        Ok(())
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// QOS `high` (priority 100), account `proj` with user alice (the scenario's jobs' user) in it.
    fn entities(s: &mut Scenario) {
        let high = QosSet {
            priority: Some(100),
            ..Default::default()
        };
        acct(
            s,
            0,
            AcctRequest::AddQos {
                names: names(&["high", "other"]),
                set: high,
            },
        )
        .unwrap();
        acct(
            s,
            0,
            AcctRequest::AddAccounts {
                names: names(&["proj"]),
                parent: None,
                description: None,
                organization: None,
                set: AssocSet::default(),
            },
        )
        .unwrap();
        let set = AssocSet {
            qos: Some(ListEdit::Add(names(&["high"]))),
            ..Default::default()
        };
        acct(
            s,
            0,
            AcctRequest::AddUsers {
                names: names(&["alice"]),
                accounts: names(&["proj"]),
                partitions: Vec::new(),
                default_account: None,
                admin: None,
                set,
            },
        )
        .unwrap();
    }

    /// [`entities`] on a cluster enforcing associations, QOS and limits.
    fn limited() -> Scenario {
        let mut s = cluster(Settings {
            enforce_associations: true,
            enforce_qos: true,
            enforce_limits: true,
            ..Settings::default()
        });
        entities(&mut s);
        s
    }

    /// Account `team` (under `parent`, else root) with alice in it, who may use QOS `high` there.
    fn add_team(s: &mut Scenario, parent: Option<&str>) {
        let team = AcctRequest::AddAccounts {
            names: names(&["team"]),
            parent: parent.map(str::to_string),
            description: None,
            organization: None,
            set: AssocSet::default(),
        };
        acct(s, 0, team).unwrap();
        let alice_in_team = AcctRequest::AddUsers {
            names: names(&["alice"]),
            accounts: names(&["team"]),
            partitions: Vec::new(),
            default_account: None,
            admin: None,
            set: AssocSet {
                qos: Some(ListEdit::Add(names(&["high"]))),
                ..Default::default()
            },
        };
        acct(s, 0, alice_in_team).unwrap();
    }

    fn modify_account(s: &mut Scenario, name: &str, set: AssocSet) {
        let request = AcctRequest::ModifyAccounts {
            names: names(&[name]),
            description: None,
            organization: None,
            set,
        };
        acct(s, 0, request).unwrap();
    }

    fn modify_user(s: &mut Scenario, name: &str, set: AssocSet) {
        let request = AcctRequest::ModifyUsers {
            names: names(&[name]),
            accounts: Vec::new(),
            default_account: None,
            admin: None,
            set,
        };
        acct(s, 0, request).unwrap();
    }

    fn modify_qos(s: &mut Scenario, name: &str, set: QosSet) {
        acct(
            s,
            0,
            AcctRequest::ModifyQos {
                names: names(&[name]),
                set,
            },
        )
        .unwrap();
    }

    #[test]
    fn a_new_cluster_has_slurmdbds_entities_and_only_admins_change_them() {
        let mut s = cluster(Settings::default());
        assert_eq!(s.state.acct.qos[0].name, "normal");
        assert_eq!(s.state.acct.cluster, Settings::default().cluster_name);
        let refused = acct(
            &mut s,
            1000,
            AcctRequest::AddQos {
                names: names(&["x"]),
                set: QosSet::default(),
            },
        );
        assert_eq!(refused.unwrap_err().errno, SlurmErrno::AccessDenied);
        assert!(s.state.acct.qos("x").is_none());
    }

    /// `sacctmgr load` sends one batch: refused whole to a user who is no administrator, and applied all or none.
    #[test]
    fn a_loads_batch_is_for_admins_and_all_or_none() {
        let mut s = cluster(Settings::default());
        let add = |name: &str| AcctRequest::AddAccounts {
            names: names(&[name]),
            parent: None,
            description: None,
            organization: None,
            set: AssocSet::default(),
        };
        let refused = acct(
            &mut s,
            1000,
            AcctRequest::Batch {
                requests: vec![add("evil")],
            },
        );
        assert_eq!(refused.unwrap_err().errno, SlurmErrno::AccessDenied);
        assert!(!s.state.acct.accounts.contains_key("evil"));
        // The second request names a parent that does not exist: the first is not kept either.
        let now = s.now;
        let bad = AcctRequest::AddAccounts {
            names: names(&["child"]),
            parent: Some("nosuch".into()),
            description: None,
            organization: None,
            set: AssocSet::default(),
        };
        let applied = s
            .apply(Command::Control {
                caller_uid: 0,
                request: ControlRequest::Accounting {
                    request: AcctRequest::Batch {
                        requests: vec![add("lab"), bad],
                    },
                },
                now,
            })
            .unwrap();
        assert!(matches!(applied.acct, Some(Err(_))), "{applied:?}");
        assert!(!s.state.acct.accounts.contains_key("lab"));
        acct(
            &mut s,
            0,
            AcctRequest::Batch {
                requests: vec![add("lab"), add("lab2")],
            },
        )
        .unwrap();
        assert!(s.state.acct.accounts.contains_key("lab2"));
    }

    #[test]
    fn without_enforcement_jobs_name_what_they_like() {
        let mut s = cluster(Settings::default());
        let mut spec = job(1, 100, 0, None);
        spec.qos = Some("nosuch".into());
        spec.account = Some("nosuch".into());
        let id = s.submit(spec).unwrap();
        assert_eq!(s.state.jobs[&id].spec.qos.as_deref(), Some("nosuch"));
    }

    #[test]
    fn enforcement_checks_account_and_qos_and_fills_defaults() {
        let mut s = cluster(Settings {
            enforce_associations: true,
            enforce_qos: true,
            ..Settings::default()
        });
        let refused = s.submit(job(1, 100, 0, None)).unwrap_err();
        assert_eq!(
            refused.errno,
            SlurmErrno::InvalidAccount,
            "no association yet"
        );
        entities(&mut s);
        let id = s.submit(job(1, 100, 0, None)).unwrap();
        let spec = &s.state.jobs[&id].spec;
        assert_eq!(
            (spec.account.as_deref(), spec.qos.as_deref()),
            (Some("proj"), Some("normal"))
        );
        let mut other = job(1, 100, 0, None);
        other.qos = Some("other".into());
        assert_eq!(s.submit(other).unwrap_err().errno, SlurmErrno::InvalidQos);
        let mut root_acct = job(1, 100, 0, None);
        root_acct.account = Some("root".into());
        assert_eq!(
            s.submit(root_acct).unwrap_err().errno,
            SlurmErrno::InvalidAccount
        );
        let mut high = job(1, 100, 0, None);
        high.qos = Some("high".into());
        assert!(s.submit(high).is_ok());
        // A default QOS on the association is what jobs without --qos get.
        let set = AssocSet {
            default_qos: Some(Some("high".into())),
            ..Default::default()
        };
        acct(
            &mut s,
            0,
            AcctRequest::ModifyUsers {
                names: names(&["alice"]),
                accounts: Vec::new(),
                default_account: None,
                admin: None,
                set,
            },
        )
        .unwrap();
        let id = s.submit(job(1, 100, 0, None)).unwrap();
        assert_eq!(s.state.jobs[&id].spec.qos.as_deref(), Some("high"));
    }

    #[test]
    fn the_qos_factor_is_the_qos_priority_over_the_highest() {
        let weights = spur_core::policy::priority::PriorityWeights {
            qos: 1000,
            ..spur_core::policy::priority::PriorityWeights::from_conf(
                &spur_core::grammar::conf::SlurmConf::parse_str(
                    "ClusterName=c\nSlurmctldHost=h\nPriorityType=priority/multifactor\n",
                    "slurm.conf",
                )
                .unwrap(),
            )
            .unwrap()
        };
        let mut s = cluster(Settings {
            priority: Some(weights.clone()),
            ..Settings::default()
        });
        entities(&mut s);
        acct(
            &mut s,
            0,
            AcctRequest::ModifyQos {
                names: names(&["other"]),
                set: QosSet {
                    priority: Some(200),
                    ..Default::default()
                },
            },
        )
        .unwrap();
        let mut high = job(1, 100, 0, None);
        high.qos = Some("high".into());
        let high = s.submit(high).unwrap();
        let plain = s.submit(job(1, 100, 0, None)).unwrap();
        let rows = crate::rules::priority::factor_rows(&s.state, &weights, s.now);
        let qos_of = |id: u32| rows.iter().find(|r| r.job_id == id).map(|r| r.qos);
        assert_eq!(qos_of(high), Some(500.0));
        assert_eq!(qos_of(plain), Some(0.0));
    }

    #[test]
    fn qos_limits_hold_jobs_back_and_refuse_submissions() {
        use spur_core::model::states::{JobBaseState, JobReason};
        let mut s = limited();
        let limits = QosSet {
            max_wall_min: Some(Some(10)),
            max_jobs_per_user: Some(Some(1)),
            max_submit_jobs_per_user: Some(Some(3)),
            ..Default::default()
        };
        modify_qos(&mut s, "high", limits);
        let submit = |s: &mut Scenario, minutes: u32| {
            let mut spec = job(1, 100, 0, Some(minutes));
            spec.qos = Some("high".into());
            s.submit(spec)
        };
        let long = submit(&mut s, 20).unwrap();
        let first = submit(&mut s, 5).unwrap();
        let second = submit(&mut s, 5).unwrap();
        s.pass().unwrap();
        let job = |s: &Scenario, id: u32| (s.state.jobs[&id].state, s.state.jobs[&id].reason);
        assert_eq!(
            job(&s, long),
            (JobBaseState::Pending, JobReason::QosMaxWallPerJob)
        );
        assert_eq!(job(&s, first).0, JobBaseState::Running);
        assert_eq!(
            job(&s, second),
            (JobBaseState::Pending, JobReason::QosMaxJobPerUser)
        );
        let refused = submit(&mut s, 5).unwrap_err();
        assert_eq!(refused.errno, SlurmErrno::AccountingPolicy);
        assert_eq!(
            refused.detail.as_deref(),
            Some("QOSMaxSubmitJobPerUserLimit")
        );
        // Once the first ends, the second may run.
        s.finish(first).unwrap();
        s.pass().unwrap();
        assert_eq!(job(&s, second).0, JobBaseState::Running);
    }

    #[test]
    fn association_limits_of_the_user_and_of_the_accounts_above_keep_jobs_waiting() {
        use spur_core::model::states::{JobBaseState, JobReason};
        let mut s = limited();
        add_team(&mut s, Some("proj"));
        let submit = |s: &mut Scenario, account: &str, cpus: u32, minutes: Option<u32>| {
            let mut spec = job(cpus, 100, 0, minutes);
            spec.account = Some(account.into());
            s.submit(spec).unwrap()
        };
        let status = |s: &Scenario, id: u32| (s.state.jobs[&id].state, s.state.jobs[&id].reason);
        let waits = |reason| (JobBaseState::Pending, reason);
        // GrpJobs of proj counts the jobs of the accounts below it.
        let grp_jobs = AssocSet {
            grp_jobs: Some(Some(1)),
            ..Default::default()
        };
        modify_account(&mut s, "proj", grp_jobs);
        let below = submit(&mut s, "team", 1, Some(5));
        let in_proj = submit(&mut s, "proj", 1, Some(5));
        s.pass().unwrap();
        assert_eq!(status(&s, below).0, JobBaseState::Running);
        assert_eq!(status(&s, in_proj), waits(JobReason::AssocGrpJob));
        s.finish(below).unwrap();
        s.pass().unwrap();
        assert_eq!(status(&s, in_proj).0, JobBaseState::Running);
        s.finish(in_proj).unwrap();
        // GrpTRES of proj: one CPU among all its jobs.
        let grp_cpu = AssocSet {
            grp_jobs: Some(None),
            grp_tres: Some(Some("cpu=1".into())),
            ..Default::default()
        };
        modify_account(&mut s, "proj", grp_cpu);
        let first = submit(&mut s, "proj", 1, Some(5));
        let second = submit(&mut s, "team", 1, Some(5));
        s.pass().unwrap();
        assert_eq!(status(&s, first).0, JobBaseState::Running);
        assert_eq!(status(&s, second), waits(JobReason::AssocGrpCpu));
        s.finish(first).unwrap();
        s.finish(second).unwrap();
        // MaxTRES and MaxWall of proj hold for alice's association under it, which sets none.
        let max = AssocSet {
            grp_tres: Some(None),
            max_tres: Some(Some("cpu=1".into())),
            max_wall_min: Some(Some(5)),
            ..Default::default()
        };
        modify_account(&mut s, "proj", max);
        let wide = submit(&mut s, "proj", 2, Some(5));
        let long = submit(&mut s, "proj", 1, Some(7));
        let unlimited = submit(&mut s, "proj", 1, None);
        s.pass().unwrap();
        assert_eq!(status(&s, wide), waits(JobReason::AssocMaxCpuPerJob));
        assert_eq!(status(&s, long), waits(JobReason::AssocMaxWallPerJob));
        // A job without a time limit gets the MaxWall.
        assert_eq!(s.state.jobs[&unlimited].time_limit_min, Some(5));
        assert_eq!(status(&s, unlimited).0, JobBaseState::Running);
        s.finish(unlimited).unwrap();
        // Where the job's QOS sets the same limit, the association's is not looked at.
        let qos_wall = QosSet {
            max_wall_min: Some(Some(60)),
            ..Default::default()
        };
        modify_qos(&mut s, "high", qos_wall);
        let mut spec = job(1, 100, 0, Some(7));
        spec.account = Some("proj".into());
        spec.qos = Some("high".into());
        let in_high = s.submit(spec).unwrap();
        s.pass().unwrap();
        assert_eq!(status(&s, in_high).0, JobBaseState::Running);
    }

    #[test]
    fn per_account_limits_of_a_qos_count_each_account_apart() {
        use spur_core::model::states::{JobBaseState, JobReason};
        let mut s = limited();
        add_team(&mut s, None);
        let per_account = QosSet {
            max_jobs_per_account: Some(Some(1)),
            max_submit_jobs_per_account: Some(Some(2)),
            ..Default::default()
        };
        modify_qos(&mut s, "high", per_account);
        let submit = |s: &mut Scenario, account: &str| {
            let mut spec = job(1, 100, 0, Some(5));
            spec.account = Some(account.into());
            spec.qos = Some("high".into());
            s.submit(spec)
        };
        let status = |s: &Scenario, id: u32| (s.state.jobs[&id].state, s.state.jobs[&id].reason);
        let first = submit(&mut s, "proj").unwrap();
        let second = submit(&mut s, "proj").unwrap();
        let elsewhere = submit(&mut s, "team").unwrap();
        s.pass().unwrap();
        assert_eq!(status(&s, first).0, JobBaseState::Running);
        assert_eq!(
            status(&s, second),
            (JobBaseState::Pending, JobReason::QosMaxJobPerAcct)
        );
        assert_eq!(status(&s, elsewhere).0, JobBaseState::Running);
        let refused = submit(&mut s, "proj").unwrap_err();
        assert_eq!(refused.errno, SlurmErrno::AccountingPolicy);
        assert_eq!(refused.detail.as_deref(), Some("MaxSubmitJobsPerAccount"));
        submit(&mut s, "team").unwrap();
        // MaxTRESPerAccount: one CPU among each account's running jobs of the QOS.
        s.finish(first).unwrap();
        s.finish(elsewhere).unwrap();
        let tres = QosSet {
            max_jobs_per_account: Some(None),
            max_tres_per_account: Some(Some("cpu=1".into())),
            ..Default::default()
        };
        modify_qos(&mut s, "high", tres);
        let third = submit(&mut s, "proj").unwrap();
        s.pass().unwrap();
        assert_eq!(status(&s, second).0, JobBaseState::Running);
        assert_eq!(
            status(&s, third),
            (JobBaseState::Pending, JobReason::QosMaxCpuPerAcct)
        );
    }

    #[test]
    fn memory_limits_count_what_jobs_hold_and_ask_for() {
        use spur_core::model::states::{JobBaseState, JobReason};
        let mut s = limited();
        let status = |s: &Scenario, id: u32| (s.state.jobs[&id].state, s.state.jobs[&id].reason);
        // The QOS's GrpTRES: 150 MB among its running jobs, each of which asks for 100.
        let grp_mem = QosSet {
            grp_tres: Some(Some("mem=150".into())),
            ..Default::default()
        };
        modify_qos(&mut s, "high", grp_mem);
        let in_high = |s: &mut Scenario| {
            let mut spec = job(1, 100, 0, Some(5));
            spec.qos = Some("high".into());
            s.submit(spec).unwrap()
        };
        let first = in_high(&mut s);
        let second = in_high(&mut s);
        s.pass().unwrap();
        assert_eq!(status(&s, first).0, JobBaseState::Running);
        assert_eq!(
            status(&s, second),
            (JobBaseState::Pending, JobReason::QosGrpMem)
        );
        s.finish(first).unwrap();
        s.finish(second).unwrap();
        // MaxTRES of the account, handed down: a job may ask for 50 MB.
        let max_mem = AssocSet {
            max_tres: Some(Some("mem=50".into())),
            ..Default::default()
        };
        modify_account(&mut s, "proj", max_mem);
        let big = s.submit(job(1, 100, 0, Some(5))).unwrap();
        let small = s.submit(job(1, 50, 0, Some(5))).unwrap();
        s.pass().unwrap();
        assert_eq!(
            status(&s, big),
            (JobBaseState::Pending, JobReason::AssocMaxMemPerJob)
        );
        assert_eq!(status(&s, small).0, JobBaseState::Running);
    }

    #[test]
    fn submit_limits_of_the_qos_the_association_and_the_accounts_above_refuse_the_next_job() {
        use spur_core::model::states::JobBaseState;
        let mut s = limited();
        let submit = |s: &mut Scenario, qos: bool| {
            let mut spec = job(1, 100, 0, Some(5));
            spec.qos = qos.then(|| "high".into());
            s.submit(spec)
        };
        let refused_by = |result: Result<u32, ApiError>| {
            let e = result.expect_err("the submission is refused");
            assert_eq!(e.errno, SlurmErrno::AccountingPolicy);
            e.detail.unwrap_or_default()
        };
        // GrpSubmitJobs of the QOS: one job of `high` at a time, whoever submits it.
        let grp = QosSet {
            grp_submit: Some(Some(1)),
            ..Default::default()
        };
        modify_qos(&mut s, "high", grp);
        let first = submit(&mut s, true).unwrap();
        assert_eq!(refused_by(submit(&mut s, true)), "QOSGrpSubmitJobsLimit");
        // A job of another QOS is not counted against it.
        submit(&mut s, false).unwrap();
        let lifted = QosSet {
            grp_submit: Some(None),
            ..Default::default()
        };
        modify_qos(&mut s, "high", lifted);
        // MaxSubmitJobs of alice's association: her two jobs, of either QOS, fill it.
        modify_user(
            &mut s,
            "alice",
            AssocSet {
                max_submit: Some(Some(2)),
                ..Default::default()
            },
        );
        assert_eq!(refused_by(submit(&mut s, false)), "AssocMaxSubmitJobLimit");
        assert_eq!(refused_by(submit(&mut s, true)), "AssocMaxSubmitJobLimit");
        modify_user(
            &mut s,
            "alice",
            AssocSet {
                max_submit: Some(None),
                ..Default::default()
            },
        );
        // GrpSubmitJobs of the account above her: every job under `proj`.
        modify_account(
            &mut s,
            "proj",
            AssocSet {
                grp_submit: Some(Some(3)),
                ..Default::default()
            },
        );
        submit(&mut s, false).unwrap();
        assert_eq!(refused_by(submit(&mut s, false)), "AssocGrpSubmitJobsLimit");
        // A job that ends makes room.
        s.pass().unwrap();
        assert_eq!(s.state.jobs[&first].state, JobBaseState::Running);
        s.finish(first).unwrap();
        submit(&mut s, false).unwrap();
    }

    #[test]
    fn an_accounts_max_submit_jobs_holds_for_each_user_under_it_without_one_of_their_own() {
        let mut s = limited();
        modify_account(
            &mut s,
            "proj",
            AssocSet {
                max_submit: Some(Some(1)),
                ..Default::default()
            },
        );
        s.submit(job(1, 100, 0, Some(5))).unwrap();
        let refused = s.submit(job(1, 100, 0, Some(5))).unwrap_err();
        assert_eq!(refused.detail.as_deref(), Some("AssocMaxSubmitJobLimit"));
        // Her own limit comes first.
        modify_user(
            &mut s,
            "alice",
            AssocSet {
                max_submit: Some(Some(2)),
                ..Default::default()
            },
        );
        s.submit(job(1, 100, 0, Some(5))).unwrap();
    }

    #[test]
    fn group_jobs_tres_per_job_and_association_max_jobs_hold_jobs_back() {
        use spur_core::model::states::{JobBaseState, JobReason};
        let mut s = limited();
        let limits = QosSet {
            grp_jobs: Some(Some(1)),
            max_tres_per_job: Some(Some("cpu=1,node=1".into())),
            ..Default::default()
        };
        modify_qos(&mut s, "high", limits);
        let submit = |s: &mut Scenario, cpus: u32, qos: bool| {
            let mut spec = job(cpus, 100, 0, Some(5));
            spec.qos = qos.then(|| "high".into());
            s.submit(spec).unwrap()
        };
        let wide = submit(&mut s, 2, true);
        let first = submit(&mut s, 1, true);
        let second = submit(&mut s, 1, true);
        s.pass().unwrap();
        let job = |s: &Scenario, id: u32| (s.state.jobs[&id].state, s.state.jobs[&id].reason);
        assert_eq!(
            job(&s, wide),
            (JobBaseState::Pending, JobReason::QosMaxCpuPerJob)
        );
        assert_eq!(job(&s, first).0, JobBaseState::Running);
        assert_eq!(
            job(&s, second),
            (JobBaseState::Pending, JobReason::QosGrpJob)
        );
        // Alice may run one job at a time in her association: a job of the default QOS waits too.
        modify_user(
            &mut s,
            "alice",
            AssocSet {
                max_jobs: Some(Some(1)),
                ..Default::default()
            },
        );
        let plain = submit(&mut s, 1, false);
        s.pass().unwrap();
        assert_eq!(
            job(&s, plain),
            (JobBaseState::Pending, JobReason::AssocMaxJobs)
        );
        s.finish(first).unwrap();
        s.pass().unwrap();
        // One of the two waiting jobs runs; the other waits for it, by the association's limit.
        let running = [second, plain]
            .iter()
            .filter(|&&id| job(&s, id).0 == JobBaseState::Running)
            .count();
        assert_eq!(running, 1);
    }

    #[test]
    fn group_and_per_user_tres_limits_count_what_running_jobs_hold() {
        use spur_core::model::states::{JobBaseState, JobReason};
        let mut s = limited();
        for (qos, set) in [
            (
                "high",
                QosSet {
                    grp_tres: Some(Some("cpu=1".into())),
                    ..Default::default()
                },
            ),
            (
                "other",
                QosSet {
                    max_tres_per_user: Some(Some("cpu=1".into())),
                    ..Default::default()
                },
            ),
        ] {
            modify_qos(&mut s, qos, set);
        }
        acct(
            &mut s,
            0,
            AcctRequest::ModifyUsers {
                names: names(&["alice"]),
                accounts: Vec::new(),
                default_account: None,
                admin: None,
                set: AssocSet {
                    qos: Some(ListEdit::Add(names(&["other"]))),
                    ..Default::default()
                },
            },
        )
        .unwrap();
        let submit = |s: &mut Scenario, qos: &str| {
            let mut spec = job(1, 100, 0, Some(5));
            spec.qos = Some(qos.into());
            s.submit(spec).unwrap()
        };
        let (a, b) = (submit(&mut s, "high"), submit(&mut s, "high"));
        s.pass().unwrap();
        let job = |s: &Scenario, id: u32| (s.state.jobs[&id].state, s.state.jobs[&id].reason);
        assert_eq!(job(&s, a).0, JobBaseState::Running);
        assert_eq!(job(&s, b), (JobBaseState::Pending, JobReason::QosGrpCpu));
        s.finish(a).unwrap();
        s.pass().unwrap();
        assert_eq!(job(&s, b).0, JobBaseState::Running);
        s.finish(b).unwrap();
        let (c, d) = (submit(&mut s, "other"), submit(&mut s, "other"));
        s.pass().unwrap();
        assert_eq!(job(&s, c).0, JobBaseState::Running);
        assert_eq!(
            job(&s, d),
            (JobBaseState::Pending, JobReason::QosMaxCpuPerUser)
        );
    }
}
