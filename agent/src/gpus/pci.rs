//! PCIe distance between two GPUs from where sysfs places them in the PCI tree: `/sys/bus/pci/devices/<bdf>`
//! links to `/sys/devices/pci<domain>:<bus>/<root port>/.../<bdf>`, so the shared part of two such paths says
//! whether they sit behind the same switch, the same host bridge or neither (then NUMA decides).

use std::path::{Path, PathBuf};

use spur_core::policy::gpu_topology::{GpuTopology, Link};

/// Where a PCI device hangs: its host bridge and the bridges down to it (the device itself last).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PciPath {
    host: String,
    chain: Vec<String>,
}

impl PciPath {
    /// Reads the device's place from `<root>/sys/bus/pci/devices/<bdf>`; `None` when it is not there.
    pub(super) fn of(root: &Path, bdf: &str) -> Option<PciPath> {
        let target = std::fs::read_link(device_dir(root, bdf)).ok()?;
        let mut parts = target
            .components()
            .filter_map(|c| c.as_os_str().to_str())
            .skip_while(|c| !c.starts_with("pci"));
        let host = parts.next()?.to_string();
        let chain: Vec<String> = parts.map(str::to_string).collect();
        (chain.last().map(String::as_str) == Some(bdf)).then_some(PciPath { host, chain })
    }

    /// The PCIe part of the ladder, or `None` across host bridges (NUMA tells those apart).
    pub(super) fn link_to(&self, other: &PciPath) -> Option<Link> {
        if self.host != other.host {
            return None;
        }
        let common = self
            .chain
            .iter()
            .zip(&other.chain)
            .take_while(|(a, b)| a == b)
            .count();
        if common == 0 {
            return Some(Link::HostBridge);
        }
        // Below the shared bridge each side has its downstream port and the GPU: one switch between them.
        let below = (self.chain.len() - common).max(other.chain.len() - common);
        Some(if below <= 2 {
            Link::PcieSwitch
        } else {
            Link::PcieBridges
        })
    }
}

/// Links pairs of GPUs by how far apart they are on PCIe (a better link already known stays).
pub(super) fn connect_pcie(root: &Path, topology: &mut GpuTopology) {
    let paths: Vec<Option<PciPath>> = topology
        .devices
        .iter()
        .map(|d| PciPath::of(root, d.pci_bus_id.as_deref()?))
        .collect();
    for (a, pa) in paths.iter().enumerate() {
        for (b, pb) in paths.iter().enumerate().skip(a + 1) {
            if let Some(link) = pa
                .as_ref()
                .zip(pb.as_ref())
                .and_then(|(pa, pb)| pa.link_to(pb))
            {
                topology.connect(a, b, link);
            }
        }
    }
}

/// `<root>/sys/bus/pci/devices/<bdf>`.
pub(super) fn device_dir(root: &Path, bdf: &str) -> PathBuf {
    root.join("sys/bus/pci/devices").join(bdf)
}

#[cfg(test)]
mod tests {
    use super::super::fake;
    use super::*;

    #[test]
    fn ladder_from_the_pci_tree() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        // Two GPUs behind one switch, a third behind another switch on the same root port, a fourth on
        // another root port, a fifth under another host bridge.
        for chain in [
            "pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/0000:07:00.0",
            "pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:10.0/0000:08:00.0",
            "pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:18.0/0000:03:00.0/0000:04:00.0/0000:09:00.0",
            "pci0000:00/0000:00:03.0/0000:0a:00.0",
            "pci0000:80/0000:80:01.0/0000:81:00.0",
        ] {
            fake::pci_device(r, chain, &[]);
        }
        let at = |bdf: &str| PciPath::of(r, bdf).unwrap();
        let a = at("0000:07:00.0");
        assert_eq!(a.link_to(&at("0000:08:00.0")), Some(Link::PcieSwitch));
        assert_eq!(a.link_to(&at("0000:09:00.0")), Some(Link::PcieBridges));
        assert_eq!(a.link_to(&at("0000:0a:00.0")), Some(Link::HostBridge));
        assert_eq!(a.link_to(&at("0000:81:00.0")), None);
        assert_eq!(PciPath::of(r, "0000:ff:00.0"), None);
    }
}
