//! Batch launches that run beside the session loop. Starting a supervisor takes milliseconds (a process, its
//! detach, the job directory); handled inline, every launch held up the results of other jobs that ended
//! meanwhile and the launches behind it. Messages about one job still take effect in the order the controller
//! sent them: any later message for a job waits until that job's launch is done.

use std::collections::HashMap;

use tokio::task::JoinHandle;

use crate::error::SessionError;

#[derive(Default)]
pub struct InFlightLaunches {
    launches: HashMap<u32, JoinHandle<Result<(), SessionError>>>,
}

impl InFlightLaunches {
    /// Runs `launch` in the background as job `job_id`'s launch.
    pub fn start<F>(&mut self, job_id: u32, launch: F)
    where
        F: std::future::Future<Output = Result<(), SessionError>> + Send + 'static,
    {
        self.launches.insert(job_id, tokio::spawn(launch));
    }

    /// Waits for job `job_id`'s launch, if one is under way.
    pub async fn settle(&mut self, job_id: u32) -> Result<(), SessionError> {
        match self.launches.remove(&job_id) {
            Some(launch) => launch.await?,
            None => Ok(()),
        }
    }

    /// Forgets launches that are done, passing on the first failure.
    pub async fn reap(&mut self) -> Result<(), SessionError> {
        let done: Vec<u32> = self
            .launches
            .iter()
            .filter(|(_, launch)| launch.is_finished())
            .map(|(&id, _)| id)
            .collect();
        for job_id in done {
            self.settle(job_id).await?;
        }
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.launches.len()
    }

    pub fn is_empty(&self) -> bool {
        self.launches.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    #[tokio::test]
    async fn a_job_waits_for_its_own_launch_only() {
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut in_flight = InFlightLaunches::default();
        let log = order.clone();
        in_flight.start(7, async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            log.lock().unwrap().push("launched 7");
            Ok(())
        });
        // Another job's message goes ahead without waiting.
        in_flight.settle(8).await.unwrap();
        order.lock().unwrap().push("message for 8");
        // A message for job 7 takes effect after its launch.
        in_flight.settle(7).await.unwrap();
        order.lock().unwrap().push("message for 7");
        assert_eq!(
            *order.lock().unwrap(),
            vec!["message for 8", "launched 7", "message for 7"]
        );
        assert!(in_flight.is_empty());
    }

    #[tokio::test]
    async fn finished_launches_are_reaped_and_failures_passed_on() {
        let mut in_flight = InFlightLaunches::default();
        in_flight.start(1, async { Ok(()) });
        in_flight.start(2, async { Err(SessionError::OutboxClosed) });
        in_flight.start(3, std::future::pending());
        tokio::time::sleep(Duration::from_millis(20)).await;
        let reaped = in_flight.reap().await;
        assert!(reaped.is_err());
        in_flight.reap().await.unwrap();
        assert_eq!(in_flight.len(), 1, "the pending launch stays");
    }
}
