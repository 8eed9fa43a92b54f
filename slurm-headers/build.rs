//! Generates Rust bindings of Debian's Slurm 22.05 headers (package `libslurm-dev`) so every struct the C shim
//! fills has Slurm's exact size and field offsets; bindgen's layout tests check them against clang's view.

// A build script reports failure by panicking: cargo prints the message and stops the build (the workspace
// denies unwrap and expect outside tests).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

/// Where `libslurm-dev` installs the headers; `SLURM_INCLUDE_DIR` overrides it (the directory holding `slurm/`).
fn include_dir() -> PathBuf {
    std::env::var_os("SLURM_INCLUDE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/include"))
}

fn main() {
    println!("cargo:rerun-if-env-changed=SLURM_INCLUDE_DIR");
    let include = include_dir();
    let header = include.join("slurm/slurm.h");
    if !header.exists() {
        // A panic is how a build script fails; the message is what the user sees.
        panic!(
            "\n\nslurm-headers: {} not found.\nInstall Slurm 22.05's development headers \
             (Debian: `apt-get install libslurm-dev libclang-dev clang`, or run .ci/deps.sh),\n\
             or set SLURM_INCLUDE_DIR to the directory that contains slurm/slurm.h.\n",
            header.display()
        );
    }
    for h in ["slurm.h", "slurmdb.h", "slurm_errno.h", "slurm_version.h"] {
        println!(
            "cargo:rerun-if-changed={}",
            include.join("slurm").join(h).display()
        );
    }
    let bindings = bindgen::Builder::default()
        .header_contents(
            "spur_slurm_all.h",
            "#include <slurm/slurm.h>\n#include <slurm/slurmdb.h>\n#include <slurm/slurm_errno.h>\n",
        )
        .clang_arg(format!("-I{}", include.display()))
        // Everything the Slurm headers declare, and the system types they use; nothing else from libc.
        .allowlist_file(".*/slurm/slurm(db|_errno|_version)?\\.h")
        .default_enum_style(bindgen::EnumVariation::Consts)
        .derive_default(false)
        .layout_tests(true)
        .generate_comments(false)
        .parse_callbacks(Box::new(bindgen::CargoCallbacks::new()))
        .generate()
        .unwrap_or_else(|e| panic!("slurm-headers: bindgen could not parse {}: {e}", header.display()));
    let out =
        PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("bindings.rs");
    bindings
        .write_to_file(&out)
        .unwrap_or_else(|e| panic!("slurm-headers: cannot write {}: {e}", out.display()));
    // Read by libspur_compat's build script to give its not-yet-implemented exports their declared signatures.
    println!("cargo:bindings={}", out.display());
}
