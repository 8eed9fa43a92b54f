//! The job user's account facts the supervisor needs: name, home, shell, supplementary groups.

#[derive(Debug, Clone, PartialEq)]
pub struct UserInfo {
    pub uid: u32,
    pub gid: u32,
    pub name: String,
    pub home: String,
    pub shell: String,
    pub supplementary_gids: Vec<u32>,
}

#[derive(Debug, thiserror::Error)]
pub enum UserError {
    #[error("Invalid user id {0}")]
    Unknown(u32),
    #[error("cannot look up user {uid}: {source}")]
    Lookup { uid: u32, source: nix::Error },
}

pub fn lookup(uid: u32, gid: u32) -> Result<UserInfo, UserError> {
    let user = nix::unistd::User::from_uid(uid.into())
        .map_err(|source| UserError::Lookup { uid, source })?
        .ok_or(UserError::Unknown(uid))?;
    let name_c = std::ffi::CString::new(user.name.clone()).map_err(|_| UserError::Unknown(uid))?;
    let groups = nix::unistd::getgrouplist(&name_c, gid.into())
        .map_err(|source| UserError::Lookup { uid, source })?;
    Ok(UserInfo {
        uid,
        gid,
        name: user.name,
        home: user.dir.to_string_lossy().into_owned(),
        shell: user.shell.to_string_lossy().into_owned(),
        supplementary_gids: groups.into_iter().map(|g| g.as_raw()).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looks_up_root_and_rejects_unknown() {
        let root = lookup(0, 0).unwrap();
        assert_eq!(root.name, "root");
        assert!(root.supplementary_gids.contains(&0));
        assert!(matches!(
            lookup(4_000_000_000, 0),
            Err(UserError::Unknown(_))
        ));
    }
}
