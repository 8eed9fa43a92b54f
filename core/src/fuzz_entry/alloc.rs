//! A global allocator that counts what each thread holds, so a fuzz harness can bound what one input allocates.
//!
//! Install it in a test or fuzz binary (`#[global_allocator] static A: CountingAlloc = CountingAlloc;`) and run each
//! input through [`measure`]. A single request over [`MAX_INPUT_ALLOC_BYTES`] is refused (the process then aborts
//! with "memory allocation of N bytes failed", which libFuzzer and the test runner both report), and [`measure`]
//! returns the peak of what the input held at once, for the harness to compare with the same bound.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The most one input may hold at once: a decoder reading bytes from another process allocates in proportion to
/// what it was sent (fuzz inputs are at most a few KiB), never what a length field claims.
pub const MAX_INPUT_ALLOC_BYTES: usize = 64 << 20;

thread_local! {
    // `const` thread locals with no destructor never allocate, so the allocator may use them.
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
    static LIMIT: Cell<usize> = const { Cell::new(MAX_INPUT_ALLOC_BYTES) };
}

/// The largest single allocation this thread may make now.
fn limit() -> usize {
    LIMIT.try_with(Cell::get).unwrap_or(MAX_INPUT_ALLOC_BYTES)
}

/// The system allocator, counting the bytes each thread holds (memory freed by another thread than the one that
/// allocated it is uncounted on the freeing thread, floored at zero: the count is a bound for one thread's input).
pub struct CountingAlloc;

fn grew(size: usize) {
    let _ = LIVE.try_with(|live| {
        let now = live.get().saturating_add(size);
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

fn shrank(size: usize) {
    let _ = LIVE.try_with(|live| live.set(live.get().saturating_sub(size)));
}

// SAFETY: every call is forwarded to `System` with the caller's layout; the counting touches only thread locals.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() > limit() {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() > limit() {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > limit() {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            shrank(layout.size());
            grew(new_size);
        }
        new
    }
}

/// [`measure`] with single allocations over `limit` (not [`MAX_INPUT_ALLOC_BYTES`]) refused while `f` runs, for a
/// decoder documented to use more.
pub fn measure_within(limit: usize, f: impl FnOnce()) -> usize {
    let before = LIMIT.with(|l| l.replace(limit));
    let peak = measure(f);
    LIMIT.with(|l| l.set(before));
    peak
}

/// Runs `f` and returns the most bytes this thread held at once while it ran, beyond what it held before (zero
/// unless [`CountingAlloc`] is the global allocator).
pub fn measure(f: impl FnOnce()) -> usize {
    let base = LIVE.with(Cell::get);
    PEAK.with(|peak| peak.set(base));
    f();
    PEAK.with(Cell::get).saturating_sub(base)
}
