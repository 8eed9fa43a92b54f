//! How a node's GPUs are connected to each other: a symmetric matrix of [`Link`]s between GPUs plus each GPU's NUMA
//! node. The scheduler reads it to give a job GPUs that talk to each other over XGMI/NVLink rather than across
//! sockets (see docs/gpus.md).
//!
//! Two sources fill it: the agent's discovery (sysfs, `nvidia-smi topo -m`), which names GPUs by device file, and
//! gres.conf `Links=`, which names them by position. [`NodeTopology::refresh`] turns either into the *unit*
//! order the scheduler numbers GRES in (the node's gres.conf `File=` order), so unit `i` is row `i`.

use serde::{Deserialize, Serialize};

/// How two GPUs reach each other, from worst to best. The names follow `nvidia-smi topo -m`'s legend because it is
/// the vocabulary admins know; AMD's KFD links map onto the same ladder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Link {
    /// No path known (or gres.conf `Links=` says 0).
    None,
    /// Across the interconnect between sockets/NUMA nodes (`SYS`).
    CrossSocket,
    /// Same NUMA node, different PCIe host bridges (`NODE`).
    SameNuma,
    /// Through one PCIe host bridge, typically the CPU's root complex (`PHB`).
    HostBridge,
    /// Through several PCIe bridges without the host bridge (`PXB`).
    PcieBridges,
    /// Through at most one PCIe bridge, i.e. the same switch (`PIX`).
    PcieSwitch,
    /// A GPU fabric (XGMI or NVLink): `links` bonded links, `hops` GPUs crossed (1 is a direct link).
    Fabric { links: u16, hops: u8 },
}

/// Fabric hops past this rank alike: beyond it the difference between paths is noise next to any PCIe path.
const FABRIC_HOPS_MAX: u8 = 7;
/// Bonded links past this rank alike (NV18 on H100 is the largest in practice).
const FABRIC_LINKS_MAX: u16 = 31;

impl Link {
    /// A number that orders links by quality: every fabric link outranks every PCIe path; among fabric links fewer
    /// hops win, then more bonded links.
    pub fn rank(self) -> u32 {
        match self {
            Link::None => 0,
            Link::CrossSocket => 1,
            Link::SameNuma => 2,
            Link::HostBridge => 3,
            Link::PcieBridges => 4,
            Link::PcieSwitch => 5,
            Link::Fabric { links, hops } => {
                let hops = u32::from(hops.clamp(1, FABRIC_HOPS_MAX));
                let links = u32::from(links.clamp(1, FABRIC_LINKS_MAX));
                32 * (u32::from(FABRIC_HOPS_MAX) + 1 - hops) + links
            }
        }
    }

    pub fn is_fabric(self) -> bool {
        matches!(self, Link::Fabric { .. })
    }

    /// `nvidia-smi topo -m`'s spelling, for logs and docs.
    pub fn label(self) -> String {
        match self {
            Link::None => "-".into(),
            Link::CrossSocket => "SYS".into(),
            Link::SameNuma => "NODE".into(),
            Link::HostBridge => "PHB".into(),
            Link::PcieBridges => "PXB".into(),
            Link::PcieSwitch => "PIX".into(),
            Link::Fabric { links, hops: 1 } => format!("FAB{links}"),
            Link::Fabric { links, hops } => format!("FAB{links}/{hops}h"),
        }
    }
}

/// One GPU as discovered: the device file that names it in gres.conf and where it sits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GpuDevice {
    /// `/dev/nvidiaN` or `/dev/dri/renderDN`; empty when only a position is known (gres.conf `Links=`).
    pub file: String,
    #[serde(default)]
    pub numa_node: Option<u32>,
    /// PCI address (`0000:07:00.0`) when known.
    #[serde(default)]
    pub pci_bus_id: Option<String>,
}

/// GPUs and the links between every pair of them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GpuTopology {
    pub devices: Vec<GpuDevice>,
    /// Row-major `devices.len()` squared; the diagonal is unused.
    links: Vec<Link>,
}

impl GpuTopology {
    /// Devices with no link known between any two.
    pub fn new(devices: Vec<GpuDevice>) -> GpuTopology {
        let n = devices.len();
        GpuTopology {
            devices,
            links: vec![Link::None; n * n],
        }
    }

    pub fn len(&self) -> usize {
        self.devices.len()
    }

    pub fn is_empty(&self) -> bool {
        self.devices.is_empty()
    }

    /// The link between GPUs `a` and `b` (in this topology's order); `None` for unknown positions, so a record
    /// damaged in transit can only make placement worse, never panic.
    pub fn link(&self, a: usize, b: usize) -> Link {
        let n = self.devices.len();
        if a >= n || b >= n || a == b {
            return Link::None;
        }
        self.links.get(a * n + b).copied().unwrap_or(Link::None)
    }

    /// Sets the link both ways; keeps the better one when a pair is set twice (sources may list both directions).
    pub fn connect(&mut self, a: usize, b: usize, link: Link) {
        let n = self.devices.len();
        if a >= n || b >= n || a == b {
            return;
        }
        for at in [a * n + b, b * n + a] {
            if let Some(slot) = self.links.get_mut(at) {
                if link.rank() > slot.rank() {
                    *slot = link;
                }
            }
        }
    }

    /// Pairs nothing else described get what their NUMA nodes say: the same node or across sockets.
    pub fn fill_from_numa(&mut self) {
        let n = self.devices.len();
        for a in 0..n {
            for b in a + 1..n {
                if self.link(a, b) != Link::None {
                    continue;
                }
                let (na, nb) = (self.devices[a].numa_node, self.devices[b].numa_node);
                if let (Some(na), Some(nb)) = (na, nb) {
                    let link = if na == nb {
                        Link::SameNuma
                    } else {
                        Link::CrossSocket
                    };
                    self.connect(a, b, link);
                }
            }
        }
    }

    /// The same topology in the order of `files` (the node's GRES units), or `None` when a file is not among the
    /// devices: a partial map would silently number GPUs wrong.
    pub fn for_files(&self, files: &[String]) -> Option<GpuTopology> {
        let order: Vec<usize> = files
            .iter()
            .map(|f| self.devices.iter().position(|d| &d.file == f))
            .collect::<Option<_>>()?;
        let mut out = GpuTopology::new(order.iter().map(|&i| self.devices[i].clone()).collect());
        for (a, &ia) in order.iter().enumerate() {
            for (b, &ib) in order.iter().enumerate().skip(a + 1) {
                out.connect(a, b, self.link(ia, ib));
            }
        }
        Some(out)
    }

    /// gres.conf `Links=` rows, one per unit in unit order (`None` where a line gave none): entry `j` of row `i`
    /// is the number of links between units `i` and `j`, `-1` the unit itself, `0` no link.
    pub fn from_gres_links(files: &[String], rows: &[Option<Vec<i32>>]) -> Option<GpuTopology> {
        if rows.iter().all(Option::is_none) {
            return None;
        }
        let devices = (0..rows.len())
            .map(|i| GpuDevice {
                file: files.get(i).cloned().unwrap_or_default(),
                numa_node: None,
                pci_bus_id: None,
            })
            .collect();
        let mut out = GpuTopology::new(devices);
        for (i, row) in rows.iter().enumerate() {
            for (j, &count) in row.iter().flatten().enumerate() {
                if let Ok(links @ 1..) = u16::try_from(count) {
                    out.connect(i, j, Link::Fabric { links, hops: 1 });
                }
            }
        }
        Some(out)
    }

    /// Groups of GPUs joined by fabric links (directly or through each other), each sorted, in order of their
    /// lowest GPU. GPUs without any fabric link are islands of one.
    pub fn islands(&self) -> Vec<Vec<usize>> {
        let n = self.devices.len();
        let mut island_of: Vec<Option<usize>> = vec![None; n];
        let mut islands: Vec<Vec<usize>> = Vec::new();
        for start in 0..n {
            if island_of[start].is_some() {
                continue;
            }
            let id = islands.len();
            let mut members = vec![start];
            island_of[start] = Some(id);
            let mut next = 0;
            while let Some(&at) = members.get(next) {
                next += 1;
                for (other, slot) in island_of.iter_mut().enumerate() {
                    if slot.is_none() && self.link(at, other).is_fabric() {
                        *slot = Some(id);
                        members.push(other);
                    }
                }
            }
            members.sort_unstable();
            islands.push(members);
        }
        islands
    }

    /// One line for logs: `8 GPUs, fabric islands [0-3] [4-7], NUMA 0,0,0,0,1,1,1,1`.
    pub fn summary(&self) -> String {
        let islands: Vec<String> = self
            .islands()
            .iter()
            .map(|members| format!("[{}]", ranges(members)))
            .collect();
        let numa: Vec<String> = self
            .devices
            .iter()
            .map(|d| d.numa_node.map_or("?".to_string(), |n| n.to_string()))
            .collect();
        format!(
            "{} GPUs, fabric islands {}, NUMA {}",
            self.devices.len(),
            islands.join(" "),
            numa.join(",")
        )
    }
}

/// `0,1,2,3,5` as `0-3,5`.
fn ranges(sorted: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while sorted.get(i + 1) == Some(&(end + 1)) {
            end += 1;
            i += 1;
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(",")
}

/// Where the topology a node's scheduling uses came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TopologySource {
    /// gres.conf `Links=`: the admin's word wins, as in Slurm.
    GresConf,
    /// The node's agent found it (sysfs, `nvidia-smi topo -m`).
    Agent,
}

/// The GPU topology kept on a node record: what each source said and what placement uses.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NodeTopology {
    /// From gres.conf `Links=`, already in unit order.
    #[serde(default)]
    pub configured: Option<GpuTopology>,
    /// The agent's report, in its own discovery order and named by device file.
    #[serde(default)]
    pub reported: Option<GpuTopology>,
    /// In unit order (row `i` is GRES `gpu` unit `i`): what placement reads. `None` keeps Slurm's lowest-index
    /// choice.
    #[serde(default)]
    pub gpu: Option<GpuTopology>,
    #[serde(default)]
    pub source: Option<TopologySource>,
}

impl NodeTopology {
    /// Recomputes [`NodeTopology::gpu`] for the node's GPU units. `unit_files` are the device files of GRES `gpu`
    /// in unit order, `None` when some unit has no file (then only gres.conf `Links=` can describe them).
    pub fn refresh(&mut self, unit_count: usize, unit_files: Option<&[String]>) {
        let configured = self
            .configured
            .clone()
            .filter(|t| t.len() == unit_count && unit_count > 1);
        let reported = || {
            let files = unit_files?;
            let topology = self.reported.as_ref()?.for_files(files)?;
            (topology.len() == unit_count && unit_count > 1).then_some(topology)
        };
        (self.gpu, self.source) = match configured {
            Some(t) => (Some(t), Some(TopologySource::GresConf)),
            None => match reported() {
                Some(t) => (Some(t), Some(TopologySource::Agent)),
                None => (None, None),
            },
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn devices(n: usize, numa: impl Fn(usize) -> u32) -> Vec<GpuDevice> {
        (0..n)
            .map(|i| GpuDevice {
                file: format!("/dev/dri/renderD{}", 128 + i),
                numa_node: Some(numa(i)),
                pci_bus_id: None,
            })
            .collect()
    }

    const XGMI: Link = Link::Fabric { links: 1, hops: 1 };

    /// Two islands of four, fully connected inside, on two sockets.
    fn two_islands() -> GpuTopology {
        let mut t = GpuTopology::new(devices(8, |i| (i / 4) as u32));
        for a in 0..8 {
            for b in 0..8 {
                if a / 4 == b / 4 {
                    t.connect(a, b, XGMI);
                }
            }
        }
        t.fill_from_numa();
        t
    }

    #[test]
    fn ranks_follow_the_ladder() {
        let ladder = [
            Link::None,
            Link::CrossSocket,
            Link::SameNuma,
            Link::HostBridge,
            Link::PcieBridges,
            Link::PcieSwitch,
            Link::Fabric { links: 1, hops: 3 },
            Link::Fabric { links: 1, hops: 2 },
            Link::Fabric { links: 1, hops: 1 },
            Link::Fabric { links: 2, hops: 1 },
            Link::Fabric { links: 18, hops: 1 },
        ];
        for pair in ladder.windows(2) {
            assert!(pair[0].rank() < pair[1].rank(), "{pair:?}");
        }
        // More hops lose even with more links: traffic crosses GPUs in between.
        assert!(Link::Fabric { links: 31, hops: 2 }.rank() < XGMI.rank());
    }

    #[test]
    fn islands_and_numa_fill() {
        let t = two_islands();
        assert_eq!(t.islands(), vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]);
        assert_eq!(t.link(0, 3), XGMI);
        assert_eq!(t.link(3, 4), Link::CrossSocket);
        assert_eq!(t.link(2, 2), Link::None);
        assert_eq!(t.link(0, 99), Link::None);
        assert_eq!(
            t.summary(),
            "8 GPUs, fabric islands [0-3] [4-7], NUMA 0,0,0,0,1,1,1,1"
        );
    }

    #[test]
    fn connect_keeps_the_better_link() {
        let mut t = GpuTopology::new(devices(2, |_| 0));
        t.connect(0, 1, XGMI);
        t.connect(1, 0, Link::SameNuma);
        assert_eq!(t.link(1, 0), XGMI);
    }

    #[test]
    fn reorders_to_unit_files() {
        let t = two_islands();
        let files: Vec<String> = [135, 128, 129]
            .iter()
            .map(|m| format!("/dev/dri/renderD{m}"))
            .collect();
        let u = t.for_files(&files).unwrap();
        assert_eq!(u.len(), 3);
        assert_eq!(u.devices[0].file, "/dev/dri/renderD135");
        assert_eq!(u.link(1, 2), XGMI);
        assert_eq!(u.link(0, 1), Link::CrossSocket);
        assert!(t.for_files(&["/dev/nvidia0".to_string()]).is_none());
    }

    #[test]
    fn gres_conf_links() {
        let files: Vec<String> = (0..4).map(|i| format!("/dev/nvidia{i}")).collect();
        let rows = vec![
            Some(vec![-1, 2, 0, 0]),
            Some(vec![2, -1, 0, 0]),
            Some(vec![0, 0, -1, 1]),
            None,
        ];
        let t = GpuTopology::from_gres_links(&files, &rows).unwrap();
        assert_eq!(t.link(0, 1), Link::Fabric { links: 2, hops: 1 });
        // Unit 3 gave no row; unit 2's row still links them.
        assert_eq!(t.link(3, 2), XGMI);
        assert_eq!(t.link(1, 2), Link::None);
        assert_eq!(t.islands(), vec![vec![0, 1], vec![2, 3]]);
        assert!(GpuTopology::from_gres_links(&files, &[None, None]).is_none());
    }

    #[test]
    fn node_topology_prefers_gres_conf_and_needs_every_unit() {
        let files: Vec<String> = (128..136).map(|m| format!("/dev/dri/renderD{m}")).collect();
        let mut node = NodeTopology {
            reported: Some(two_islands()),
            ..Default::default()
        };
        node.refresh(8, Some(&files));
        assert_eq!(node.source, Some(TopologySource::Agent));
        assert_eq!(node.gpu.as_ref().map(GpuTopology::len), Some(8));
        // A unit without a file cannot be matched to a discovered GPU.
        node.refresh(8, None);
        assert_eq!(node.gpu, None);
        // Fewer files than units: gres.conf lists GPUs the agent did not find.
        node.refresh(9, Some(&files));
        assert_eq!(node.gpu, None);
        let rows = vec![Some(vec![-1, 1]), Some(vec![1, -1])];
        node.configured = GpuTopology::from_gres_links(&files[..2], &rows);
        node.refresh(2, Some(&files[..2]));
        assert_eq!(node.source, Some(TopologySource::GresConf));
    }
}
