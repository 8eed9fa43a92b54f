//! Step numbers for sruns inside one allocation, until the controller hands them out (the steps issue).
//!
//! Interim: a counter file per allocation in the temporary directory, taken under an exclusive lock, so sruns of
//! one salloc or batch job number their steps 0, 1, 2... The file's name includes the job's start time, so a job id
//! reused by a new cluster starts again at 0. salloc removes its file when it relinquishes the allocation.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

use spur_core::job::JobRecord;

/// The counter file of `job` for user `uid`.
pub fn counter_path(job: &JobRecord, uid: u32) -> PathBuf {
    let started = job.start_time.unwrap_or(0);
    std::env::temp_dir().join(format!("spur-steps-{uid}-{}-{started}", job.job_id))
}

/// Takes the next step id of the allocation; 0 when the counter cannot be used.
pub fn next_step_id(job: &JobRecord, uid: u32) -> u32 {
    take(&counter_path(job, uid)).unwrap_or(0)
}

fn take(path: &PathBuf) -> std::io::Result<u32> {
    use std::os::unix::fs::OpenOptionsExt;
    // A shared temporary directory: never follow a link someone else planted under our name.
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?;
    file.lock()?;
    let mut text = String::new();
    file.read_to_string(&mut text)?;
    let id: u32 = text.trim().parse().unwrap_or(0);
    file.seek(SeekFrom::Start(0))?;
    file.set_len(0)?;
    write!(file, "{}", id.saturating_add(1))?;
    file.unlock()?;
    Ok(id)
}

/// Forgets the allocation's counter (salloc, when it gives the allocation back).
pub fn remove_counter(job: &JobRecord, uid: u32) {
    let _ = std::fs::remove_file(counter_path(job, uid));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_count_up_per_allocation() {
        let dir = std::env::temp_dir().join(format!("spur-step-test-{}", std::process::id()));
        let path = dir.with_extension("counter");
        let _ = std::fs::remove_file(&path);
        assert_eq!(take(&path).unwrap(), 0);
        assert_eq!(take(&path).unwrap(), 1);
        assert_eq!(take(&path).unwrap(), 2);
        std::fs::remove_file(&path).unwrap();
    }
}
