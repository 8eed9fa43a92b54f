//! `sprio`: the priority factors of pending jobs in Slurm 22.05's layouts (default, `-l`, `-n`, `-w`, `-o`).
//!
//! The controller reports each job's weighted factors ([`JobFactors`]); as in Slurm, the normalised factors are
//! those over their weights and the priority is their sum. The default columns depend on which weights are set.

use crate::policy::priority::{JobFactors, PriorityWeights};

use super::FormatContext;

/// What sprio's command line asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SprioOptions {
    /// `-o` (or `SPRIO_FORMAT`).
    pub format: Option<String>,
    pub long: bool,
    /// `-n`: normalised factors instead of weighted ones.
    pub normalized: bool,
    /// `-w`: the weights instead of the jobs.
    pub weights: bool,
    pub no_header: bool,
    /// `-u` was given: the default layouts gain a USER column.
    pub users: bool,
    /// `-S`/`--sort`: letters of the format, `-` for descending, applied from the last to the first; default: by
    /// job id.
    pub sort: Option<String>,
}

/// sprio's output: what goes to stdout and, for an invalid sort letter (found after the header is printed, as in
/// Slurm, which then exits 1), the error for stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub stdout: String,
    pub error: Option<String>,
}

/// The layout used without `-o`: JOBID, PARTITION, (USER), PRIORITY, SITE (weighted only), then one column per
/// factor with a weight; `-l` shows every factor.
pub fn default_format(options: &SprioOptions, weights: &PriorityWeights) -> String {
    let norm = options.normalized;
    if options.long {
        return if norm {
            "%.15i %9r %.8u %10y %10a %10b %10f %10j %10p %10q %20t".to_string()
        } else {
            "%.15i %9r %.8u %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10Q %.11N %.20T".to_string()
        };
    }
    let mut format = String::from("%.15i %9r");
    if options.users {
        format.push_str(" %.8u");
    }
    format.push_str(if norm { " %10y" } else { " %.10Y %.10S" });
    let columns = [
        (weights.age, 'a'),
        (weights.assoc, 'b'),
        (weights.fairshare, 'f'),
        (weights.job_size, 'j'),
        (weights.partition, 'p'),
        (weights.qos, 'q'),
    ];
    for (weight, letter) in columns {
        if weight != 0 {
            let letter = if norm {
                letter
            } else {
                letter.to_ascii_uppercase()
            };
            format.push_str(&if norm {
                format!(" %10{letter}")
            } else {
                format!(" %.10{letter}")
            });
        }
    }
    if weights.tres_text.is_some() {
        format.push_str(if norm { " %20t" } else { " %.20T" });
    }
    format
}

/// One `%[.][width]letter` of a format, with the literal text after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub letter: char,
    pub width: usize,
    pub right: bool,
    pub suffix: String,
}

/// A parsed `-o` format: the text before the first field, the fields, and a warning per unknown letter (such a
/// field is dropped with its suffix, as Slurm drops it).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Layout {
    pub prefix: String,
    pub fields: Vec<Field>,
    pub warnings: Vec<String>,
}

const LETTERS: &str = "aAbBcfFijJNpPrSqQuyYtT";

pub fn parse_format(format: &str) -> Layout {
    let Some(first) = format.find('%') else {
        return Layout {
            prefix: format.to_string(),
            ..Layout::default()
        };
    };
    let mut layout = Layout {
        prefix: format[..first].to_string(),
        ..Layout::default()
    };
    for token in format[first..].split('%').filter(|t| !t.is_empty()) {
        let mut chars = token.char_indices().peekable();
        let right = chars.next_if(|(_, c)| *c == '.').is_some();
        let mut width = 0usize;
        while let Some((_, d)) = chars.next_if(|(_, c)| c.is_ascii_digit()) {
            width = width
                .saturating_mul(10)
                .saturating_add(d.to_digit(10).unwrap_or(0) as usize);
        }
        let Some((at, letter)) = chars.next() else {
            // Only a width: C reads the terminating NUL as the letter.
            layout
                .warnings
                .push("Invalid job format specification: ".to_string());
            continue;
        };
        if !LETTERS.contains(letter) {
            layout
                .warnings
                .push(format!("Invalid job format specification: {letter}"));
            continue;
        }
        layout.fields.push(Field {
            letter,
            width,
            right,
            suffix: token[at + letter.len_utf8()..].to_string(),
        });
    }
    layout
}

/// What a line shows: the column titles, the weights (`-w`) or a job.
#[derive(Clone, Copy)]
enum Row<'a> {
    Header,
    Weights,
    Job(&'a JobFactors),
}

/// sprio's text: the header (unless `-h`), then the weights (`-w`) or the jobs in the `-S` order.
pub fn render(
    jobs: &[JobFactors],
    weights: &PriorityWeights,
    layout: &Layout,
    options: &SprioOptions,
    ctx: &FormatContext,
) -> Rendered {
    let mut out = String::new();
    if !options.no_header {
        line(&mut out, layout, Row::Header, weights, ctx);
    }
    if options.weights {
        line(&mut out, layout, Row::Weights, weights, ctx);
        return Rendered {
            stdout: out,
            error: None,
        };
    }
    let mut sorted: Vec<&JobFactors> = jobs.iter().collect();
    sorted.sort_by_key(|j| j.job_id);
    if let Err(letter) = sort(&mut sorted, options.sort.as_deref().unwrap_or("i"), ctx) {
        return Rendered {
            stdout: out,
            error: Some(format!("Invalid sort specification: {letter}")),
        };
    }
    for job in sorted {
        line(&mut out, layout, Row::Job(job), weights, ctx);
    }
    Rendered {
        stdout: out,
        error: None,
    }
}

/// How two rows compare for one sort letter.
type RowOrder<'a> = Box<dyn Fn(&&JobFactors, &&JobFactors) -> std::cmp::Ordering + 'a>;

/// Sorts by each letter of `spec` from the last to the first, so the first letter decides; each sort is stable and
/// ascending unless the letter follows a `-`. Weighted and normalised letters sort alike. Returns the first
/// letter sprio does not sort by.
fn sort(jobs: &mut [&JobFactors], spec: &str, ctx: &FormatContext) -> Result<(), char> {
    use std::cmp::Ordering;
    let letters: Vec<char> = spec.chars().collect();
    for (i, &letter) in letters.iter().enumerate().rev() {
        if matches!(letter, ',' | '-' | '+') {
            continue;
        }
        let descending = i > 0 && letters[i - 1] == '-';
        let by_value = |value: fn(&JobFactors) -> f64| {
            move |a: &&JobFactors, b: &&JobFactors| {
                value(a).partial_cmp(&value(b)).unwrap_or(Ordering::Equal)
            }
        };
        let compare: RowOrder<'_> = match letter {
            'c' => Box::new(|_: &&JobFactors, _: &&JobFactors| Ordering::Equal),
            'i' => Box::new(|a: &&JobFactors, b: &&JobFactors| a.job_id.cmp(&b.job_id)),
            'N' => Box::new(|a: &&JobFactors, b: &&JobFactors| a.nice.cmp(&b.nice)),
            'r' => Box::new(|a: &&JobFactors, b: &&JobFactors| a.partition.cmp(&b.partition)),
            'u' => Box::new(|a: &&JobFactors, b: &&JobFactors| {
                ctx.user_name(a.user_id).cmp(&ctx.user_name(b.user_id))
            }),
            'a' | 'A' => Box::new(by_value(|j| j.age)),
            'f' | 'F' => Box::new(by_value(|j| j.fairshare)),
            'j' | 'J' => Box::new(by_value(|j| j.job_size)),
            'p' | 'P' => Box::new(by_value(|j| j.partition_factor)),
            'q' | 'Q' => Box::new(by_value(|j| j.qos)),
            't' | 'T' => Box::new(by_value(|j| j.tres.iter().map(|(_, v, _)| v).sum())),
            'y' | 'Y' => Box::new(by_value(JobFactors::priority)),
            other => return Err(other),
        };
        if descending {
            jobs.sort_by(|a, b| compare(b, a));
        } else {
            jobs.sort_by(|a, b| compare(a, b));
        }
    }
    Ok(())
}

fn line(
    out: &mut String,
    layout: &Layout,
    row: Row<'_>,
    weights: &PriorityWeights,
    ctx: &FormatContext,
) {
    out.push_str(&layout.prefix);
    for field in &layout.fields {
        let text = cell(field.letter, row, weights, ctx);
        out.push_str(&fit(&text, field.width, field.right));
        out.push_str(&field.suffix);
    }
    out.push('\n');
}

/// Slurm's column fitting: cut to the width, right-justified with `.`, else padded on the right.
fn fit(text: &str, width: usize, right: bool) -> String {
    if width == 0 {
        return text.to_string();
    }
    if right {
        format!("{text:>width$}").chars().take(width).collect()
    } else {
        let cut: String = text.chars().take(width).collect();
        format!("{cut:<width$}")
    }
}

/// A weight or weighted factor as sprio prints it: rounded to an integer.
fn int(value: f64) -> String {
    format!("{value:.0}")
}

fn norm(weighted: f64, weight: u32) -> String {
    let value = if weight == 0 {
        0.0
    } else {
        weighted / f64::from(weight)
    };
    format!("{value:.7}")
}

fn cell(letter: char, row: Row<'_>, w: &PriorityWeights, ctx: &FormatContext) -> String {
    // (title, weight) of the factor columns; the job's weighted value comes from `factor`.
    let factor = |job: &JobFactors| match letter.to_ascii_lowercase() {
        'a' => (job.age, w.age),
        'b' => (job.assoc, w.assoc),
        'f' => (job.fairshare, w.fairshare),
        'j' => (job.job_size, w.job_size),
        'p' => (job.partition_factor, w.partition),
        _ => (job.qos, w.qos),
    };
    let title = match letter {
        'a' | 'A' => "AGE",
        'b' | 'B' => "ASSOC",
        'c' => "CLUSTER",
        'f' | 'F' => "FAIRSHARE",
        'i' => "JOBID",
        'j' | 'J' => "JOBSIZE",
        'N' => "NICE",
        'p' | 'P' | 'r' => "PARTITION",
        'S' => "SITE",
        'q' | 'Q' => "QOS",
        'u' => "USER",
        'y' | 'Y' => "PRIORITY",
        _ => "TRES",
    };
    match row {
        Row::Header => title.to_string(),
        Row::Weights => match letter {
            'i' => "Weights".to_string(),
            'S' => int(1.0),
            'a' | 'A' | 'b' | 'B' | 'f' | 'F' | 'j' | 'J' | 'p' | 'P' | 'q' | 'Q' => {
                let weight = match letter.to_ascii_lowercase() {
                    'a' => w.age,
                    'b' => w.assoc,
                    'f' => w.fairshare,
                    'j' => w.job_size,
                    'p' => w.partition,
                    _ => w.qos,
                };
                int(f64::from(weight))
            }
            // C's printf shows a missing string as "(null)".
            'T' => w.tres_text.clone().unwrap_or_else(|| "(null)".to_string()),
            _ => String::new(),
        },
        Row::Job(job) => match letter {
            'i' => job.job_id.to_string(),
            'r' => job.partition.clone(),
            'u' => ctx.user_name(job.user_id),
            'c' => "(null)".to_string(),
            'S' => job.site.to_string(),
            'N' => job.nice.to_string(),
            'Y' => format!("{}", job.priority().trunc() as i64),
            // Slurm prints a directly set priority as it is, not normalised.
            'y' => match job.direct_priority {
                Some(direct) => format!("{:16.14}", f64::from(direct)),
                None => format!("{:16.14}", job.priority() / f64::from(u32::MAX)),
            },
            't' => job
                .tres
                .iter()
                .map(|(name, value, weight)| {
                    let factor = if *weight == 0.0 { 0.0 } else { value / weight };
                    format!("{name}={factor:.2}")
                })
                .collect::<Vec<_>>()
                .join(","),
            'T' => job
                .tres
                .iter()
                .map(|(name, value, _)| format!("{name}={value:.0}"))
                .collect::<Vec<_>>()
                .join(","),
            upper if upper.is_ascii_uppercase() => int(factor(job).0),
            _ => {
                let (value, weight) = factor(job);
                norm(value, weight)
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn weights() -> PriorityWeights {
        PriorityWeights {
            age: 1000,
            assoc: 0,
            fairshare: 0,
            job_size: 2000,
            partition: 3000,
            qos: 0,
            tres: Vec::new(),
            max_age_secs: 86_400,
            favor_small: false,
            calc_period_secs: 300,
            tres_text: None,
            age_ignored: false,
        }
    }

    fn job(id: u32, job_size: f64, partition: f64, nice: i32) -> JobFactors {
        JobFactors {
            job_id: id,
            user_id: 0,
            partition: "debug".into(),
            age: 0.0,
            assoc: 0.0,
            fairshare: 0.0,
            job_size,
            partition_factor: partition,
            qos: 0.0,
            site: 0,
            nice,
            tres: Vec::new(),
            direct_priority: None,
        }
    }

    fn show(jobs: &[JobFactors], w: &PriorityWeights, options: &SprioOptions) -> String {
        let format = options
            .format
            .clone()
            .unwrap_or_else(|| default_format(options, w));
        let ctx = FormatContext::new(0, 0).with_user(0, "root");
        let rendered = render(jobs, w, &parse_format(&format), options, &ctx);
        match rendered.error {
            Some(error) => format!("{}error: {error}\n", rendered.stdout),
            None => rendered.stdout,
        }
    }

    // The expected texts below are what sprio 22.05.8 printed for the same jobs and weights.
    #[test]
    fn default_layout_follows_the_weights() {
        let jobs = [job(5006, 2000.0, 300.0, 0), job(5005, 1500.0, 300.0, 0)];
        let out = show(&jobs, &weights(), &SprioOptions::default());
        assert_eq!(
            out,
            "          JOBID PARTITION   PRIORITY       SITE        AGE    JOBSIZE  PARTITION\n\
             \x20          5005 debug           1800          0          0       1500        300\n\
             \x20          5006 debug           2300          0          0       2000        300\n"
        );
    }

    #[test]
    fn long_layout_shows_every_factor_and_nice() {
        let jobs = [job(5008, 1500.0, 300.0, 100)];
        let options = SprioOptions {
            long: true,
            ..SprioOptions::default()
        };
        assert_eq!(
            show(&jobs, &weights(), &options),
            "          JOBID PARTITION     USER   PRIORITY       SITE        AGE      ASSOC  FAIRSHARE    JOBSIZE  PARTITION        QOS        NICE                 TRES\n\
             \x20          5008 debug         root       1700          0          0          0          0       1500        300          0         100                     \n"
        );
    }

    #[test]
    fn normalized_and_weights() {
        let jobs = [job(5004, 2000.0, 300.0, 0)];
        let options = SprioOptions {
            normalized: true,
            ..SprioOptions::default()
        };
        assert_eq!(
            show(&jobs, &weights(), &options),
            "          JOBID PARTITION PRIORITY   AGE        JOBSIZE    PARTITION \n\
             \x20          5004 debug     0.00000053 0.0000000  1.0000000  0.1000000 \n"
        );
        let options = SprioOptions {
            weights: true,
            ..SprioOptions::default()
        };
        assert_eq!(
            show(&jobs, &weights(), &options),
            "          JOBID PARTITION   PRIORITY       SITE        AGE    JOBSIZE  PARTITION\n\
             \x20       Weights                               1       1000       2000       3000\n"
        );
    }

    #[test]
    fn tres_columns() {
        let w = PriorityWeights {
            age: 1000,
            job_size: 0,
            partition: 0,
            assoc: 7,
            fairshare: 10,
            qos: 100,
            tres: vec![
                ("cpu".into(), 1000.0),
                ("mem".into(), 2000.0),
                ("node".into(), 500.0),
            ],
            tres_text: Some("CPU=1000,Mem=2000,Node=500".into()),
            ..weights()
        };
        let mut j = job(5001, 0.0, 0.0, 0);
        j.tres = vec![
            ("cpu".into(), 1000.0, 1000.0),
            ("mem".into(), 2000.0 * 2048.0 / 23593.0, 2000.0),
            ("node".into(), 500.0, 500.0),
        ];
        let out = show(std::slice::from_ref(&j), &w, &SprioOptions::default());
        assert_eq!(
            out,
            "          JOBID PARTITION   PRIORITY       SITE        AGE      ASSOC  FAIRSHARE        QOS                 TRES\n\
             \x20          5001 debug           1673          0          0          0          0          0 cpu=1000,mem=174,nod\n"
        );
        let options = SprioOptions {
            format: Some("%t|%T|".into()),
            ..SprioOptions::default()
        };
        assert_eq!(
            show(&[j], &w, &options),
            "TRES|TRES|\ncpu=1.00,mem=0.09,node=1.00|cpu=1000,mem=174,node=500|\n"
        );
    }

    #[test]
    fn sort_letters_apply_from_the_last_and_keep_ties_in_order() {
        // The queue and the orders sprio 22.05.8 printed for it.
        let mut high = job(5004, 1500.0, 3000.0, 0);
        high.partition = "high".into();
        let jobs = [
            job(5002, 1500.0, 300.0, 0),
            job(5003, 2000.0, 300.0, 0),
            high,
            job(5005, 1500.0, 300.0, 10),
            job(5006, 2000.0, 300.0, 500),
        ];
        let order = |spec: &str| {
            let options = SprioOptions {
                format: Some("%i".into()),
                no_header: true,
                sort: Some(spec.into()),
                ..SprioOptions::default()
            };
            show(&jobs, &weights(), &options).replace('\n', " ")
        };
        assert_eq!(order("y"), "5005 5002 5006 5003 5004 ");
        assert_eq!(order("-y"), "5004 5003 5002 5006 5005 ");
        assert_eq!(order("r,-j"), "5003 5006 5002 5005 5004 ");
        assert_eq!(order("-i"), "5006 5005 5004 5003 5002 ");
        assert_eq!(order("+N"), "5002 5003 5004 5005 5006 ");
        assert_eq!(order("z"), "error: Invalid sort specification: z ");
    }

    #[test]
    fn a_directly_set_priority_replaces_the_factors() {
        let mut j = job(5019, 0.0, 0.0, 0);
        j.direct_priority = Some(7777);
        let options = SprioOptions {
            format: Some("%i %Y %.10y %S %N".into()),
            ..SprioOptions::default()
        };
        assert_eq!(
            show(&[j], &weights(), &options),
            "JOBID PRIORITY   PRIORITY SITE NICE\n5019 7777 7777.00000 0 0\n"
        );
    }

    #[test]
    fn format_parsing_keeps_prefix_and_drops_unknown_letters() {
        let layout = parse_format("<%i %%x %Y %b");
        assert_eq!(layout.prefix, "<");
        assert_eq!(
            layout.fields.iter().map(|f| f.letter).collect::<String>(),
            "iYb"
        );
        assert_eq!(layout.warnings, vec!["Invalid job format specification: x"]);
        let jobs = [job(5005, 1500.0, 300.0, 0)];
        let options = SprioOptions {
            format: Some("%10i%Y|%-10i|%.3Y|".into()),
            ..SprioOptions::default()
        };
        assert_eq!(
            show(&jobs, &weights(), &options),
            "JOBID     PRIORITY|PRI|\n5005      1800|180|\n"
        );
    }
}
