//! AMD GPUs from the KFD topology (`/sys/class/kfd/kfd/topology/nodes/N`): a node with a non-zero `gpu_id` is a
//! GPU, named by its render node (`/dev/dri/renderD<drm_render_minor>`); its `io_links/M/properties` (and
//! `p2p_links`, on newer kernels) list links with `type` (11 = XGMI, 2 = PCIe), `node_to`, `weight` (15 per XGMI
//! hop) and bandwidths. A PCIe link to a CPU node gives the GPU's NUMA node.

use std::collections::BTreeMap;
use std::path::Path;

use spur_core::policy::gpu_topology::{GpuDevice, GpuTopology, Link};

use super::pci;
use super::{numa_node_of, numbered_dirs, read_properties, read_value};

const KFD_NODES: &str = "sys/class/kfd/kfd/topology/nodes";
/// KFD's io_link `type` values (the CRAT table's).
const IOLINK_TYPE_PCIE: u64 = 2;
const IOLINK_TYPE_XGMI: u64 = 11;
/// KFD weighs an XGMI path 15 per hop.
const XGMI_WEIGHT_PER_HOP: u64 = 15;

/// One KFD node as read from sysfs.
struct KfdNode {
    id: u32,
    props: BTreeMap<String, u64>,
    gpu_id: u64,
    links: Vec<BTreeMap<String, u64>>,
}

impl KfdNode {
    fn is_gpu(&self) -> bool {
        self.gpu_id != 0
    }

    fn is_cpu(&self) -> bool {
        !self.is_gpu() && self.prop("cpu_cores_count") > 0
    }

    fn prop(&self, key: &str) -> u64 {
        self.props.get(key).copied().unwrap_or(0)
    }

    /// `domain` and `location_id` (bus << 8 | devfn) as a PCI address.
    fn pci_bus_id(&self) -> Option<String> {
        let location = self.props.get("location_id")?;
        let (bus, dev, func) = (
            (location >> 8) & 0xff,
            (location >> 3) & 0x1f,
            location & 0x7,
        );
        Some(format!(
            "{:04x}:{bus:02x}:{dev:02x}.{func:x}",
            self.prop("domain")
        ))
    }
}

pub(super) fn discover(root: &Path) -> Option<GpuTopology> {
    let nodes: Vec<KfdNode> = numbered_dirs(&root.join(KFD_NODES))
        .into_iter()
        .filter_map(|(id, dir)| read_node(id, &dir))
        .collect();
    let cpu_ids: Vec<u32> = nodes.iter().filter(|n| n.is_cpu()).map(|n| n.id).collect();
    let mut gpus: Vec<&KfdNode> = nodes
        .iter()
        .filter(|n| n.is_gpu() && n.props.contains_key("drm_render_minor"))
        .collect();
    if gpus.is_empty() {
        return None;
    }
    gpus.sort_by_key(|n| n.prop("drm_render_minor"));
    let devices = gpus
        .iter()
        .map(|gpu| {
            let pci_bus_id = gpu.pci_bus_id();
            GpuDevice {
                file: format!("/dev/dri/renderD{}", gpu.prop("drm_render_minor")),
                numa_node: numa_node(gpu, &cpu_ids)
                    .or_else(|| numa_node_of(&pci::device_dir(root, pci_bus_id.as_deref()?))),
                pci_bus_id,
            }
        })
        .collect();
    let mut topology = GpuTopology::new(devices);
    let position: BTreeMap<u32, usize> = gpus.iter().enumerate().map(|(i, g)| (g.id, i)).collect();
    for (from, gpu) in gpus.iter().enumerate() {
        for link in gpu
            .links
            .iter()
            .filter(|l| l.get("type") == Some(&IOLINK_TYPE_XGMI))
        {
            let to = link
                .get("node_to")
                .and_then(|t| u32::try_from(*t).ok())
                .and_then(|t| position.get(&t));
            if let Some(&to) = to {
                topology.connect(from, to, xgmi(link));
            }
        }
    }
    pci::connect_pcie(root, &mut topology);
    topology.fill_from_numa();
    Some(topology)
}

fn read_node(id: u32, dir: &Path) -> Option<KfdNode> {
    let props = read_properties(&dir.join("properties"))?;
    let gpu_id = read_value(&dir.join("gpu_id"))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let links = ["io_links", "p2p_links"]
        .iter()
        .flat_map(|kind| numbered_dirs(&dir.join(kind)))
        .filter_map(|(_, link)| read_properties(&link.join("properties")))
        .collect();
    Some(KfdNode {
        id,
        props,
        gpu_id,
        links,
    })
}

/// The CPU node the GPU's PCIe link leads to, numbered among the CPU nodes (KFD lists them in NUMA order).
fn numa_node(gpu: &KfdNode, cpu_ids: &[u32]) -> Option<u32> {
    gpu.links
        .iter()
        .filter(|l| l.get("type") == Some(&IOLINK_TYPE_PCIE))
        .filter_map(|l| u32::try_from(*l.get("node_to")?).ok())
        .find_map(|to| cpu_ids.iter().position(|&c| c == to))
        .and_then(|i| u32::try_from(i).ok())
}

/// Hops from the weight; bonded links from the bandwidths (the minimum is one link's, the maximum all of them).
fn xgmi(link: &BTreeMap<String, u64>) -> Link {
    let weight = link.get("weight").copied().unwrap_or(0);
    let hops = weight.div_ceil(XGMI_WEIGHT_PER_HOP).max(1);
    let (min_bw, max_bw) = (
        link.get("min_bandwidth").copied().unwrap_or(0),
        link.get("max_bandwidth").copied().unwrap_or(0),
    );
    let links = if min_bw > 0 && max_bw >= min_bw {
        max_bw / min_bw
    } else {
        1
    };
    Link::Fabric {
        links: u16::try_from(links).unwrap_or(u16::MAX),
        hops: u8::try_from(hops).unwrap_or(u8::MAX),
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::write;
    use super::*;

    /// A KFD tree like an 8-GPU MI250-class node: CPU nodes 0 and 1, GPU nodes 2-9 (render minors 128-135),
    /// XGMI inside {2-5} and {6-9}, each GPU's PCIe link to CPU node 0 or 1.
    fn fake_kfd(root: &Path) {
        for cpu in 0..2 {
            let dir = format!("{KFD_NODES}/{cpu}");
            write(
                root,
                &format!("{dir}/properties"),
                "cpu_cores_count 64\nsimd_count 0\n",
            );
            write(root, &format!("{dir}/gpu_id"), "0\n");
        }
        for node in 2..10u32 {
            let dir = format!("{KFD_NODES}/{node}");
            let island: Vec<u32> = if node < 6 {
                (2..6).collect()
            } else {
                (6..10).collect()
            };
            write(
                root,
                &format!("{dir}/properties"),
                &format!(
                    "cpu_cores_count 0\nsimd_count 440\nlocation_id {}\ndrm_render_minor {}\ndomain 0\n",
                    (0x10 + node) << 8,
                    126 + node
                ),
            );
            write(
                root,
                &format!("{dir}/gpu_id"),
                &format!("{}\n", 1000 + node),
            );
            let cpu = u32::from(node >= 6);
            write(
                root,
                &format!("{dir}/io_links/0/properties"),
                &format!("type 2\nversion_major 0\nnode_from {node}\nnode_to {cpu}\nweight 20\n"),
            );
            for (i, peer) in island.iter().filter(|&&p| p != node).enumerate() {
                // The pair (2,3) has 4 bonded links; the rest 1. Node 9 reaches 6 over 2 hops only.
                let (weight, max_bw) = match (node.min(*peer), node.max(*peer)) {
                    (2, 3) => (15, 200_000),
                    (6, 9) => (30, 50_000),
                    _ => (15, 50_000),
                };
                write(
                    root,
                    &format!("{dir}/io_links/{}/properties", i + 1),
                    &format!(
                        "type 11\nnode_from {node}\nnode_to {peer}\nweight {weight}\n\
                         min_bandwidth 50000\nmax_bandwidth {max_bw}\n"
                    ),
                );
            }
        }
    }

    #[test]
    fn xgmi_islands_from_kfd() {
        let root = tempfile::tempdir().unwrap();
        fake_kfd(root.path());
        let t = discover(root.path()).unwrap();
        assert_eq!(t.len(), 8);
        assert_eq!(t.devices[0].file, "/dev/dri/renderD128");
        assert_eq!(t.devices[7].file, "/dev/dri/renderD135");
        assert_eq!(t.devices[0].pci_bus_id.as_deref(), Some("0000:12:00.0"));
        assert_eq!(t.devices[3].numa_node, Some(0));
        assert_eq!(t.devices[4].numa_node, Some(1));
        assert_eq!(t.islands(), vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]);
        assert_eq!(t.link(0, 1), Link::Fabric { links: 4, hops: 1 });
        assert_eq!(t.link(0, 2), Link::Fabric { links: 1, hops: 1 });
        assert_eq!(t.link(4, 7), Link::Fabric { links: 1, hops: 2 });
        // No PCI tree in this fake: across islands only NUMA is known.
        assert_eq!(t.link(3, 4), Link::CrossSocket);
    }

    #[test]
    fn pcie_placement_where_there_is_no_xgmi() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        write(
            r,
            &format!("{KFD_NODES}/0/properties"),
            "cpu_cores_count 16\n",
        );
        for (node, bus, port) in [(1u32, 0x07u32, "0000:02:08.0"), (2, 0x08, "0000:02:10.0")] {
            let dir = format!("{KFD_NODES}/{node}");
            write(
                r,
                &format!("{dir}/properties"),
                &format!(
                    "simd_count 120\nlocation_id {}\ndrm_render_minor {}\n",
                    bus << 8,
                    127 + node
                ),
            );
            write(r, &format!("{dir}/gpu_id"), "4242\n");
            super::super::fake::pci_device(
                r,
                &format!("pci0000:00/0000:00:01.0/0000:01:00.0/{port}/0000:{bus:02x}:00.0"),
                &[("numa_node", "0\n")],
            );
        }
        let t = discover(r).unwrap();
        assert_eq!(t.link(0, 1), Link::PcieSwitch);
        // No PCIe link to a CPU node in this tree: sysfs's numa_node is used.
        assert_eq!(t.devices[1].numa_node, Some(0));
    }

    #[test]
    fn no_kfd_no_gpus() {
        let root = tempfile::tempdir().unwrap();
        write(
            root.path(),
            &format!("{KFD_NODES}/0/properties"),
            "cpu_cores_count 8\n",
        );
        assert_eq!(discover(root.path()), None);
    }
}
