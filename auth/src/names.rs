//! User and group names of the ids in job records, each looked up once per process ([`spur_core::format::name_cache`]):
//! listing or printing every job of a big queue would otherwise read /etc/passwd and /etc/group per job. The
//! commands and the C shim both ask here.

use spur_core::format::name_cache::NameCache;

pub fn user_name(uid: u32) -> Option<String> {
    static NAMES: NameCache = NameCache::new();
    NAMES.get_or_insert(uid, || {
        nix::unistd::User::from_uid(uid.into())
            .ok()
            .flatten()
            .map(|u| u.name)
    })
}

pub fn group_name(gid: u32) -> Option<String> {
    static NAMES: NameCache = NameCache::new();
    NAMES.get_or_insert(gid, || {
        nix::unistd::Group::from_gid(gid.into())
            .ok()
            .flatten()
            .map(|g| g.name)
    })
}
