//! `GET /jobs`, `GET /job/{id}`, `DELETE /job/{id}[?signal=SIG]`: the records squeue and `scontrol show job` read,
//! in v0.0.38's job layout, and scancel's requests.

use spur_core::api::{ControlRequest, JobListing, JobSelector, SignalScope};
use spur_core::format::json::Json;
use spur_core::format::json_jobs;

use super::auth::Caller;
use super::reply::{entry, error_entry, failed_listing, Reply};
use crate::client::ClientError;
use crate::config;

const SIGKILL: i32 = 9;

pub fn list(caller: &Caller) -> Reply {
    listing(caller, JobListing::default(), None)
}

pub fn one(caller: &Caller, id: &str) -> Reply {
    let Some(selector) = selector(id) else {
        return failed_listing("jobs", bad_id(id, "slurm_load_job"));
    };
    listing(
        caller,
        JobListing::job(selector.job_id),
        Some((id, selector)),
    )
}

fn listing(caller: &Caller, listing: JobListing, wanted: Option<(&str, JobSelector)>) -> Reply {
    let source = if wanted.is_some() {
        "slurm_load_job"
    } else {
        "slurm_load_jobs"
    };
    let result = caller.client().and_then(|c| c.job_list(listing));
    let list = match result {
        Ok(list) => list,
        Err(e) => return failed_listing("jobs", error_entry(&e, "unable to load jobs", source)),
    };
    let jobs: Vec<_> = list
        .jobs
        .into_iter()
        .filter(|j| {
            wanted.as_ref().is_none_or(|(_, s)| {
                s.array_task
                    .is_none_or(|task| j.array_task_id == Some(task))
            })
        })
        .collect();
    if let Some((id, _)) = wanted.filter(|_| jobs.is_empty()) {
        let missing = ClientError::Api(spur_core::api::ApiError::new(
            spur_core::api::SlurmErrno::InvalidJobId,
        ));
        return failed_listing(
            "jobs",
            error_entry(&missing, &format!("Unable to find JobId={id}"), source),
        );
    }
    let ctx = config::format_context(
        list.now,
        jobs.iter().map(|j| (j.spec.user_id, j.spec.group_id)),
    );
    Reply::document(
        Vec::new(),
        vec![("jobs", Json::Arr(json_jobs::jobs(&jobs, &ctx)))],
    )
}

/// `DELETE /job/{id}`: SIGKILL (the default) cancels the job as scancel does; another signal is sent to every
/// process of the job.
pub fn cancel(caller: &Caller, id: &str, signal: Option<&str>) -> Reply {
    let Some(job) = selector(id) else {
        return Reply::document(vec![bad_id(id, "slurm_kill_job")], Vec::new());
    };
    let signal = match signal {
        None => SIGKILL,
        Some(text) => match spur_core::values::signal::sig_name2num(text) {
            Some(number) => number,
            None => {
                return Reply::document(
                    vec![entry(
                        &format!("Unable to parse signal: {text}"),
                        -1,
                        "Unspecified error",
                        "slurm_kill_job",
                    )],
                    Vec::new(),
                )
            }
        },
    };
    let request = if signal == SIGKILL {
        ControlRequest::Cancel { job }
    } else {
        ControlRequest::Signal {
            job,
            signal,
            scope: SignalScope::All,
        }
    };
    match caller.client().and_then(|c| c.control(&request)) {
        Ok(_) => Reply::document(Vec::new(), Vec::new()),
        Err(e) => Reply::document(
            vec![error_entry(
                &e,
                &format!("unable to kill job {id}"),
                "slurm_kill_job",
            )],
            Vec::new(),
        ),
    }
}

/// `12` or `12_3` (one task of array 12).
fn selector(id: &str) -> Option<JobSelector> {
    let (job, task) = match id.split_once('_') {
        Some((job, task)) => (job, Some(task.parse().ok()?)),
        None => (id, None),
    };
    Some(JobSelector {
        job_id: job.parse().ok().filter(|&n| n > 0)?,
        array_task: task,
    })
}

fn bad_id(id: &str, source: &str) -> Json {
    let code = spur_core::api::SlurmErrno::InvalidJobId;
    entry(
        &format!("Unable to parse JobId={id}"),
        code.code().into(),
        code.text(),
        source,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_ids() {
        assert_eq!(
            selector("12"),
            Some(JobSelector {
                job_id: 12,
                array_task: None
            })
        );
        assert_eq!(
            selector("12_3"),
            Some(JobSelector {
                job_id: 12,
                array_task: Some(3)
            })
        );
        assert_eq!(selector("x"), None);
        assert_eq!(selector("0"), None);
        assert_eq!(selector("12_x"), None);
    }
}
