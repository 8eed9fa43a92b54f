//! The environment of a batch job on a real single-node Spur cluster against the one real Slurm 22.05 gave the same
//! job (`outputs/31-batch-env-sorted.txt`), and the array and GPU variables.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;

use common::{Cluster, ClusterOptions, LONG};

/// The capture's clean submission environment (`env -i ... sbatch envjob.sh`).
const CLEAN_ENV: &[(&str, &str)] = &[
    ("HOME", "/root"),
    (
        "PATH",
        "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    ),
    ("USER", "root"),
    ("LOGNAME", "root"),
    ("SHELL", "/bin/bash"),
    ("TERM", "dumb"),
    ("LANG", "C.UTF-8"),
];

const REFERENCE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../core/tests/golden/slurm-22.05/31-batch-env-sorted.txt"
));

/// Variables whose values depend on the run: compared by name only.
const RUN_DEPENDENT: &[&str] = &["SLURM_TASK_PID", "SLURM_CONF"];

/// `NAME=value` lines between `--- stdout ---` and `--- stderr ---` of a capture.
fn capture_stdout(capture: &str) -> Vec<&str> {
    capture
        .lines()
        .skip_while(|l| *l != "--- stdout ---")
        .skip(1)
        .take_while(|l| *l != "--- stderr ---")
        .collect()
}

fn parse_env(lines: &[&str]) -> BTreeMap<String, String> {
    lines
        .iter()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Replaces what differs between two runs of the same job: ids, host, directory, cluster name, controller port.
struct Normaliser {
    pairs: Vec<(String, String)>,
}

impl Normaliser {
    fn apply(&self, value: &str) -> String {
        let mut out = value.to_string();
        for (from, to) in &self.pairs {
            out = out.replace(from.as_str(), to);
        }
        out
    }

    fn env(&self, env: &BTreeMap<String, String>) -> BTreeMap<String, String> {
        env.iter()
            .map(|(k, v)| {
                let v = if RUN_DEPENDENT.contains(&k.as_str()) {
                    "{RUN}".to_string()
                } else {
                    self.apply(v)
                };
                (k.clone(), v)
            })
            .collect()
    }
}

/// Compares two environments after normalising what differs between runs, and fails listing every missing, extra
/// (other than `SPUR_*` twins) and differing variable. `id_keys` are further variables holding job ids.
fn assert_same_env(
    cluster: &Cluster,
    submit_dir: &std::path::Path,
    ours: &BTreeMap<String, String>,
    theirs: &BTreeMap<String, String>,
    id_keys: &[&str],
) -> BTreeMap<String, String> {
    let submit = submit_dir.display().to_string();
    let port = cluster.url.rsplit(':').next().unwrap().to_string();
    let our_norm = Normaliser {
        pairs: vec![
            (submit.clone(), "$SUBMIT_DIR".into()),
            (format!("127.0.0.1:{port}"), "127.0.0.1:{PORT}".into()),
            ("spurtest".into(), "{CLUSTER}".into()),
        ],
    };
    let their_norm = Normaliser {
        pairs: vec![
            ("127.0.0.1:6817".into(), "127.0.0.1:{PORT}".into()),
            ("refcluster".into(), "{CLUSTER}".into()),
        ],
    };
    let mut ours = our_norm.env(ours);
    let mut theirs = their_norm.env(theirs);
    // Ids and host names are whole values: replace them by key, not by substring (the id `1` is everywhere).
    for env in [&mut ours, &mut theirs] {
        for (key, value) in env.iter_mut() {
            if value == "vm" || *value == cluster.node {
                *value = "{HOST}".into();
            }
            let plain = key.replacen("SPUR_", "SLURM_", 1);
            if ["SLURM_JOB_ID", "SLURM_JOBID"].contains(&plain.as_str())
                || id_keys.contains(&plain.as_str())
            {
                *value = format!("{{{plain}}}");
            }
        }
    }
    let missing: Vec<&String> = theirs.keys().filter(|k| !ours.contains_key(*k)).collect();
    let extra: Vec<&String> = ours
        .keys()
        .filter(|k| !theirs.contains_key(*k) && !k.starts_with("SPUR_"))
        .collect();
    let differing: Vec<String> = theirs
        .iter()
        .filter_map(|(k, v)| {
            let o = ours.get(k)?;
            (o != v).then(|| format!("{k}: slurm {v:?}, spur {o:?}"))
        })
        .collect();
    assert!(
        missing.is_empty() && extra.is_empty() && differing.is_empty(),
        "batch environment differs from Slurm's\nmissing: {missing:?}\nextra: {extra:?}\ndiffering:\n{}",
        differing.join("\n")
    );
    ours
}

#[test]
fn batch_environment_matches_slurm() {
    let cluster = Cluster::start_with(ClusterOptions {
        // The reference cluster's default, so SLURM_MEM_PER_CPU compares by value.
        def_mem_per_cpu: 1024,
        ..ClusterOptions::default()
    });
    let submit_dir = cluster.subdir("submit");
    let script = submit_dir.join("envjob.sh");
    std::fs::write(
        &script,
        "#!/bin/bash\n#SBATCH -J envjob\n#SBATCH -n1\n#SBATCH -o envjob-%j.out\nenv | sort\n",
    )
    .unwrap();
    let out = cluster.run_clean(&submit_dir, "sbatch", &["envjob.sh"], CLEAN_ENV);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let job: u32 = stdout
        .trim()
        .strip_prefix("Submitted batch job ")
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("unexpected sbatch output {stdout:?}"));
    assert_eq!(cluster.wait_for_end(job, LONG), "COMPLETED");
    let text = cluster.wait_for_file(&submit_dir.join(format!("envjob-{job}.out")), |t| {
        t.contains("SLURM_JOB_ID=")
    });
    let ours = parse_env(&text.lines().collect::<Vec<_>>());
    assert_eq!(ours["SLURM_JOB_ID"], job.to_string());
    assert_eq!(ours["SLURM_JOB_NODELIST"], cluster.node);
    // The SPUR_* twins carry the same values as their SLURM_* originals.
    let twins: Vec<&String> = ours.keys().filter(|k| k.starts_with("SPUR_")).collect();
    assert!(!twins.is_empty(), "no SPUR_* twins in {ours:?}");
    for key in twins {
        let original = key.replacen("SPUR_", "SLURM_", 1);
        assert_eq!(ours.get(&original), ours.get(key), "{key}");
    }
    let theirs = parse_env(&capture_stdout(REFERENCE));
    assert_same_env(&cluster, &submit_dir, &ours, &theirs, &[]);
}

const ARRAY_REFERENCE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../core/tests/golden/slurm-22.05/38-array-env-output.txt"
));

/// The `## path` sections of a capture that cats several files, by the file's task suffix (`_7.out` -> 7).
fn sections_by_task(capture: &str) -> BTreeMap<u32, Vec<&str>> {
    let mut sections: BTreeMap<u32, Vec<&str>> = BTreeMap::new();
    let mut current = None;
    for line in capture_stdout(capture) {
        if let Some(path) = line.strip_prefix("## ") {
            current = path
                .rsplit('_')
                .next()
                .and_then(|t| t.trim_end_matches(".out").parse().ok());
            continue;
        }
        if let Some(task) = current {
            sections.entry(task).or_default().push(line);
        }
    }
    sections
}

#[test]
fn array_task_environment_matches_slurm() {
    let cluster = Cluster::start_with(ClusterOptions {
        def_mem_per_cpu: 1024,
        ..ClusterOptions::default()
    });
    let submit_dir = cluster.subdir("submit");
    let out = cluster.run_clean(
        &submit_dir,
        "sbatch",
        &[
            "--array=7-8",
            "-o",
            &format!("{}/arrenv-%A_%a.out", submit_dir.display()),
            "--wrap",
            "env | grep ^SLURM | sort",
        ],
        CLEAN_ENV,
    );
    assert!(out.status.success(), "{}", common::text(&out.stderr));
    let array_id = common::text(&out.stdout)
        .trim()
        .strip_prefix("Submitted batch job ")
        .and_then(|id| id.parse::<u32>().ok())
        .expect("Submitted batch job N");
    let reference = sections_by_task(ARRAY_REFERENCE);
    assert_eq!(reference.keys().copied().collect::<Vec<_>>(), vec![7, 8]);
    for (task, lines) in &reference {
        let path = submit_dir.join(format!("arrenv-{array_id}_{task}.out"));
        let text = cluster.wait_for_file(&path, |t| t.contains("SLURM_WORKING_CLUSTER="));
        let ours = parse_env(&text.lines().collect::<Vec<_>>());
        assert_eq!(ours["SLURM_ARRAY_JOB_ID"], array_id.to_string());
        assert_eq!(ours["SLURM_ARRAY_TASK_ID"], task.to_string());
        let theirs = parse_env(lines);
        assert_same_env(
            &cluster,
            &submit_dir,
            &ours,
            &theirs,
            &["SLURM_ARRAY_JOB_ID"],
        );
    }
}
