//! Id → name answers of the account database, remembered for the life of a process. A listing names the same few
//! users thousands of times and every libc lookup reads /etc/passwd or /etc/group afresh (squeue over 10,000 jobs
//! spent most of its time there), so the commands and the C shim ask through one of these. The lookup itself is
//! the caller's: this module does no I/O.

use std::collections::HashMap;
use std::sync::Mutex;

pub struct NameCache(Mutex<Option<HashMap<u32, Option<String>>>>);

impl NameCache {
    pub const fn new() -> Self {
        NameCache(Mutex::new(None))
    }

    /// The remembered answer for `id`, else `lookup()`'s, remembered (a missing name too).
    pub fn get_or_insert(
        &self,
        id: u32,
        lookup: impl FnOnce() -> Option<String>,
    ) -> Option<String> {
        let Ok(mut guard) = self.0.lock() else {
            return lookup();
        };
        guard
            .get_or_insert_with(HashMap::new)
            .entry(id)
            .or_insert_with(lookup)
            .clone()
    }
}

impl Default for NameCache {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looks_up_each_id_once() {
        let cache = NameCache::new();
        let mut calls = 0;
        for _ in 0..3 {
            let name = cache.get_or_insert(7, || {
                calls += 1;
                Some("alice".into())
            });
            assert_eq!(name.as_deref(), Some("alice"));
        }
        assert_eq!(calls, 1);
        assert_eq!(cache.get_or_insert(8, || None), None);
        assert_eq!(cache.get_or_insert(8, || Some("late".into())), None);
    }
}
