//! `TRESBillingWeights` (a partition's): how much a job's TRES count as its `billing` TRES, which `TRES=` strings
//! show and fair-share usage accrues. Checked against Slurm 22.05: the billing is the sum of each TRES times its
//! weight, shown truncated (`CPU=0.5,Node=3` bills a one-CPU job 3, `CPU=1.0,Mem=0.25G` bills one CPU and 1 GB 1);
//! without weights it is the CPU count.

use std::collections::BTreeMap;

/// What a job (or node, or partition) holds, for billing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TresCounts {
    pub cpus: u64,
    pub mem_mb: u64,
    pub nodes: u64,
    /// Units per GRES name (`gpu`).
    pub gres: BTreeMap<String, u64>,
}

/// One weighed TRES.
#[derive(Debug, Clone, PartialEq)]
enum Weighed {
    Cpu,
    /// Weights are per MB once the value's unit is applied.
    Mem,
    Node,
    Gres(String),
}

/// Parsed `TRESBillingWeights`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BillingWeights {
    weights: Vec<(Weighed, f64)>,
}

impl BillingWeights {
    /// Reads `CPU=1.0,Mem=0.25G,GRES/gpu=2.0` (names in any case; a memory weight may carry a unit, K, M, G or T,
    /// meaning per that much memory, else per MB). The error is slurmctld's text for what it refuses to start on.
    pub fn parse(text: &str) -> Result<BillingWeights, String> {
        let mut weights = Vec::new();
        for item in text.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let (name, value) = item
                .split_once('=')
                .ok_or_else(|| format!("failed to parse tres weights str '{text}'"))?;
            let lower = name.trim().to_ascii_lowercase();
            let what = match lower.as_str() {
                "cpu" => Weighed::Cpu,
                "mem" => Weighed::Mem,
                "node" => Weighed::Node,
                _ => match lower.strip_prefix("gres/") {
                    Some(gres) if !gres.is_empty() && !gres.contains(':') => {
                        Weighed::Gres(gres.to_string())
                    }
                    _ => {
                        return Err(format!(
                            "TRES weight '{}' is not a configured TRES type.",
                            name.trim()
                        ))
                    }
                },
            };
            let value = value.trim();
            let (number, per_mb) = match (&what, value.chars().last()) {
                (Weighed::Mem, Some(unit)) if unit.is_ascii_alphabetic() => {
                    let per = match unit.to_ascii_uppercase() {
                        'K' => 1.0 / 1024.0,
                        'M' => 1.0,
                        'G' => 1024.0,
                        'T' => 1024.0 * 1024.0,
                        _ => return Err(format!("failed to parse tres weights str '{text}'")),
                    };
                    (&value[..value.len() - 1], per)
                }
                _ => (value, 1.0),
            };
            let weight: f64 = number
                .parse()
                .ok()
                .filter(|w: &f64| w.is_finite() && *w >= 0.0)
                .ok_or_else(|| format!("failed to parse tres weights str '{text}'"))?;
            weights.push((what, weight / per_mb));
        }
        Ok(BillingWeights { weights })
    }

    /// The billing of `counts`, unrounded (fair-share usage accrues it so).
    pub fn billing(&self, counts: &TresCounts) -> f64 {
        self.weights
            .iter()
            .map(|(what, weight)| {
                let count = match what {
                    Weighed::Cpu => counts.cpus,
                    Weighed::Mem => counts.mem_mb,
                    Weighed::Node => counts.nodes,
                    Weighed::Gres(name) => counts.gres.get(name).copied().unwrap_or(0),
                };
                count as f64 * weight
            })
            .sum()
    }
}

/// The GRES units of these node offers (a node's `Gres=`, or all its partition's nodes'), per name.
pub fn offered_gres<'a>(
    gres: impl IntoIterator<Item = &'a crate::model::records::NodeGres>,
) -> BTreeMap<String, u64> {
    let mut totals = BTreeMap::new();
    for g in gres {
        *totals.entry(g.name.clone()).or_insert(0) += g.count;
    }
    totals
}

/// The billing `TRES=` strings show: under `weights` (the text of `TRESBillingWeights`), their sum truncated; without
/// them (or with text that does not parse, which the controller refuses at start-up) the CPU count.
pub fn shown_billing(weights: Option<&str>, counts: &TresCounts) -> u64 {
    match weights.map(BillingWeights::parse) {
        Some(Ok(w)) => w.billing(counts) as u64,
        _ => counts.cpus,
    }
}

/// [`BillingWeights::billing`] for usage: unrounded, the CPU count without weights.
pub fn usage_billing(weights: Option<&str>, counts: &TresCounts) -> f64 {
    match weights.map(BillingWeights::parse) {
        Some(Ok(w)) => w.billing(counts),
        _ => counts.cpus as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(cpus: u64, mem_mb: u64, nodes: u64) -> TresCounts {
        TresCounts {
            cpus,
            mem_mb,
            nodes,
            gres: BTreeMap::new(),
        }
    }

    /// Figures from slurmctld 22.05 (`scontrol show job` `TRES=...billing=N`, partition and node `TRES`).
    #[test]
    fn billing_as_slurmctld_shows_it() {
        let mem = Some("CPU=1.0,Mem=0.25G");
        assert_eq!(shown_billing(mem, &counts(1, 1024, 1)), 1);
        assert_eq!(shown_billing(mem, &counts(2, 1000, 1)), 2);
        assert_eq!(shown_billing(mem, &counts(1, 3000, 1)), 1);
        assert_eq!(shown_billing(mem, &counts(2, 23593, 1)), 7);
        let node = Some("CPU=0.5,Node=3");
        assert_eq!(shown_billing(node, &counts(1, 1024, 1)), 3);
        assert_eq!(shown_billing(node, &counts(2, 2048, 1)), 4);
        assert_eq!(shown_billing(Some("CPU=1.5"), &counts(1, 0, 1)), 1);
        assert_eq!(shown_billing(Some("CPU=1.5"), &counts(2, 0, 1)), 3);
        assert_eq!(shown_billing(None, &counts(6, 0, 2)), 6);
    }

    #[test]
    fn gres_weights_count_units_and_usage_keeps_fractions() {
        let mut c = counts(2, 0, 1);
        c.gres.insert("gpu".into(), 3);
        let w = Some("cpu=0.25,GRES/gpu=2");
        assert_eq!(shown_billing(w, &c), 6);
        assert!((usage_billing(w, &c) - 6.5).abs() < 1e-9);
        assert!((usage_billing(Some("Mem=1k"), &counts(0, 2, 0)) - 2048.0).abs() < 1e-9);
    }

    #[test]
    fn unknown_weights_are_refused_as_slurmctld_does() {
        assert_eq!(
            BillingWeights::parse("CPU=1,license/x=2").unwrap_err(),
            "TRES weight 'license/x' is not a configured TRES type."
        );
        assert!(BillingWeights::parse("CPU").is_err());
        assert!(BillingWeights::parse("CPU=abc").is_err());
        assert!(BillingWeights::parse("Mem=1Q").is_err());
        assert!(BillingWeights::parse("GRES/gpu:a100=1").is_err());
    }
}
