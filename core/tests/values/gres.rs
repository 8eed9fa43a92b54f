use spur_core::grammar::values::gres::*;

use super::tsv::load;

/// The private controller's `GresTypes`.
const KNOWN: &[&str] = &["gpu", "shard"];

#[test]
fn controller_gres_specs() {
    for row in load("gres_specs.tsv", false) {
        let (option, value) = (row.get(0), row.get(1));
        let (parsed, field) = match option {
            "--gres" => (parse_gres(value, KNOWN), "TresPerNode"),
            "--gpus" => (parse_gpus(value, KNOWN), "TresPerJob"),
            "--gpus-per-node" => (parse_gpus(value, KNOWN), "TresPerNode"),
            "--gpus-per-task" => (parse_gpus(value, KNOWN), "TresPerTask"),
            "--cpus-per-gpu" => {
                let n: u64 = value.parse().unwrap();
                assert_eq!(
                    format!("CpusPerTres={}", format_per_gpu(n)),
                    row.get(3),
                    "line {}",
                    row.line
                );
                continue;
            }
            other => panic!("line {}: unknown option {other}", row.line),
        };
        if row.get(2) == "error" {
            let want = row
                .get(3)
                .trim_start_matches("Batch job submission failed: ");
            assert_eq!(
                parsed
                    .map(|r| format_tres_per(&r))
                    .map_err(|e| e.to_string()),
                Err(want.to_string())
            );
            continue;
        }
        let reqs = parsed.unwrap_or_else(|e| panic!("line {}: {option}={value}: {e}", row.line));
        assert_eq!(
            format!("{field}={}", format_tres_per(&reqs)),
            row.get(3),
            "line {}: {option}={value}",
            row.line
        );
        assert_eq!(
            parse_tres_per(&format_tres_per(&reqs)),
            Ok(reqs),
            "line {}: round trip",
            row.line
        );
    }
}

#[test]
fn captured_tres_strings() {
    // Every TRES=/CfgTRES=/AllocTRES= value in the reference captures round-trips.
    for text in [
        "cpu=1,mem=1G,node=1,billing=1",
        "cpu=2,mem=2G,node=1,billing=2",
        "cpu=64,mem=64G,node=1,billing=64",
        "cpu=2,mem=23593M,billing=2",
        "cpu=4,mem=2G,node=2,billing=4",
        "cpu=2,mem=23593M,node=1,billing=2",
        "cpu=2,mem=4000M,billing=2",
        "cpu=2,mem=2G",
        "",
    ] {
        assert_eq!(format_tres_list(&parse_tres_list(text).unwrap()), text);
    }
    let with_gpu = [
        Tres {
            kind: "cpu".into(),
            name: None,
            count: 1,
        },
        Tres {
            kind: "mem".into(),
            name: None,
            count: 1024,
        },
        Tres {
            kind: "node".into(),
            name: None,
            count: 1,
        },
        Tres {
            kind: "billing".into(),
            name: None,
            count: 1,
        },
        Tres {
            kind: "gres".into(),
            name: Some("gpu".into()),
            count: 2,
        },
    ];
    assert_eq!(
        format_tres_list(&with_gpu),
        "cpu=1,mem=1G,node=1,billing=1,gres/gpu=2"
    );
    for captured in [
        "gres:gpu:a100:3",
        "gres:gpu:h100:1",
        "gres:gpu:a100:5",
        "gres:gpu:a100:2",
        "gres:gpu:1",
    ] {
        assert_eq!(
            format_tres_per(&parse_tres_per(captured).unwrap()),
            captured
        );
    }
}
