use spur_core::grammar::values::signal::*;

use super::tsv::load;

/// Slurm's `sig_name2num` result as an int, 0 meaning invalid.
fn ours(input: &str) -> i32 {
    sig_name2num(input).unwrap_or(0)
}

#[test]
fn reference_signal_names() {
    for row in load("reference/signal_names.tsv", false) {
        let want: i32 = row.get(1).parse().unwrap();
        assert_eq!(
            ours(row.get(0)),
            want,
            "line {}: {:?}",
            row.line,
            row.get(0)
        );
    }
}

#[test]
fn generated_signal_names() {
    for row in load("sig_names.tsv", true) {
        let want: i32 = row.get(1).parse().unwrap();
        assert_eq!(
            ours(row.get(0)),
            want,
            "line {}: {:?}",
            row.line,
            row.get(0)
        );
    }
}

#[test]
fn generated_signal_opts_outside_sbatch() {
    for row in load("signal_opts.tsv", true) {
        let input = row.get(0);
        let got = parse_signal_spec(input, false);
        if row.get(1) != "0" {
            assert_eq!(
                got,
                Err(SignalError::InvalidSpec),
                "line {}: {input:?}",
                row.line
            );
            continue;
        }
        let spec = got.unwrap_or_else(|e| panic!("line {}: {input:?}: {e}", row.line));
        let flags = u16::from_str_radix(row.get(4).trim_start_matches("0x"), 16).unwrap();
        assert_eq!(spec.signal.to_string(), row.get(2), "line {}", row.line);
        assert_eq!(spec.time.to_string(), row.get(3), "line {}", row.line);
        assert_eq!(spec.reservation, flags & 0x100 != 0, "line {}", row.line);
        assert!(!spec.batch_only, "line {}", row.line);
    }
}

#[test]
fn generated_signal_opts_in_sbatch() {
    for row in load("signal_opts.tsv", true) {
        let input = row.get(0);
        let shown = match parse_signal_spec(input, true) {
            Ok(spec) => spec.to_string(),
            Err(e) => format!("error: {e}"),
        };
        assert_eq!(shown, row.get(5), "line {}: {input:?}", row.line);
    }
}
