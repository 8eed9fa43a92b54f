//! Generates Rust bindings of the system's OpenPMIx 4.2 server API (Debian `libpmix-dev`) and links libpmix.
//! Only what the server uses is allowlisted, so a libpmix upgrade that changes something else cannot break us.

// A build script reports failure by panicking: cargo prints the message and stops the build (the workspace
// denies unwrap and expect outside tests).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

/// Debian installs OpenPMIx under a versioned prefix; `PMIX_PREFIX` overrides it (the directory holding
/// `include/pmix_server.h` and `lib/libpmix.so`).
fn prefix() -> PathBuf {
    std::env::var_os("PMIX_PREFIX")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/lib/x86_64-linux-gnu/pmix2"))
}

fn main() {
    println!("cargo:rerun-if-env-changed=PMIX_PREFIX");
    let prefix = prefix();
    let include = prefix.join("include");
    let header = include.join("pmix_server.h");
    if !header.exists() {
        panic!(
            "\n\npmix-plugin: {} not found.\nInstall OpenPMIx 4.2's development files \
             (Debian: `apt-get install libpmix-dev libclang-dev clang`, or run .ci/deps.sh),\n\
             or set PMIX_PREFIX to the directory that contains include/pmix_server.h and lib/libpmix.so.\n",
            header.display()
        );
    }
    for h in ["pmix_server.h", "pmix_common.h", "pmix.h", "pmix_version.h"] {
        println!("cargo:rerun-if-changed={}", include.join(h).display());
    }
    let bindings = bindgen::Builder::default()
        .header_contents("spur_pmix_all.h", "#include <pmix_server.h>\n")
        .clang_arg(format!("-I{}", include.display()))
        .allowlist_function(
            "PMIx_server_(init|finalize|register_nspace|deregister_nspace|register_client|\
             deregister_client|setup_fork)|PMIx_generate_(regex|ppn)|PMIx_Info_list_(start|add|convert|release)|\
             PMIx_Data_array_destruct|PMIx_Error_string|PMIx_Get_version",
        )
        .allowlist_type("pmix_server_module_t|pmix_proc_t|pmix_info_t|pmix_data_array_t")
        // Attribute names, data types and status codes are plain #defines.
        .allowlist_var("PMIX_[A-Z0-9_]+")
        .default_enum_style(bindgen::EnumVariation::Consts)
        .derive_default(false)
        .layout_tests(true)
        .generate_comments(false)
        .parse_callbacks(Box::new(bindgen::CargoCallbacks::new()))
        .generate()
        .unwrap_or_else(|e| panic!("pmix-plugin: bindgen could not parse {}: {e}", header.display()));
    let out =
        PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("bindings.rs");
    bindings
        .write_to_file(&out)
        .unwrap_or_else(|e| panic!("pmix-plugin: cannot write {}: {e}", out.display()));
    let lib = prefix.join("lib");
    println!("cargo:rustc-link-search=native={}", lib.display());
    println!("cargo:rustc-link-lib=dylib=pmix");
    // The accept filter (src/guard.rs) must be the `accept` libpmix binds to: the executables that start the
    // server export it. spurstepd's build script does the same for its binary.
    println!("cargo:rustc-link-arg-tests=-Wl,--export-dynamic-symbol=accept");
}
