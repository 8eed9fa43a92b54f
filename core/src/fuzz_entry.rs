//! Fuzzing entry points: one function per family of decoders that read bytes another process (or a user) wrote.
//!
//! The cargo-fuzz targets under `core/fuzz/` and the property tests the normal test suite runs
//! (`core/tests/fuzz_corpus.rs`) call these same functions, so CI exercises exactly what the fuzzer does, without
//! nightly. Each function must return for any input: a panic, an allocation over [`MAX_INPUT_ALLOC_BYTES`]
//! (checked by [`CountingAlloc`]) or a hang is a bug in the decoder. Not an API: hidden from the docs.

pub mod alloc;

pub use alloc::{measure, measure_within, CountingAlloc, MAX_INPUT_ALLOC_BYTES};

use crate::grammar::values::begin::LocalNow;

/// Splits off the first byte (a selector) from the rest of an input.
fn split(data: &[u8]) -> (u8, &[u8]) {
    match data.split_first() {
        Some((&first, rest)) => (first, rest),
        None => (0, data),
    }
}

/// The text a parser reads: input that is not UTF-8 is what a `&str` parser never sees, so it is read lossily.
fn text(data: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// Most names a hostlist is expanded to here: expansion is what callers bound (`expand_at_most`), not the parser.
const HOSTLIST_EXPAND_MAX: usize = 4096;

/// The hostlist target's bound: the parser builds up to [`crate::grammar::hostlist::MAX_PRODUCT_BYTES`] (256 MiB) of
/// ranges for nested bracket groups (`ya[0]n[1-10,2-825][4-1385,0]b[1]`, 36 bytes, builds about 100 MiB), its own
/// documented limit, which is over [`MAX_INPUT_ALLOC_BYTES`]; see docs/security.md "Fuzzing".
pub const HOSTLIST_ALLOC_BYTES: usize = crate::grammar::hostlist::MAX_PRODUCT_BYTES * 2;

/// Hostlist expressions (`core/src/grammar/hostlist*`): parsing, bounded expansion, compression and scontrol's
/// rendering.
pub fn fuzz_hostlist(data: &[u8]) {
    let expr = text(data);
    if let Ok(list) = crate::grammar::hostlist::Hostlist::parse(&expr) {
        let len = list.len();
        let names: Vec<String> = list.iter().take(HOSTLIST_EXPAND_MAX).collect();
        if len <= HOSTLIST_EXPAND_MAX {
            assert_eq!(
                names.len(),
                len,
                "a hostlist's length and its expansion differ"
            );
            // Printed forms are Slurm's and need not parse again (`a[0]b[` prints `a0b]`): only computed here.
            let _ = list.to_ranged_string();
            let _ = list.to_sorted_ranged_string();
            let _ = crate::grammar::hostlist::compress_sorted(&names);
            if let Some(last) = names.last() {
                let _ = list.find(last);
            }
        }
        let _ = list.nth(len.saturating_sub(1));
    }
    let _ = crate::grammar::hostlist::expand_at_most(&expr, HOSTLIST_EXPAND_MAX);
    let _ = crate::grammar::hostlist::Hostlist::parse_with_warnings(&expr);
    // scontrol's renderings walk every name, as Slurm's do: 31 bytes (`a[2-2155]b[2-2155]`, brackets multiply)
    // name 4.6 million hosts, seconds of work. That is the CLI printing its own argument (lists from other
    // processes are bounded where they are received), so only bounded lists are rendered here.
    if crate::grammar::hostlist::Hostlist::parse(&expr)
        .is_ok_and(|list| list.len() <= HOSTLIST_EXPAND_MAX)
    {
        use crate::grammar::hostlist::scontrol::{render, Show};
        for show in [Show::Hostnames, Show::Hostlist, Show::HostlistSorted] {
            let _ = render(show, &expr);
        }
    }
}

/// `slurm.conf`, `gres.conf`, `cgroup.conf` and `topology.conf` (`core/src/grammar/conf`); the first byte picks the
/// file.
pub fn fuzz_conf_files(data: &[u8]) {
    let (which, rest) = split(data);
    let text = text(rest);
    match which % 5 {
        0 => {
            if let Ok(conf) = crate::grammar::conf::SlurmConf::parse_str(&text, "slurm.conf") {
                let _ = conf.slurmctld_port();
                let _ = conf.default_partition();
                let _ = conf.prolog_flags();
                let _ = conf.scheduler_options();
                let _ = conf.gres_types();
            }
        }
        1 => {
            if let Ok(conf) = crate::grammar::conf::GresConf::parse_str(&text, "gres.conf") {
                for record in &conf.records {
                    let _ = record.files();
                    let _ = record.core_list();
                }
                let _ = conf.for_node("n1", &|expr, node| {
                    crate::grammar::hostlist::Hostlist::parse(expr)
                        .map(|list| list.find(node).is_some())
                        .unwrap_or(false)
                });
            }
        }
        2 => {
            let _ = crate::grammar::conf::CgroupConf::parse_str(&text, "cgroup.conf");
        }
        3 => {
            let _ = crate::grammar::conf::TopologyConf::parse_str(&text, "topology.conf");
        }
        _ => {
            let _ = crate::grammar::conf::expand_numeric_ranges(&text);
        }
    }
}

/// Every value grammar of `core/src/grammar/values` (times, sizes, node counts, arrays, dependencies, GRES/TRES,
/// constraints, `--begin`, signals, filename patterns, step ids, ...); the first byte picks the grammar.
pub fn fuzz_values(data: &[u8]) {
    use crate::grammar::values::*;
    let (which, rest) = split(data);
    let input = text(rest);
    let s: &str = &input;
    // A fixed clock (2023-06-15 12:00:00 UTC, UTC+05:30) keeps a crash reproducible from its input alone.
    let now = LocalNow {
        epoch_secs: 1_686_830_400,
        utc_offset_secs: 19_800,
    };
    let known = ["gpu", "mps", "shard", "nic"];
    match which % 24 {
        0 => {
            let _ = time::parse_time_secs(s);
            let _ = time::parse_time_limit(s);
            if let Ok(limit) = time::parse_job_time_limit(s) {
                let _ = time::format_time_limit(limit);
                let _ = time::format_squeue_time_limit(limit);
            }
        }
        1 => {
            if let Some(mb) = size::parse_megabytes(s) {
                let _ = size::format_megabytes(mb);
            }
            let _ = size::parse_mem(s);
            let _ = size::parse_tmp(s);
        }
        2 => {
            let _ = nodes::parse_node_count(s);
        }
        3 => {
            if let Ok(spec) = array::parse_array_spec(s, 1001) {
                let _ = format!("{spec:?}");
            }
            // The largest MaxArraySize Slurm documents; the bitmap is that size whatever the spec (as slurmctld's).
            let _ = array::parse_array_spec(s, 4_000_001);
            let _ = array::throttle(s);
        }
        4 => {
            if let Ok(spec) = dependency::parse_dependency(s) {
                let _ = format!("{spec:?}");
            }
        }
        5 => {
            let _ = gres::parse_gres(s, &known);
            let _ = gres::parse_node_gres(s, &known);
            let _ = gres::parse_gpus(s, &known);
        }
        6 => {
            if let Ok(reqs) = gres::parse_tres_per(s) {
                let _ = gres::format_tres_per(&reqs);
            }
            if let Ok(list) = gres::parse_tres_list(s) {
                let _ = gres::format_tres_list(&list);
            }
            let _ = gres::parse_gres_count(s);
        }
        7 => {
            let _ = constraint::parse_constraint(s);
        }
        8 => {
            let _ = begin::parse_begin(s, now);
            let _ = begin::parse_time(s, now, true);
            let _ = begin::parse_time(s, now, false);
        }
        9 => {
            let _ = signal::sig_name2num(s);
            let _ = signal::parse_scancel_signal(s);
            let _ = signal::parse_signal_spec(s, true);
            let _ = signal::parse_signal_spec(s, false);
        }
        10 => {
            let ctx = filename::FilenameContext {
                job_id: 1234,
                array_job_id: Some(1200),
                array_task_id: Some(34),
                job_name: "job",
                node_name: "n1",
                node_id: 0,
                task_id: 3,
                user: "alice",
                step: stepid::Step::Batch,
            };
            let _ = filename::expand_filename(s, &ctx);
            let _ = filename::single_task_io(s);
        }
        11 => {
            let _ = stepid::parse_step_id(s);
            let _ = stepid::parse_step_list(s);
        }
        12 => {
            let _ = distribution::parse_distribution(s);
        }
        13 => {
            let _ = mail::parse_mail_type(s);
        }
        14 => {
            let _ = licenses::parse(s);
            let _ = licenses::totals(Some(s));
        }
        15 => {
            // The bitmap's size comes from the caller (a job's array size), bounded here as callers bound it.
            let (size, rest) = split(rest);
            let size = usize::from(size) * 16;
            let text = self::text(rest);
            if let Ok(map) = bitmap::bit_unfmt(size, &text) {
                let _ = bitmap::bit_fmt(&map);
                let _ = bitmap::bit_fmt_hexmask(&map);
                let _ = array::format_array_tasks(&map, 0, None);
            }
            let _ = bitmap::bit_unfmt_hexmask(size, &text);
        }
        16 => {
            let _ = array::xlate_array_task_str(s, 0, None);
            let _ = array::bitstr_len_from_env(Some(s));
        }
        17 => {
            let _ = constraint::parse_constraint_known(s, &|f| matches!(f, "a" | "b" | "gpu"));
        }
        _ => {
            // The selectors left over run every grammar, so a mutation of the selector still finds one.
            let _ = time::parse_time_limit(s);
            let _ = size::parse_mem(s);
            let _ = nodes::parse_node_count(s);
            let _ = dependency::parse_dependency(s);
            let _ = gres::parse_gres(s, &known);
            let _ = begin::parse_begin(s, now);
            let _ = signal::parse_signal_spec(s, true);
        }
    }
}

/// Request frames and their prost messages (`core/src/wire/frames.rs`): header, prefix, credential and body.
#[cfg(feature = "grpc")]
pub fn fuzz_frames(data: &[u8]) {
    use crate::wire::frames;
    if let Some(header) = data.first_chunk::<{ frames::HEADER_BYTES }>() {
        let _ = frames::body_len(header, crate::wire::MAX_REQUEST_BYTES);
    }
    if let Some(prefix) = data.first_chunk::<{ frames::PREFIX_BYTES }>() {
        let _ = frames::parse_prefix(prefix, crate::wire::MAX_CREDENTIAL_BYTES);
    }
    if let Ok(frame) = frames::parse_request(data) {
        // What decodes must encode again and decode to the same frame.
        let bytes = frames::request_frame(frame.method, &frame.credential, &frame.request)
            .unwrap_or_else(|e| panic!("a decoded frame does not encode: {e}"));
        let again = frames::parse_request(&bytes[frames::HEADER_BYTES..])
            .unwrap_or_else(|e| panic!("a re-encoded frame does not decode: {e}"));
        assert_eq!(again, frame, "a frame changed through encode and decode");
        // Its document, if any, goes through the request decoders as the controller does.
        fuzz_docs_of(frame.request.body.as_ref());
    }
    let _ = frames::parse_message(data);
    let _ = frames::parse_reply(data);
}

/// Request documents (`core/src/wire/envelope.rs` `from_doc`): the first byte picks the kind and JSON or packed.
#[cfg(feature = "grpc")]
pub fn fuzz_request_docs(data: &[u8]) {
    let (which, rest) = split(data);
    let packed_schema = if which & 0x80 != 0 {
        crate::wire::MODEL_SCHEMA.to_string()
    } else {
        String::new()
    };
    let kinds = [
        "SubmitRequest",
        "ControlRequest",
        "Query",
        "AgentToController",
        "ControllerToAgent",
        "ControllerChange",
    ];
    let doc = crate::wire::pb::Doc {
        kind: kinds[usize::from(which & 0x7f) % kinds.len()].to_string(),
        version: crate::wire::DOC_VERSION,
        json: rest.to_vec(),
        packed_schema,
    };
    fuzz_docs_of(Some(&doc));
    // A job spec is what a submit carries and what the state machine stores: read it bare, both encodings.
    let _ = serde_json::from_slice::<crate::model::job::JobSpec>(rest);
    let _ = postcard::from_bytes::<crate::model::job::JobSpec>(rest);
}

#[cfg(feature = "grpc")]
fn fuzz_docs_of(doc: Option<&crate::wire::pb::Doc>) {
    use crate::wire::from_doc;
    let _ = from_doc::<crate::wire::api::SubmitRequest>(doc);
    let _ = from_doc::<crate::wire::api::ControlRequest>(doc);
    let _ = from_doc::<crate::wire::api::Query>(doc);
    let _ = from_doc::<crate::wire::agent_proto::AgentToController>(doc);
    let _ = from_doc::<crate::wire::agent_proto::ControllerToAgent>(doc);
    let _ = from_doc::<crate::model::controllers::ControllerChange>(doc);
}

/// The committed seed corpus of `target` (`core/fuzz/corpus/<target>/`), every file, in name order.
pub fn corpus(target: &str) -> std::io::Result<Vec<(String, Vec<u8>)>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&dir)? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            files.push((
                entry.file_name().to_string_lossy().into_owned(),
                std::fs::read(entry.path())?,
            ));
        }
    }
    files.sort();
    Ok(files)
}

/// Runs one input through a target as the fuzzer does, failing (panicking) when it held more than
/// [`MAX_INPUT_ALLOC_BYTES`] at once. The bound is checked only where [`CountingAlloc`] is the global allocator.
pub fn run_input(target: fn(&[u8]), data: &[u8]) {
    run_input_within(MAX_INPUT_ALLOC_BYTES, target, data)
}

/// [`run_input`] with another bound, for a decoder documented to use more ([`HOSTLIST_ALLOC_BYTES`]).
pub fn run_input_within(bound: usize, target: fn(&[u8]), data: &[u8]) {
    let peak = measure_within(bound, || target(data));
    assert!(
        peak <= bound,
        "one input held {peak} bytes at once (bound {bound}): {:?}",
        String::from_utf8_lossy(&data[..data.len().min(200)])
    );
}

/// `seed` with the edits a property test drew: each `(at, op, byte)` overwrites, inserts or removes the byte at
/// `at` (modulo the length), the mutations libFuzzer starts with.
pub fn mutate(seed: &[u8], edits: &[(u16, u8, u8)]) -> Vec<u8> {
    let mut out = seed.to_vec();
    for &(at, op, byte) in edits {
        let at = usize::from(at) % (out.len() + 1);
        match op % 4 {
            0 if at < out.len() => out[at] = byte,
            1 if at < out.len() => {
                out.remove(at);
            }
            2 => out.insert(at, byte),
            _ => out.truncate(at.max(1)),
        }
    }
    out
}
