//! The second half of the export surface: every function libslurm.so.38 exports beyond the public API
//! (`internal-api.txt`: Slurm's src/common helpers under their `slurm_`/`slurmdb_` aliases, and a few others).
//! A program linked against real Slurm may call any of them, so each must resolve here too: the ones implemented
//! under `src/` (Rust) or in a C file of the crate are left alone, every other one gets a generated stub that logs
//! once, sets `ESLURM_NOT_SUPPORTED` and returns its failure value.
//!
//! The stubs take no parameters: on x86-64 (and every ABI Debian's libslurm is built for) the caller owns the
//! argument registers and stack, so a callee that ignores them is safe whatever the C signature, variadic ones
//! included. What must match is the return value's width and kind, which the file's second column gives.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

/// Rust return type and failure value of each kind `internal-api.txt` may name.
fn kind(kind: &str) -> Option<(&'static str, &'static str)> {
    Some(match kind {
        "void" => ("()", "()"),
        // SLURM_ERROR, or -1 of a 64-bit signed type (ssize_t, bitoff_t, time_t).
        "int" => ("i32", "-1"),
        "long" => ("i64", "-1"),
        "bool" => ("bool", "false"),
        "ptr" => ("*mut std::ffi::c_void", "std::ptr::null_mut()"),
        "u16" => ("u16", "0"),
        "u32" => ("u32", "0"),
        "u64" => ("u64", "0"),
        // NO_VAL16 / NO_VAL / NO_VAL64: what Slurm's lookups return for "not found".
        "u16_noval" => ("u16", "0xfffe"),
        "u32_noval" => ("u32", "0xffff_fffe"),
        "u64_noval" => ("u64", "0xffff_ffff_ffff_fffe"),
        // INFINITE64: slurmdb's "no such TRES in the string".
        "u64_infinite" => ("u64", "0xffff_ffff_ffff_ffff"),
        // (uid_t)-1.
        "u32_max" => ("u32", "0xffff_ffff"),
        "double" => ("f64", "0.0"),
        _ => return None,
    })
}

/// Appends the internal stubs and the `INTERNAL_*` lists to the generated code. `implemented` is what build.rs's
/// own scan of `src/` found (its rules for macro-made exports included); the names this module finds itself are
/// added to it.
pub fn generate(out: &mut String, public: &[String], implemented: &BTreeMap<String, String>) {
    println!("cargo:rerun-if-changed=internal-api.txt");
    let text =
        std::fs::read_to_string("internal-api.txt").expect("libspur_compat/internal-api.txt");
    let mut defined = defined_names(Path::new("."));
    defined.extend(implemented.keys().cloned());
    let mut stubbed = Vec::new();
    let mut implemented = Vec::new();
    let mut seen = BTreeSet::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut fields = line.split_whitespace();
        let (Some(name), Some(k), None) = (fields.next(), fields.next(), fields.next()) else {
            panic!("internal-api.txt: `{line}` is not `name kind`");
        };
        let (ret, value) =
            kind(k).unwrap_or_else(|| panic!("internal-api.txt: unknown kind `{k}` for {name}"));
        assert!(
            seen.insert(name.to_string()),
            "internal-api.txt: {name} listed twice"
        );
        assert!(
            !public.iter().any(|p| p == name),
            "internal-api.txt: {name} is in public-api.txt"
        );
        if defined.contains(name) {
            implemented.push(name.to_string());
            continue;
        }
        writeln!(
            out,
            "#[no_mangle]\npub unsafe extern \"C\" fn {name}() -> {ret} {{ crate::internal_stubs::fail(\"{name}\", {value}) }}"
        )
        .ok();
        stubbed.push(format!("({name:?}, {k:?})"));
    }
    writeln!(
        out,
        "/// Internal exports (internal-api.txt) implemented under src/ or in the crate's C code."
    )
    .ok();
    writeln!(
        out,
        "pub const INTERNAL_IMPLEMENTED: &[&str] = &{implemented:?};"
    )
    .ok();
    writeln!(
        out,
        "/// Internal exports generated as failing stubs, with their return kind."
    )
    .ok();
    writeln!(
        out,
        "pub const INTERNAL_STUBBED: &[(&str, &str)] = &[{}];",
        stubbed.join(", ")
    )
    .ok();
}

/// Names of every function the crate defines itself: `extern "C" fn` items under `src/` and top-level function
/// definitions in its C files (a C definition and a generated stub of one name would not link).
fn defined_names(root: &Path) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let file_name = entry.file_name();
            if path.is_dir() {
                // tests/ holds C test programs, not the library's code; target/ may sit here in odd setups.
                if !matches!(file_name.to_str(), Some("tests" | "target" | "build")) {
                    stack.push(path);
                }
                continue;
            }
            let ext = path.extension().and_then(|e| e.to_str());
            if !matches!(ext, Some("rs" | "c")) {
                continue;
            }
            println!("cargo:rerun-if-changed={}", path.display());
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            for line in text.lines() {
                let name = if ext == Some("rs") {
                    rust_export(line)
                } else {
                    c_definition(line)
                };
                if let Some(name) = name {
                    found.insert(name);
                }
            }
        }
    }
    found
}

fn rust_export(line: &str) -> Option<String> {
    let line = line.trim_start();
    let rest = line
        .strip_prefix("pub unsafe extern \"C\" fn ")
        .or_else(|| line.strip_prefix("pub extern \"C\" fn "))?;
    Some(ident(rest))
}

/// `type name(` at the start of a line, not ending in `;` (a prototype) and not a static function.
fn c_definition(line: &str) -> Option<String> {
    if line.starts_with([' ', '\t', '#', '/', '*', '}', '{']) || line.trim_end().ends_with(';') {
        return None;
    }
    if line.starts_with("static ") {
        return None;
    }
    let open = line.find('(')?;
    let head = line[..open].trim_end();
    let start = head
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    // GNU style puts the return type on the line before, leaving the name at column 0.
    let name = &head[start..];
    (!name.is_empty() && !matches!(name, "if" | "for" | "while" | "switch" | "return"))
        .then(|| name.to_string())
}

fn ident(text: &str) -> String {
    text.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}
