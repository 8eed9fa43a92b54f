//! The simulator's only source of randomness: a seeded SplitMix64, so a seed replays the same run bit for bit
//! (no dependency, no global state, identical on every platform).

pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `lo..=hi`.
    pub fn between(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }

    /// True with probability `per_mille`/1000.
    pub fn chance(&mut self, per_mille: u32) -> bool {
        self.next_u64() % 1000 < u64::from(per_mille)
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            return None;
        }
        let i = usize::try_from(self.next_u64() % items.len() as u64).unwrap_or(0);
        items.get(i)
    }

    /// A child generator: each part of the world draws from its own stream, so adding a draw in one part does
    /// not reshuffle the others.
    pub fn fork(&mut self) -> Rng {
        Rng::new(self.next_u64())
    }
}
