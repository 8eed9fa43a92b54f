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
        if spec.account.is_none() {
            spec.account = Some(account);
        }
        if spec.qos.is_none() {
            spec.qos = Some(qos);
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
