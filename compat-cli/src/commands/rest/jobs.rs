//! `GET /jobs`, `GET /job/{id}`, `DELETE /job/{id}[?signal=SIG]`: the records squeue and `scontrol show job` read,
//! in v0.0.38's job layout, and scancel's requests.

use spur_core::format::json::Json;
use spur_core::format::json_jobs;
use spur_core::wire::api::{ControlRequest, JobListing, JobSelector, SignalScope};

use super::auth::Caller;
use spur_core::wire::api::SlurmErrno;

use super::reply::{api_error, entry, errno_of, error_entry, failed_listing, Reply};
use crate::client::ClientError;
use crate::config;

const SIGKILL: i32 = 9;

pub fn list(caller: &Caller) -> Reply {
    listing(caller, JobListing::default(), None)
}

pub fn one(caller: &Caller, id: &str) -> Reply {
    let Some(selector) = selector(id) else {
        // slurmrestd's answer to a job id that is not a number.
        return Reply::with_status(
            400,
            vec![entry(
                &format!("Unable to find JobId={id}"),
                9002,
                "Jobs description entry not found, empty or not dictionary or list",
                "_handle_job_get",
            )],
            Vec::new(),
        );
    };
    listing(
        caller,
        JobListing::job(selector.job_id),
        Some((id, selector)),
    )
}

fn listing(caller: &Caller, listing: JobListing, wanted: Option<(&str, JobSelector)>) -> Reply {
    let (source, description) = match &wanted {
        Some((id, _)) => ("slurm_load_job", format!("Unable to find JobId={id}")),
        None => (
            "slurm_load_jobs",
            "Failed while looking for jobs".to_string(),
        ),
    };
    let result = caller.client().and_then(|c| c.job_list(listing));
    let list = match result {
        Ok(list) => list,
        Err(e) => return failed_listing("jobs", error_entry(&e, &description, source)),
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
    if wanted.is_some() && jobs.is_empty() {
        let missing = api_error(SlurmErrno::InvalidJobId);
        return failed_listing("jobs", error_entry(&missing, &description, source));
    }
    let ctx = config::format_context(
        list.now,
        jobs.iter().map(|j| (j.spec.user_id, j.spec.group_id)),
    );
    let ctx = match caller.client() {
        Ok(client) => crate::commands::squeue::with_node_gres(&client, &jobs, ctx),
        Err(_) => ctx,
    };
    Reply::document(
        Vec::new(),
        vec![("jobs", Json::Arr(json_jobs::jobs(&jobs, &ctx)))],
    )
}

/// `DELETE /job/{id}`: SIGKILL (the default) cancels the job as scancel does; another signal is sent to every
/// process of the job. A job that already ended counts as done, as slurmrestd counts it.
pub fn cancel(caller: &Caller, id: &str, signal: Option<&str>) -> Reply {
    let signal = match signal {
        None => SIGKILL,
        Some(text) => match spur_core::grammar::values::signal::sig_name2num(text) {
            Some(number) if number > 0 => number,
            _ => {
                return Reply::with_status(
                    400,
                    vec![entry(
                        "invalid signal: 0",
                        9000,
                        "Query empty or not RFC7320 compliant",
                        "HTTP request: signal",
                    )],
                    Vec::new(),
                )
            }
        },
    };
    let failed = |error: &ClientError| {
        let (_, text) = errno_of(error);
        Reply::document(
            vec![error_entry(
                error,
                &format!("unable to kill JobId={id} with signal {signal}: {text}"),
                "slurm_kill_job",
            )],
            Vec::new(),
        )
    };
    let Some(job) = selector(id) else {
        return failed(&api_error(SlurmErrno::InvalidJobId));
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
        Err(ClientError::Api(e)) if e.errno == SlurmErrno::AlreadyDone => {
            Reply::document(Vec::new(), Vec::new())
        }
        Err(e) => failed(&e),
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
