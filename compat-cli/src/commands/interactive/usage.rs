//! What a step's tasks used (`jobacct_gather`), as srun collects it for the step's end: each node's supervisor
//! sends its report ([`Kind::Usage`](spur_core::wire::step_io::Kind::Usage)) before it closes the connection, and
//! srun measures the tasks it runs itself ([`spur_stepd::step_gather`]). srun merges the nodes' reports into the
//! step's record ([`StepAcct::merge`]) and sends it with `CompleteStep`.

use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use spur_core::model::step_acct::{NodeAcct, StepAcct};

/// How long srun waits, once every task has ended, for the nodes' reports still on their way.
const REPORT_WAIT: Duration = Duration::from_secs(5);

/// The reports of the step's nodes, by node index, and the nodes whose connection closed.
#[derive(Default)]
struct Reports {
    nodes: Vec<(usize, NodeAcct)>,
    closed: Vec<usize>,
}

static REPORTS: Mutex<Reports> = Mutex::new(Reports {
    nodes: Vec::new(),
    closed: Vec::new(),
});
static CHANGED: Condvar = Condvar::new();

/// Node `node` (named `node_name` in the step) reported what its tasks used. A report that cannot be read, or a
/// second one from the same node, is ignored; the node's name is srun's, whatever the report says.
pub fn record(node: usize, node_name: &str, data: &[u8]) {
    let Ok(mut report) = serde_json::from_slice::<NodeAcct>(data) else {
        return;
    };
    report.usage.node = node_name.to_string();
    if let Ok(mut reports) = REPORTS.lock() {
        if reports.nodes.iter().all(|(n, _)| *n != node) {
            reports.nodes.push((node, report));
        }
        CHANGED.notify_all();
    }
}

/// Node `node`'s connection closed: no report comes from it any more.
pub fn closed(node: usize) {
    if let Ok(mut reports) = REPORTS.lock() {
        reports.closed.push(node);
        CHANGED.notify_all();
    }
}

/// The step's record from the reports of its `node_count` nodes, waiting a little for those still on their way;
/// `None` when no node reported (nothing is gathered, or supervisors that predate it).
pub fn step_record(node_count: usize) -> Option<StepAcct> {
    let deadline = Instant::now() + REPORT_WAIT;
    let mut reports = REPORTS.lock().ok()?;
    loop {
        let heard = (0..node_count).all(|node| {
            reports.closed.contains(&node) || reports.nodes.iter().any(|(n, _)| *n == node)
        });
        let left = deadline.saturating_duration_since(Instant::now());
        if heard || left.is_zero() {
            break;
        }
        reports = CHANGED.wait_timeout(reports, left).ok()?.0;
    }
    if reports.nodes.is_empty() {
        return None;
    }
    let mut nodes = std::mem::take(&mut reports.nodes);
    nodes.sort_by_key(|(node, _)| *node);
    let nodes: Vec<NodeAcct> = nodes.into_iter().map(|(_, report)| report).collect();
    Some(StepAcct::merge(&nodes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_core::model::step_usage::{NodeUsage, TaskUsage};

    fn report(node: &str, tasks: &[(u32, u64)], user: u64) -> Vec<u8> {
        serde_json::to_vec(&NodeAcct {
            usage: NodeUsage {
                node: node.to_string(),
                pids: Vec::new(),
                tasks: tasks
                    .iter()
                    .map(|&(task, rss_kib)| TaskUsage {
                        task,
                        rss_kib,
                        ..TaskUsage::default()
                    })
                    .collect(),
            },
            user_cpu_us: user,
            sys_cpu_us: 1,
            reaped_max_rss_kib: 0,
        })
        .unwrap()
    }

    #[test]
    fn the_nodes_reports_merge_into_the_step_record_under_sruns_names() {
        record(1, "n2", &report("forged", &[(2, 900)], 20));
        record(0, "n1", &report("n1", &[(0, 100), (1, 300)], 10));
        // A second report from a node and one that is not a report change nothing.
        record(0, "n1", &report("n1", &[(0, 99_999)], 99_999));
        record(1, "n2", b"not json");
        closed(1);
        let step = step_record(2).expect("reports");
        let rss = &step.totals.rss_kib;
        assert_eq!(step.totals.tasks, 3);
        assert_eq!(
            (rss.max.value, rss.max.node.as_str(), rss.max.task),
            (900, "n2", 2)
        );
        assert_eq!(
            (rss.min.value, rss.min.node.as_str(), rss.min.task),
            (100, "n1", 0)
        );
        assert_eq!(rss.average(step.totals.tasks), 433);
        assert_eq!((step.user_cpu_us, step.sys_cpu_us), (30, 2));
    }
}
