//! NVIDIA GPUs: PCI functions in sysfs with vendor `0x10de` and a display class (VGA or 3D controller), in PCI
//! address order, which is also the order `nvidia-smi` numbers them. Each is named by its device file
//! `/dev/nvidia<minor>` (the minor from `/proc/driver/nvidia/gpus/<address>/information`); NVLink links come from
//! `nvidia-smi topo -m`, whose matrix also spells out the PCIe and NUMA distances. Without nvidia-smi (or when it
//! fails) the PCI tree and NUMA nodes still rank the pairs.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use spur_core::policy::gpu_topology::{GpuDevice, GpuTopology, Link};

use super::{numa_node_of, pci, read_value};

const VENDOR_NVIDIA: &str = "0x10de";
/// PCI class prefixes of GPUs: VGA controller, 3D controller (NVSwitches are bridges and stay out).
const GPU_CLASSES: [&str; 2] = ["0x0300", "0x0302"];
/// nvidia-smi can hang on a wedged GPU; registration must not.
const NVIDIA_SMI_TIMEOUT: Duration = Duration::from_secs(10);
const NVIDIA_SMI_POLL: Duration = Duration::from_millis(20);

pub(super) fn discover(root: &Path, nvidia_smi: &Path) -> Option<GpuTopology> {
    let addresses = gpu_addresses(root);
    if addresses.is_empty() {
        return None;
    }
    let devices = addresses
        .iter()
        .enumerate()
        .map(|(i, bdf)| GpuDevice {
            file: format!(
                "/dev/nvidia{}",
                device_minor(root, bdf).unwrap_or(u32::try_from(i).unwrap_or(u32::MAX))
            ),
            numa_node: numa_node_of(&pci::device_dir(root, bdf)),
            pci_bus_id: Some(bdf.clone()),
        })
        .collect();
    let mut topology = GpuTopology::new(devices);
    match run_topo(nvidia_smi).map(|text| parse_topo_matrix(&text)) {
        Some(matrix) if matrix.len() == topology.len() => {
            for (a, row) in matrix.iter().enumerate() {
                for (b, link) in row.iter().enumerate() {
                    topology.connect(a, b, *link);
                }
            }
        }
        Some(matrix) => tracing::warn!(
            "nvidia-smi topo -m lists {} GPUs, sysfs {}: its links are not used",
            matrix.len(),
            topology.len()
        ),
        None => {}
    }
    pci::connect_pcie(root, &mut topology);
    topology.fill_from_numa();
    Some(topology)
}

/// NVIDIA GPUs' PCI addresses, sorted.
fn gpu_addresses(root: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(root.join("sys/bus/pci/devices")) else {
        return Vec::new();
    };
    let mut found: Vec<String> = entries
        .flatten()
        .filter(|e| {
            let dir = e.path();
            read_value(&dir.join("vendor")).as_deref() == Some(VENDOR_NVIDIA)
                && read_value(&dir.join("class"))
                    .is_some_and(|c| GPU_CLASSES.iter().any(|p| c.starts_with(p)))
        })
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    found.sort();
    found
}

/// `Device Minor:` from the driver's per-GPU information file.
fn device_minor(root: &Path, bdf: &str) -> Option<u32> {
    let path = root
        .join("proc/driver/nvidia/gpus")
        .join(bdf)
        .join("information");
    let text = std::fs::read_to_string(path).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("Device Minor:"))
        .and_then(|v| v.trim().parse().ok())
}

/// `<nvidia_smi> topo -m`'s output, or `None` if it cannot run, fails or hangs.
fn run_topo(program: &Path) -> Option<String> {
    let mut child = Command::new(program)
        .args(["topo", "-m"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdout = child.stdout.take()?;
    // Read on a thread so a large output cannot fill the pipe and stall the child past the timeout.
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        stdout.read_to_string(&mut text).map(|_| text)
    });
    let deadline = Instant::now() + NVIDIA_SMI_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(NVIDIA_SMI_POLL),
            _ => {
                tracing::warn!(
                    "{} topo -m did not finish: GPU links unknown",
                    program.display()
                );
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let text = reader.join().ok()?.ok()?;
    status.filter(|s| s.success()).map(|_| text)
}

/// The GPU-to-GPU part of `nvidia-smi topo -m`: a header naming `GPU0 GPU1 ...` then one row per GPU. Columns
/// after the GPUs (NICs, affinities) are ignored; terminal escapes (recent versions underline the header) are
/// stripped.
pub(super) fn parse_topo_matrix(text: &str) -> Vec<Vec<Link>> {
    let is_gpu = |t: &str| {
        t.strip_prefix("GPU")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    let lines: Vec<String> = text.lines().map(strip_escapes).collect();
    // nvidia-smi's output is another program's: walk it with iterators, never by index.
    let mut rows = lines
        .iter()
        .skip_while(|l| !l.split_whitespace().next().is_some_and(is_gpu));
    let Some(header) = rows.next() else {
        return Vec::new();
    };
    let columns = header.split_whitespace().take_while(|t| is_gpu(t)).count();
    rows.map(|l| l.split_whitespace().collect::<Vec<_>>())
        .take_while(|cells| cells.first().is_some_and(|c| is_gpu(c)))
        .map(|cells| {
            (0..columns)
                .map(|c| cells.get(c + 1).map_or(Link::None, |cell| link_of(cell)))
                .collect()
        })
        .collect()
}

fn link_of(cell: &str) -> Link {
    match cell {
        "SYS" => Link::CrossSocket,
        "NODE" => Link::SameNuma,
        "PHB" => Link::HostBridge,
        "PXB" => Link::PcieBridges,
        "PIX" => Link::PcieSwitch,
        _ => match cell.strip_prefix("NV").and_then(|n| n.parse::<u16>().ok()) {
            Some(links) if links > 0 => Link::Fabric { links, hops: 1 },
            _ => Link::None,
        },
    }
}

/// Drops ANSI escape sequences (`ESC [ ... letter`).
fn strip_escapes(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for e in chars.by_ref() {
                if e.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::fake::{pci_device, write};
    use super::*;

    /// `nvidia-smi topo -m` of a 4-GPU node with an NVLink pair on each socket, escapes and all.
    const TOPO: &str = "\t\u{1b}[4mGPU0\tGPU1\tGPU2\tGPU3\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\u{1b}[0m\n\
        GPU0\t X \tNV4\tSYS\tSYS\tPIX\t0-15\t0\t\tN/A\n\
        GPU1\tNV4\t X \tSYS\tSYS\tPXB\t0-15\t0\t\tN/A\n\
        GPU2\tSYS\tSYS\t X \tNV4\tSYS\t16-31\t1\t\tN/A\n\
        GPU3\tSYS\tSYS\tNV4\t X \tSYS\t16-31\t1\t\tN/A\n\
        NIC0\tPIX\tPXB\tSYS\tSYS\t X \n\
        \n\
        Legend:\n\
        \n\
          X    = Self\n\
          NV#  = Connection traversing a bonded set of # NVLinks\n";

    #[test]
    fn parses_the_topo_matrix() {
        let m = parse_topo_matrix(TOPO);
        assert_eq!(m.len(), 4);
        assert_eq!(m[0][1], Link::Fabric { links: 4, hops: 1 });
        assert_eq!(m[0][0], Link::None);
        assert_eq!(m[1][2], Link::CrossSocket);
        assert_eq!(m[3].len(), 4);
        assert!(parse_topo_matrix("No devices were found\n").is_empty());
    }

    fn fake_gpus(root: &Path) {
        // Each GPU on its own root port; two host bridges, one per socket.
        for (i, bus) in [0x07u32, 0x08, 0x87, 0x88].iter().enumerate() {
            let host = if *bus < 0x80 { "00" } else { "80" };
            let port = i + 1;
            pci_device(
                root,
                &format!("pci0000:{host}/0000:{host}:{port:02x}.0/0000:{bus:02x}:00.0"),
                &[
                    ("vendor", "0x10de\n"),
                    ("class", "0x030200\n"),
                    ("numa_node", if *bus < 0x80 { "0\n" } else { "1\n" }),
                ],
            );
            // Minors deliberately not in PCI order.
            write(
                root,
                &format!("proc/driver/nvidia/gpus/0000:{bus:02x}:00.0/information"),
                &format!("Model: \t\t NVIDIA H100\nDevice Minor: \t {}\n", 3 - i),
            );
        }
        // An NVSwitch (a bridge) and a NIC are not GPUs.
        pci_device(
            root,
            "pci0000:00/0000:00:05.0/0000:09:00.0",
            &[("vendor", "0x10de\n"), ("class", "0x068000\n")],
        );
        pci_device(
            root,
            "pci0000:00/0000:00:06.0/0000:0a:00.0",
            &[("vendor", "0x15b3\n"), ("class", "0x020700\n")],
        );
    }

    #[test]
    fn nvlink_pairs_from_nvidia_smi() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        fake_gpus(r);
        write(r, "fixture/topo.txt", TOPO);
        let smi = r.join("fixture/nvidia-smi");
        write(
            r,
            "fixture/nvidia-smi",
            &format!(
                "#!/bin/sh\ncat '{}'\n",
                r.join("fixture/topo.txt").display()
            ),
        );
        let exec = <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o755);
        std::fs::set_permissions(&smi, exec).unwrap();
        let t = discover(r, &smi).unwrap();
        let files: Vec<&str> = t.devices.iter().map(|d| d.file.as_str()).collect();
        assert_eq!(
            files,
            [
                "/dev/nvidia3",
                "/dev/nvidia2",
                "/dev/nvidia1",
                "/dev/nvidia0"
            ]
        );
        assert_eq!(t.devices[2].numa_node, Some(1));
        assert_eq!(t.islands(), vec![vec![0, 1], vec![2, 3]]);
        assert_eq!(t.link(1, 2), Link::CrossSocket);
    }

    #[test]
    fn without_nvidia_smi_pci_and_numa_rank_the_pairs() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        fake_gpus(r);
        let t = discover(r, &r.join("no-such-nvidia-smi")).unwrap();
        assert_eq!(t.len(), 4);
        assert_eq!(t.link(0, 1), Link::HostBridge);
        assert_eq!(t.link(0, 2), Link::CrossSocket);
        assert_eq!(t.islands().len(), 4);
    }
}
