//! Generates the gRPC code from core/src/wire/proto with protox (no system protoc) when the `grpc` feature is on, and
//! fingerprints the job model for the packed (binary) wire encoding.
use std::path::{Path, PathBuf};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=src/wire/proto/spur.proto");
    println!("cargo:rerun-if-changed=src");
    println!(
        "cargo:rustc-env=SPUR_MODEL_SCHEMA={}",
        model_schema(Path::new("src"))?
    );
    if std::env::var_os("CARGO_FEATURE_GRPC").is_none() {
        return Ok(());
    }
    let descriptors = protox::compile(["spur.proto"], ["src/wire/proto"])?;
    tonic_prost_build::configure().compile_fds(descriptors)?;
    Ok(())
}

/// A positional binary encoding (postcard) carries no field names, so reader and writer must be built from the
/// very same type definitions. Any change to this crate's sources changes the id; two builds with different ids
/// talk JSON. FNV-1a over the sorted paths and contents: stable across toolchains, unlike std's hasher.
fn model_schema(src: &Path) -> Result<String, Box<dyn std::error::Error>> {
    let mut files = Vec::new();
    collect_sources(src, &mut files)?;
    files.sort();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    feed(env!("CARGO_PKG_VERSION").as_bytes());
    for file in &files {
        feed(file.to_string_lossy().as_bytes());
        feed(&std::fs::read(file)?);
    }
    Ok(format!("{}-{hash:016x}", env!("CARGO_PKG_VERSION")))
}

fn collect_sources(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_sources(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}
