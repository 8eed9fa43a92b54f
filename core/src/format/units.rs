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

#[cfg(test)]
mod tests {
    use super::*;

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
