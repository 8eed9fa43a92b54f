//! Standard I/O filename patterns: `--output`, `--error` and `--input` of sbatch and srun, expanded the way
//! slurmstepd does when it opens the files.
//!
//! Slurm 22.05 replacements: `%%` `%`, `%A` array master job id (the job id outside arrays), `%a` array task id
//! (4294967294 outside arrays), `%J` job id plus `.step` for srun steps (the job id alone for batch scripts), `%j` job
//! id, `%N` short node name, `%n` node index, `%s` step id (`batch` for batch scripts), `%t` task rank, `%u` user
//! name, `%x` job name. A number after `%` zero-pads numeric replacements (at most 10 wide). Any backslash turns all
//! replacement off; each backslash then vanishes and keeps the character after it. Slurm's scanner has quirks that
//! are kept: an unknown specifier stays as written (`%z`), but with a width its `%` is lost (`%4z` gives `4z`), and a
//! width at the very end leaves its last digit (`%12` gives `2`).

use super::stepid::Step;
use super::NO_VAL;

/// Widest zero padding Slurm applies.
const MAX_WIDTH: usize = 10;

/// What a pattern is expanded against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilenameContext<'a> {
    /// The job's own id (for an array task, the task's job id).
    pub job_id: u32,
    /// The array's master job id, when the job is an array task.
    pub array_job_id: Option<u32>,
    /// The array task id, when the job is an array task.
    pub array_task_id: Option<u32>,
    /// The job name.
    pub job_name: &'a str,
    /// The short name of the node writing the file.
    pub node_name: &'a str,
    /// The node's index within the job.
    pub node_id: u32,
    /// The task's rank within the step.
    pub task_id: u32,
    /// The user name.
    pub user: &'a str,
    /// The step: [`Step::Batch`] for the batch script, a numbered step for srun.
    pub step: Step,
}

/// One replacement, with whether it is a number (only numbers are padded).
enum Value {
    Number(u64),
    Text(String),
}

fn replacement(spec: u8, ctx: &FilenameContext) -> Option<Value> {
    let number = |n: u32| Some(Value::Number(u64::from(n)));
    match spec {
        b'a' => number(ctx.array_task_id.unwrap_or(NO_VAL)),
        b'A' => match ctx.array_task_id {
            Some(_) => number(ctx.array_job_id.unwrap_or(ctx.job_id)),
            None => number(ctx.job_id),
        },
        b'j' => number(ctx.job_id),
        b'J' => match ctx.step {
            Step::Numbered(step) => Some(Value::Text(format!("{}.{step}", ctx.job_id))),
            _ => number(ctx.job_id),
        },
        b's' => match ctx.step {
            Step::Numbered(step) => number(step),
            other => Some(Value::Text(other.to_string())),
        },
        b'n' => number(ctx.node_id),
        b't' => number(ctx.task_id),
        b'N' => Some(Value::Text(ctx.node_name.to_string())),
        b'u' => Some(Value::Text(ctx.user.to_string())),
        b'x' => Some(Value::Text(ctx.job_name.to_string())),
        _ => None,
    }
}

/// With a backslash anywhere: every backslash removed, keeping the character after it, nothing replaced.
fn unescape(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Expands a filename pattern as slurmstepd does (relative results are relative to the job's working directory).
pub fn expand_filename(pattern: &str, ctx: &FilenameContext) -> String {
    if pattern.contains('\\') {
        return unescape(pattern);
    }
    let bytes = pattern.as_bytes();
    let n = bytes.len();
    let mut out: Vec<u8> = Vec::with_capacity(n + 16);
    // `q` starts the literal text not yet copied, `p` scans: the same two cursors Slurm's scanner uses, so its
    // quirks with unknown specifiers and dangling widths come out the same.
    let (mut q, mut p) = (0usize, 0usize);
    while p < n {
        if bytes[p] != b'%' {
            p += 1;
            continue;
        }
        if bytes.get(p + 1) == Some(&b'%') {
            out.extend_from_slice(&bytes[q..=p]);
            p += 2;
            q = p;
            continue;
        }
        p += 1;
        let mut width = 0;
        if bytes.get(p).is_some_and(u8::is_ascii_digit) {
            out.extend_from_slice(&bytes[q..p - 1]);
            let digits = bytes[p..].iter().take_while(|b| b.is_ascii_digit()).count();
            // Anything past the maximum, including values too large to read, pads to the maximum.
            width = pattern[p..p + digits]
                .parse::<usize>()
                .map_or(MAX_WIDTH, |w| w.min(MAX_WIDTH));
            p += digits;
            q = p - 1;
            if p >= n {
                break;
            }
        }
        if let Some(value) = bytes.get(p).and_then(|&spec| replacement(spec, ctx)) {
            out.extend_from_slice(&bytes[q..p - 1]);
            match value {
                Value::Number(v) => out.extend_from_slice(format!("{v:0width$}").as_bytes()),
                Value::Text(t) => out.extend_from_slice(t.as_bytes()),
            }
            p += 1;
            q = p;
        }
    }
    if q < p {
        out.extend_from_slice(&bytes[q..p]);
    }
    // Every cut above falls next to an ASCII byte, so the bytes are still UTF-8.
    String::from_utf8_lossy(&out).into_owned()
}

/// srun's "only this task" form: a pattern that is just a task number (`-o 0`) sends only that task's stream.
pub fn single_task_io(pattern: &str) -> Option<u32> {
    if pattern.is_empty() || !pattern.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pattern.parse().ok()
}

/// The default output pattern of sbatch: `slurm-%A_%a.out` for arrays, `slurm-%j.out` otherwise.
pub fn default_batch_output(is_array: bool) -> &'static str {
    if is_array {
        "slurm-%A_%a.out"
    } else {
        "slurm-%j.out"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(job_id: u32) -> FilenameContext<'static> {
        FilenameContext {
            job_id,
            array_job_id: None,
            array_task_id: None,
            job_name: "nm",
            node_name: "vm",
            node_id: 0,
            task_id: 0,
            user: "root",
            step: Step::Batch,
        }
    }

    #[test]
    fn man_page_examples() {
        let step = FilenameContext {
            step: Step::Numbered(0),
            ..batch(128)
        };
        assert_eq!(expand_filename("job%J.out", &step), "job128.0.out");
        assert_eq!(expand_filename("job%4j.out", &step), "job0128.out");
        let third = FilenameContext { task_id: 1, ..step };
        assert_eq!(expand_filename("job%j-%2t.out", &third), "job128-01.out");
    }

    #[test]
    fn batch_replacements() {
        let ctx = batch(39);
        assert_eq!(expand_filename("f-%A_%a.out", &ctx), "f-39_4294967294.out");
        assert_eq!(expand_filename("f-%J-%s", &ctx), "f-39-batch");
        assert_eq!(expand_filename("%x-%u-%N-%n-%t", &ctx), "nm-root-vm-0-0");
        assert_eq!(expand_filename("f-%12j", &ctx), "f-0000000039");
        assert_eq!(expand_filename("f-%4x", &ctx), "f-nm");
        let task = FilenameContext {
            job_id: 73,
            array_job_id: Some(72),
            array_task_id: Some(3),
            ..ctx
        };
        assert_eq!(expand_filename("a-%A_%a-%3a-%j", &task), "a-72_3-003-73");
        assert_eq!(
            expand_filename(default_batch_output(true), &task),
            "slurm-72_3.out"
        );
    }

    #[test]
    fn scanner_quirks() {
        let ctx = batch(55);
        assert_eq!(expand_filename("f-%%%j", &ctx), "f-%55");
        assert_eq!(expand_filename("f-%z", &ctx), "f-%z");
        assert_eq!(expand_filename("f-%4z", &ctx), "f-4z");
        assert_eq!(expand_filename("f-%12", &ctx), "f-2");
        assert_eq!(expand_filename("f-%", &ctx), "f-%");
        assert_eq!(expand_filename("a%5%j", &ctx), "a555");
        assert_eq!(expand_filename("%-3j", &ctx), "%-3j");
    }

    #[test]
    fn escapes() {
        let ctx = batch(57);
        assert_eq!(expand_filename("f\\%j.out", &ctx), "f%j.out");
        assert_eq!(expand_filename("f-\\\\%j.out", &ctx), "f-\\%j.out");
        assert_eq!(expand_filename("f-%j\\", &ctx), "f-%j");
    }

    #[test]
    fn single_task() {
        assert_eq!(single_task_io("0"), Some(0));
        assert_eq!(single_task_io("12"), Some(12));
        assert_eq!(single_task_io("f0"), None);
        assert_eq!(single_task_io(""), None);
    }
}
