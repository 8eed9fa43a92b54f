//! A small typed bit set shared by the job and node state flag types.
//!
//! Slurm packs a state as one `u32`: a base value in the low bits and flag bits above it. Spur keeps the base as an
//! enum and the flags as a [`FlagSet`] so the wire value can be rebuilt exactly, while persisted state (serde) stores
//! flag *names*, which stay stable even if Slurm renumbers bits.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserialize, Deserializer};
use serde::ser::{Serialize, SerializeSeq, Serializer};

/// One flag of a [`FlagSet`]: a single bit with a stable position in Slurm's listing order.
pub trait Flag: Copy + Eq + 'static {
    /// Every flag, in the order Slurm lists them in its "complete" state strings.
    const LISTING_ORDER: &'static [Self];
    /// The flag's bit in Slurm's packed state value.
    fn bit(self) -> u32;
}

/// A set of flags of one kind, stored as Slurm's bits.
pub struct FlagSet<F> {
    bits: u32,
    kind: PhantomData<F>,
}

impl<F: Flag> FlagSet<F> {
    /// The empty set.
    pub const fn empty() -> Self {
        Self {
            bits: 0,
            kind: PhantomData,
        }
    }

    /// Keeps only the bits that name a known flag; Slurm's unused bits are dropped.
    pub fn from_bits_truncate(bits: u32) -> Self {
        let known = F::LISTING_ORDER.iter().fold(0, |acc, f| acc | f.bit());
        Self {
            bits: bits & known,
            kind: PhantomData,
        }
    }

    /// Slurm's packed bits for this set.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    pub fn is_empty(&self) -> bool {
        self.bits == 0
    }

    pub fn contains(&self, flag: F) -> bool {
        self.bits & flag.bit() != 0
    }

    pub fn insert(&mut self, flag: F) {
        self.bits |= flag.bit();
    }

    pub fn remove(&mut self, flag: F) {
        self.bits &= !flag.bit();
    }

    /// Returns the set with `flag` added.
    #[must_use]
    pub fn with(mut self, flag: F) -> Self {
        self.insert(flag);
        self
    }

    /// The flags present, in Slurm's listing order.
    pub fn iter(&self) -> impl Iterator<Item = F> + '_ {
        F::LISTING_ORDER
            .iter()
            .copied()
            .filter(move |f| self.contains(*f))
    }
}

impl<F: Flag> FromIterator<F> for FlagSet<F> {
    fn from_iter<I: IntoIterator<Item = F>>(iter: I) -> Self {
        iter.into_iter().fold(Self::empty(), FlagSet::with)
    }
}

// Manual impls: derives would demand the bounds on `F` for the PhantomData.
impl<F> Clone for FlagSet<F> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<F> Copy for FlagSet<F> {}
impl<F> PartialEq for FlagSet<F> {
    fn eq(&self, other: &Self) -> bool {
        self.bits == other.bits
    }
}
impl<F> Eq for FlagSet<F> {}
impl<F> std::hash::Hash for FlagSet<F> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.bits.hash(state);
    }
}
impl<F: Flag> Default for FlagSet<F> {
    fn default() -> Self {
        Self::empty()
    }
}
impl<F: Flag + fmt::Debug> fmt::Debug for FlagSet<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl<F: Flag + Serialize> Serialize for FlagSet<F> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // A known length: positional encodings (postcard) cannot write a sequence of unknown length.
        let mut seq = serializer.serialize_seq(Some(self.iter().count()))?;
        for flag in self.iter() {
            seq.serialize_element(&flag)?;
        }
        seq.end()
    }
}

impl<'de, F: Flag + Deserialize<'de>> Deserialize<'de> for FlagSet<F> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Vec::<F>::deserialize(deserializer)?.into_iter().collect())
    }
}
