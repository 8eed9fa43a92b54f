//! bindgen's view of `pmix_server.h` (see build.rs for what is allowlisted).
#![allow(
    non_camel_case_types,
    non_snake_case,
    non_upper_case_globals,
    dead_code,
    clippy::all,
    clippy::undocumented_unsafe_blocks
)]
include!(concat!(env!("OUT_DIR"), "/bindings.rs"));
