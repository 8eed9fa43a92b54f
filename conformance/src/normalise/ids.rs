//! Job ids: learned from the contexts that surely hold one (`Submitted batch job N`, `JobId=N`, `SLURM_JOB_ID=N`,
//! a leading squeue or `--parsable` column, array forms `N_3` and `N_[1-3]`), then every standalone occurrence of a
//! learned number is replaced by `{JOB1}`, `{JOB2}`, ... in order of first appearance. Replacing every occurrence
//! (not only the learning contexts) catches ids in file names, dependency lists and free text. A number wrongly
//! learned (a line holding only `3`) does no harm as long as both runs print it alike; the runner gives both
//! targets a high `FirstJobId` so real ids rarely collide with other numbers.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

// Literal patterns: each compiles, or every normalisation test fails at once.
#[allow(clippy::expect_used)]
static LEARN: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        // job 12, JOB 12, job id 12, JobId=12, ArrayJobId=12, SLURM_JOB_ID=12, SLURM_JOBID=12, "job_id": 12
        r#"(?i)(?:^|[^a-z])(?:array_?|het_?)?job(?:[ _]?id)?"?[ =:]+(\d+)"#,
        // salloc: Granted job allocation 12
        r"(?i)job allocation (\d+)",
        // StepId=12.0, "step_id": "12.batch", *** STEP 12.0 ON vm CANCELLED ***
        r"(?i)step_?id=(\d+)",
        r"(?i)\bstep (\d+)\.",
        // array forms 12_3, 12_[1-3], 12_*
        r"(?:^|[^0-9A-Za-z])(\d+)_(?:\d|\[|\*)",
        // a line holding only a four-digit or longer number (`sbatch --parsable`, `squeue -h -o %i`); shorter
        // ones are more often counts or exit codes, and ids start at FirstJobId=5001 here
        r"(?m)^[ \t]*([1-9]\d{3,})(?:;\S*)?[ \t]*$",
    ]
    .iter()
    .map(|p| Regex::new(p).expect("static regex"))
    .collect()
});

/// A number that can name a job: no leading zero, not zero.
fn plausible_id(s: &str) -> bool {
    !s.is_empty() && !s.starts_with('0') && s.len() <= 10
}

/// Learned job ids and their placeholders.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct IdMap {
    placeholders: HashMap<String, String>,
}

impl IdMap {
    /// Learns the ids in `texts` and numbers them by first standalone appearance, scanning the texts in order.
    pub fn learn(texts: &[&str]) -> IdMap {
        IdMap::learn_with(texts, &[])
    }

    /// Like [`IdMap::learn`], with ids known from elsewhere (those the case's helpers recorded as submitted).
    pub fn learn_with(texts: &[&str], known: &[String]) -> IdMap {
        let mut learned: std::collections::HashSet<String> =
            known.iter().filter(|k| plausible_id(k)).cloned().collect();
        for text in texts {
            for re in LEARN.iter() {
                for cap in re.captures_iter(text) {
                    if let Some(m) = cap.get(1) {
                        if plausible_id(m.as_str()) {
                            learned.insert(m.as_str().to_string());
                        }
                    }
                }
            }
        }
        let mut placeholders = HashMap::new();
        for text in texts {
            for (start, end) in standalone_numbers(text) {
                let n = &text[start..end];
                if learned.contains(n) && !placeholders.contains_key(n) {
                    let p = format!("{{JOB{}}}", placeholders.len() + 1);
                    placeholders.insert(n.to_string(), p);
                }
            }
        }
        IdMap { placeholders }
    }

    pub fn len(&self) -> usize {
        self.placeholders.len()
    }

    pub fn is_empty(&self) -> bool {
        self.placeholders.is_empty()
    }

    /// Replaces each standalone learned id in `text` by its placeholder.
    pub fn apply(&self, text: &str) -> String {
        if self.placeholders.is_empty() {
            return text.to_string();
        }
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for (start, end) in standalone_numbers(text) {
            if let Some(p) = self.placeholders.get(&text[start..end]) {
                out.push_str(&text[last..start]);
                out.push_str(p);
                last = end;
            }
        }
        out.push_str(&text[last..]);
        out
    }
}

/// Byte ranges of maximal digit runs not glued to a letter or digit (`slurm-12.out`, `12_3`, `JobId=12` count;
/// `job12` and `12M` do not).
fn standalone_numbers(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let before_ok = start == 0 || !b[start - 1].is_ascii_alphanumeric();
        let after_ok = i == b.len() || !b[i].is_ascii_alphanumeric();
        // A digit run inside a dotted number (an address, a version) is not an id: 127.0.0.1, 22.05.8.
        let dotted = (start >= 2 && b[start - 1] == b'.' && b[start - 2].is_ascii_digit())
            || (i + 1 < b.len() && b[i] == b'.' && b[i + 1].is_ascii_digit() && !step_suffix(b, i));
        if before_ok && after_ok && !dotted {
            out.push((start, i));
        }
    }
    out
}

/// `12.0` (job 12, step 0) is an id with a step, unlike `22.05.8` or `127.0.0.1`: the part after the dot is the
/// last dotted component.
fn step_suffix(b: &[u8], dot: usize) -> bool {
    let mut j = dot + 1;
    while j < b.len() && b[j].is_ascii_digit() {
        j += 1;
    }
    !(j < b.len() && b[j] == b'.')
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn norm(text: &str) -> String {
        IdMap::learn(&[text]).apply(text)
    }

    #[test]
    fn learns_from_each_context() {
        for (input, want) in [
            ("Submitted batch job 77\n", "Submitted batch job {JOB1}\n"),
            ("JobId=77 ArrayJobId=76", "JobId={JOB1} ArrayJobId={JOB2}"),
            (
                "SLURM_JOB_ID=77\nSLURM_JOBID=77\n",
                "SLURM_JOB_ID={JOB1}\nSLURM_JOBID={JOB1}\n",
            ),
            ("SLURM_ARRAY_JOB_ID=76\n", "SLURM_ARRAY_JOB_ID={JOB1}\n"),
            (
                "\"job_id\": 77,\n\"array_job_id\": 76,",
                "\"job_id\": {JOB1},\n\"array_job_id\": {JOB2},",
            ),
            (
                "salloc: Granted job allocation 77\n",
                "salloc: Granted job allocation {JOB1}\n",
            ),
            (
                "srun: job 77 queued and waiting for resources\n",
                "srun: job {JOB1} queued and waiting for resources\n",
            ),
            (
                "*** JOB 77 ON vm CANCELLED ***",
                "*** JOB {JOB1} ON vm CANCELLED ***",
            ),
            ("StepId=77.0\n", "StepId={JOB1}.0\n"),
            ("*** STEP 77.0 ON vm ***", "*** STEP {JOB1}.0 ON vm ***"),
            ("5077\n", "{JOB1}\n"),
            ("5077;refcluster\n", "{JOB1};refcluster\n"),
        ] {
            assert_eq!(norm(input), want, "input {input:?}");
        }
    }

    #[test]
    fn array_forms() {
        assert_eq!(norm("x 76_3 y"), "x {JOB1}_3 y");
        assert_eq!(norm("  76_[1-3%2] "), "  {JOB1}_[1-3%2] ");
        assert_eq!(norm("afterok:76_*"), "afterok:{JOB1}_*");
        assert_eq!(norm("arr-76_2.out"), "arr-{JOB1}_2.out");
    }

    #[test]
    fn learned_ids_are_replaced_everywhere_standalone() {
        let text = "Submitted batch job 12\nslurm-12.out\nDependency=afterok:12(unfulfilled)\njob12 12M 112\n";
        assert_eq!(
            norm(text),
            "Submitted batch job {JOB1}\nslurm-{JOB1}.out\nDependency=afterok:{JOB1}(unfulfilled)\njob12 12M 112\n"
        );
    }

    #[test]
    fn numbering_follows_first_appearance() {
        let text = "a 9 8\nJobId=8\nJobId=9\n";
        assert_eq!(norm(text), "a {JOB1} {JOB2}\nJobId={JOB2}\nJobId={JOB1}\n");
    }

    #[test]
    fn consistent_across_texts() {
        let out = "Submitted batch job 5\n";
        let err = "error on job id 6 and 5\n";
        let m = IdMap::learn(&[out, err]);
        assert_eq!(m.len(), 2);
        assert_eq!(m.apply(err), "error on job id {JOB2} and {JOB1}\n");
    }

    #[test]
    fn short_bare_numbers_and_other_columns_are_not_learned() {
        assert_eq!(
            norm("42\n1 -> 00:01:00\n  5077  debug\n"),
            "42\n1 -> 00:01:00\n  5077  debug\n"
        );
    }

    #[test]
    fn known_ids_are_learned() {
        let known = vec!["5077".to_string(), "x".to_string()];
        let m = IdMap::learn_with(&["id=5077 out-5077.txt 5078"], &known);
        assert_eq!(
            m.apply("id=5077 out-5077.txt 5078"),
            "id={JOB1} out-{JOB1}.txt 5078"
        );
    }

    #[test]
    fn zero_and_dotted_numbers_are_not_ids() {
        assert_eq!(norm("0\nrc 0\n"), "0\nrc 0\n");
        assert_eq!(
            norm("JobId=22\n22.05.8 127.0.0.22\n"),
            "JobId={JOB1}\n22.05.8 127.0.0.22\n"
        );
        assert_eq!(norm("JobId=22 step 22.1\n"), "JobId={JOB1} step {JOB1}.1\n");
    }

    #[test]
    fn nothing_learned_leaves_text_alone() {
        let m = IdMap::learn(&["no ids here: 1 2 3 in a row"]);
        assert!(m.is_empty());
        assert_eq!(m.apply("1 2 3"), "1 2 3");
    }
}
