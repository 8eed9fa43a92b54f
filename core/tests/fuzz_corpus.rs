//! The fuzz targets of spur-core (hostlists, configuration files, value grammars, frames, request documents) run in the normal test suite, without nightly or cargo-fuzz: every file
//! of the committed corpus (`core/fuzz/corpus/<target>/`), then a fixed number of proptest cases (mutated corpus
//! files and random bytes). A panic, a hang, or an input holding over `MAX_INPUT_ALLOC_BYTES` (64 MiB, counted by
//! the global allocator below) fails the test. See docs/security.md "Fuzzing".

use proptest::collection::vec;
use proptest::prelude::*;
use spur_core::fuzz_entry::{
    corpus, mutate, run_input_within, CountingAlloc, MAX_INPUT_ALLOC_BYTES,
};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// Proptest cases per target: with the corpus, a few seconds per target in a debug build.
const CASES: u32 = 1000;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: CASES,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn seeds(target: &str) -> Vec<Vec<u8>> {
    let files = corpus(target).unwrap_or_else(|e| panic!("corpus of {target}: {e}"));
    assert!(!files.is_empty(), "the corpus of {target} is empty");
    files.into_iter().map(|(_, bytes)| bytes).collect()
}

/// Every corpus file, then mutated corpus files, then random bytes.
fn exercise(target: &str, entry: fn(&[u8])) {
    exercise_within(MAX_INPUT_ALLOC_BYTES, target, entry)
}

fn exercise_within(bound: usize, target: &str, entry: fn(&[u8])) {
    let seeds = seeds(target);
    for seed in &seeds {
        run_input_within(bound, entry, seed);
    }
    let mut runner = proptest::test_runner::TestRunner::new(config());
    let strategy = (
        0..seeds.len(),
        vec((any::<u16>(), any::<u8>(), any::<u8>()), 1..8),
        vec(any::<u8>(), 0..256),
        any::<bool>(),
    );
    runner
        .run(&strategy, |(pick, edits, random, use_random)| {
            if use_random {
                run_input_within(bound, entry, &random);
            } else {
                run_input_within(bound, entry, &mutate(&seeds[pick], &edits));
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{target}: {e}"));
}

#[test]
fn fuzz_hostlist() {
    exercise_within(
        spur_core::fuzz_entry::HOSTLIST_ALLOC_BYTES,
        "hostlist",
        spur_core::fuzz_entry::fuzz_hostlist,
    );
}

#[test]
fn fuzz_conf_files() {
    exercise("conf_files", spur_core::fuzz_entry::fuzz_conf_files);
}

#[test]
fn fuzz_values() {
    exercise("values", spur_core::fuzz_entry::fuzz_values);
}

#[cfg(feature = "grpc")]
#[test]
fn fuzz_frames() {
    exercise("frames", spur_core::fuzz_entry::fuzz_frames);
}

#[cfg(feature = "grpc")]
#[test]
fn fuzz_request_docs() {
    exercise("request_docs", spur_core::fuzz_entry::fuzz_request_docs);
}
