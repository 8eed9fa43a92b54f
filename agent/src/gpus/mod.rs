//! The node's GPUs and how they are linked, as the agent reports them at registration (docs/gpus.md): AMD GPUs
//! from the KFD topology in sysfs, NVIDIA GPUs from PCI sysfs plus `nvidia-smi topo -m`. Every path is read below
//! a root directory, so tests (and `spurd --sysfs-root`) use a fake tree instead of real GPUs.

mod kfd;
mod nvidia;
mod pci;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use spur_core::grammar::conf::GresConf;
use spur_core::model::records::GPU_GRES;
use spur_core::policy::gpu_topology::GpuTopology;

/// Where discovery looks.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuSources {
    /// Prefix of `/sys` and `/proc` (normally `/`).
    pub root: PathBuf,
    /// The `nvidia-smi` to ask for NVLink links; run only when sysfs shows NVIDIA GPUs.
    pub nvidia_smi: PathBuf,
}

impl Default for GpuSources {
    fn default() -> Self {
        GpuSources {
            root: PathBuf::from("/"),
            nvidia_smi: PathBuf::from("nvidia-smi"),
        }
    }
}

/// The GPUs found (AMD first, then NVIDIA) with their links, or `None` when there are none.
pub fn discover(sources: &GpuSources) -> Option<GpuTopology> {
    let parts: Vec<GpuTopology> = [
        kfd::discover(&sources.root),
        nvidia::discover(&sources.root, &sources.nvidia_smi),
    ]
    .into_iter()
    .flatten()
    .filter(|t| !t.is_empty())
    .collect();
    match parts.len() {
        0 => None,
        _ => Some(concat(parts)),
    }
}

/// Per GPU device file, the CPUs of the GPU's NUMA node (`<root>/sys/devices/system/node/node<N>/cpulist`), so
/// a GPU job's cores can be taken next to its GPUs. GPUs without a known NUMA node are left out.
pub fn cores_by_gpu(root: &Path, topology: &GpuTopology) -> BTreeMap<String, BTreeSet<u32>> {
    topology
        .devices
        .iter()
        .filter_map(|d| {
            let list = read_value(
                &root
                    .join("sys/devices/system/node")
                    .join(format!("node{}", d.numa_node?))
                    .join("cpulist"),
            )?;
            Some((d.file.clone(), parse_cpu_list(&list)?))
        })
        .collect()
}

/// Per GPU device file, the cores gres.conf's `Cores=` binds it to on `node` (the admin's word, which wins over
/// the NUMA nodes discovery found). Core numbers are taken as CPU ids, which they are on nodes without
/// hyper-threading.
pub fn cores_from_gres_conf(gres: &GresConf, node: &str) -> BTreeMap<String, BTreeSet<u32>> {
    let in_nodes = |expr: &str, name: &str| {
        spur_core::grammar::hostlist::expand(expr)
            .is_ok_and(|names| names.iter().any(|n| n == name))
    };
    let mut cores = BTreeMap::new();
    for record in gres
        .for_node(node, &in_nodes)
        .records
        .into_iter()
        .filter(|r| r.name == GPU_GRES && r.cores.is_some())
    {
        let (Ok(files), Ok(list)) = (record.files(), record.core_list()) else {
            continue;
        };
        for file in files {
            cores.insert(file, list.iter().copied().collect());
        }
    }
    cores
}

/// The kernel's `0-15,32-47` list; `None` when it does not parse.
fn parse_cpu_list(list: &str) -> Option<BTreeSet<u32>> {
    if list.is_empty() {
        return Some(BTreeSet::new());
    }
    spur_core::grammar::conf::expand_numeric_ranges(&format!("[{list}]"))
        .ok()?
        .iter()
        .map(|c| c.parse().ok())
        .collect()
}

/// GPUs of different vendors share no fabric; their NUMA nodes still say how far apart they are.
fn concat(parts: Vec<GpuTopology>) -> GpuTopology {
    let devices = parts.iter().flat_map(|t| t.devices.clone()).collect();
    let mut out = GpuTopology::new(devices);
    let mut base = 0;
    for part in &parts {
        for a in 0..part.len() {
            for b in a + 1..part.len() {
                out.connect(base + a, base + b, part.link(a, b));
            }
        }
        base += part.len();
    }
    out.fill_from_numa();
    out
}

/// sysfs's `key value` lines (KFD `properties` files).
fn read_properties(path: &Path) -> Option<BTreeMap<String, u64>> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(
        text.lines()
            .filter_map(|line| {
                let (key, value) = line.split_once(char::is_whitespace)?;
                Some((key.to_string(), value.trim().parse().ok()?))
            })
            .collect(),
    )
}

/// A one-value sysfs file, trimmed.
fn read_value(path: &Path) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
}

/// A sysfs `numa_node` file: `-1` means the platform did not say.
fn numa_node_of(pci_device: &Path) -> Option<u32> {
    read_value(&pci_device.join("numa_node"))?.parse().ok()
}

/// The directories below `dir` whose names are numbers, in numeric order.
fn numbered_dirs(dir: &Path) -> Vec<(u32, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(u32, PathBuf)> = entries
        .flatten()
        .filter_map(|e| Some((e.file_name().to_str()?.parse().ok()?, e.path())))
        .collect();
    found.sort();
    found
}

#[cfg(test)]
pub(crate) mod fake {
    //! Builders for fake sysfs trees.

    use std::path::Path;

    pub fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// A PCI device at `/sys/devices/<chain>` with `/sys/bus/pci/devices/<bdf>` linking to it.
    pub fn pci_device(root: &Path, chain: &str, files: &[(&str, &str)]) {
        let bdf = chain.rsplit('/').next().unwrap();
        let dir = root.join("sys/devices").join(chain);
        std::fs::create_dir_all(&dir).unwrap();
        for (name, text) in files {
            std::fs::write(dir.join(name), text).unwrap();
        }
        let bus = root.join("sys/bus/pci/devices");
        std::fs::create_dir_all(&bus).unwrap();
        // As on a real system: relative, from /sys/bus/pci/devices up to /sys.
        std::os::unix::fs::symlink(format!("../../../devices/{chain}"), bus.join(bdf)).unwrap();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_core::policy::gpu_topology::Link;

    #[test]
    fn nothing_found_on_an_empty_tree() {
        let root = tempfile::tempdir().unwrap();
        let sources = GpuSources {
            root: root.path().to_path_buf(),
            nvidia_smi: root.path().join("no-such-nvidia-smi"),
        };
        assert_eq!(discover(&sources), None);
    }

    #[test]
    fn vendors_concatenate_without_fabric_between_them() {
        let mut amd = GpuTopology::new(vec![
            device("/dev/dri/renderD128", 0),
            device("/dev/dri/renderD129", 0),
        ]);
        amd.connect(0, 1, Link::Fabric { links: 1, hops: 1 });
        let nv = GpuTopology::new(vec![device("/dev/nvidia0", 1)]);
        let all = concat(vec![amd, nv]);
        assert_eq!(all.len(), 3);
        assert_eq!(all.link(0, 1), Link::Fabric { links: 1, hops: 1 });
        assert_eq!(all.link(1, 2), Link::CrossSocket);
    }

    #[test]
    fn cores_of_each_gpus_numa_node() {
        let root = tempfile::tempdir().unwrap();
        fake::write(
            root.path(),
            "sys/devices/system/node/node0/cpulist",
            "0-3,8\n",
        );
        fake::write(
            root.path(),
            "sys/devices/system/node/node1/cpulist",
            "4-7\n",
        );
        let mut t = GpuTopology::new(vec![
            device("/dev/nvidia0", 0),
            device("/dev/nvidia1", 1),
            device("/dev/nvidia2", 2),
        ]);
        t.devices[2].numa_node = Some(2);
        let cores = cores_by_gpu(root.path(), &t);
        assert_eq!(cores["/dev/nvidia0"], [0, 1, 2, 3, 8].into());
        assert_eq!(cores["/dev/nvidia1"], [4, 5, 6, 7].into());
        // No such NUMA node in sysfs: no preference.
        assert!(!cores.contains_key("/dev/nvidia2"));
        assert_eq!(parse_cpu_list("x"), None);
    }

    #[test]
    fn cores_from_gres_conf_lines_of_this_node() {
        let gres = GresConf::parse_str(
            "NodeName=g[1-2] Name=gpu File=/dev/nvidia[0-1] Cores=0-3\n\
             NodeName=g1 Name=gpu File=/dev/nvidia2 Cores=4,6\n\
             NodeName=g1 Name=gpu File=/dev/nvidia3\n\
             NodeName=g3 Name=gpu File=/dev/nvidia4 Cores=9\n",
            "gres.conf",
        )
        .unwrap();
        let cores = cores_from_gres_conf(&gres, "g1");
        assert_eq!(cores.len(), 3);
        assert_eq!(cores["/dev/nvidia1"], [0, 1, 2, 3].into());
        assert_eq!(cores["/dev/nvidia2"], [4, 6].into());
        assert!(cores_from_gres_conf(&gres, "g2").contains_key("/dev/nvidia0"));
    }

    fn device(file: &str, numa: u32) -> spur_core::policy::gpu_topology::GpuDevice {
        spur_core::policy::gpu_topology::GpuDevice {
            file: file.to_string(),
            numa_node: Some(numa),
            pci_bus_id: None,
        }
    }
}
