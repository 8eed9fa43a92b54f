//! Reserved ports for steps (slurm.conf `MpiParams=ports=MIN-MAX`, srun `--resv-ports`), as slurmctld's port
//! manager hands them out (docs/mpi.md): a port is held on each node of the step that reserved it until that step
//! ends, a step gets ports free on all of its nodes, and the search goes round the range from where the last one
//! stopped. Which ports a step holds is kept here with the step's nodes; a reservation whose step no longer runs is
//! free, so every way a step ends releases its ports.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use spur_core::wire::api::SlurmErrno;

/// The port range `MpiParams` gives (`ports=12000-12999`), `None` without `ports=` or with a range slurmctld
/// refuses (a first port below 1, no `-`, a last port below the first), read as slurmctld reads it (`strtol`).
pub fn port_range(mpi_params: &str) -> Option<(u32, u32)> {
    let at = mpi_params.find("ports=")?;
    let rest = &mpi_params[at + "ports=".len()..];
    let (min, rest) = leading_number(rest);
    let rest = rest.strip_prefix('-')?;
    let (max, _) = leading_number(rest);
    (min >= 1 && max >= min && max <= i64::from(u16::MAX))
        .then(|| (u32::try_from(min).ok(), u32::try_from(max).ok()))
        .and_then(|(a, b)| Some((a?, b?)))
}

/// `strtol`'s number at the start of `text` (0 when there is none) and what follows it.
fn leading_number(text: &str) -> (i64, &str) {
    let trimmed = text.trim_start();
    let (sign, digits) = match trimmed.as_bytes().first() {
        Some(b'-') => (-1, &trimmed[1..]),
        Some(b'+') => (1, &trimmed[1..]),
        _ => (1, trimmed),
    };
    let end = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    if end == 0 {
        return (0, text);
    }
    let value = digits[..end].parse::<i64>().unwrap_or(i64::MAX);
    (sign * value, &digits[end..])
}

/// One step's reservation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Held {
    pub job_id: u32,
    pub step_id: u32,
    pub ports: Vec<u32>,
    pub nodes: Vec<String>,
}

/// The reservations of running steps and where the next search starts (slurmctld's `last_port_alloc`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PortReservations {
    #[serde(default)]
    pub last: u32,
    #[serde(default)]
    pub held: Vec<Held>,
}

impl PortReservations {
    /// Reserves `count` ports of `range` free on every one of `nodes` for step `job_id.step_id`, after dropping
    /// the reservations of steps `running` no longer accepts; returns them as `SLURM_STEP_RESV_PORTS` shows them
    /// (`12001-12003`). `PortsInvalid` when the range (none: no ports at all) has fewer than `count` ports,
    /// `PortsBusy` when too few are free on these nodes now.
    pub fn reserve(
        &mut self,
        range: Option<(u32, u32)>,
        (job_id, step_id): (u32, u32),
        nodes: &[String],
        count: u32,
        running: impl Fn(u32, u32) -> bool,
    ) -> Result<String, SlurmErrno> {
        self.held.retain(|h| running(h.job_id, h.step_id));
        let (min, size) = range.map_or((0, 0), |(min, max)| (min, max - min + 1));
        if count > size {
            return Err(SlurmErrno::PortsInvalid);
        }
        let wanted: BTreeSet<&str> = nodes.iter().map(String::as_str).collect();
        let busy = |port: u32| {
            self.held.iter().any(|h| {
                h.ports.contains(&port) && h.nodes.iter().any(|n| wanted.contains(n.as_str()))
            })
        };
        let mut chosen = Vec::new();
        for _ in 0..size {
            // The search starts one past where the previous one stopped, as slurmctld's does.
            self.last = self.last.saturating_add(1);
            if self.last >= size {
                self.last = 0;
            }
            let port = min + self.last;
            if busy(port) {
                continue;
            }
            chosen.push(port);
            if chosen.len() as u32 >= count {
                break;
            }
        }
        if (chosen.len() as u32) < count {
            return Err(SlurmErrno::PortsBusy);
        }
        chosen.sort_unstable();
        let text = ranges(&chosen);
        self.held.push(Held {
            job_id,
            step_id,
            ports: chosen,
            nodes: nodes.to_vec(),
        });
        Ok(text)
    }
}

/// Sorted ports as a ranged list without brackets (`12001-12003,12007`), as Slurm's host list prints numbers.
pub fn ranges(ports: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while let Some(&first) = ports.get(i) {
        let mut last = first;
        while ports.get(i + 1) == Some(&(last + 1)) {
            last += 1;
            i += 1;
        }
        out.push(if last == first {
            first.to_string()
        } else {
            format!("{first}-{last}")
        });
        i += 1;
    }
    out.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nodes(list: &[&str]) -> Vec<String> {
        list.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn ranges_parse_as_slurmctld_reads_them() {
        assert_eq!(port_range("ports=12000-12999"), Some((12000, 12999)));
        assert_eq!(port_range("foo,ports=5-5"), Some((5, 5)));
        assert_eq!(port_range("ports=0-10"), None);
        assert_eq!(port_range("ports=10-5"), None);
        assert_eq!(port_range("ports=10"), None);
        assert_eq!(port_range("ports=x-5"), None);
        assert_eq!(port_range("ports=1-99999"), None);
        assert_eq!(port_range("none"), None);
    }

    #[test]
    fn steps_get_free_ports_round_the_range_and_release_them_when_they_end() {
        let mut r = PortReservations::default();
        let range = Some((12000, 12009));
        let all = |_: u32, _: u32| true;
        // slurmctld's search starts one past its last position, which starts at 0: the first port is never first.
        assert_eq!(
            r.reserve(range, (1, 0), &nodes(&["n1", "n2"]), 3, all),
            Ok("12001-12003".into())
        );
        assert_eq!(
            r.reserve(range, (1, 1), &nodes(&["n2"]), 3, all),
            Ok("12004-12006".into())
        );
        // Another node may use ports the others hold; the search still goes on from where it stopped.
        assert_eq!(
            r.reserve(range, (2, 0), &nodes(&["n3"]), 2, all),
            Ok("12007-12008".into())
        );
        // Wrapping round: 12009 and 12000 are free on n2 and n3, 12001-12006 held on n2, 12007-12008 on n3.
        assert_eq!(
            r.reserve(range, (1, 2), &nodes(&["n2", "n3"]), 3, all),
            Err(SlurmErrno::PortsBusy)
        );
        assert_eq!(
            r.reserve(range, (1, 3), &nodes(&["n2"]), 11, all),
            Err(SlurmErrno::PortsInvalid)
        );
        // Step 1.0 ended: its ports are free again.
        let running = |j: u32, s: u32| !(j == 1 && s == 0);
        let got = r
            .reserve(range, (1, 4), &nodes(&["n1"]), 4, running)
            .unwrap();
        assert_eq!(got, "12000-12002,12009");
        assert!(r.held.iter().all(|h| (h.job_id, h.step_id) != (1, 0)));
    }

    #[test]
    fn without_a_range_every_reservation_is_refused() {
        let mut r = PortReservations::default();
        assert_eq!(
            r.reserve(None, (1, 0), &nodes(&["n1"]), 1, |_, _| true),
            Err(SlurmErrno::PortsInvalid)
        );
    }

    #[test]
    fn port_lists_print_as_ranges() {
        assert_eq!(ranges(&[1, 2, 3, 7, 9, 10]), "1-3,7,9-10");
        assert_eq!(ranges(&[5]), "5");
        assert_eq!(ranges(&[]), "");
    }
}
