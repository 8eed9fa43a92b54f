//! Partition access (`RootOnly`, `DisableRootJobs`, `AllowGroups`) and `PrivateData=jobs`, checked where the caller's identity and
//! the system's group database are at hand; the decisions themselves are `spur_core::auth::rules`.

use nix::unistd::{Group, Uid, User};

use spur_core::auth::rules::{self, PartitionRefusal};
use spur_core::model::records::PartitionRecord;
use spur_core::wire::api::{ApiError, SlurmErrno};

/// Whether `uid` belongs to one of `groups` (by name), by its primary group or as a listed member. Looked up at
/// every check, so group changes apply without a reconfigure.
pub fn in_any_group(uid: u32, groups: &[&str]) -> bool {
    let Ok(Some(user)) = User::from_uid(Uid::from_raw(uid)) else {
        return false;
    };
    groups.iter().any(|name| match Group::from_name(name) {
        Ok(Some(group)) => rules::is_member(
            &user.name,
            user.gid.as_raw(),
            group.gid.as_raw(),
            &group.mem,
        ),
        _ => false,
    })
}

/// The partition's verdict on a job submitted by `submit_uid` to run as `job_uid`.
pub fn check_partition(
    part: &PartitionRecord,
    submit_uid: u32,
    job_uid: u32,
    slurm_user_uid: u32,
) -> Result<(), PartitionRefusal> {
    rules::partition_access(
        part.root_only,
        part.disable_root_jobs,
        part.allow_groups.as_deref(),
        submit_uid,
        job_uid,
        slurm_user_uid,
        |groups| in_any_group(job_uid, groups),
    )
}

/// What sbatch, srun and salloc report for a refusal at submission.
pub fn submit_error(refusal: PartitionRefusal) -> ApiError {
    ApiError::new(match refusal {
        PartitionRefusal::RootOnly => SlurmErrno::AccessDenied,
        PartitionRefusal::RootJobs => SlurmErrno::UserIdMissing,
        PartitionRefusal::Group => SlurmErrno::PartitionGroup,
    })
}

/// Resolves a reservation's `Users=` to uids through the user database, before the request is committed (the state
/// machine cannot read it); an unknown name is Slurm's `Invalid user id`.
pub fn resolve_reservation_users(
    request: &mut spur_core::model::reservation::ReservationRequest,
) -> Result<(), ApiError> {
    let Some(users) = &request.users else {
        return Ok(());
    };
    let mut ids = Vec::with_capacity(users.len());
    for name in users {
        match User::from_name(name) {
            Ok(Some(user)) => ids.push(user.uid.as_raw()),
            _ => return Err(ApiError::new(SlurmErrno::UserIdMissing)),
        }
    }
    request.user_ids = ids;
    Ok(())
}
