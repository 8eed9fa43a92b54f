//! Which of Slurm's 341 public functions the shim implements; `docs/libspur_compat.md` is rendered from this and
//! a test keeps it current (`UPDATE_COVERAGE=1 cargo test -p libspur_compat coverage` rewrites it).

pub use crate::generated::{EXTRA, IMPLEMENTED, STUBBED};

/// The coverage section of docs/libspur_compat.md.
pub fn report() -> String {
    let total = IMPLEMENTED.len() + STUBBED.len();
    let mut out = format!(
        "<!-- generated from libspur_compat/src/coverage.rs; do not edit by hand -->\n\
         ## Coverage\n\n{} of {} public libslurm functions implemented; the other {} are exported as stubs that \
         log once and fail with `ESLURM_NOT_SUPPORTED` (2036).\n\n",
        IMPLEMENTED.len(),
        total,
        STUBBED.len()
    );
    out.push_str("### Implemented\n\n");
    for name in IMPLEMENTED {
        out.push_str(&format!("- `{name}`\n"));
    }
    // Internal exports (internal-api.txt) that are implemented are listed in their own section below.
    let extra: Vec<&&str> = EXTRA
        .iter()
        .filter(|n| !crate::internal_stubs::INTERNAL_IMPLEMENTED.contains(n))
        .collect();
    if !extra.is_empty() {
        out.push_str("\n### Also exported (declared in the headers, outside the public list)\n\n");
        for name in extra {
            out.push_str(&format!("- `{name}`\n"));
        }
    }
    out.push_str("\n### Stubs (not supported yet)\n\n");
    for name in STUBBED {
        out.push_str(&format!("- `{name}`\n"));
    }
    out.push_str(&internal_report());
    out
}

/// The internal exports' section (`internal-api.txt`): what is implemented, and the stubs by return kind.
fn internal_report() -> String {
    use crate::internal_stubs::{INTERNAL_IMPLEMENTED, INTERNAL_STUBBED};
    let mut out = format!(
        "\n## Internal exports\n\nlibslurm.so.38 also exports {} functions outside the public API (Slurm's \
         src/common helpers under `slurm_`/`slurmdb_` names, `islurm_get_rem_time*__`, `plugin_context_*`; \
         `libspur_compat/internal-api.txt`). {} are implemented; the other {} are generated stubs that take no \
         arguments, log once, set `ESLURM_NOT_SUPPORTED` and return the failure value of their return kind.\n",
        INTERNAL_IMPLEMENTED.len() + INTERNAL_STUBBED.len(),
        INTERNAL_IMPLEMENTED.len(),
        INTERNAL_STUBBED.len()
    );
    if !INTERNAL_IMPLEMENTED.is_empty() {
        out.push_str("\n### Internal exports implemented\n\n");
        for name in INTERNAL_IMPLEMENTED {
            out.push_str(&format!("- `{name}`\n"));
        }
    }
    out.push_str("\n### Internal stubs\n\n| function | returns |\n| --- | --- |\n");
    for (name, kind) in INTERNAL_STUBBED {
        out.push_str(&format!("| `{name}` | {} |\n", kind_text(kind)));
    }
    out
}

fn kind_text(kind: &str) -> &'static str {
    match kind {
        "void" => "nothing",
        "int" => "-1",
        "long" => "-1 (64-bit)",
        "bool" => "false",
        "ptr" => "NULL",
        "u16" | "u32" | "u64" => "0",
        "u16_noval" => "`NO_VAL16`",
        "u32_noval" => "`NO_VAL`",
        "u64_noval" => "`NO_VAL64`",
        "u64_infinite" => "`INFINITE64`",
        "u32_max" => "`(uid_t)-1`",
        "double" => "0.0",
        _ => "?",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/libspur_compat.md");
    const MARK: &str = "<!-- generated from libspur_compat/src/coverage.rs";

    #[test]
    fn coverage_doc_is_current() {
        let doc = std::fs::read_to_string(DOC).unwrap_or_default();
        let head = doc.find(MARK).map_or(doc.as_str(), |i| &doc[..i]);
        let expected = format!("{head}{}", report());
        if std::env::var_os("UPDATE_COVERAGE").is_some() {
            std::fs::write(DOC, &expected).expect("write docs/libspur_compat.md");
            return;
        }
        pretty_assertions::assert_eq!(
            doc,
            expected,
            "run UPDATE_COVERAGE=1 cargo test -p libspur_compat coverage"
        );
    }

    #[test]
    fn every_public_function_is_exported_once() {
        let public = include_str!("../public-api.txt")
            .lines()
            .filter(|l| !l.is_empty())
            .count();
        assert_eq!(public, 341);
        assert_eq!(IMPLEMENTED.len() + STUBBED.len(), public);
    }
}
