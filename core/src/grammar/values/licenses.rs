//! License lists: a job's `-L name[:count],...` and slurm.conf's `Licenses=name[:count],...` (a name alone counts
//! one; slurm.conf also accepts `name*count`). The scheduler starts a job only while every license it names has
//! that many left of the cluster's total.

use std::collections::BTreeMap;

/// `fluent:2,ansys` as name and count pairs, in the order given (a repeated name adds up); `Err` names the
/// item that is not `name[:count]` with a positive count.
pub fn parse(text: &str) -> Result<Vec<(String, u32)>, String> {
    let mut out: Vec<(String, u32)> = Vec::new();
    for item in text.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let (name, count) = match item.split_once([':', '*']) {
            Some((name, count)) => (name, count.parse::<u32>().map_err(|_| item.to_string())?),
            None => (item, 1),
        };
        if name.is_empty() || count == 0 {
            return Err(item.to_string());
        }
        match out.iter_mut().find(|(n, _)| n == name) {
            Some((_, c)) => *c = c.saturating_add(count),
            None => out.push((name.to_string(), count)),
        }
    }
    if out.is_empty() {
        return Err(text.to_string());
    }
    Ok(out)
}

/// slurm.conf's `Licenses`: each license's total.
pub fn totals(text: Option<&str>) -> BTreeMap<String, u32> {
    text.and_then(|t| parse(t).ok())
        .map(|pairs| pairs.into_iter().collect())
        .unwrap_or_default()
}

/// Whether `wanted` can ever be had from `totals` (each name configured, each count within its total).
pub fn satisfiable(wanted: &[(String, u32)], totals: &BTreeMap<String, u32>) -> bool {
    wanted
        .iter()
        .all(|(name, count)| totals.get(name).is_some_and(|total| count <= total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists() {
        assert_eq!(
            parse("fluent:2,ansys").unwrap(),
            vec![("fluent".to_string(), 2), ("ansys".to_string(), 1)]
        );
        assert_eq!(parse("a:1,a:2").unwrap(), vec![("a".to_string(), 3)]);
        assert_eq!(parse("matlab*5").unwrap(), vec![("matlab".to_string(), 5)]);
        assert_eq!(parse("fluent:x"), Err("fluent:x".to_string()));
        assert_eq!(parse("fluent:0"), Err("fluent:0".to_string()));
        assert!(parse("").is_err());
        let totals = totals(Some("fluent:3,ansys"));
        assert_eq!(totals.get("ansys"), Some(&1));
        assert!(satisfiable(&parse("fluent:3").unwrap(), &totals));
        assert!(!satisfiable(&parse("fluent:4").unwrap(), &totals));
        assert!(!satisfiable(&parse("nosuch").unwrap(), &totals));
    }
}
