use spur_core::grammar::values::filename::*;
use spur_core::grammar::values::stepid::Step;

use super::tsv::load;

#[test]
fn stepd_filenames() {
    let rows = load("stepd_filenames.tsv", false);
    assert!(rows.len() >= 40);
    for row in rows {
        let array_job_id: u32 = row.get(3).parse().unwrap();
        let ctx = FilenameContext {
            job_id: row.get(2).parse().unwrap(),
            array_job_id: (array_job_id != 0).then_some(array_job_id),
            array_task_id: row.get(4).parse().ok(),
            job_name: match row.get(0) {
                "batch" => "nm",
                "array" => "arrj",
                _ => "sr",
            },
            node_name: "vm",
            node_id: 0,
            task_id: row.get(6).parse().unwrap(),
            user: "root",
            step: match row.get(5) {
                "batch" => Step::Batch,
                n => Step::Numbered(n.parse().unwrap()),
            },
        };
        assert_eq!(
            expand_filename(row.get(1), &ctx),
            row.get(7),
            "line {}: {:?}",
            row.line,
            row.get(1)
        );
    }
}

#[test]
fn reference_capture_names() {
    // Captures 15, 43/76 and B0: slurm-%j.out, arr-%A_%a.out per task, tmo-%j.out.
    let ctx = |job_id, array: Option<(u32, u32)>| FilenameContext {
        job_id,
        array_job_id: array.map(|a| a.0),
        array_task_id: array.map(|a| a.1),
        job_name: "x",
        node_name: "vm",
        node_id: 0,
        task_id: 0,
        user: "root",
        step: Step::Batch,
    };
    assert_eq!(
        expand_filename(default_batch_output(false), &ctx(21, None)),
        "slurm-21.out"
    );
    assert_eq!(
        expand_filename("arr-%A_%a.out", &ctx(27, Some((24, 1)))),
        "arr-24_1.out"
    );
    assert_eq!(
        expand_filename("arr-%A_%a.out", &ctx(24, Some((24, 3)))),
        "arr-24_3.out"
    );
    assert_eq!(expand_filename("tmo-%j.out", &ctx(41, None)), "tmo-41.out");
}
