//! How a client spreads one call over several controllers (a Raft group): each in turn while they cannot be
//! reached, again after a short pause, until one answers or the deadline passes. With one controller a failure is
//! final at once, as in Slurm. The CLI and libspur_compat both call through here; what counts as "try the next
//! one" is theirs to say.

use std::future::Future;
use std::time::Duration;

/// With several controllers, how long a call keeps trying them all (a leader election takes well under a second).
pub const FAILOVER_DEADLINE: Duration = Duration::from_secs(10);
/// The pause between two rounds over all controllers.
pub const FAILOVER_PAUSE: Duration = Duration::from_millis(100);

/// The outcome of one attempt at one controller.
pub enum Attempt<T, E> {
    /// The call is over (answered, or failed in a way another controller would not change).
    Done(Result<T, E>),
    /// This controller could not take the call: try the next.
    Next(E),
}

/// Runs `attempt` on each of `urls` in turn, in rounds, as described above. `no_controller` is the error when
/// `urls` is empty.
pub async fn each_controller<'a, T, E, F, Fut>(
    urls: &'a [String],
    no_controller: E,
    mut attempt: F,
) -> Result<T, E>
where
    F: FnMut(&'a str) -> Fut,
    Fut: Future<Output = Attempt<T, E>>,
{
    let deadline = tokio::time::Instant::now() + FAILOVER_DEADLINE;
    loop {
        let mut last = None;
        for url in urls {
            match attempt(url).await {
                Attempt::Done(result) => return result,
                Attempt::Next(e) => last = Some(e),
            }
        }
        let Some(last) = last else {
            return Err(no_controller);
        };
        if urls.len() < 2 || tokio::time::Instant::now() >= deadline {
            return Err(last);
        }
        tokio::time::sleep(FAILOVER_PAUSE).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("http://c{i}")).collect()
    }

    #[tokio::test]
    async fn moves_on_until_one_answers() {
        let urls = urls(3);
        let mut tried = Vec::new();
        let result: Result<&str, String> = each_controller(&urls, "none".into(), |url| {
            tried.push(url.to_string());
            async move {
                if url.ends_with('2') {
                    Attempt::Done(Ok("answered"))
                } else {
                    Attempt::Next(format!("{url} down"))
                }
            }
        })
        .await;
        assert_eq!(result, Ok("answered"));
        assert_eq!(tried, urls);
    }

    #[tokio::test]
    async fn one_controller_fails_at_once_and_none_gives_the_given_error() {
        let mut calls = 0;
        let result: Result<(), String> = each_controller(&urls(1), "none".into(), |url| {
            calls += 1;
            async move { Attempt::Next(format!("{url} down")) }
        })
        .await;
        assert_eq!(result, Err("http://c0 down".to_string()));
        assert_eq!(calls, 1);
        let empty: Result<(), String> =
            each_controller(&[], "none".into(), |_| async { Attempt::Done(Ok(())) }).await;
        assert_eq!(empty, Err("none".to_string()));
    }

    #[tokio::test]
    async fn a_final_failure_is_not_retried_elsewhere() {
        let mut calls = 0;
        let result: Result<(), &str> = each_controller(&urls(3), "none", |_| {
            calls += 1;
            async { Attempt::Done(Err("refused")) }
        })
        .await;
        assert_eq!(result, Err("refused"));
        assert_eq!(calls, 1);
    }
}
