//! A node's GRES units as bits, for the backfill profile: the fit test asks, for every node and every step of its
//! profile a job would run through, which units of a GRES are taken. Looking them up by name in a map of index
//! lists made that test most of a pass; with each GRES name given a fixed run of bits once per pass, a step's
//! units are a few machine words and a span of steps is their bitwise OR.
//!
//! Only units a placement can ask about are kept: the names some pending job requests (the others never decide
//! a fit, and a count-only GRES may have billions of units) and, of each name, the units the node offers (an
//! allocation's index beyond them, left from a node configured smaller, is never looked at either).

use std::ops::Range;

use spur_core::records::NodeRecord;

/// CPUs and memory taken on a node during one step of the profile.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Amounts {
    pub(super) cpus: u32,
    pub(super) mem_mb: u64,
}

/// Where each requested GRES name's units of one node sit in that node's words.
#[derive(Debug)]
pub(super) struct UnitLayout<'s> {
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
    pub(super) fn of(node: &'s NodeRecord, asked: &[&str]) -> Self {
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
    pub(super) fn words(&self) -> usize {
        self.words
    }

    fn slot(&self, name: &str) -> Option<&Slot<'s>> {
        self.slots.iter().find(|s| s.name == name)
    }

    /// Marks `units` of `name` taken (`true`) or free in one step's words.
    pub(super) fn mark(&self, step: &mut [u64], name: &str, units: &[u32], taken: bool) {
        let Some(slot) = self.slot(name) else {
            return;
        };
        for &unit in units.iter().filter(|&&u| u < slot.units) {
            let word = &mut step[slot.first_word + unit as usize / 64];
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
pub(super) struct StepsUse<'a> {
    pub(super) amounts: &'a [Amounts],
    /// `layout.words()` words per step, for the same steps as `amounts`.
    pub(super) units: &'a [u64],
    pub(super) layout: &'a UnitLayout<'a>,
}

impl StepsUse<'_> {
    pub(super) fn cpus(&self) -> u32 {
        self.amounts.iter().map(|a| a.cpus).max().unwrap_or(0)
    }

    pub(super) fn mem_mb(&self) -> u64 {
        self.amounts.iter().map(|a| a.mem_mb).max().unwrap_or(0)
    }

    /// How many of the units `range` of `name` no step takes. A name the layout does not hold was asked for by
    /// no pending job; it counts as having nothing free, so a placement can never book it twice.
    pub(super) fn free_in(&self, name: &str, range: Range<u32>) -> u64 {
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
    pub(super) fn is_taken(&self, name: &str, unit: u32) -> bool {
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
