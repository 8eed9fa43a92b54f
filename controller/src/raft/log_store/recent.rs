//! The log's newest entries, kept decoded beside the store.
//!
//! openraft reads every entry back right after appending it: the core reads the committed entries to apply them,
//! and each replication stream reads what it sends. Through the store those reads wait their turn on its writer
//! thread and decode the entry again; on an idle controller that is two more thread wake-ups per write. The log
//! store keeps its newest entries here so such reads are answered in place.
//!
//! The window is always a suffix of the log: appends extend it, a truncation cuts it back, a purge drops its
//! front, and anything that would leave a gap empties it. A read it cannot answer whole goes to the store.
//!
//! Only small entries are kept. An entry of many concurrent writes is read back through the store as before: its
//! decoding then runs on the store's thread, beside the runtime's, where a copy here would take the core's thread
//! for as long, and the one wake-up it saves is shared by all of its writes.

use std::collections::VecDeque;

/// Most entries kept, and most bytes of their encoded form.
pub(super) const MAX_ENTRIES: usize = 64;
pub(super) const MAX_BYTES: usize = 4 << 20;
/// The largest entry kept (encoded): a few job submissions.
pub(super) const MAX_ENTRY_BYTES: usize = 64 << 10;

/// A contiguous run of the log's newest entries, `first..first + len`.
pub(super) struct RecentEntries<E> {
    first: u64,
    entries: VecDeque<(E, usize)>,
    bytes: usize,
    max_entries: usize,
    max_bytes: usize,
    max_entry_bytes: usize,
}

impl<E: Clone> RecentEntries<E> {
    pub(super) fn new() -> Self {
        Self::with_limits(MAX_ENTRIES, MAX_BYTES, MAX_ENTRY_BYTES)
    }

    pub(super) fn with_limits(
        max_entries: usize,
        max_bytes: usize,
        max_entry_bytes: usize,
    ) -> Self {
        Self {
            first: 0,
            entries: VecDeque::new(),
            bytes: 0,
            max_entries,
            max_bytes,
            max_entry_bytes,
        }
    }

    /// One past the newest index held.
    fn end(&self) -> u64 {
        self.first + self.entries.len() as u64
    }

    /// Records an appended entry; `encoded_len` is what it costs on disk, the measure of the window.
    pub(super) fn appended(&mut self, index: u64, entry: E, encoded_len: usize) {
        let follows = self.entries.is_empty() || index == self.end();
        if !follows || encoded_len > self.max_entry_bytes {
            // A hole or an overwrite without a truncation (the store refuses the append), or an entry not kept: what
            // is held before it would no longer end at the log's last entry.
            self.clear();
            return;
        }
        if self.entries.is_empty() {
            self.first = index;
        }
        self.entries.push_back((entry, encoded_len));
        self.bytes += encoded_len;
        while self.entries.len() > self.max_entries || self.bytes > self.max_bytes {
            self.pop_front();
        }
    }

    fn clear(&mut self) {
        self.entries.clear();
        self.bytes = 0;
    }

    /// Entries with `index >= from` were removed from the log.
    pub(super) fn truncated(&mut self, from: u64) {
        while self.end() > from.max(self.first) {
            let Some((_, len)) = self.entries.pop_back() else {
                break;
            };
            self.bytes -= len;
        }
    }

    /// Entries with `index <= upto` were purged from the log.
    pub(super) fn purged(&mut self, upto: u64) {
        while !self.entries.is_empty() && self.first <= upto {
            self.pop_front();
        }
    }

    /// Entries `start..end` (`end == None`: to the end of the log), if the window holds all of them.
    pub(super) fn get(&self, start: u64, end: Option<u64>) -> Option<Vec<E>> {
        if self.entries.is_empty() || start < self.first {
            return None;
        }
        // The window's last entry is the log's last, so an open end stops there.
        let end = end.unwrap_or(self.end());
        if end > self.end() {
            return None;
        }
        if start >= end {
            return Some(Vec::new());
        }
        let from = usize::try_from(start - self.first).ok()?;
        let to = usize::try_from(end - self.first).ok()?;
        Some(
            self.entries
                .range(from..to)
                .map(|(entry, _)| entry.clone())
                .collect(),
        )
    }

    fn pop_front(&mut self) {
        if let Some((_, len)) = self.entries.pop_front() {
            self.bytes -= len;
            self.first += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RecentEntries;

    fn window(indexes: std::ops::Range<u64>) -> RecentEntries<u64> {
        let mut w = RecentEntries::with_limits(8, 1000, 100);
        for i in indexes {
            w.appended(i, i, 10);
        }
        w
    }

    #[test]
    fn answers_ranges_it_holds_whole_and_nothing_else() {
        let w = window(5..9);
        assert_eq!(w.get(5, Some(9)), Some(vec![5, 6, 7, 8]));
        assert_eq!(w.get(6, None), Some(vec![6, 7, 8]));
        assert_eq!(w.get(7, Some(8)), Some(vec![7]));
        assert_eq!(w.get(9, None), Some(vec![]));
        assert_eq!(w.get(4, Some(6)), None, "starts before the window");
        assert_eq!(w.get(8, Some(10)), None, "ends after the log's last entry");
        assert_eq!(RecentEntries::<u64>::new().get(0, None), None);
    }

    #[test]
    fn keeps_within_its_limits_by_dropping_the_oldest() {
        let w = window(0..20);
        assert_eq!(w.get(12, None), Some((12..20).collect()));
        assert_eq!(w.get(11, None), None);

        let mut big = RecentEntries::with_limits(100, 25, 20);
        big.appended(1, 1u64, 10);
        big.appended(2, 2, 10);
        big.appended(3, 3, 10);
        assert_eq!(big.get(2, None), Some(vec![2, 3]));
        assert_eq!(big.get(1, None), None);
        // An entry over the per-entry limit is not kept, and the window starts again after it.
        big.appended(4, 4, 21);
        assert_eq!(big.get(4, None), None);
        assert_eq!(big.get(3, Some(4)), None);
        big.appended(5, 5, 10);
        assert_eq!(big.get(5, None), Some(vec![5]));
        assert_eq!(big.get(4, None), None);
    }

    #[test]
    fn follows_truncation_purge_and_gaps() {
        let mut w = window(1..6);
        w.truncated(4);
        assert_eq!(w.get(1, None), Some(vec![1, 2, 3]));
        w.appended(4, 40, 10);
        assert_eq!(w.get(3, None), Some(vec![3, 40]));
        w.purged(2);
        assert_eq!(w.get(3, None), Some(vec![3, 40]));
        assert_eq!(w.get(2, None), None);
        // An append that leaves a hole empties the window; the next one starts it again.
        w.appended(9, 9, 10);
        assert_eq!(w.get(9, None), None);
        assert_eq!(w.get(4, None), None);
        w.appended(5, 5, 10);
        assert_eq!(w.get(5, None), Some(vec![5]));
        w.truncated(0);
        assert_eq!(w.get(5, None), None);
        w.appended(1, 1, 10);
        w.purged(100);
        assert_eq!(w.get(0, None), None);
        assert_eq!(w.get(2, None), None);
    }
}
