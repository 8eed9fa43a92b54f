//! Credentials already accepted, kept until they expire: a second use of one is refused even where munged's own
//! replay detection cannot see it (another munged behind a load balancer, a restarted munged).

use std::collections::HashMap;

/// More live credentials than this and new ones are refused rather than letting memory grow without bound.
pub const REPLAY_ENTRIES_MAX: usize = 1 << 20;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    #[error("credential replayed")]
    Replayed,
    #[error("credential expired at {0}")]
    Expired(i64),
    #[error("replay cache full")]
    Full,
}

#[derive(Debug, Default)]
pub struct ReplayCache {
    /// Credential key -> the time after which the credential is expired anyway.
    entries: HashMap<[u8; 32], i64>,
    capacity: usize,
}

impl ReplayCache {
    pub fn new(capacity: usize) -> Self {
        ReplayCache {
            entries: HashMap::new(),
            capacity,
        }
    }

    /// Accepts a credential once before `expires_at`.
    pub fn admit(&mut self, key: [u8; 32], expires_at: i64, now: i64) -> Result<(), ReplayError> {
        if expires_at <= now {
            return Err(ReplayError::Expired(expires_at));
        }
        if self.entries.contains_key(&key) {
            return Err(ReplayError::Replayed);
        }
        if self.entries.len() >= self.capacity {
            self.entries.retain(|_, exp| *exp > now);
            if self.entries.len() >= self.capacity {
                return Err(ReplayError::Full);
            }
        }
        self.entries.insert(key, expires_at);
        Ok(())
    }

    /// Drops credentials that have expired; called periodically so the map tracks only live ones.
    pub fn prune(&mut self, now: i64) {
        self.entries.retain(|_, exp| *exp > now);
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_use_is_refused_until_expiry() {
        let mut cache = ReplayCache::new(10);
        assert_eq!(cache.admit([1; 32], 100, 10), Ok(()));
        assert_eq!(cache.admit([1; 32], 100, 20), Err(ReplayError::Replayed));
        assert_eq!(cache.admit([2; 32], 100, 20), Ok(()));
        cache.prune(100);
        assert!(cache.is_empty());
        assert_eq!(
            cache.admit([1; 32], 100, 100),
            Err(ReplayError::Expired(100))
        );
    }

    #[test]
    fn full_cache_reclaims_expired_then_refuses() {
        let mut cache = ReplayCache::new(2);
        cache.admit([1; 32], 50, 0).unwrap();
        cache.admit([2; 32], 500, 0).unwrap();
        assert_eq!(cache.admit([3; 32], 500, 10), Err(ReplayError::Full));
        assert_eq!(
            cache.admit([3; 32], 500, 60),
            Ok(()),
            "1 expired at 50 and is reclaimed"
        );
        assert_eq!(cache.len(), 2);
    }
}
