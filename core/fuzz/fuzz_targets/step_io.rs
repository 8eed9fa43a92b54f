#![no_main]
//! cargo-fuzz target `step_io`: see docs/security.md "Fuzzing".

use spur_core::fuzz_entry::{measure, CountingAlloc, MAX_INPUT_ALLOC_BYTES};

// Refuses any single allocation over the bound (an abort libFuzzer reports) and measures each input's peak.
#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let peak = measure(|| spur_stepd::fuzz_entry::fuzz_step_io(data));
    assert!(peak <= MAX_INPUT_ALLOC_BYTES, "one input held {peak} bytes at once");
});
