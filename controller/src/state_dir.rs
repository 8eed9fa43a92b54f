//! The state directory (StateSaveLocation) holds the Raft log and snapshots: every job's script and environment,
//! of every user. As slurmctld writes its state files 0600, spurctld keeps the directory to its own user: created
//! 0700, and tightened to 0700 when an existing one is open to group or others.

use std::io;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::Path;

/// Mode bits that would let anyone but the owner list or enter the directory.
const OPEN_BITS: u32 = 0o077;

/// What [`make_private`] did, for the log.
#[derive(Debug, PartialEq, Eq)]
pub enum Privacy {
    /// The directory was made here, 0700.
    Created,
    /// It was owner-only already.
    Unchanged,
    /// It was open to group or others (the old mode) and is 0700 now.
    Tightened(u32),
}

/// Creates `dir` (and its parents) 0700, or makes an existing `dir` 0700 where group or others have any bit.
/// Fails when the directory can neither be created nor tightened (e.g. it belongs to another user).
pub fn make_private(dir: &Path) -> io::Result<Privacy> {
    match std::fs::metadata(dir) {
        Ok(meta) => {
            let mode = meta.permissions().mode() & 0o7777;
            if mode & OPEN_BITS == 0 {
                return Ok(Privacy::Unchanged);
            }
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
            Ok(Privacy::Tightened(mode))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)?;
            // Parents made on the way keep the umask's mode; only the state directory itself holds secrets.
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
            Ok(Privacy::Created)
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn a_new_directory_is_owner_only() {
        let top = tempfile::tempdir().unwrap();
        let dir = top.path().join("a/state");
        assert_eq!(make_private(&dir).unwrap(), Privacy::Created);
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(make_private(&dir).unwrap(), Privacy::Unchanged);
    }

    #[test]
    fn an_open_directory_is_tightened_and_a_private_one_left_alone() {
        let top = tempfile::tempdir().unwrap();
        let dir = top.path().join("state");
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(make_private(&dir).unwrap(), Privacy::Tightened(0o755));
        assert_eq!(mode(&dir), 0o700);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o500)).unwrap();
        assert_eq!(make_private(&dir).unwrap(), Privacy::Unchanged);
        assert_eq!(mode(&dir), 0o500);
    }
}
