//! Bitmaps as text: `bit_fmt` (`0-3,5`), hex and binary masks, and their parsers (`bit_unfmt`, `bitfmt2int`,
//! `bit_unfmt_hexmask`, `bit_unfmt_binmask`), with libslurm's readings of odd input.

use std::ffi::{c_char, c_int, CStr};

use super::{word_of, Bitstr, B};
use crate::ffi::guard;
use crate::xmem;

/// `0-3,5`: libslurm's text for a bitmap's set bits.
pub(super) fn format_ranges(ranges: &[(i64, i64)]) -> String {
    let parts: Vec<String> = ranges
        .iter()
        .map(|&(a, z)| {
            if a == z {
                a.to_string()
            } else {
                format!("{a}-{z}")
            }
        })
        .collect();
    parts.join(",")
}

/// Writes `0-3,5` into `str` (at most `len - 1` characters and a NUL) and returns `str`.
///
/// # Safety
/// `str` holds `len` bytes; `b` is a live bitmap.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_fmt(str: *mut c_char, len: i32, b: *mut Bitstr) -> *mut c_char {
    guard("slurm_bit_fmt", str, || {
        if str.is_null() {
            return str;
        }
        let text = format_ranges(&B(b).ranges());
        // libslurm requires len > 0; a smaller len gets an empty string here rather than an overrun.
        let room = usize::try_from(len).unwrap_or(0).saturating_sub(1);
        let n = text.len().min(room);
        // SAFETY: n < len bytes, then the NUL at n < len (or at 0, which libslurm also writes).
        unsafe {
            std::ptr::copy_nonoverlapping(text.as_ptr(), str as *mut u8, n);
            *str.add(n) = 0;
        }
        str
    })
}

bit_export!(
    /// `0-3,5` in a new string, NULL when no bit is set.
    slurm_bit_fmt_full(b: *mut Bitstr) -> *mut c_char = std::ptr::null_mut(), |bb| {
    let ranges = bb.ranges();
    if ranges.is_empty() {
        return std::ptr::null_mut();
    }
    xmem::string_or_abort(&format_ranges(&ranges))
});

fn hexmask(bb: B, bitsize: i64) -> *mut c_char {
    if bitsize <= 0 {
        return xmem::string_or_abort("0x0");
    }
    let digits = (bitsize + 3) / 4;
    let mut s = String::with_capacity(digits as usize + 2);
    s.push_str("0x");
    for d in (0..digits).rev() {
        let mut nibble = 0u32;
        for j in 0..4 {
            let bit = d * 4 + j;
            if bit < bitsize && bb.test(bit) {
                nibble |= 1 << j;
            }
        }
        s.push(char::from_digit(nibble, 16).map_or('0', |c| c.to_ascii_uppercase()));
    }
    xmem::string_or_abort(&s)
}

bit_export!(
    /// `0x` and one upper-case hex digit per 4 bits of the bitmap, most significant first.
    slurm_bit_fmt_hexmask(b: *mut Bitstr) -> *mut c_char = std::ptr::null_mut(), |bb| hexmask(bb, bb.nbits()));
bit_export!(
    /// As `bit_fmt_hexmask` up to the last set bit only (`0x0` when none is).
    slurm_bit_fmt_hexmask_trim(b: *mut Bitstr) -> *mut c_char = std::ptr::null_mut(), |bb| hexmask(bb, bb.fls() + 1));

bit_export!(
    /// One `0`/`1` per bit, the highest bit first.
    slurm_bit_fmt_binmask(b: *mut Bitstr) -> *mut c_char = std::ptr::null_mut(), |bb| {
    let s: String = (0..bb.nbits().max(0)).rev().map(|bit| if bb.test(bit) { '1' } else { '0' }).collect();
    xmem::string_or_abort(&s)
});

/// # Safety
/// `s` is NULL or a NUL-terminated string.
unsafe fn bytes<'a>(s: *const c_char) -> Option<&'a [u8]> {
    if s.is_null() {
        None
    } else {
        // SAFETY: the caller's contract.
        Some(unsafe { CStr::from_ptr(s) }.to_bytes())
    }
}

bit_export!(
    /// Sets the bits a hex mask names (`0x` optional), lowest digit last; -1 on a non-hex character or a bit past
    /// the end (the bits read until then stay set).
    slurm_bit_unfmt_hexmask(b: *mut Bitstr, str: *const c_char) -> c_int = -1, |bb| {
    // SAFETY: the caller's contract.
    let Some(text) = (unsafe { bytes(str) }) else { return -1 };
    if b.is_null() {
        return -1;
    }
    let size = bb.nbits();
    bb.fill(0, size - 1, false);
    let digits = text.strip_prefix(b"0x").unwrap_or(text);
    let mut bit = 0i64;
    for &c in digits.iter().rev() {
        let Some(value) = (c as char).to_digit(16) else { return -1 };
        let value = i64::from(value);
        if bit + 3 < size {
            let w = word_of(bit);
            bb.set_word(w, bb.word(w) | (value << (bit & 63)));
        } else {
            for j in 0..4 {
                if value & (1 << j) != 0 {
                    if bit + j < size {
                        bb.set(bit + j);
                    } else {
                        return -1;
                    }
                }
            }
        }
        bit += 4;
    }
    0
});

bit_export!(
    /// Sets bit `i` when the `i`-th character from the end, minus `'0'`, is odd (as libslurm reads it).
    slurm_bit_unfmt_binmask(b: *mut Bitstr, str: *const c_char) -> () = (), |bb| {
    // SAFETY: the caller's contract.
    let Some(text) = (unsafe { bytes(str) }) else { return };
    let size = bb.nbits();
    bb.fill(0, size - 1, false);
    for (i, &c) in text.iter().rev().enumerate() {
        let digit = (c as i8).wrapping_sub(b'0' as i8);
        if digit & 1 != 0 && (i as i64) < size {
            bb.set(i as i64);
        }
    }
});

/// The `[first, last, first, last, ..., -1]` pairs of libslurm's `bitfmt2int` for `text`, or None where it
/// returns NULL.
pub fn parse_ranges(text: &[u8]) -> Option<Vec<i32>> {
    let mut out = Vec::new();
    if !text.contains(&b':') {
        let (mut sum, mut start) = (0i32, -1i32);
        for (i, &c) in text.iter().chain(std::iter::once(&0u8)).enumerate() {
            match c {
                b'0'..=b'9' => sum = sum.wrapping_mul(10).wrapping_add(i32::from(c - b'0')),
                b'-' => {
                    start = sum;
                    sum = 0;
                }
                b',' | 0 => {
                    if i == 0 {
                        break;
                    }
                    if start == -1 {
                        start = sum;
                    }
                    out.extend([start, sum]);
                    start = -1;
                    sum = 0;
                }
                _ => {}
            }
        }
    } else {
        // "first-last:step": each of first, first+step, ... below last as a one-bit range.
        let (first, rest) = strtol(text);
        let rest = rest.strip_prefix(b"-")?;
        let (last, rest) = strtol(rest);
        let rest = rest.strip_prefix(b":")?;
        let (step, rest) = strtol(rest);
        if !rest.is_empty() || last < first || step <= 0 {
            return None;
        }
        let mut i = first;
        while i < last {
            out.extend([i, i]);
            i = i.checked_add(step)?;
        }
    }
    out.push(-1);
    Some(out)
}

/// C's `strtol(s, &end, 10)` truncated to `int32_t`, with the rest of the text.
fn strtol(s: &[u8]) -> (i32, &[u8]) {
    let mut i = 0;
    while i < s.len() && (s[i] as char).is_ascii_whitespace() {
        i += 1;
    }
    let mut neg = false;
    let sign_at = i;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        neg = s[i] == b'-';
        i += 1;
    }
    let digits_at = i;
    let mut v: i64 = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        v = v.saturating_mul(10).saturating_add(i64::from(s[i] - b'0'));
        i += 1;
    }
    if i == digits_at {
        // No digits: strtol consumes nothing.
        let _ = sign_at;
        return (0, s);
    }
    let v = if neg { v.saturating_neg() } else { v };
    (v as i32, &s[i..])
}

/// # Safety
/// `str` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn slurm_bitfmt2int(str: *mut c_char) -> *mut i32 {
    guard("slurm_bitfmt2int", std::ptr::null_mut(), || {
        // SAFETY: the caller's contract.
        let Some(text) = (unsafe { bytes(str) }) else {
            return std::ptr::null_mut();
        };
        match parse_ranges(text) {
            Some(v) => xmem::copy_or_abort(&v),
            None => std::ptr::null_mut(),
        }
    })
}

bit_export!(
    /// Clears `b` and sets the ranges `0-3,5` (or `first-last:step`) names; 0, or -1 for a range past the end
    /// (ranges before it stay set) or a malformed step form. An empty or NULL text leaves `b` untouched.
    slurm_bit_unfmt(b: *mut Bitstr, str: *mut c_char) -> c_int = -1, |bb| {
    // SAFETY: the caller's contract.
    let Some(text) = (unsafe { bytes(str) }) else { return 0 };
    if text.is_empty() {
        return 0;
    }
    let Some(pairs) = parse_ranges(text) else { return -1 };
    let size = bb.nbits();
    if size > 0 {
        bb.fill(0, size - 1, false);
    }
    for pair in pairs.chunks(2) {
        let [first, last] = *pair else { break };
        let (first, last) = (i64::from(first), i64::from(last));
        if first < 0 || first >= size || last < 0 || last >= size {
            return -1;
        }
        bb.fill(first, last, true);
    }
    0
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_parse_as_libslurm_reads_them() {
        assert_eq!(parse_ranges(b"0-3,5"), Some(vec![0, 3, 5, 5, -1]));
        assert_eq!(parse_ranges(b""), Some(vec![-1]));
        assert_eq!(parse_ranges(b",1"), Some(vec![-1]));
        // Characters other than digits, '-' and ',' are skipped.
        assert_eq!(parse_ranges(b"[1-2]"), Some(vec![1, 2, -1]));
        // Step form: last is exclusive.
        assert_eq!(parse_ranges(b"1-7:3"), Some(vec![1, 1, 4, 4, -1]));
        assert_eq!(parse_ranges(b"7-1:3"), None);
        assert_eq!(parse_ranges(b"1-7:0"), None);
        assert_eq!(parse_ranges(b"1-7:3x"), None);
    }
}
