//! `sstat`'s table: Slurm 22.05's fields, default widths, `name%N` widths, `-p`/`-P`, `--noconvert` and `-i`.

use crate::grammar::hostlist;
use crate::model::step_usage::{Extreme, Figure, StepRef, StepTotals, StepUsage};

use super::print_fields;
use super::time::long_secs;
use super::units::{convert_num_unit, disk_mb, Convert};

/// Every field `sstat --helpformat` lists, with its default width (negative: left-justified).
const FIELDS: &[(&str, i32)] = &[
    ("AveCPU", 10),
    ("AveCPUFreq", 10),
    ("AveDiskRead", 12),
    ("AveDiskWrite", 12),
    ("AvePages", 10),
    ("AveRSS", 10),
    ("AveVMSize", 10),
    ("ConsumedEnergy", 14),
    ("ConsumedEnergyRaw", 17),
    ("JobID", -12),
    ("MaxDiskRead", 12),
    ("MaxDiskReadNode", 15),
    ("MaxDiskReadTask", 15),
    ("MaxDiskWrite", 12),
    ("MaxDiskWriteNode", 16),
    ("MaxDiskWriteTask", 16),
    ("MaxPages", 8),
    ("MaxPagesNode", 12),
    ("MaxPagesTask", 14),
    ("MaxRSS", 10),
    ("MaxRSSNode", 10),
    ("MaxRSSTask", 10),
    ("MaxVMSize", 10),
    ("MaxVMSizeNode", 14),
    ("MaxVMSizeTask", 14),
    ("MinCPU", 10),
    ("MinCPUNode", 10),
    ("MinCPUTask", 10),
    ("Nodelist", 20),
    ("NTasks", 8),
    ("Pids", 20),
    ("ReqCPUFreq", 13),
    ("ReqCPUFreqMin", 13),
    ("ReqCPUFreqMax", 13),
    ("ReqCPUFreqGov", 13),
    ("TRESUsageInAve", 14),
    ("TRESUsageInMax", 14),
    ("TRESUsageInMaxNode", 18),
    ("TRESUsageInMaxTask", 18),
    ("TRESUsageInMin", 14),
    ("TRESUsageInMinNode", 18),
    ("TRESUsageInMinTask", 18),
    ("TRESUsageInTot", 14),
    ("TRESUsageOutAve", 15),
    ("TRESUsageOutMax", 15),
    ("TRESUsageOutMaxNode", 19),
    ("TRESUsageOutMaxTask", 19),
    ("TRESUsageOutMin", 15),
    ("TRESUsageOutMinNode", 19),
    ("TRESUsageOutMinTask", 19),
    ("TRESUsageOutTot", 15),
];

/// The fields sstat prints without `-o`.
pub const DEFAULT_FORMAT: &str = "JobID,MaxVMSize,MaxVMSizeNode,MaxVMSizeTask,AveVMSize,MaxRSS,MaxRSSNode,\
     MaxRSSTask,AveRSS,MaxPages,MaxPagesNode,MaxPagesTask,AvePages,MinCPU,MinCPUNode,MinCPUTask,AveCPU,NTasks,\
     AveCPUFreq,ReqCPUFreqMin,ReqCPUFreqMax,ReqCPUFreqGov,ConsumedEnergy,MaxDiskRead,MaxDiskReadNode,\
     MaxDiskReadTask,AveDiskRead,MaxDiskWrite,MaxDiskWriteNode,MaxDiskWriteTask,AveDiskWrite,TRESUsageInAve,\
     TRESUsageInMax,TRESUsageInMaxNode,TRESUsageInMaxTask,TRESUsageInMin,TRESUsageInMinNode,TRESUsageInMinTask,\
     TRESUsageInTot,TRESUsageOutAve,TRESUsageOutMax,TRESUsageOutMaxNode,TRESUsageOutMaxTask,TRESUsageOutMin,\
     TRESUsageOutMinNode,TRESUsageOutMinTask,TRESUsageOutTot";

/// `-i`/`--pidformat`.
pub const PID_FORMAT: &str = "JobID,Nodelist,Pids";

pub use super::print_fields::{Column, Layout};

#[derive(Debug, Clone, Default)]
pub struct Options {
    pub layout: Layout,
    pub no_header: bool,
    pub no_convert: bool,
}

/// Parses `-o`'s list (`maxrss,jobid%-20`); the error is sstat's message for the first unknown field.
pub fn parse_format(list: &str) -> Result<Vec<Column>, String> {
    list.split(',')
        .filter(|item| !item.is_empty())
        .map(|item| {
            let (name, width) = match item.split_once('%') {
                Some((name, width)) => (name, width.parse::<i32>().ok()),
                None => (item, None),
            };
            let &(canonical, default_width) = FIELDS
                .iter()
                .find(|(field, _)| field.eq_ignore_ascii_case(name))
                .ok_or_else(|| format!("Invalid field requested: \"{name}\""))?;
            Ok(Column {
                name: canonical,
                width: width.unwrap_or(default_width),
            })
        })
        .collect()
}

/// `--helpformat`: the field names, four to a line.
pub fn help_format() -> String {
    print_fields::help_format(FIELDS)
}

/// The header (and dashes) as sstat prints them before any step.
pub fn header(columns: &[Column], options: &Options) -> String {
    if options.no_header {
        return String::new();
    }
    print_fields::header(columns, options.layout, "|")
}

/// One step's line.
pub fn row(step: &StepUsage, columns: &[Column], options: &Options) -> String {
    let totals = step.totals();
    let values: Vec<String> = columns
        .iter()
        .map(|c| value(c.name, step, &totals, options.no_convert))
        .collect();
    print_fields::line(columns, &values, options.layout, "|")
}

fn value(name: &str, step: &StepUsage, t: &StepTotals, raw: bool) -> String {
    let n = t.tasks;
    let req_freq = match step.step {
        StepRef::Batch => "0",
        StepRef::Numbered(_) => "Unknown",
    };
    match name {
        "JobID" => step.id_text(),
        "NTasks" => n.to_string(),
        "Nodelist" => {
            let names: Vec<String> = step
                .nodes
                .iter()
                .filter(|node| !node.tasks.is_empty())
                .map(|node| node.node.clone())
                .collect();
            hostlist::compress(&names)
        }
        "Pids" => step
            .nodes
            .iter()
            .flat_map(|node| node.pids.iter().map(u32::to_string))
            .collect::<Vec<_>>()
            .join(","),
        "ReqCPUFreq" | "ReqCPUFreqMin" | "ReqCPUFreqMax" | "ReqCPUFreqGov" => req_freq.to_string(),
        _ => figure_value(name, t, raw, false).unwrap_or_default(),
    }
}

/// A usage field of a step (sstat's, and sacct's for a finished step) from its figures; `None` for other fields.
/// `disk_in_mb`: sacct prints disk figures in megabytes where sstat prints bytes.
pub(crate) fn figure_value(
    name: &str,
    t: &StepTotals,
    raw: bool,
    disk_in_mb: bool,
) -> Option<String> {
    let n = t.tasks;
    let disk = |value: u64| {
        if disk_in_mb {
            disk_mb(value, how(raw))
        } else {
            bytes(value, raw)
        }
    };
    Some(match name {
        "AveCPU" => cpu(t.cpu_ms.average(n)),
        "MinCPU" => cpu(t.cpu_ms.min.value),
        "MinCPUNode" => t.cpu_ms.min.node.clone(),
        "MinCPUTask" => t.cpu_ms.min.task.to_string(),
        // Slurm's figure is the frequency in MHz scaled as if it were kHz (a 2.6 GHz CPU prints `2.60M`).
        "AveCPUFreq" => frequency(t.cpu_freq_khz.average(n) / 1000),
        "AveDiskRead" => disk(t.read_bytes.average(n)),
        "AveDiskWrite" => disk(t.write_bytes.average(n)),
        "AvePages" => t.pages.average(n).to_string(),
        "AveRSS" => kib(t.rss_kib.average(n), raw),
        "AveVMSize" => kib(t.vmem_kib.average(n), raw),
        "ConsumedEnergy" | "ConsumedEnergyRaw" => "0".to_string(),
        "MaxDiskRead" => disk(t.read_bytes.max.value),
        "MaxDiskReadNode" => t.read_bytes.max.node.clone(),
        "MaxDiskReadTask" => t.read_bytes.max.task.to_string(),
        "MaxDiskWrite" => disk(t.write_bytes.max.value),
        "MaxDiskWriteNode" => t.write_bytes.max.node.clone(),
        "MaxDiskWriteTask" => t.write_bytes.max.task.to_string(),
        "MaxPages" => t.pages.max.value.to_string(),
        "MaxPagesNode" => t.pages.max.node.clone(),
        "MaxPagesTask" => t.pages.max.task.to_string(),
        "MaxRSS" => kib(t.rss_kib.max.value, raw),
        "MaxRSSNode" => t.rss_kib.max.node.clone(),
        "MaxRSSTask" => t.rss_kib.max.task.to_string(),
        "MaxVMSize" => kib(t.vmem_kib.max.value, raw),
        "MaxVMSizeNode" => t.vmem_kib.max.node.clone(),
        "MaxVMSizeTask" => t.vmem_kib.max.task.to_string(),
        "TRESUsageInAve" => tres_in(t, raw, |f| f.average(n)),
        "TRESUsageInMax" => tres_in(t, raw, |f| f.max.value),
        "TRESUsageInMin" => tres_in(t, raw, |f| f.min.value),
        "TRESUsageInTot" => tres_in(t, raw, |f| f.total),
        "TRESUsageInMaxNode" => tres_in_nodes(t, |f| &f.max),
        "TRESUsageInMinNode" => tres_in_nodes(t, |f| &f.min),
        "TRESUsageInMaxTask" => tres_in_tasks(t, |f| &f.max),
        "TRESUsageInMinTask" => tres_in_tasks(t, |f| &f.min),
        "TRESUsageOutAve" => format!("energy=0,fs/disk={}", t.write_bytes.average(n)),
        "TRESUsageOutMax" => format!("energy=0,fs/disk={}", t.write_bytes.max.value),
        "TRESUsageOutMin" => format!("energy=0,fs/disk={}", t.write_bytes.min.value),
        "TRESUsageOutTot" => format!("energy=0,fs/disk={}", t.write_bytes.total),
        "TRESUsageOutMaxNode" => format!(
            "energy={0},fs/disk={1}",
            t.first_node, t.write_bytes.max.node
        ),
        "TRESUsageOutMinNode" => format!(
            "energy={0},fs/disk={1}",
            t.first_node, t.write_bytes.min.node
        ),
        "TRESUsageOutMaxTask" => format!("fs/disk={}", t.write_bytes.max.task),
        "TRESUsageOutMinTask" => format!("fs/disk={}", t.write_bytes.min.task),
        _ => return None,
    })
}

/// `cpu=...,energy=0,fs/disk=...,mem=...,pages=...,vmem=...` with one reduction of every figure.
fn tres_in(t: &StepTotals, raw: bool, pick: impl Fn(&Figure) -> u64) -> String {
    format!(
        "cpu={},energy=0,fs/disk={},mem={},pages={},vmem={}",
        cpu(pick(&t.cpu_ms)),
        pick(&t.read_bytes),
        kib(pick(&t.rss_kib), raw),
        pick(&t.pages),
        kib(pick(&t.vmem_kib), raw),
    )
}

fn tres_in_nodes(t: &StepTotals, which: impl Fn(&Figure) -> &Extreme) -> String {
    format!(
        "cpu={},energy={},fs/disk={},mem={},pages={},vmem={}",
        which(&t.cpu_ms).node,
        t.first_node,
        which(&t.read_bytes).node,
        which(&t.rss_kib).node,
        which(&t.pages).node,
        which(&t.vmem_kib).node,
    )
}

/// Slurm prints the task of the CPU extreme through its time formatter (`cpu=00:00:00` for task 0), and leaves
/// energy out: it is a node's figure, not a task's.
fn tres_in_tasks(t: &StepTotals, which: impl Fn(&Figure) -> &Extreme) -> String {
    format!(
        "cpu={},fs/disk={},mem={},pages={},vmem={}",
        long_secs(i64::from(which(&t.cpu_ms).task)),
        which(&t.read_bytes).task,
        which(&t.rss_kib).task,
        which(&t.pages).task,
        which(&t.vmem_kib).task,
    )
}

fn cpu(ms: u64) -> String {
    long_secs(i64::try_from(ms / 1000).unwrap_or(i64::MAX))
}

/// A size in KiB as Slurm prints the bytes it keeps: `3124K`, `4M`, `1.50G` (`convert_num_unit`, exact); bytes
/// with `--noconvert`.
fn kib(value: u64, raw: bool) -> String {
    convert_num_unit(value.saturating_mul(1024) as f64, 0, 1024, how(raw))
}

/// sstat's disk figures: a byte count converted as sizes are (Slurm's `_print_small_double` in bytes, whose
/// fraction branch prints exactly one byte as `1.00M`).
fn bytes(value: u64, raw: bool) -> String {
    match value {
        0 => "0".to_string(),
        1 => "1.00M".to_string(),
        _ => convert_num_unit(value as f64, 0, 1024, how(raw)),
    }
}

fn how(raw: bool) -> Convert {
    if raw {
        Convert::No
    } else {
        Convert::Exact
    }
}

/// A frequency in kHz, in steps of 1000 (`2600000` kHz -> `2.60G`... as Slurm scales from K).
fn frequency(khz: u64) -> String {
    if khz == 0 {
        return "0".to_string();
    }
    let units = ["K", "M", "G", "T"];
    let mut value = khz as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < units.len() {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{khz}K")
    } else {
        format!("{value:.2}{}", units[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::step_usage::{NodeUsage, TaskUsage};

    fn sample() -> StepUsage {
        StepUsage {
            job_id: 2,
            step: StepRef::Numbered(0),
            nodes: vec![NodeUsage {
                node: "vm".into(),
                pids: vec![26608],
                tasks: vec![TaskUsage {
                    task: 0,
                    cpu_ms: 2400,
                    rss_kib: 3124,
                    vmem_kib: 4360,
                    pages: 0,
                    read_bytes: 62_936_321,
                    write_bytes: 62_914_561,
                    cpu_freq_khz: 17_000,
                }],
            }],
        }
    }

    #[test]
    fn default_row_as_slurm_prints_it() {
        let columns = parse_format(DEFAULT_FORMAT).unwrap();
        let options = Options::default();
        let text = row(&sample(), &columns, &options);
        // Captured from Slurm 22.05 for a one-task step (`sstat -j 2`), up to the figures' values.
        assert_eq!(
            text,
            concat!(
                "2.0               4360K             vm              0      4360K      3124K         vm    ",
                "      0      3124K        0           vm              0          0   00:00:02         vm  ",
                "        0   00:00:02        1        17K       Unknown       Unknown       Unknown        ",
                "      0     62936321              vm               0     62936321     62914561            ",
                "   vm                0     62914561 cpu=00:00:02,+ cpu=00:00:02,+ cpu=vm,energy=vm,+ cpu=0",
                "0:00:00,fs/d+ cpu=00:00:02,+ cpu=vm,energy=vm,+ cpu=00:00:00,fs/d+ cpu=00:00:02,+ energy=0",
                ",fs/di+ energy=0,fs/di+ energy=vm,fs/disk=+           fs/disk=0 energy=0,fs/di+ energy=vm,",
                "fs/disk=+           fs/disk=0 energy=0,fs/di+ \n",
            )
        );
        let head = header(&columns, &options);
        assert!(head.starts_with(
            "JobID         MaxVMSize  MaxVMSizeNode  MaxVMSizeTask  AveVMSize     MaxRSS"
        ));
    }

    #[test]
    fn parsable_tres_and_noconvert() {
        let columns = parse_format(
            "jobid,TRESUsageInMax,TRESUsageInMaxNode,TRESUsageInMaxTask,TRESUsageOutTot",
        )
        .unwrap();
        let options = Options {
            layout: Layout::Parsable2,
            ..Options::default()
        };
        assert_eq!(
            row(&sample(), &columns, &options),
            "2.0|cpu=00:00:02,energy=0,fs/disk=62936321,mem=3124K,pages=0,vmem=4360K|\
             cpu=vm,energy=vm,fs/disk=vm,mem=vm,pages=vm,vmem=vm|cpu=00:00:00,fs/disk=0,mem=0,pages=0,vmem=0|\
             energy=0,fs/disk=62914561\n"
        );
        let raw = Options {
            no_convert: true,
            layout: Layout::Parsable,
            ..Options::default()
        };
        let columns = parse_format("jobid,maxrss").unwrap();
        assert_eq!(row(&sample(), &columns, &raw), "2.0|3198976|\n");
        assert_eq!(header(&columns, &raw), "JobID|MaxRSS|\n");
    }

    #[test]
    fn widths_and_unknown_fields() {
        let columns = parse_format("jobid%-5,ntasks%3,maxrss%-12").unwrap();
        assert_eq!(
            header(&columns, &Options::default()),
            "JobID NTa MaxRSS       \n----- --- ------------ \n"
        );
        assert_eq!(
            parse_format("jobid,foo").unwrap_err(),
            "Invalid field requested: \"foo\""
        );
        assert!(help_format().starts_with(
            "AveCPU              AveCPUFreq          AveDiskRead         AveDiskWrite       \n"
        ));
    }

    #[test]
    fn units() {
        assert_eq!(kib(3124, false), "3124K");
        assert_eq!(kib(4096, false), "4M");
        assert_eq!(kib(1536, false), "1.50M");
        assert_eq!(kib(1536 * 1024, false), "1.50G");
        assert_eq!(bytes(1_048_576, false), "1M");
        assert_eq!(bytes(1, false), "1.00M");
        assert_eq!(bytes(1613, false), "1613");
        assert_eq!(frequency(2600), "2.60M");
        assert_eq!(frequency(17), "17K");
        assert_eq!(frequency(0), "0");
    }
}
