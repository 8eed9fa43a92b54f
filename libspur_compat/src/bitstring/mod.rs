//! `slurm_bit_*`: Slurm's bitmaps (`bitstr_t *`) with libslurm's memory layout, because consumers such as the Perl
//! API's `Slurm::Bitstr` hold these pointers and structs such as `job_info_t.array_bitmap` carry them.
//!
//! Layout (Slurm 22.05, 64-bit words): word 0 holds the magic `0x42434445`, word 1 the bit count, and the bits
//! follow from word 2, bit `i` being bit `i % 64` (least significant first) of word `2 + i / 64`. The bits past the
//! count in the last word are not cleared by every operation (`bit_not` flips them, `bit_equal` compares them), and
//! libslurm is built without its debug assertions, so out-of-contract arguments are not checked either: every
//! function below works word by word exactly as libslurm's does so that results agree on those edges too.
//!
//! Bitmaps, strings and index arrays returned here come from libc's allocator (see [`crate::xmem`]).

use std::ffi::{c_int, c_void};

use crate::ffi::guard;
use crate::xmem;

pub type Bitstr = i64;
/// The cookie libslurm keeps in a bitmap's first word.
pub const BITSTR_MAGIC: i64 = 0x4243_4445;
/// Header words before the bits: magic and bit count.
const OVERHEAD: i64 = 2;
const WORD_BITS: i64 = 64;

/// The word holding `bit`, counting the header.
fn word_of(bit: i64) -> isize {
    ((bit >> 6) + OVERHEAD) as isize
}

fn mask_of(bit: i64) -> i64 {
    1i64 << (bit & 63)
}

/// The bits below `n % 64` of a word (all clear when `n` is a multiple of 64), as libslurm's `_bit_nmask`.
fn low_mask(n: i64) -> i64 {
    (1i64 << (n & 63)).wrapping_sub(1)
}

/// Words a bitmap of `nbits` occupies, header included.
fn words_for(nbits: i64) -> i64 {
    (nbits.wrapping_add(63) >> 6) + OVERHEAD
}

fn popcount(w: i64) -> i32 {
    w.count_ones() as i32
}

/// Raw access to a caller's bitmap. All methods share the callers' contract: `b` is a live bitmap and the bits
/// named are within its allocation, as libslurm (built without assertions) also assumes.
#[derive(Clone, Copy)]
struct B(*mut Bitstr);

impl B {
    fn nbits(self) -> i64 {
        // SAFETY: word 1 of a live bitmap.
        unsafe { *self.0.add(1) }
    }
    fn word(self, w: isize) -> i64 {
        // SAFETY: the callers' contract.
        unsafe { *self.0.offset(w) }
    }
    fn set_word(self, w: isize, v: i64) {
        // SAFETY: the callers' contract.
        unsafe { *self.0.offset(w) = v }
    }
    fn test(self, bit: i64) -> bool {
        self.word(word_of(bit)) & mask_of(bit) != 0
    }
    fn set(self, bit: i64) {
        let w = word_of(bit);
        self.set_word(w, self.word(w) | mask_of(bit));
    }
    fn clear(self, bit: i64) {
        let w = word_of(bit);
        self.set_word(w, self.word(w) & !mask_of(bit));
    }
    /// Sets (or clears) `start..=stop`; nothing when `start > stop`.
    fn fill(self, start: i64, stop: i64, on: bool) {
        let mut bit = start;
        while bit <= stop {
            if bit & 63 == 0 && bit + 63 <= stop {
                self.set_word(word_of(bit), if on { -1 } else { 0 });
                bit += WORD_BITS;
                continue;
            }
            if on {
                self.set(bit)
            } else {
                self.clear(bit)
            }
            bit += 1;
        }
    }
    /// Data words (header excluded) covering the bit count, as libslurm's word loops visit them.
    fn data_words(self) -> isize {
        (words_for(self.nbits()) - OVERHEAD).max(0) as isize
    }
    fn ffs(self) -> i64 {
        let n = self.nbits();
        let mut bit = 0;
        while bit < n {
            let w = self.word(word_of(bit));
            if w != 0 {
                let v = bit + i64::from(w.trailing_zeros());
                return if v < n { v } else { -1 };
            }
            bit += WORD_BITS;
        }
        -1
    }
    fn fls(self) -> i64 {
        let n = self.nbits();
        let mut bit = n - 1;
        while bit >= 0 && bit & 63 != 63 {
            if self.test(bit) {
                return bit;
            }
            bit -= 1;
        }
        while bit >= 0 {
            let w = self.word(word_of(bit));
            if w != 0 {
                return bit - i64::from(w.leading_zeros());
            }
            bit -= WORD_BITS;
        }
        -1
    }
    fn set_count(self) -> i32 {
        let n = self.nbits();
        let mut count = 0i32;
        let mut bit = 0;
        while bit + WORD_BITS <= n {
            count = count.wrapping_add(popcount(self.word(word_of(bit))));
            bit += WORD_BITS;
        }
        if bit < n {
            count = count.wrapping_add(popcount(self.word(word_of(bit)) & low_mask(n)));
        }
        count
    }
    fn set_count_range(self, start: i32, end: i32) -> i32 {
        let start = i64::from(start);
        let end = i64::from(end).min(self.nbits());
        let eow = ((start + 63) >> 6) << 6;
        let mut count = 0i32;
        let mut bit = start;
        if start < eow && eow <= end {
            count += popcount(self.word(word_of(bit)) & !low_mask(start));
            bit = eow;
        } else if eow > start {
            count += popcount(self.word(word_of(bit)) & !low_mask(start) & low_mask(end));
            bit = eow;
        }
        while bit + WORD_BITS <= end {
            count = count.wrapping_add(popcount(self.word(word_of(bit))));
            bit += WORD_BITS;
        }
        if bit < end {
            count = count.wrapping_add(popcount(self.word(word_of(bit)) & low_mask(end)));
        }
        count
    }
    /// Ranges of set bits below the count: `(first, last)` pairs in order.
    fn ranges(self) -> Vec<(i64, i64)> {
        let n = self.nbits();
        let mut out = Vec::new();
        let mut bit = 0;
        while bit < n {
            if self.word(word_of(bit)) == 0 {
                bit += WORD_BITS;
                continue;
            }
            if self.test(bit) {
                let start = bit;
                while bit + 1 < n && self.test(bit + 1) {
                    bit += 1;
                }
                out.push((start, bit));
            }
            bit += 1;
        }
        out
    }
}

/// A zeroed bitmap of `nbits` with its header, from libc's allocator; aborts when memory is exhausted, as
/// libslurm's `xmalloc` does.
pub fn alloc(nbits: i64) -> *mut Bitstr {
    let words = usize::try_from(words_for(nbits)).unwrap_or(OVERHEAD as usize);
    let p = xmem::alloc_or_abort(words, std::mem::size_of::<Bitstr>(), "bit_alloc") as *mut Bitstr;
    // SAFETY: fresh zeroed allocation of at least two words.
    unsafe {
        *p = BITSTR_MAGIC;
        *p.add(1) = nbits;
    }
    p
}

fn null() -> *mut Bitstr {
    std::ptr::null_mut()
}

#[no_mangle]
pub extern "C" fn slurm_bit_alloc(nbits: i64) -> *mut Bitstr {
    guard("slurm_bit_alloc", null(), || alloc(nbits))
}

/// Grows (zeroing the new words) or shrinks `*b` to `nbits`; returns the possibly moved bitmap.
///
/// # Safety
/// `b` points to a live bitmap pointer.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_realloc(b: *mut *mut Bitstr, nbits: i64) -> *mut Bitstr {
    guard("slurm_bit_realloc", null(), || {
        // SAFETY: the caller's contract.
        let old = unsafe { *b };
        let old_words = words_for(B(old).nbits());
        let new_words = words_for(nbits);
        let bytes = usize::try_from(new_words)
            .ok()
            .and_then(|w| w.checked_mul(std::mem::size_of::<Bitstr>()));
        let Some(bytes) = bytes else {
            xmem::oom_abort("bit_realloc")
        };
        // SAFETY: `old` is from libc's allocator (this library's bit_alloc).
        let p = unsafe { libc::realloc(old as *mut c_void, bytes) } as *mut Bitstr;
        if p.is_null() {
            xmem::oom_abort("bit_realloc");
        }
        if new_words > old_words {
            // SAFETY: words old_words..new_words lie inside the new allocation.
            unsafe {
                std::ptr::write_bytes(
                    p.offset(old_words as isize),
                    0,
                    (new_words - old_words) as usize,
                )
            };
        }
        // SAFETY: as above; the caller's slot.
        unsafe {
            *p.add(1) = nbits;
            *b = p;
        }
        p
    })
}

/// # Safety
/// `b` points to NULL or to a live bitmap pointer, which is NULL afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_bit_free(b: *mut *mut Bitstr) {
    guard("slurm_bit_free", (), || {
        // SAFETY: the caller's contract.
        unsafe {
            if b.is_null() || (*b).is_null() {
                return;
            }
            **b = 0;
            libc::free(*b as *mut c_void);
            *b = null();
        }
    })
}

macro_rules! bit_export {
    ($(#[$m:meta])* $name:ident ($bp:ident: *mut Bitstr $(, $arg:ident : $t:ty)*) -> $ret:ty = $fallback:expr, |$b:ident| $body:expr) => {
        $(#[$m])*
        /// # Safety
        /// The bitmap arguments are live bitmaps and bit positions within them, as libslurm requires.
        #[no_mangle]
        pub unsafe extern "C" fn $name($bp: *mut Bitstr $(, $arg: $t)*) -> $ret {
            guard(stringify!($name), $fallback, || {
                let $b = B($bp);
                $body
            })
        }
    };
}

mod text;
pub use text::parse_ranges;

bit_export!(slurm_bit_size(b: *mut Bitstr) -> i64 = -1, |bb| bb.nbits());
bit_export!(slurm_bit_test(b: *mut Bitstr, bit: i64) -> c_int = 0, |bb| c_int::from(bb.test(bit)));
bit_export!(slurm_bit_set(b: *mut Bitstr, bit: i64) -> () = (), |bb| bb.set(bit));
bit_export!(slurm_bit_clear(b: *mut Bitstr, bit: i64) -> () = (), |bb| bb.clear(bit));
bit_export!(slurm_bit_nset(b: *mut Bitstr, start: i64, stop: i64) -> () = (), |bb| bb.fill(start, stop, true));
bit_export!(slurm_bit_nclear(b: *mut Bitstr, start: i64, stop: i64) -> () = (), |bb| bb.fill(start, stop, false));
bit_export!(slurm_bit_set_all(b: *mut Bitstr) -> () = (), |bb| bb.fill(0, bb.nbits() - 1, true));
bit_export!(slurm_bit_clear_all(b: *mut Bitstr) -> () = (), |bb| bb.fill(0, bb.nbits() - 1, false));
bit_export!(slurm_bit_ffs(b: *mut Bitstr) -> i64 = -1, |bb| bb.ffs());
bit_export!(slurm_bit_fls(b: *mut Bitstr) -> i64 = -1, |bb| bb.fls());
bit_export!(slurm_bit_set_count(b: *mut Bitstr) -> i32 = 0, |bb| bb.set_count());
bit_export!(slurm_bit_clear_count(b: *mut Bitstr) -> i32 = 0, |bb| (bb.nbits() as i32).wrapping_sub(bb.set_count()));
bit_export!(slurm_bit_set_count_range(b: *mut Bitstr, start: i32, end: i32) -> i32 = 0, |bb| bb.set_count_range(start, end));
bit_export!(
    /// Clear bits in `start..end`, counting `end - start` even past the bitmap's end, as libslurm does.
    slurm_bit_clear_count_range(b: *mut Bitstr, start: i32, end: i32) -> i32 = 0, |bb| {
    let diff = end.wrapping_sub(start);
    if diff < 1 { 0 } else { diff - bb.set_count_range(start, end) }
});

bit_export!(slurm_bit_ffc(b: *mut Bitstr) -> i64 = -1, |bb| {
    let n = bb.nbits();
    let mut bit = 0;
    while bit < n {
        if bb.word(word_of(bit)) == -1 {
            bit += WORD_BITS;
            continue;
        }
        if !bb.test(bit) {
            return bit;
        }
        bit += 1;
    }
    -1
});

bit_export!(
    /// The first run of `n` clear bits.
    slurm_bit_nffc(b: *mut Bitstr, n: i32) -> i64 = -1, |bb| {
    let mut cnt = 0i64;
    for bit in 0..bb.nbits() {
        if bb.test(bit) {
            cnt = 0;
        } else {
            cnt += 1;
            if cnt >= i64::from(n) {
                return bit - (cnt - 1);
            }
        }
    }
    -1
});

bit_export!(
    /// The first run of `n` set bits; like libslurm's, the scan stops at bit `nbits - n`, so a run must end there.
    slurm_bit_nffs(b: *mut Bitstr, n: i32) -> i64 = -1, |bb| {
    let mut cnt = 0i64;
    let mut bit = 0;
    while bit <= bb.nbits() - i64::from(n) {
        if !bb.test(bit) {
            cnt = 0;
        } else {
            cnt += 1;
            if cnt >= i64::from(n) {
                return bit - (cnt - 1);
            }
        }
        bit += 1;
    }
    -1
});

bit_export!(
    /// `n` clear bits from `seed` on, else from the start up to the first set bit at or past `seed`.
    slurm_bit_noc(b: *mut Bitstr, n: i32, seed: i32) -> i64 = -1, |bb| {
    let size = bb.nbits();
    let n = i64::from(n);
    let mut seed = i64::from(seed);
    if seed + n >= size {
        seed = size;
    }
    let mut cnt = 0i64;
    for bit in seed..size {
        if bb.test(bit) {
            cnt = 0;
        } else {
            cnt += 1;
            if cnt >= n {
                return bit - (cnt - 1);
            }
        }
    }
    cnt = 0;
    for bit in 0..size {
        if bb.test(bit) {
            if bit >= seed {
                break;
            }
            cnt = 0;
        } else {
            cnt += 1;
            if cnt >= n {
                return bit - (cnt - 1);
            }
        }
    }
    -1
});

bit_export!(slurm_bit_fill_gaps(b: *mut Bitstr) -> () = (), |bb| {
    let first = bb.ffs();
    if first != -1 {
        bb.fill(first, bb.fls(), true);
    }
});

bit_export!(slurm_bit_not(b: *mut Bitstr) -> () = (), |bb| {
    for w in 0..bb.data_words() {
        bb.set_word(w + 2, !bb.word(w + 2));
    }
});

bit_export!(slurm_bit_nset_max_count(b: *mut Bitstr) -> i32 = 0, |bb| {
    let (mut cnt, mut max) = (0i32, 0i32);
    for bit in 0..bb.nbits() {
        if bb.test(bit) {
            cnt += 1;
            max = max.max(cnt);
        } else {
            cnt = 0;
        }
    }
    max
});

bit_export!(slurm_bit_copy(b: *mut Bitstr) -> *mut Bitstr = null(), |bb| {
    let new = alloc(bb.nbits());
    // SAFETY: both hold data_words() words after the header.
    unsafe { std::ptr::copy_nonoverlapping(b.add(2), new.add(2), bb.data_words() as usize) };
    new
});

bit_export!(
    /// Bit `pos` (0-based) among the set bits, or -1.
    slurm_bit_get_bit_num(b: *mut Bitstr, pos: i32) -> i64 = -1, |bb| {
    let mut cnt = 0i32;
    for bit in 0..bb.nbits() {
        if bb.test(bit) {
            if cnt == pos {
                return bit;
            }
            cnt += 1;
        }
    }
    -1
});

bit_export!(
    /// How many set bits precede set bit `pos`; -1 with libslurm's error line when `pos` is clear.
    slurm_bit_get_pos_num(b: *mut Bitstr, pos: i64) -> i32 = -1, |bb| {
    if !bb.test(pos) {
        crate::log::log_msg(crate::log::LEVEL_ERROR, false, false, &format!("bit {pos} not set"));
        return -1;
    }
    (0..=pos).filter(|&bit| bb.test(bit)).count() as i32 - 1
});

bit_export!(
    /// A new bitmap holding the first `nbits` set bits of `b`, or NULL when it has fewer.
    slurm_bit_pick_cnt(b: *mut Bitstr, nbits: i64) -> *mut Bitstr = null(), |bb| {
    let size = bb.nbits();
    if size < nbits {
        return null();
    }
    let new = B(alloc(size));
    let (mut bit, mut count) = (0i64, 0i64);
    while bit < size && count < nbits {
        let w = word_of(bit);
        let word = bb.word(w);
        if word == 0 {
            bit += WORD_BITS;
            continue;
        }
        let here = i64::from(popcount(word));
        if count + here <= nbits && bit + WORD_BITS - 1 < size {
            new.set_word(w, word);
            count += here;
            bit += WORD_BITS;
            continue;
        }
        while bit < size && count < nbits {
            if bb.test(bit) {
                new.set(bit);
                count += 1;
            }
            bit += 1;
        }
    }
    if count < nbits {
        // SAFETY: fresh from alloc.
        unsafe { libc::free(new.0 as *mut c_void) };
        return null();
    }
    new.0
});

/// Two-bitmap operations: `b` is the first (modified) bitmap, `b2` the second.
macro_rules! bit_pair_export {
    ($(#[$m:meta])* $name:ident -> $ret:ty = $fallback:expr, |$b1:ident, $b2:ident| $body:expr) => {
        $(#[$m])*
        /// # Safety
        /// Both arguments are live bitmaps.
        #[no_mangle]
        pub unsafe extern "C" fn $name(b1: *mut Bitstr, b2: *mut Bitstr) -> $ret {
            guard(stringify!($name), $fallback, || {
                let ($b1, $b2) = (B(b1), B(b2));
                $body
            })
        }
    };
}

/// Data words covering the smaller of two bitmaps.
fn common_words(a: B, b: B) -> isize {
    (words_for(a.nbits().min(b.nbits())) - OVERHEAD).max(0) as isize
}

bit_pair_export!(slurm_bit_and -> () = (), |a, b| {
    for w in 2..2 + common_words(a, b) {
        a.set_word(w, a.word(w) & b.word(w));
    }
});
bit_pair_export!(slurm_bit_or -> () = (), |a, b| {
    for w in 2..2 + common_words(a, b) {
        a.set_word(w, a.word(w) | b.word(w));
    }
});
bit_pair_export!(
    /// Whole words are compared, so bits past the count (set by `bit_not`) count too, as in libslurm.
    slurm_bit_equal -> c_int = 0, |a, b| {
    if a.nbits() != b.nbits() {
        return 0;
    }
    c_int::from((2..2 + a.data_words()).all(|w| a.word(w) == b.word(w)))
});
bit_pair_export!(
    /// 1 when every bit of `b1` is set in `b2` (bits past the count of a partial last word ignored).
    slurm_bit_super_set -> c_int = 0, |a, b| {
    let n = a.nbits();
    let mut bit = 0;
    while bit < n {
        let w = word_of(bit);
        let (x, y) = (a.word(w), b.word(w));
        if x != x & y {
            if bit + WORD_BITS <= n {
                return 0;
            }
            let m = low_mask(n);
            if x & m != x & y & m {
                return 0;
            }
        }
        bit += WORD_BITS;
    }
    1
});
bit_pair_export!(
    /// The number of bits set in both.
    slurm_bit_overlap -> i32 = 0, |a, b| overlap(a, b, true));
bit_pair_export!(
    /// 1 when some bit is set in both.
    slurm_bit_overlap_any -> i32 = 0, |a, b| overlap(a, b, false));
bit_pair_export!(
    /// Copies `b2`'s bits (its size's worth of words) into `b1`.
    slurm_bit_copybits -> () = (), |dst, src| {
    // SAFETY: libslurm requires equal sizes; both hold src's data words.
    unsafe { std::ptr::copy(src.0.add(2), dst.0.add(2), src.data_words() as usize) };
});

fn overlap(a: B, b: B, count_all: bool) -> i32 {
    let n = a.nbits();
    let mut count = 0i32;
    let mut bit = 0;
    while bit < n && bit + WORD_BITS - 1 < n {
        let both = a.word(word_of(bit)) & b.word(word_of(bit));
        if count_all {
            count += popcount(both);
        } else if both != 0 {
            return 1;
        }
        bit += WORD_BITS;
    }
    if bit < n {
        let both = a.word(word_of(bit)) & b.word(word_of(bit)) & low_mask(n);
        if count_all {
            count += popcount(both);
        } else if both != 0 {
            return 1;
        }
    }
    count
}

/// A bitmap of `nbits` holding `b` rotated up by `n` (negative: down), bits past `nbits` wrapping to 0.
fn rotate_copy(bb: B, n: i32, nbits: i64) -> *mut Bitstr {
    let size = bb.nbits();
    let delta = nbits - size;
    let mut n = if nbits == 0 {
        0
    } else {
        (i64::from(n) % nbits) as i32
    };
    if n < 0 {
        n = (i64::from(n) + nbits) as i32;
    }
    let n = i64::from(n);
    let wrap = if n > delta { n - delta } else { 0 };
    let new = B(alloc(nbits));
    let mut bit = 0;
    while bit < size - wrap {
        if bb.test(bit) {
            new.set(bit + n);
        }
        bit += 1;
    }
    let mut dst = 0;
    while bit < size {
        if bb.test(bit) {
            new.set(dst);
        }
        bit += 1;
        dst += 1;
    }
    new.0
}

bit_export!(slurm_bit_rotate_copy(b: *mut Bitstr, n: i32, nbits: i64) -> *mut Bitstr = null(), |bb| rotate_copy(bb, n, nbits));

bit_export!(slurm_bit_rotate(b: *mut Bitstr, n: i32) -> () = (), |bb| {
    if n == 0 {
        return;
    }
    let new = rotate_copy(bb, n, i64::from(bb.nbits() as u32));
    // SAFETY: `new` has as many data words as `b`.
    unsafe {
        std::ptr::copy_nonoverlapping(new.add(2), b.add(2), bb.data_words() as usize);
        libc::free(new as *mut c_void);
    }
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_and_formats() {
        let b = alloc(70);
        let bb = B(b);
        assert_eq!(bb.word(0), BITSTR_MAGIC);
        assert_eq!(bb.nbits(), 70);
        bb.fill(0, 3, true);
        bb.set(5);
        bb.set(69);
        assert_eq!(bb.word(2), 0b10_1111);
        assert_eq!(bb.word(3), 1 << 5);
        assert_eq!(text::format_ranges(&bb.ranges()), "0-3,5,69");
        assert_eq!((bb.ffs(), bb.fls(), bb.set_count()), (0, 69, 6));
        // SAFETY: from alloc.
        unsafe { libc::free(b as *mut c_void) };
    }
}
