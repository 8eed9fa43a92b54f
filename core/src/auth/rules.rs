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

#[cfg(test)]
mod tests {
    use super::*;

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
