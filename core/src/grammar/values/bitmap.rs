//! A fixed-size bitmap for array task ids and CPU ids, with Slurm's text forms: range lists (`1-3,5,9-14`, Slurm's
//! `bit_fmt`/`bit_unfmt`) and hex masks (`0x000000000000ABCD`, `bit_fmt_hexmask`/`bit_unfmt_hexmask`).
//!
//! `bit_unfmt` keeps Slurm 22.05's lenient reading: characters other than digits, `-` and `,` are skipped, an empty
//! item is bit 0, and with a `:` the whole text must be `first-last:step`, where `last` itself is excluded.

use std::fmt;

/// A rejected bitmap text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BitmapError {
    /// A bit lies outside the bitmap, or a `first-last:step` form is malformed.
    #[error("invalid bitmap specification")]
    Invalid,
    /// A hex mask has a character that is not a hex digit.
    #[error("invalid hex mask")]
    BadHex,
}

/// A bitmap of `size` bits.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct Bitmap {
    words: Vec<u64>,
    size: usize,
}

impl fmt::Debug for Bitmap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bitmap({}; {})", self.size, bit_fmt(self))
    }
}

impl Bitmap {
    /// An empty bitmap of `size` bits.
    pub fn new(size: usize) -> Bitmap {
        Bitmap {
            words: vec![0; size.div_ceil(64)],
            size,
        }
    }

    /// A bitmap of `size` bits with the given bits set; `None` if one is out of range.
    pub fn from_bits(size: usize, bits: impl IntoIterator<Item = usize>) -> Option<Bitmap> {
        let mut map = Bitmap::new(size);
        for bit in bits {
            if !map.set(bit) {
                return None;
            }
        }
        Some(map)
    }

    /// Number of bits.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Sets a bit; false when it is out of range.
    pub fn set(&mut self, bit: usize) -> bool {
        if bit >= self.size {
            return false;
        }
        if let Some(word) = self.words.get_mut(bit / 64) {
            *word |= 1 << (bit % 64);
        }
        true
    }

    /// Clears a bit (out-of-range bits are already clear).
    pub fn clear(&mut self, bit: usize) {
        if let Some(word) = self.words.get_mut(bit / 64) {
            *word &= !(1 << (bit % 64));
        }
    }

    /// Whether a bit is set.
    pub fn test(&self, bit: usize) -> bool {
        bit < self.size
            && self
                .words
                .get(bit / 64)
                .is_some_and(|w| w & (1 << (bit % 64)) != 0)
    }

    /// Number of set bits.
    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether no bit is set.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|w| *w == 0)
    }

    /// The lowest set bit.
    pub fn first(&self) -> Option<usize> {
        self.iter().next()
    }

    /// The highest set bit.
    pub fn last(&self) -> Option<usize> {
        let (i, word) = self
            .words
            .iter()
            .enumerate()
            .rev()
            .find(|(_, w)| **w != 0)?;
        Some(i * 64 + 63 - word.leading_zeros() as usize)
    }

    /// The set bits, lowest first.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let bit = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                Some(i * 64 + bit)
            })
        })
    }

    /// Runs of consecutive set bits as inclusive `(first, last)` pairs.
    pub fn ranges(&self) -> Vec<(usize, usize)> {
        let mut out: Vec<(usize, usize)> = Vec::new();
        for bit in self.iter() {
            match out.last_mut() {
                Some((_, last)) if *last + 1 == bit => *last = bit,
                _ => out.push((bit, bit)),
            }
        }
        out
    }
}

/// Formats the set bits as a range list (`1-3,5`), as Slurm's `bit_fmt_full` does.
pub fn bit_fmt(map: &Bitmap) -> String {
    map.ranges()
        .iter()
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// Formats into a buffer of `len` bytes as Slurm's `bit_fmt` does: the range list cut to `len - 1` characters.
pub fn bit_fmt_truncated(map: &Bitmap, len: usize) -> String {
    let full = bit_fmt(map);
    let keep = len.saturating_sub(1).min(full.len());
    full[..keep].to_string()
}

/// Reads one `strtol` number the way C does on the first text, returning it (cut to a C `int`) and the rest.
fn c_strtol_int(text: &str) -> Option<(i64, &str)> {
    let body = text.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let unsigned = body.strip_prefix(['+', '-']).unwrap_or(body);
    let digits = unsigned.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let negative = body.starts_with('-');
    // strtol saturates at the long range; Slurm then keeps the low 32 bits.
    let magnitude = unsigned[..digits]
        .parse::<i128>()
        .unwrap_or(i128::MAX)
        .min(i128::from(i64::MAX));
    let long = if negative { -magnitude } else { magnitude };
    Some((i64::from(long as i32), &unsigned[digits..]))
}

/// `first-last:step`, where the whole text must be exactly that and `last` is excluded.
fn unfmt_stepped(size: usize, text: &str) -> Result<Bitmap, BitmapError> {
    let (first, rest) = c_strtol_int(text).ok_or(BitmapError::Invalid)?;
    let rest = rest.strip_prefix('-').ok_or(BitmapError::Invalid)?;
    let (last, rest) = c_strtol_int(rest).ok_or(BitmapError::Invalid)?;
    let rest = rest.strip_prefix(':').ok_or(BitmapError::Invalid)?;
    let (step, rest) = c_strtol_int(rest).ok_or(BitmapError::Invalid)?;
    if !rest.is_empty() || step <= 0 || first < 0 || last < first {
        return Err(BitmapError::Invalid);
    }
    let mut map = Bitmap::new(size);
    let mut bit = first;
    while bit < last {
        let index = usize::try_from(bit).map_err(|_| BitmapError::Invalid)?;
        if !map.set(index) {
            return Err(BitmapError::Invalid);
        }
        bit += step;
    }
    Ok(map)
}

/// Parses a range list into a bitmap of `size` bits (Slurm's `bit_unfmt`).
pub fn bit_unfmt(size: usize, text: &str) -> Result<Bitmap, BitmapError> {
    if text.contains(':') {
        return unfmt_stepped(size, text);
    }
    let mut map = Bitmap::new(size);
    // Slurm's item reader: digits accumulate (in a wrapping C int), '-' starts a range, ',' and the end close an
    // item, anything else is skipped. A separator in first position ends the whole list.
    let mut start: Option<i32> = None;
    let mut sum: i32 = 0;
    let bytes = text.as_bytes();
    for i in 0..=bytes.len() {
        match bytes.get(i) {
            Some(d @ b'0'..=b'9') => sum = sum.wrapping_mul(10).wrapping_add(i32::from(d - b'0')),
            Some(b'-') => {
                start = Some(sum);
                sum = 0;
            }
            Some(b',') | None => {
                if i == 0 {
                    break;
                }
                let lo = start.take().unwrap_or(sum);
                set_range(&mut map, lo, sum)?;
                sum = 0;
            }
            Some(_) => {}
        }
    }
    Ok(map)
}

fn set_range(map: &mut Bitmap, lo: i32, hi: i32) -> Result<(), BitmapError> {
    if lo > hi {
        return Ok(());
    }
    let lo = usize::try_from(lo).map_err(|_| BitmapError::Invalid)?;
    let hi = usize::try_from(hi).map_err(|_| BitmapError::Invalid)?;
    if hi >= map.size() {
        return Err(BitmapError::Invalid);
    }
    for bit in lo..=hi {
        map.set(bit);
    }
    Ok(())
}

/// Formats as Slurm's `bit_fmt_hexmask`: `0x` and one upper-case hex digit per 4 bits, most significant first.
pub fn bit_fmt_hexmask(map: &Bitmap) -> String {
    let digits = map.size().div_ceil(4);
    let mut out = String::with_capacity(digits + 2);
    out.push_str("0x");
    for nibble in (0..digits).rev() {
        let value = (0..4)
            .filter(|b| map.test(nibble * 4 + b))
            .fold(0u32, |acc, b| acc | 1 << b);
        out.push(char::from_digit(value, 16).map_or('0', |c| c.to_ascii_uppercase()));
    }
    out
}

/// Parses a hex mask (optional lower-case `0x`; Slurm rejects `0X`) into a bitmap of `size` bits (Slurm's
/// `bit_unfmt_hexmask`). Leading zero digits beyond the bitmap are fine; set bits beyond it are not.
pub fn bit_unfmt_hexmask(size: usize, text: &str) -> Result<Bitmap, BitmapError> {
    let hex = text.strip_prefix("0x").unwrap_or(text);
    let mut map = Bitmap::new(size);
    for (nibble, c) in hex.chars().rev().enumerate() {
        let value = c.to_digit(16).ok_or(BitmapError::BadHex)?;
        for b in 0..4 {
            if value & (1 << b) != 0 && !map.set(nibble * 4 + b) {
                return Err(BitmapError::Invalid);
            }
        }
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_test_iterate() {
        let map = Bitmap::from_bits(130, [0, 63, 64, 65, 129]).unwrap();
        assert_eq!(map.iter().collect::<Vec<_>>(), [0, 63, 64, 65, 129]);
        assert_eq!(
            (map.count(), map.first(), map.last()),
            (5, Some(0), Some(129))
        );
        assert!(map.test(64) && !map.test(1) && !map.test(500));
        assert_eq!(bit_fmt(&map), "0,63-65,129");
        assert!(Bitmap::from_bits(10, [10]).is_none());
    }

    #[test]
    fn lenient_unfmt() {
        let fmt = |s: &str| bit_unfmt(128, s).map(|m| bit_fmt(&m));
        assert_eq!(fmt("1-3,5,7-9"), Ok("1-3,5,7-9".into()));
        assert_eq!(fmt("a"), Ok("0".into()));
        assert_eq!(fmt("1,,2"), Ok("0-2".into()));
        assert_eq!(fmt(",1"), Ok(String::new()));
        assert_eq!(fmt("3-1"), Ok(String::new()));
        assert_eq!(fmt("1-10:2"), Ok("1,3,5,7,9".into()));
        assert_eq!(fmt("1-10:1"), Ok("1-9".into()));
        assert_eq!(fmt("128"), Err(BitmapError::Invalid));
        assert_eq!(fmt("1:2"), Err(BitmapError::Invalid));
    }

    #[test]
    fn hexmasks() {
        let map = bit_unfmt_hexmask(16, "0xBDFF").unwrap();
        assert_eq!(bit_fmt(&map), "0-8,10-13,15");
        assert_eq!(
            bit_fmt_hexmask(&bit_unfmt_hexmask(64, "0xAbCd").unwrap()),
            "0x000000000000ABCD"
        );
        assert_eq!(bit_unfmt_hexmask(1, "0x2"), Err(BitmapError::Invalid));
        assert_eq!(bit_unfmt_hexmask(64, "0xZ"), Err(BitmapError::BadHex));
    }

    #[test]
    fn truncated_like_a_c_buffer() {
        let map = Bitmap::from_bits(20, [0, 2, 4, 6, 8, 12]).unwrap();
        assert_eq!(bit_fmt_truncated(&map, 6), "0,2,4");
        assert_eq!(bit_fmt_truncated(&map, 1), "");
        assert_eq!(bit_fmt_truncated(&map, 100), "0,2,4,6,8,12");
    }
}
