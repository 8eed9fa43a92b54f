//! A node's GRES units as bits, for the backfill profile: the fit test asks, for every node and every step of its
//! profile a job would run through, which units of a GRES are taken. Looking them up by name in a map of index
//! lists made that test most of a pass; with each GRES name given a fixed run of bits once per pass, a step's
//! units are a few machine words and a span of steps is their bitwise OR.
//!
//! Only units a placement can ask about are kept: the names some pending job requests (the others never decide
//! a fit, and a count-only GRES may have billions of units) and, of each name, the units the node offers (an
//! allocation's index beyond them, left from a node configured smaller, is never looked at either).

use std::ops::Range;

use spur_core::model::records::NodeRecord;

/// CPUs and memory taken on a node during one step of the profile.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Amounts {
    /// CPUs of jobs whose cores are their own.
    pub(crate) cpus: u32,
    pub(crate) mem_mb: u64,
    /// What jobs sharing cores book (`OverSubscribe=`), in share units.
    pub(crate) share_slots: u64,
}

impl Amounts {
    pub(crate) fn add(&mut self, alloc: &spur_core::model::job::Allocation) {
        if alloc.shares_cores() {
            self.share_slots += alloc.share_slots();
        } else {
            self.cpus += alloc.cpus;
        }
        self.mem_mb += alloc.mem_mb;
    }

    pub(crate) fn remove(&mut self, alloc: &spur_core::model::job::Allocation) {
        if alloc.shares_cores() {
            self.share_slots = self.share_slots.saturating_sub(alloc.share_slots());
        } else {
            self.cpus = self.cpus.saturating_sub(alloc.cpus);
        }
        self.mem_mb = self.mem_mb.saturating_sub(alloc.mem_mb);
    }
}

/// Where each requested GRES name's units of one node sit in that node's words.
#[derive(Debug)]
pub(crate) struct UnitLayout<'s> {
    slots: Vec<Slot<'s>>,
    words: usize,
}

#[derive(Debug)]
struct Slot<'s> {
    name: &'s str,
    first_word: usize,
    units: u32,
}

impl<'s> UnitLayout<'s> {
    /// The node's units of the `asked` GRES names, numbered as allocations number them: across the node's offers
    /// of a name, in configuration order.
    pub(crate) fn of(node: &'s NodeRecord, asked: &[&str]) -> Self {
        let mut slots: Vec<Slot<'s>> = Vec::new();
        let mut words = 0;
        for offer in &node.gres {
            let name = offer.name.as_str();
            if !asked.contains(&name) || slots.iter().any(|s| s.name == name) {
                continue;
            }
            let units = node
                .gres
                .iter()
                .filter(|g| g.name == name)
                .fold(0u32, |sum, g| {
                    sum.saturating_add(u32::try_from(g.count).unwrap_or(u32::MAX))
                });
            slots.push(Slot {
                name,
                first_word: words,
                units,
            });
            words += (units as usize).div_ceil(64);
        }
        UnitLayout { slots, words }
    }

    /// Words per step.
    pub(crate) fn words(&self) -> usize {
        self.words
    }

    fn slot(&self, name: &str) -> Option<&Slot<'s>> {
        self.slots.iter().find(|s| s.name == name)
    }

    /// Marks `units` of `name` taken (`true`) or free in one step's words.
    pub(crate) fn mark(&self, step: &mut [u64], name: &str, units: &[u32], taken: bool) {
        let Some(slot) = self.slot(name) else {
            return;
        };
        for &unit in units.iter().filter(|&&u| u < slot.units) {
            // The layout gave the slot its words, so a unit below `slot.units` has one; were it not, skip it.
            let Some(word) = step.get_mut(slot.first_word + unit as usize / 64) else {
                continue;
            };
            let bit = 1u64 << (unit % 64);
            if taken {
                *word |= bit;
            } else {
                *word &= !bit;
            }
        }
    }
}

/// What a run of consecutive profile steps takes on one node: the peak for CPUs and memory, and a unit is taken
/// if any step takes it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StepsUse<'a> {
    pub(crate) amounts: &'a [Amounts],
    /// `layout.words()` words per step, for the same steps as `amounts`.
    pub(crate) units: &'a [u64],
    pub(crate) layout: &'a UnitLayout<'a>,
}

impl StepsUse<'_> {
    pub(crate) fn cpus(&self) -> u32 {
        self.amounts.iter().map(|a| a.cpus).max().unwrap_or(0)
    }

    pub(crate) fn mem_mb(&self) -> u64 {
        self.amounts.iter().map(|a| a.mem_mb).max().unwrap_or(0)
    }

    pub(crate) fn share_slots(&self) -> u64 {
        self.amounts
            .iter()
            .map(|a| a.share_slots)
            .max()
            .unwrap_or(0)
    }

    /// How many of the units `range` of `name` no step takes. A name the layout does not hold was asked for by
    /// no pending job; it counts as having nothing free, so a placement can never book it twice.
    pub(crate) fn free_in(&self, name: &str, range: Range<u32>) -> u64 {
        let Some(slot) = self.layout.slot(name) else {
            return 0;
        };
        let range = range.start.min(slot.units)..range.end.min(slot.units);
        if range.is_empty() {
            return 0;
        }
        let words = self.layout.words;
        let (first, last) = (range.start / 64, (range.end - 1) / 64);
        let mut free = 0;
        for w in first..=last {
            let mut mask = u64::MAX;
            if w == first {
                mask &= u64::MAX << (range.start % 64);
            }
            if w == last && range.end % 64 != 0 {
                mask &= u64::MAX >> (64 - range.end % 64);
            }
            let at = slot.first_word + w as usize;
            let taken = self
                .units
                .iter()
                .skip(at)
                .step_by(words)
                .fold(0, |acc, word| acc | word);
            free += u64::from((mask & !taken).count_ones());
        }
        free
    }

    /// Whether any step takes unit `unit` of `name` (see [`Self::free_in`] for names the layout does not hold).
    pub(crate) fn is_taken(&self, name: &str, unit: u32) -> bool {
        let Some(slot) = self.layout.slot(name).filter(|s| unit < s.units) else {
            return true;
        };
        let at = slot.first_word + unit as usize / 64;
        let bit = 1u64 << (unit % 64);
        self.units
            .iter()
            .skip(at)
            .step_by(self.layout.words)
            .any(|word| word & bit != 0)
    }
}

#[cfg(test)]
mod tests {
    use spur_core::model::records::NodeGres;

    use super::*;
    use crate::scheduler::scenario::{node, partition, Scenario};
    use crate::state::Settings;

    fn offer(name: &str, gres_type: Option<&str>, count: u64) -> NodeGres {
        NodeGres {
            name: name.to_string(),
            gres_type: gres_type.map(str::to_string),
            count,
            files: Vec::new(),
        }
    }

    /// A node offering `gpu:a100:2`, `mps:100`, `gpu:h100:2` and `nic:4`, as the state holds it.
    fn scenario() -> Scenario {
        let mut def = node("n1", 8, 8_000, 0);
        def.gres = vec![
            offer("gpu", Some("a100"), 2),
            offer("mps", None, 100),
            offer("gpu", Some("h100"), 2),
            offer("nic", None, 4),
        ];
        let parts = vec![partition("p", &["n1".to_string()], true)];
        Scenario::new(vec![def], parts, Settings::default(), 1_000_000).unwrap()
    }

    fn view<'a>(
        layout: &'a UnitLayout<'a>,
        steps: &'a [u64],
        amounts: &'a [Amounts],
    ) -> StepsUse<'a> {
        StepsUse {
            amounts,
            units: steps,
            layout,
        }
    }

    #[test]
    fn units_are_numbered_across_offers_and_words() {
        let s = scenario();
        let layout = UnitLayout::of(&s.state.nodes["n1"], &["mps", "gpu"]);
        // gpu: 4 units (one word), mps: 100 (two words); nic is asked for by nobody.
        assert_eq!(layout.words(), 3);
        let mut step = vec![0; layout.words()];
        layout.mark(&mut step, "gpu", &[1, 2, 9], true);
        layout.mark(&mut step, "mps", &[0, 63, 64, 99, 150], true);
        layout.mark(&mut step, "nic", &[0], true);
        let amounts = [Amounts::default()];
        let used = view(&layout, &step, &amounts);
        // The a100s are units 0-1, the h100s 2-3; the index 9 beyond the node's units is not kept.
        assert_eq!(used.free_in("gpu", 0..2), 1);
        assert_eq!(used.free_in("gpu", 2..4), 1);
        assert_eq!(used.free_in("gpu", 0..u32::MAX), 2);
        assert!(used.is_taken("gpu", 2) && !used.is_taken("gpu", 3));
        assert_eq!(used.free_in("mps", 0..100), 96);
        assert_eq!(used.free_in("mps", 60..70), 8);
        assert!(used.is_taken("mps", 64) && !used.is_taken("mps", 65));
        // A name the layout does not hold never looks free.
        assert_eq!(used.free_in("nic", 0..4), 0);
        assert!(used.is_taken("nic", 1));

        layout.mark(&mut step, "mps", &[63, 64], false);
        let used = view(&layout, &step, &amounts);
        assert_eq!(used.free_in("mps", 60..70), 10);
    }

    #[test]
    fn a_span_takes_what_any_of_its_steps_takes() {
        let s = scenario();
        let layout = UnitLayout::of(&s.state.nodes["n1"], &["gpu"]);
        assert_eq!(layout.words(), 1);
        let mut steps = vec![0; 2];
        layout.mark(&mut steps[..1], "gpu", &[0], true);
        layout.mark(&mut steps[1..], "gpu", &[3], true);
        let amounts = [
            Amounts {
                cpus: 2,
                mem_mb: 500,
                share_slots: 0,
            },
            Amounts {
                cpus: 6,
                mem_mb: 100,
                share_slots: 7,
            },
        ];
        let used = view(&layout, &steps, &amounts);
        assert_eq!(
            (used.cpus(), used.mem_mb(), used.share_slots()),
            (6, 500, 7)
        );
        assert_eq!(used.free_in("gpu", 0..4), 2);
        let first = view(&layout, &steps[..1], &amounts[..1]);
        assert_eq!(first.free_in("gpu", 0..4), 3);
    }
}
