//! The accounting entities in the state machine (`sacctmgr`): applying changes from the log, and the rules jobs
//! meet at submission (`--qos`, `--account` and the defaults of the user's association, docs/accounting.md).

use spur_core::api::{ApiError, SlurmErrno};
use spur_core::assoc::{AcctDb, AcctRequest, DEFAULT_QOS};
use spur_core::job::JobSpec;

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
            self.check_submit_limit(spec, &qos)?;
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
    /// `MaxSubmitJobsPerUser`: the user's pending and running jobs of the QOS, this one included.
    fn check_submit_limit(&self, spec: &JobSpec, qos: &str) -> Result<(), ApiError> {
        let Some(max) = self
            .acct
            .qos(qos)
            .and_then(|q| q.limits.max_submit_jobs_per_user)
        else {
            return Ok(());
        };
        let live = self
            .jobs
            .values()
            .filter(|j| j.spec.user_id == spec.user_id && !j.state.is_finished())
            .filter(|j| j.spec.qos.as_deref().unwrap_or(DEFAULT_QOS) == qos)
            .count();
        if live >= max as usize {
            // slurmctld names the limit in the message sbatch prints before the error.
            return Err(ApiError::with_detail(
                SlurmErrno::AccountingPolicy,
                spur_core::states::JobReason::QosMaxSubJob.name(),
            ));
        }
        Ok(())
    }
}

/// The association's default QOS, else its only QOS, else `normal` (slurmctld's order).
fn default_qos(assoc: &spur_core::assoc::Association) -> String {
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
    use spur_core::api::{ApiError, ControlRequest, SlurmErrno};
    use spur_core::assoc::{AcctRequest, AssocSet, ListEdit, QosSet};

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
        let weights = spur_core::priority::PriorityWeights {
            qos: 1000,
            ..spur_core::priority::PriorityWeights::from_conf(
                &spur_core::conf::SlurmConf::parse_str(
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
        let rows = crate::scheduler::priority::factor_rows(&s.state, &weights, s.now);
        let qos_of = |id: u32| rows.iter().find(|r| r.job_id == id).map(|r| r.qos);
        assert_eq!(qos_of(high), Some(500.0));
        assert_eq!(qos_of(plain), Some(0.0));
    }

    #[test]
    fn qos_limits_hold_jobs_back_and_refuse_submissions() {
        use spur_core::states::{JobBaseState, JobReason};
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
    fn group_jobs_tres_per_job_and_association_max_jobs_hold_jobs_back() {
        use spur_core::states::{JobBaseState, JobReason};
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
        acct(
            &mut s,
            0,
            AcctRequest::ModifyUsers {
                names: names(&["alice"]),
                accounts: Vec::new(),
                default_account: None,
                admin: None,
                set: AssocSet {
                    max_jobs: Some(Some(1)),
                    ..Default::default()
                },
            },
        )
        .unwrap();
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
        use spur_core::states::{JobBaseState, JobReason};
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
