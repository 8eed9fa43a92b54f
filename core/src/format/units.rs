//! Numbers with units as Slurm prints them: memory sizes converted only when exact (`2048` MB -> `2G`, `23593` MB
//! stays `23593M`), and TRES strings (`cpu=2,mem=2G,node=1,billing=2`).

const MEGA_SUFFIXES: [&str; 5] = ["M", "G", "T", "P", "E"];

/// A size in megabytes with the largest unit that divides it exactly (`convert_num_unit` with
/// `CONVERT_NUM_UNIT_EXACT`); 0 prints as `0`.
pub fn mem_mb(mb: u64) -> String {
    if mb == 0 {
        return "0".to_string();
    }
    let mut value = mb;
    let mut unit = 0;
    while value.is_multiple_of(1024) && unit + 1 < MEGA_SUFFIXES.len() {
        value /= 1024;
        unit += 1;
    }
    format!("{value}{}", MEGA_SUFFIXES[unit])
}

/// A TRES string from its parts in Slurm's order (cpu, mem, energy, node, billing, then gres); `None` parts are
/// left out.
pub fn tres(
    cpu: Option<u64>,
    mem_mb_total: Option<u64>,
    node: Option<u64>,
    billing: Option<u64>,
) -> String {
    let mut parts = Vec::new();
    if let Some(c) = cpu {
        parts.push(format!("cpu={c}"));
    }
    if let Some(m) = mem_mb_total {
        parts.push(format!("mem={}", mem_mb(m)));
    }
    if let Some(n) = node {
        parts.push(format!("node={n}"));
    }
    if let Some(b) = billing {
        parts.push(format!("billing={b}"));
    }
    parts.join(",")
}

/// The value of `key=` in a TRES string (`billing` of `cpu=2,billing=2` is 2).
pub fn tres_value(tres: &str, key: &str) -> Option<u64> {
    tres.split(',')
        .filter_map(|part| part.split_once('='))
        .find(|(k, _)| *k == key)
        .and_then(|(_, v)| v.parse().ok())
}

/// How `convert_num_unit` may scale a number (sacct's and sstat's `convert_flags`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Convert {
    /// The default: divide while no precision is lost (a half unit, `1.50M`, still counts as exact).
    Exact,
    /// `--noconvert`: keep the number in the unit it came in.
    No,
}

const UNIT_LETTERS: [&str; 6] = ["", "K", "M", "G", "T", "P"];

/// Slurm's `convert_num_unit2`: `num`, given in unit `unit` (0 none, 1 kilo, 2 mega, ...), scaled by `divisor` as
/// `how` allows and printed whole (`214140K`, `4M`) or with two decimals when it has a fraction (`1.50M`); 0 (or
/// anything under 1) prints `0`.
pub fn convert_num_unit(num: f64, unit: usize, divisor: u64, how: Convert) -> String {
    if num.trunc() == 0.0 {
        return "0".to_string();
    }
    let mut num = num;
    let mut unit = unit;
    let div = divisor.max(2) as f64;
    if how == Convert::Exact {
        let half = divisor.max(2) / 2;
        while num >= div && (num as u64).is_multiple_of(half) {
            num /= div;
            unit += 1;
        }
    }
    let letter = UNIT_LETTERS.get(unit).copied().unwrap_or("?");
    let whole = num as u64;
    if whole as f64 == num {
        format!("{whole}{letter}")
    } else {
        format!("{num:.2}{letter}")
    }
}

/// sacct's disk figures (`MaxDiskRead`, `AveDiskWrite`): bytes shown in megabytes, two decimals under one
/// (`0.05M`), converted from mega above it; nothing at all is `0`.
pub fn disk_mb(bytes: u64, how: Convert) -> String {
    let mb = bytes as f64 / f64::from(1u32 << 20);
    if mb > 1.0 {
        convert_num_unit(mb, 2, 1024, how)
    } else if mb > 0.0 {
        format!("{mb:.2}M")
    } else {
        "0".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn convert_num_unit_as_slurm() {
        let exact = |n: u64| convert_num_unit(n as f64, 0, 1024, Convert::Exact);
        assert_eq!(exact(0), "0");
        assert_eq!(exact(219_279_360), "214140K");
        assert_eq!(exact(4_194_304), "4M");
        assert_eq!(exact(1_572_864), "1.50M");
        assert_eq!(exact(1_311_744), "1281K");
        assert_eq!(exact(1536 * 1024 * 1024), "1.50G");
        assert_eq!(exact(48_072), "48072");
        assert_eq!(exact(1023), "1023");
        assert_eq!(exact(512), "512");
        assert_eq!(exact(5120), "5K");
        assert_eq!(
            convert_num_unit(219_279_360.0, 0, 1024, Convert::No),
            "219279360"
        );
        assert_eq!(convert_num_unit(2500.0, 1, 1000, Convert::Exact), "2.50M");
        assert_eq!(convert_num_unit(2600.0, 1, 1000, Convert::Exact), "2600K");
        assert_eq!(convert_num_unit(0.4, 0, 1024, Convert::Exact), "0");
    }

    #[test]
    fn disk_figures_in_megabytes() {
        assert_eq!(disk_mb(0, Convert::Exact), "0");
        assert_eq!(disk_mb(1, Convert::Exact), "0.00M");
        assert_eq!(disk_mb(48_072, Convert::Exact), "0.05M");
        assert_eq!(disk_mb(62_936_321, Convert::Exact), "60.02M");
        assert_eq!(disk_mb(2 << 30, Convert::Exact), "2G");
        assert_eq!(disk_mb(2 << 30, Convert::No), "2048M");
    }

    #[test]
    fn memory_converts_only_exact_multiples() {
        assert_eq!(mem_mb(0), "0");
        assert_eq!(mem_mb(1024), "1G");
        assert_eq!(mem_mb(2048), "2G");
        assert_eq!(mem_mb(65_536), "64G");
        assert_eq!(mem_mb(23_593), "23593M");
        assert_eq!(mem_mb(1_048_576), "1T");
        assert_eq!(mem_mb(1536), "1536M");
    }

    #[test]
    fn tres_strings() {
        assert_eq!(
            tres(Some(2), Some(2048), Some(1), Some(2)),
            "cpu=2,mem=2G,node=1,billing=2"
        );
        assert_eq!(
            tres(Some(2), Some(23_593), None, Some(2)),
            "cpu=2,mem=23593M,billing=2"
        );
        assert_eq!(tres(Some(2), Some(2048), None, None), "cpu=2,mem=2G");
        assert_eq!(
            tres_value("cpu=2,mem=2G,node=1,billing=2", "billing"),
            Some(2)
        );
        assert_eq!(tres_value("", "billing"), None);
    }
}
