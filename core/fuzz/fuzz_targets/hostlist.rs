#![no_main]
//! cargo-fuzz target `hostlist`: see docs/security.md "Fuzzing".

use spur_core::fuzz_entry::{measure_within, CountingAlloc, HOSTLIST_ALLOC_BYTES};

// Refuses any single allocation over the bound (an abort libFuzzer reports) and measures each input's peak.
#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let peak = measure_within(HOSTLIST_ALLOC_BYTES, || spur_core::fuzz_entry::fuzz_hostlist(data));
    assert!(peak <= HOSTLIST_ALLOC_BYTES, "one input held {peak} bytes at once");
});
