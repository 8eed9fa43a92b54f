//! Job and step ids as scancel, sacct and sstat take them: `12`, `12.0`, `12.batch`, `12_3.1` (array task),
//! `12+1.0` (het job component), `12.0+1` (het step component), and comma-separated lists of them.
//!
//! Slurm 22.05 semantics (`slurm_addto_step_list`/`slurm_parse_step_str`): each item must start with a digit; the
//! step is whatever follows the first `.` (`batch`, `extern`, `interactive`, or a number); an array task follows
//! `_`, a het job offset follows `+` when the step has none. Numbers are read like C's `atoi`, so trailing text
//! after a number is ignored (`12a` is job 12). Lists skip empty items and duplicates and honour one leading quote;
//! a space after a comma makes the next item invalid (the installed 22.05.8 library exits there, although Slurm's
//! own unit test transcription says it stops quietly).

use std::fmt;

use super::NO_VAL;

/// Slurm's reserved step numbers.
const PENDING_STEP: u32 = 0xffff_fffd;
const EXTERN_STEP: u32 = 0xffff_fffc;
const BATCH_STEP: u32 = 0xffff_fffb;
const INTERACTIVE_STEP: u32 = 0xffff_fffa;

/// Which step of a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Step {
    /// A numbered step (`srun` inside the allocation).
    Numbered(u32),
    /// The batch script.
    Batch,
    /// The external step that adopts processes started outside Slurm.
    Extern,
    /// The interactive step of `salloc`.
    Interactive,
    /// A step whose id is not yet assigned.
    Pending,
}

impl Step {
    /// Slurm's 32-bit step id.
    pub fn to_slurm_u32(self) -> u32 {
        match self {
            Step::Numbered(n) => n,
            Step::Batch => BATCH_STEP,
            Step::Extern => EXTERN_STEP,
            Step::Interactive => INTERACTIVE_STEP,
            Step::Pending => PENDING_STEP,
        }
    }

    /// Reads a 32-bit step id; `None` for NO_VAL (no step).
    pub fn from_slurm_u32(id: u32) -> Option<Step> {
        match id {
            NO_VAL => None,
            BATCH_STEP => Some(Step::Batch),
            EXTERN_STEP => Some(Step::Extern),
            INTERACTIVE_STEP => Some(Step::Interactive),
            PENDING_STEP => Some(Step::Pending),
            n => Some(Step::Numbered(n)),
        }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Numbered(n) => write!(f, "{n}"),
            Step::Batch => f.write_str("batch"),
            Step::Extern => f.write_str("extern"),
            Step::Interactive => f.write_str("interactive"),
            // Slurm 22.05 prints pending steps with this spelling.
            Step::Pending => f.write_str("TDB"),
        }
    }
}

/// A job, optionally narrowed to an array task or het component, and optionally to one step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct StepId {
    /// The job id (for arrays and het jobs, the leader's id).
    pub job: u32,
    /// `_N`: one task of a job array.
    pub array_task: Option<u32>,
    /// `+N` after the job: one component of a het job.
    pub het_offset: Option<u32>,
    /// `.step`: one step.
    pub step: Option<Step>,
    /// `+N` after the step: one component of a het step.
    pub step_het_comp: Option<u32>,
}

impl StepId {
    /// A whole job.
    pub fn job(job: u32) -> StepId {
        StepId {
            job,
            array_task: None,
            het_offset: None,
            step: None,
            step_het_comp: None,
        }
    }
}

impl fmt::Display for StepId {
    /// Slurm's form: `12`, `12_3.1`, `12+1.0`, `12.0+1`, `12.batch` (a het step component shows only with a step).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.job)?;
        if let Some(task) = self.array_task {
            write!(f, "_{task}")?;
        }
        if let Some(offset) = self.het_offset {
            write!(f, "+{offset}")?;
        }
        if let Some(step) = self.step {
            write!(f, ".{step}")?;
            if let Some(comp) = self.step_het_comp {
                write!(f, "+{comp}")?;
            }
        }
        Ok(())
    }
}

/// A rejected job or step id (Slurm's texts; Slurm exits on these).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StepIdError {
    /// The item does not start with a digit.
    #[error("Bad job/step specified: {0}")]
    BadJob(String),
    /// The text after `.` is not a step.
    #[error("Bad step specified: {0}")]
    BadStep(String),
    /// The text after `_` is not a number.
    #[error("Bad job array element specified: {0}")]
    BadArrayTask(String),
    /// The text after `+` is not a number.
    #[error("Bad hetjob offset specified: {0}")]
    BadHetOffset(String),
    /// A number does not fit Slurm's 32 bits (Slurm wraps it; Spur refuses it).
    #[error("Bad job/step specified: {0}")]
    TooLarge(String),
}

/// The leading decimal digits of `text` as `atoi` reads them (the caller has checked the first is a digit).
fn leading_number(text: &str) -> Option<u32> {
    let digits: &str = &text[..text.bytes().take_while(u8::is_ascii_digit).count()];
    digits.parse::<u32>().ok()
}

fn starts_with_digit(text: &str) -> bool {
    text.bytes().next().is_some_and(|b| b.is_ascii_digit())
}

fn parse_step(text: &str, name: &str) -> Result<Step, StepIdError> {
    match text {
        "batch" => Ok(Step::Batch),
        "extern" => Ok(Step::Extern),
        "interactive" => Ok(Step::Interactive),
        _ if starts_with_digit(text) => {
            let n = leading_number(text).ok_or_else(|| StepIdError::TooLarge(name.to_string()))?;
            Ok(Step::from_slurm_u32(n).unwrap_or(Step::Numbered(n)))
        }
        _ => Err(StepIdError::BadStep(name.to_string())),
    }
}

/// The het step component after `+`: `strtoul` digits, where no digits read as 0.
fn parse_step_het_comp(text: &str, name: &str) -> Result<u32, StepIdError> {
    let body = text
        .trim_start()
        .strip_prefix('+')
        .unwrap_or(text.trim_start());
    if !starts_with_digit(body) {
        return Ok(0);
    }
    leading_number(body).ok_or_else(|| StepIdError::TooLarge(name.to_string()))
}

/// Parses one job or step id (Slurm's `slurm_parse_step_str` after its leading-digit check).
pub fn parse_step_id(item: &str) -> Result<StepId, StepIdError> {
    if !starts_with_digit(item) {
        return Err(StepIdError::BadJob(item.to_string()));
    }
    let (name, step_text) = match item.split_once('.') {
        Some((name, step)) => (name, Some(step)),
        None => (item, None),
    };
    let mut id = StepId::job(0);
    let mut step_has_plus = false;
    if let Some(text) = step_text {
        id.step = Step::from_slurm_u32(parse_step(text, name)?.to_slurm_u32());
        if let Some((_, comp)) = text.split_once('+') {
            step_has_plus = true;
            id.step_het_comp = Some(parse_step_het_comp(comp, name)?);
        }
    }
    let job_text = if let Some((job, task)) = name.split_once('_') {
        if !starts_with_digit(task) {
            return Err(StepIdError::BadArrayTask(job.to_string()));
        }
        let task = leading_number(task).ok_or_else(|| StepIdError::TooLarge(item.to_string()))?;
        // NO_VAL as a task number means "no task", as in Slurm.
        id.array_task = (task != NO_VAL).then_some(task);
        job
    } else if let Some((job, offset)) = name.split_once('+').filter(|_| !step_has_plus) {
        if !starts_with_digit(offset) {
            return Err(StepIdError::BadHetOffset(job.to_string()));
        }
        let offset =
            leading_number(offset).ok_or_else(|| StepIdError::TooLarge(item.to_string()))?;
        id.het_offset = (offset != NO_VAL).then_some(offset);
        job
    } else {
        name
    };
    id.job = leading_number(job_text).ok_or_else(|| StepIdError::TooLarge(item.to_string()))?;
    Ok(id)
}

/// Parses a comma-separated list of ids (Slurm's `slurm_addto_step_list`), dropping duplicates.
pub fn parse_step_list(input: &str) -> Result<Vec<StepId>, StepIdError> {
    // One leading quote makes the list end at the matching quote.
    let (body, quote) = match input.chars().next() {
        Some(q @ ('"' | '\'')) => (&input[1..], Some(q)),
        _ => (input, None),
    };
    let body = match quote.and_then(|q| body.find(q)) {
        Some(end) => &body[..end],
        None => body,
    };
    let mut ids: Vec<StepId> = Vec::new();
    for item in body.split(',').filter(|item| !item.is_empty()) {
        // Slurm turns stray quotes into backquotes before parsing.
        let id = parse_step_id(&item.replace(['"', '\''], "`"))?;
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_ids() {
        assert_eq!(parse_step_id("12").unwrap().to_string(), "12");
        assert_eq!(parse_step_id("12.0").unwrap().step, Some(Step::Numbered(0)));
        assert_eq!(parse_step_id("12.batch").unwrap().step, Some(Step::Batch));
        let arr = parse_step_id("12_3.1").unwrap();
        assert_eq!(
            (arr.job, arr.array_task, arr.step),
            (12, Some(3), Some(Step::Numbered(1)))
        );
        let het = parse_step_id("12+1.0").unwrap();
        assert_eq!(
            (het.job, het.het_offset, het.step),
            (12, Some(1), Some(Step::Numbered(0)))
        );
        let het_step = parse_step_id("12.0+1").unwrap();
        assert_eq!(
            (het_step.het_offset, het_step.step_het_comp),
            (None, Some(1))
        );
        assert_eq!(het_step.to_string(), "12.0+1");
    }

    #[test]
    fn lax_like_atoi() {
        assert_eq!(parse_step_id("12a").unwrap(), StepId::job(12));
        assert_eq!(parse_step_id("12.1.2").unwrap().to_string(), "12.1");
        assert_eq!(parse_step_id("12_3+1.0").unwrap().to_string(), "12_3.0");
        assert_eq!(parse_step_id("12.0+x").unwrap().to_string(), "12.0+0");
        assert_eq!(
            parse_step_id("12.4294967290").unwrap().step,
            Some(Step::Interactive)
        );
    }

    #[test]
    fn errors() {
        assert_eq!(
            parse_step_id("abc").unwrap_err().to_string(),
            "Bad job/step specified: abc"
        );
        assert_eq!(
            parse_step_id("12.x").unwrap_err().to_string(),
            "Bad step specified: 12"
        );
        assert_eq!(
            parse_step_id("12.TBD").unwrap_err().to_string(),
            "Bad step specified: 12"
        );
        assert_eq!(
            parse_step_id("12_x").unwrap_err().to_string(),
            "Bad job array element specified: 12"
        );
        assert_eq!(
            parse_step_id("12+").unwrap_err().to_string(),
            "Bad hetjob offset specified: 12"
        );
        assert!(parse_step_id("99999999999").is_err());
    }

    #[test]
    fn lists() {
        let ids = parse_step_list("123,123.1,123.batch,123.batch,,").unwrap();
        let shown: Vec<String> = ids.iter().map(ToString::to_string).collect();
        assert_eq!(shown, ["123", "123.1", "123.batch"]);
        assert_eq!(
            parse_step_list("123, 123.1").unwrap_err().to_string(),
            "Bad job/step specified:  123.1"
        );
        assert_eq!(parse_step_list("\"12,13\",14").unwrap().len(), 2);
        assert_eq!(parse_step_list("").unwrap(), vec![]);
    }

    #[test]
    fn pending_prints_as_slurm_does() {
        let id = StepId {
            step: Some(Step::Pending),
            ..StepId::job(12)
        };
        assert_eq!(id.to_string(), "12.TDB");
    }
}
