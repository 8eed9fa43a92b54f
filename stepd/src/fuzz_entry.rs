//! Fuzzing entry points of the supervisor's decoders: its control socket's JSON lines, the files the agent and the
//! supervisor hand each other, and step I/O frames. Called by `core/fuzz` (cargo-fuzz) and
//! `stepd/tests/fuzz_corpus.rs` (the same inputs in the normal test suite). Each must return for any input.

use std::io::Cursor;

use crate::step_tasks::StepSupervisorSpec;
use spur_core::model::step_launch::StepAttach;
use spur_core::wire::step_io::{decode_blobs, encode_blobs, Frame, MAX_FRAME_DATA};
use spur_core::wire::supervisor::{JobResult, LaunchSpec, Started};

/// The control protocol (`daemon/conn.rs` `parse_request`), the wake datagram and the JSON documents.
pub fn fuzz_stepd_protocol(data: &[u8]) {
    // The connection splits lines at '\n'; each line is one request.
    for line in data.split(|&b| b == b'\n') {
        if let Ok(request) = crate::daemon::conn::parse_request(line) {
            let _ = format!("{request:?}");
        }
    }
    let _ = spur_core::wire::supervisor::woken_job(data);
    let _ = serde_json::from_slice::<LaunchSpec>(data);
    let _ = serde_json::from_slice::<Started>(data);
    let _ = serde_json::from_slice::<JobResult>(data);
    let _ = serde_json::from_slice::<StepSupervisorSpec>(data);
    let _ = serde_json::from_slice::<StepAttach>(data);
    fuzz_pmi_wire(data);
}

/// A task's PMI requests (`pmi/wire.rs`): the init line, then PMI-1 lines and PMI-2 messages as the server reads
/// them from the task's socket.
pub fn fuzz_pmi_wire(data: &[u8]) {
    use crate::pmi::wire::{parse_init, Reader, Request, Version, MAX_MESSAGE};
    let _ = parse_init(data);
    for version in [Version::Pmi1, Version::Pmi2] {
        let _ = Request::parse(data, version);
        let mut reader = Reader::new(data);
        // Each request consumes input, so this ends; the bound only caps a slow case.
        for _ in 0..=data.len() {
            let next = match version {
                Version::Pmi1 => reader.line(),
                Version::Pmi2 => reader.message(),
            };
            match next {
                Ok(Some(body)) => {
                    assert!(body.len() <= MAX_MESSAGE + 4096, "a request past the limit");
                    let _ = Request::parse(&body, version);
                }
                Ok(None) | Err(_) => break,
            }
        }
    }
}

/// Step I/O frames (`step_io.rs`) read one after another from the input, as from a socket.
pub fn fuzz_step_io(data: &[u8]) {
    let mut input = Cursor::new(data);
    // Each frame consumes at least its 13-byte header, so this ends; the bound only caps a slow case.
    for _ in 0..=data.len() {
        match Frame::read_from(&mut input) {
            Ok(Some(frame)) => {
                assert!(frame.data.len() <= MAX_FRAME_DATA, "a frame past the limit");
                let bytes = frame.encode();
                let again = Frame::read_from(&mut bytes.as_slice());
                assert_eq!(
                    again.ok().flatten().as_ref(),
                    Some(&frame),
                    "frame round trip"
                );
            }
            Ok(None) | Err(_) => break,
        }
    }
    // The fabric's result lists: whatever decodes encodes back to the same bytes.
    if let Some(blobs) = decode_blobs(data) {
        assert_eq!(encode_blobs(&blobs), data, "blob list round trip");
    }
}
