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
    if !EXTRA.is_empty() {
        out.push_str("\n### Also exported (declared in the headers, outside the public list)\n\n");
        for name in EXTRA {
            out.push_str(&format!("- `{name}`\n"));
        }
    }
    out.push_str("\n### Stubs (not supported yet)\n\n");
    for name in STUBBED {
        out.push_str(&format!("- `{name}`\n"));
    }
    out
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
