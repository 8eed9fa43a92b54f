//! `spur-history-bench` at a size CI runs (the 1,000,000-job figures are in docs/performance.md): it runs to the
//! end, and the replicated state it reports stays flat while the store grows. Sizes only; times are the bench's to
//! print, never asserted.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::process::Command;

#[test]
fn the_state_stays_flat_while_the_history_grows() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_spur-history-bench"))
        .args(["--jobs", "6000", "--every", "1500", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // | jobs | live jobs | buffer | snapshot MB | RSS MB | store MB | restart ms | jobs/s |
    let rows: Vec<Vec<f64>> = text
        .lines()
        .filter(|l| l.starts_with("| ") && l.as_bytes().get(2).is_some_and(u8::is_ascii_digit))
        .map(|l| {
            l.split('|')
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(|c| c.parse().unwrap())
                .collect()
        })
        .collect();
    assert_eq!(rows.len(), 4, "{text}");
    let last = rows.last().unwrap();
    assert_eq!(last[0], 6000.0);
    for row in &rows {
        // 70 jobs a minute, purged after MinJobAge (5 min) and kept in the buffer 10 more.
        assert!(row[1] <= 420.0, "live jobs: {text}");
        assert_eq!(row[2], 700.0, "the handoff buffer: {text}");
        assert!(row[3] < 2.0, "snapshot MB: {text}");
    }
    assert!(last[5] > rows[0][5], "the store grows: {text}");
    assert!(
        text.contains("sacct -S day -E nextday: 6000 jobs"),
        "{text}"
    );
    assert!(text.contains("sacct -j 42: 1 job"), "{text}");
}
