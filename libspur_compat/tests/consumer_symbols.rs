//! The programs sites link against libslurm.so.38 must load against libspur_compat.so and not hit a stub in what
//! they call: for each consumer (pyslurm's extension modules, Debian's Perl `Slurm.so`/`Slurmdb.so`, which the
//! Torque wrappers use, `pam_slurm.so`, `pam_slurm_adopt.so`), its undefined dynamic symbols that real
//! libslurm.so.38 exports must all be exported by libspur_compat.so, and none may be a generated failing stub
//! unless [`ACCEPTED_STUBS`] says why that is acceptable.
//!
//! Needs binutils' `nm`, Debian's libslurm38, libslurm-perl, libslurmdb-perl, libpam-slurm, libpam-slurm-adopt
//! (`.ci/deps.sh`) and a pyslurm build: `SPUR_PYSLURM_BUILD` names one (a directory holding its `*.so` modules,
//! searched recursively), else the directory `conformance/pyslurm/build.sh` prints (the shared pyslurm build the
//! pyslurm conformance cases use; it builds once and caches).

// Helpers of a test: a panic there is the test failing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use spur_compat::coverage::{EXTRA, IMPLEMENTED, STUBBED};
use spur_compat::internal_stubs::{INTERNAL_IMPLEMENTED, INTERNAL_STUBBED};

const REAL_LIBSLURM: &str = "/usr/lib/x86_64-linux-gnu/libslurm.so.38";
const PERL_AUTO: &str = "/usr/lib/x86_64-linux-gnu/perl5/5.36/auto";

/// Stubs a consumer links but may keep: each is a wrapper the binding exports for every API function (no consumer
/// calls it at load time or on its ordinary path), it fails with `ESLURM_NOT_SUPPORTED` (2036) that the binding
/// hands to its caller as any Slurm error, and Spur has no counterpart to offer.
const ACCEPTED_STUBS: &[(&str, &str)] = &[
    (
        "slurm_allocation_msg_thr_create",
        "listener for the messages slurmctld sends an allocating client; Spur's controller sends API clients none",
    ),
    ("slurm_allocation_msg_thr_destroy", "pairs with slurm_allocation_msg_thr_create"),
    ("slurm_set_trigger", "event triggers (strigger): Spur has none"),
    ("slurm_clear_trigger", "event triggers (strigger): Spur has none"),
    ("slurm_pull_trigger", "event triggers (strigger): Spur has none"),
    ("slurm_sbcast_lookup", "sbcast credentials: Spur has no sbcast"),
    ("slurm_free_sbcast_cred_msg", "frees what slurm_sbcast_lookup returns, which is never anything"),
    ("slurm_load_slurmd_status", "slurmd's status RPC (scontrol show slurmd): Spur's node agent has none"),
    ("slurm_free_slurmd_status", "frees what slurm_load_slurmd_status returns, which is never anything"),
    ("slurm_print_slurmd_status", "prints what slurm_load_slurmd_status returns, which is never anything"),
    ("slurm_get_statistics", "slurmctld's scheduler statistics (sdiag): Spur's controller keeps none"),
    ("slurm_reset_statistics", "slurmctld's scheduler statistics (sdiag): Spur's controller keeps none"),
    ("slurm_reconfigure", "scontrol reconfigure: Spur's controller rereads slurm.conf when it changes"),
    ("slurm_shutdown", "scontrol shutdown: Spur's daemons are stopped by their service manager"),
    ("slurm_takeover", "scontrol takeover: Spur has no backup controller to hand over to"),
    ("slurm_set_debug_level", "scontrol setdebug: Spur's log level is set at start (RUST_LOG)"),
    ("slurm_set_debugflags", "scontrol setdebugflags: Spur has no DebugFlags"),
    ("slurm_set_schedlog_level", "scontrol setschedloglevel: Spur has no scheduler log"),
];

/// `nm -D` of `path`: the defined (`defined`) or undefined dynamic symbols, versions stripped.
fn dynamic_symbols(path: &Path, defined: bool) -> BTreeSet<String> {
    let flag = if defined {
        "--defined-only"
    } else {
        "--undefined-only"
    };
    let out = Command::new("nm")
        .args(["-D", flag])
        .arg(path)
        .output()
        .unwrap_or_else(|e| panic!("nm (binutils) on {}: {e}", path.display()));
    assert!(
        out.status.success(),
        "nm -D {flag} {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace().rev();
            let name = fields.next()?;
            let kind = fields.next()?;
            // Defined: functions and data (T, D, B, R, V, W, i); undefined: U and weak w/v.
            let keep = if defined {
                !matches!(kind, "U" | "w" | "v")
            } else {
                matches!(kind, "U" | "w" | "v")
            };
            keep.then(|| name.split('@').next().unwrap_or(name).to_string())
        })
        .collect()
}

/// libspur_compat.so as this test's build made it: `cargo test` writes the cdylib next to the test binary
/// (`target/<profile>/deps/`); only `cargo build` copies it up to `target/<profile>/`, which may be older.
fn our_library() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let deps = exe.parent().expect("test binary in target/<profile>/deps");
    [
        deps.join("libspur_compat.so"),
        deps.join("../libspur_compat.so"),
    ]
    .into_iter()
    .find(|p| p.exists())
    .expect("libspur_compat.so not built")
}

/// The pyslurm build directory: SPUR_PYSLURM_BUILD, else what conformance/pyslurm/build.sh prints.
fn pyslurm_build() -> PathBuf {
    if let Some(dir) = std::env::var_os("SPUR_PYSLURM_BUILD") {
        return PathBuf::from(dir);
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/pyslurm/build.sh");
    let out = Command::new("bash")
        .arg(&script)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", script.display()));
    assert!(
        out.status.success(),
        "{} failed:\n{}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

fn shared_objects(dir: &Path, found: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            shared_objects(&path, found);
        } else if path.extension().is_some_and(|e| e == "so") {
            found.push(path);
        }
    }
}

/// Every consumer binary, by a short name for the report.
fn consumers() -> Vec<(String, PathBuf)> {
    let mut list: Vec<(String, PathBuf)> = [
        ("perl Slurm", format!("{PERL_AUTO}/Slurm/Slurm.so")),
        ("perl Slurmdb", format!("{PERL_AUTO}/Slurmdb/Slurmdb.so")),
        ("pam_slurm", "/lib/security/pam_slurm.so".to_string()),
        (
            "pam_slurm_adopt",
            "/lib/security/pam_slurm_adopt.so".to_string(),
        ),
    ]
    .into_iter()
    .map(|(name, path)| (name.to_string(), PathBuf::from(path)))
    .collect();
    for (name, path) in &list {
        assert!(
            path.exists(),
            "{name}: {} missing (install the packages .ci/deps.sh names)",
            path.display()
        );
    }
    let build = pyslurm_build();
    let mut modules = Vec::new();
    shared_objects(&build, &mut modules);
    assert!(
        modules
            .iter()
            .any(|m| m.to_string_lossy().contains("pyslurm")),
        "no pyslurm extension module under {}",
        build.display()
    );
    modules.sort();
    for module in modules {
        let short = module
            .strip_prefix(&build)
            .unwrap_or(&module)
            .display()
            .to_string();
        list.push((format!("pyslurm {short}"), module));
    }
    list
}

#[test]
fn consumers_resolve_every_libslurm_symbol_against_the_shim() {
    let real = dynamic_symbols(Path::new(REAL_LIBSLURM), true);
    let ours = dynamic_symbols(&our_library(), true);
    let stubs: BTreeSet<&str> = STUBBED
        .iter()
        .copied()
        .chain(INTERNAL_STUBBED.iter().map(|(name, _)| *name))
        .collect();
    let accepted: BTreeSet<&str> = ACCEPTED_STUBS.iter().map(|(name, _)| *name).collect();

    let mut problems = Vec::new();
    let mut needed_total = BTreeSet::new();
    let mut all_missing = BTreeSet::new();
    let mut all_stubbed = BTreeSet::new();
    for (name, path) in consumers() {
        let needed: BTreeSet<String> = dynamic_symbols(&path, false)
            .into_iter()
            .filter(|s| real.contains(s))
            .collect();
        let missing: Vec<&String> = needed.iter().filter(|s| !ours.contains(*s)).collect();
        let stubbed: Vec<&String> = needed
            .iter()
            .filter(|s| stubs.contains(s.as_str()) && !accepted.contains(s.as_str()))
            .collect();
        if !missing.is_empty() {
            problems.push(format!(
                "{name}: {} symbol(s) not exported by libspur_compat.so: {}",
                missing.len(),
                join(&missing)
            ));
        }
        if !stubbed.is_empty() {
            problems.push(format!(
                "{name}: {} symbol(s) only a failing stub: {}",
                stubbed.len(),
                join(&stubbed)
            ));
        }
        all_missing.extend(missing.into_iter().cloned());
        all_stubbed.extend(stubbed.into_iter().cloned());
        needed_total.extend(needed);
    }
    // A sanity floor: a consumer list that silently shrank (nm output misread) would pass vacuously.
    assert!(
        needed_total.len() > 200,
        "only {} libslurm symbols needed",
        needed_total.len()
    );
    for (name, _) in ACCEPTED_STUBS {
        assert!(
            stubs.contains(name),
            "{name} is accepted as a stub but is implemented now: drop it"
        );
        assert!(
            needed_total.contains(*name),
            "{name} is accepted as a stub but no consumer needs it"
        );
    }
    if !problems.is_empty() {
        problems.push(format!(
            "in all: {} missing, {} stubbed: {}",
            all_missing.len(),
            all_stubbed.len(),
            all_missing
                .iter()
                .chain(&all_stubbed)
                .cloned()
                .collect::<Vec<_>>()
                .join(" ")
        ));
    }
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

/// Data objects libslurm exports (not functions; helpers define them as statics).
const DATA_EXPORTS: &[&str] = &[
    "slurm_conf",
    "working_cluster_rec",
    "slurm_cgroup_conf",
    "slurm_conf_options",
    "slurm_prog_name",
];

/// Every function real libslurm.so.38 exports is implemented or stubbed here, by the crate's own lists and in the
/// built library; public-api.txt and internal-api.txt name nothing it does not export.
#[test]
fn every_real_export_is_implemented_or_stubbed() {
    let real = dynamic_symbols(Path::new(REAL_LIBSLURM), true);
    let ours = dynamic_symbols(&our_library(), true);
    let listed: BTreeSet<&str> = IMPLEMENTED
        .iter()
        .chain(STUBBED)
        .chain(EXTRA)
        .chain(INTERNAL_IMPLEMENTED)
        .copied()
        .chain(INTERNAL_STUBBED.iter().map(|(name, _)| *name))
        .collect();
    let functions: Vec<&String> = real
        .iter()
        .filter(|s| !DATA_EXPORTS.contains(&s.as_str()))
        .collect();
    assert!(
        functions.len() > 1200,
        "only {} exports read from {REAL_LIBSLURM}",
        functions.len()
    );
    let unlisted: Vec<&String> = functions
        .iter()
        .copied()
        .filter(|s| !listed.contains(s.as_str()))
        .collect();
    assert!(
        unlisted.is_empty(),
        "neither implemented nor stubbed: {}",
        join(&unlisted)
    );
    let unexported: Vec<&String> = functions
        .iter()
        .copied()
        .filter(|s| !ours.contains(*s))
        .collect();
    assert!(
        unexported.is_empty(),
        "not exported by libspur_compat.so: {}",
        join(&unexported)
    );
    let unknown: Vec<&str> = STUBBED
        .iter()
        .chain(IMPLEMENTED)
        .copied()
        .chain(INTERNAL_STUBBED.iter().map(|(name, _)| *name))
        .chain(INTERNAL_IMPLEMENTED.iter().copied())
        .filter(|s| !real.contains(*s))
        .collect();
    assert!(
        unknown.is_empty(),
        "listed but not exported by real libslurm: {unknown:?}"
    );
    // Each prefixed export in particular (the wording): nothing slurm_/slurmdb_ is left to resolve.
    assert!(functions
        .iter()
        .filter(|s| s.starts_with("slurm_") || s.starts_with("slurmdb_"))
        .all(|s| listed.contains(s.as_str())));
}

/// A stub must fail cleanly: NULL/false/-1 of the right width and errno ESLURM_NOT_SUPPORTED, never a crash.
#[test]
fn internal_stubs_fail_with_not_supported() {
    let lib = our_library();
    let probes: Vec<(&str, &str)> = INTERNAL_STUBBED
        .iter()
        .copied()
        .filter(|(name, _)| {
            matches!(
                *name,
                "slurm_cred_faker"
                    | "slurm_hostset_create"
                    | "slurm_running_in_daemon"
                    | "slurm_get_port"
                    | "slurmdb_parse_purge"
                    | "slurm_mktime"
                    | "plugin_context_destroy"
            )
        })
        .collect();
    assert!(
        !probes.is_empty(),
        "no probe stubs left: pick others from INTERNAL_STUBBED"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let mut c = String::from("#include <dlfcn.h>\n#include <errno.h>\n#include <stdio.h>\n#include <stdint.h>\n#include <stdbool.h>\nint main(void) {\n");
    c.push_str(&format!(
        "    void *h = dlopen(\"{}\", RTLD_NOW);\n    if (!h) {{ puts(dlerror()); return 1; }}\n",
        lib.display()
    ));
    let mut expected = String::new();
    for (name, kind) in &probes {
        let (ty, fmt, cast, value) = match *kind {
            "ptr" => ("void *", "%p", "", "(nil)"),
            "bool" => ("bool", "%d", "(int)", "0"),
            "int" => ("int", "%d", "", "-1"),
            "long" => ("long", "%ld", "", "-1"),
            "u16" => ("uint16_t", "%u", "(unsigned)", "0"),
            "u32_noval" => ("uint32_t", "%u", "", "4294967294"),
            other => panic!("add a probe format for kind {other}"),
        };
        c.push_str(&format!(
            "    {{ {ty} (*f)(void) = ({ty} (*)(void))dlsym(h, \"{name}\"); errno = 0; (void)f(); {ty} r = f(); printf(\"{name} {fmt} %d\\n\", {cast}r, errno); }}\n"
        ));
        expected.push_str(&format!("{name} {value} 2036\n"));
    }
    c.push_str("    return 0;\n}\n");
    let src = dir.path().join("probe.c");
    let exe = dir.path().join("probe");
    std::fs::write(&src, c).expect("write probe.c");
    let cc = Command::new("gcc")
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .arg("-ldl")
        .output()
        .expect("gcc");
    assert!(
        cc.status.success(),
        "{}",
        String::from_utf8_lossy(&cc.stderr)
    );
    let run = Command::new(&exe).output().expect("run probe");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stdout)
    );
    assert_eq!(String::from_utf8_lossy(&run.stdout), expected);
    // One log line per stub, however often it is called.
    let log = String::from_utf8_lossy(&run.stderr);
    for (name, _) in &probes {
        assert_eq!(
            log.matches(&format!("{name}() is not supported")).count(),
            1,
            "{log}"
        );
    }
}

fn join(names: &[&String]) -> String {
    names
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}
