//! Who may do what, as Slurm decides it: root and SlurmUser may do everything; a node agent must be one of them;
//! tokens for other users are for them only.

/// Root or the SlurmUser. (Per-job ownership checks live with the jobs in the controller's state machine.)
pub fn is_privileged(uid: u32, slurm_user_uid: u32) -> bool {
    uid == 0 || uid == slurm_user_uid
}

/// Whether `uid` may register a node and report job results: root, the SlurmUser, or the user the controller
/// itself runs as (a cluster run by one unprivileged user, like the quick start, where that user is SlurmUser
/// in all but name).
pub fn may_act_as_agent(uid: u32, slurm_user_uid: u32, controller_uid: u32) -> bool {
    is_privileged(uid, slurm_user_uid) || uid == controller_uid
}

/// Whether `caller` may get a token for `target` (a user name): anyone for themself, only root and SlurmUser for
/// others. Slurm answers anything else with `Invalid user id`.
pub fn may_issue_token(
    caller_uid: u32,
    caller_name: Option<&str>,
    target: Option<&str>,
    slurm_user_uid: u32,
) -> bool {
    match target {
        None => true,
        Some(name) => is_privileged(caller_uid, slurm_user_uid) || caller_name == Some(name),
    }
}

/// Why a partition refuses a job, as slurmctld checks it when the job is submitted or moved there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartitionRefusal {
    /// `RootOnly=YES` and the caller is neither root nor SlurmUser (`Access/permission denied`).
    RootOnly,
    /// `DisableRootJobs=YES` and the job would run as root (`Invalid user id`).
    RootJobs,
    /// `AllowGroups=` names no group of the job's user (`User's group not permitted to use this partition`).
    Group,
}

/// Whether a partition takes a job submitted by `submit_uid` to run as `job_uid`. `in_allowed_group` answers
/// whether the job's user belongs (primary or supplementary) to one of `AllowGroups`; it is asked only when the
/// partition restricts groups, so the caller can look membership up in the system lazily. Root and SlurmUser
/// bypass RootOnly (by who submits) and the group check (by whom the job runs as), as slurmctld does;
/// `DisableRootJobs` refuses only jobs that would run as root.
pub fn partition_access(
    root_only: bool,
    disable_root_jobs: bool,
    allow_groups: Option<&str>,
    submit_uid: u32,
    job_uid: u32,
    slurm_user_uid: u32,
    in_allowed_group: impl FnOnce(&[&str]) -> bool,
) -> Result<(), PartitionRefusal> {
    if root_only && !is_privileged(submit_uid, slurm_user_uid) {
        return Err(PartitionRefusal::RootOnly);
    }
    if disable_root_jobs && job_uid == 0 {
        return Err(PartitionRefusal::RootJobs);
    }
    let groups: Vec<&str> = match allow_groups {
        None => return Ok(()),
        Some(list) => list
            .split(',')
            .map(str::trim)
            .filter(|g| !g.is_empty())
            .collect(),
    };
    if groups.iter().any(|g| g.eq_ignore_ascii_case("all"))
        || is_privileged(job_uid, slurm_user_uid)
    {
        return Ok(());
    }
    if in_allowed_group(&groups) {
        Ok(())
    } else {
        Err(PartitionRefusal::Group)
    }
}

/// Whether a user (by name and primary gid) belongs to a group (by gid and its listed members).
pub fn is_member(user_name: &str, primary_gid: u32, group_gid: u32, members: &[String]) -> bool {
    primary_gid == group_gid || members.iter().any(|m| m == user_name)
}

/// `PrivateData=jobs`: whether `caller_uid` may see a job of `owner_uid`. Users see their own jobs; root and
/// SlurmUser see all.
pub fn may_see_job(
    private_jobs: bool,
    caller_uid: u32,
    owner_uid: u32,
    slurm_user_uid: u32,
) -> bool {
    !private_jobs || caller_uid == owner_uid || is_privileged(caller_uid, slurm_user_uid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_only_partitions_take_only_privileged_submitters() {
        let refuse =
            |submit, job| partition_access(true, false, None, submit, job, 64030, |_| true);
        assert_eq!(refuse(1000, 1000), Err(PartitionRefusal::RootOnly));
        assert_eq!(refuse(0, 1000), Ok(()));
        assert_eq!(refuse(64030, 1000), Ok(()));
    }

    #[test]
    fn allow_groups_asks_membership_of_the_listed_groups() {
        let mut asked = Vec::new();
        let r = partition_access(false, false, Some("gpu, ml"), 1000, 1000, 64030, |g| {
            asked = g.iter().map(|s| s.to_string()).collect();
            false
        });
        assert_eq!(r, Err(PartitionRefusal::Group));
        assert_eq!(asked, ["gpu", "ml"]);
        assert_eq!(
            partition_access(false, false, Some("gpu"), 1000, 1000, 0, |_| true),
            Ok(())
        );
    }

    #[test]
    fn privileged_job_users_and_open_partitions_skip_the_group_lookup() {
        let never = |_: &[&str]| -> bool { panic!("membership looked up") };
        assert_eq!(
            partition_access(false, false, None, 1000, 1000, 64030, never),
            Ok(())
        );
        assert_eq!(
            partition_access(false, false, Some("ALL"), 1000, 1000, 64030, never),
            Ok(())
        );
        assert_eq!(
            partition_access(false, false, Some("gpu"), 1000, 0, 64030, never),
            Ok(())
        );
        assert_eq!(
            partition_access(false, false, Some("gpu"), 0, 64030, 64030, never),
            Ok(())
        );
    }

    #[test]
    fn disable_root_jobs_refuses_only_jobs_of_root() {
        let check = |job| partition_access(false, true, None, 0, job, 64030, |_| true);
        assert_eq!(check(0), Err(PartitionRefusal::RootJobs));
        assert_eq!(check(64030), Ok(()));
        assert_eq!(check(1000), Ok(()));
        assert_eq!(
            partition_access(true, true, None, 1000, 0, 64030, |_| true),
            Err(PartitionRefusal::RootOnly),
            "RootOnly is checked first"
        );
    }

    #[test]
    fn membership_is_primary_or_listed() {
        let members = vec!["bob".to_string()];
        assert!(is_member("alice", 1006, 1006, &[]));
        assert!(is_member("bob", 1007, 1006, &members));
        assert!(!is_member("carol", 1008, 1006, &members));
    }

    #[test]
    fn private_jobs_hide_other_users_jobs_from_unprivileged_callers() {
        assert!(may_see_job(false, 1000, 1001, 64030));
        assert!(may_see_job(true, 1000, 1000, 64030));
        assert!(!may_see_job(true, 1000, 1001, 64030));
        assert!(may_see_job(true, 0, 1001, 64030));
        assert!(may_see_job(true, 64030, 1001, 64030));
    }

    #[test]
    fn root_and_slurm_user_are_privileged() {
        assert!(is_privileged(0, 64030));
        assert!(is_privileged(64030, 64030));
        assert!(!is_privileged(1000, 64030));
        assert!(may_act_as_agent(1000, 0, 1000));
        assert!(!may_act_as_agent(1001, 0, 1000));
    }

    #[test]
    fn tokens_for_others_need_privilege() {
        assert!(may_issue_token(1000, Some("alice"), None, 0));
        assert!(may_issue_token(1000, Some("alice"), Some("alice"), 0));
        assert!(!may_issue_token(1000, Some("alice"), Some("root"), 0));
        assert!(may_issue_token(0, Some("root"), Some("alice"), 0));
    }
}
