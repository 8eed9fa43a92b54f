//! The node ledgers: the CPUs, memory and GRES a job's allocation holds are booked when it starts and released
//! when it ends, loses a node or is requeued, together with the job that holds them. Only preemption by
//! suspension (`state/preempt.rs`) touches them elsewhere: it lends a suspended job's CPUs and takes them back.

use spur_core::model::job::{Allocation, EpochSecs};

use crate::state::ClusterState;

impl ClusterState {
    pub(super) fn book(&mut self, alloc: &Allocation) {
        for (at, name) in alloc.node_names.iter().enumerate() {
            if let Some(node) = self.nodes.get_mut(name) {
                node.book_cpus(alloc);
                node.alloc_mem_mb += alloc.mem_mb;
                for (gres, idx) in alloc.units_on(at).0 {
                    node.alloc_gres.entry(gres.clone()).or_default().extend(idx);
                }
            }
        }
        for name in &alloc.node_names {
            self.refresh_node_state(name);
        }
    }

    pub(in crate::state) fn release(&mut self, alloc: &Allocation, now: EpochSecs) {
        for (at, name) in alloc.node_names.iter().enumerate() {
            if let Some(node) = self.nodes.get_mut(name) {
                node.release_cpus(alloc);
                node.alloc_mem_mb = node.alloc_mem_mb.saturating_sub(alloc.mem_mb);
                for (gres, idx) in alloc.units_on(at).0 {
                    if let Some(used) = node.alloc_gres.get_mut(gres) {
                        used.retain(|i| !idx.contains(i));
                        if used.is_empty() {
                            node.alloc_gres.remove(gres);
                        }
                    }
                }
                node.last_busy_time = Some(now);
            }
        }
        for name in &alloc.node_names {
            self.refresh_node_state(name);
        }
    }
}
