//! The application file of `--mpi=cray_shasta` (docs/mpi.md): Cray PALS's `apinfo`, which Cray MPICH reads at
//! `PALS_APINFO` to learn the step's commands, tasks and nodes. A binary file in the C layout of x86-64 (native
//! byte order, C alignment), version 1, as Slurm 22.05's mpi/cray_shasta writes it: a header, one record per
//! command (MPMD program), one per task (PE), one per node; no network profiles and no NICs. Compared byte for
//! byte with real Slurm's file in conformance case 574.

/// The file format version (`PALS_APINFO_VERSION`).
pub const VERSION: i32 = 1;
/// Sizes of the C records: the header (17 fields with padding), a communication profile (a 40-byte token and three
/// ints), a command (three ints), a PE (three ints), a node (an int and a 64-byte host name), a NIC (two ints
/// and a 40-byte address).
pub const HEADER_SIZE: usize = 136;
pub const COMM_PROFILE_SIZE: usize = 52;
pub const CMD_SIZE: usize = 12;
pub const PE_SIZE: usize = 12;
pub const NODE_SIZE: usize = 68;
pub const NIC_SIZE: usize = 48;
const HOSTNAME_LEN: usize = 64;

/// What the file describes: the step's nodes in step order, the step ranks on each (local index order), and the
/// CPUs per task. One command: Spur has no MPMD steps for this plugin.
pub struct Step<'a> {
    pub nodes: &'a [String],
    pub node_ranks: &'a [Vec<u32>],
    pub cpus_per_task: u32,
}

/// The file's bytes, or why it cannot be written (a rank outside the step, more tasks or nodes than the format's
/// `int` holds).
pub fn encode(step: &Step<'_>) -> Result<Vec<u8>, String> {
    let ntasks: usize = step.node_ranks.iter().map(Vec::len).sum();
    let nnodes = step.nodes.len();
    if ntasks == 0 || nnodes == 0 || step.node_ranks.len() != nnodes {
        return Err(format!(
            "apinfo: {ntasks} tasks on {} of {nnodes} nodes",
            step.node_ranks.len()
        ));
    }
    let int = |n: usize| i32::try_from(n).map_err(|_| format!("apinfo: {n} is too large"));
    // Each task's node index and node-local index, by step rank.
    let mut pes: Vec<Option<(usize, usize)>> = vec![None; ntasks];
    for (node, ranks) in step.node_ranks.iter().enumerate() {
        for (local, &rank) in ranks.iter().enumerate() {
            let slot = pes
                .get_mut(rank as usize)
                .ok_or_else(|| format!("apinfo: rank {rank} of {ntasks} tasks"))?;
            *slot = Some((node, local));
        }
    }
    let max_per_node = step.node_ranks.iter().map(Vec::len).max().unwrap_or(0);

    let cmd_offset = HEADER_SIZE; // after zero communication profiles
    let pe_offset = cmd_offset + CMD_SIZE;
    let node_offset = pe_offset
        .checked_add(
            PE_SIZE
                .checked_mul(ntasks)
                .ok_or("apinfo: too many tasks")?,
        )
        .ok_or("apinfo: too many tasks")?;
    let nic_offset = node_offset
        .checked_add(
            NODE_SIZE
                .checked_mul(nnodes)
                .ok_or("apinfo: too many nodes")?,
        )
        .ok_or("apinfo: too many nodes")?;
    let total = nic_offset; // zero NICs

    let mut out = Vec::with_capacity(total);
    let i32_padded = |out: &mut Vec<u8>, v: i32| {
        out.extend_from_slice(&v.to_ne_bytes());
        out.extend_from_slice(&[0; 4]);
    };
    let size = |out: &mut Vec<u8>, v: usize| out.extend_from_slice(&(v as u64).to_ne_bytes());
    i32_padded(&mut out, VERSION);
    size(&mut out, total);
    for (rec_size, offset, count) in [
        (COMM_PROFILE_SIZE, HEADER_SIZE, 0),
        (CMD_SIZE, cmd_offset, 1),
        (PE_SIZE, pe_offset, int(ntasks)?),
        (NODE_SIZE, node_offset, int(nnodes)?),
        (NIC_SIZE, nic_offset, 0),
    ] {
        size(&mut out, rec_size);
        size(&mut out, offset);
        i32_padded(&mut out, count);
    }
    // The command: all tasks, the most on any node, CPUs per task.
    for v in [
        int(ntasks)?,
        int(max_per_node)?,
        i32::try_from(step.cpus_per_task).unwrap_or(i32::MAX),
    ] {
        out.extend_from_slice(&v.to_ne_bytes());
    }
    // The PEs in rank order: local index, command index, node index (a rank no node holds stays zero, as Slurm's
    // zeroed array leaves it).
    for pe in &pes {
        let (node, local) = pe.unwrap_or((0, 0));
        for v in [int(local)?, 0, int(node)?] {
            out.extend_from_slice(&v.to_ne_bytes());
        }
    }
    // The nodes: Slurm fills one record buffer per host name without clearing it in between, so a short name
    // keeps the tail of a longer one before it after its terminating NUL; the same bytes are written here.
    let mut hostname = [0u8; HOSTNAME_LEN];
    for name in step.nodes {
        let bytes = name.as_bytes();
        let len = bytes.len().min(HOSTNAME_LEN - 1);
        hostname[..len].copy_from_slice(&bytes[..len]);
        hostname[len] = 0;
        out.extend_from_slice(&nid(name).to_ne_bytes());
        out.extend_from_slice(&hostname);
    }
    Ok(out)
}

/// A Cray node id from a host name `nidNNNNNN`, else -1.
pub fn nid(hostname: &str) -> i32 {
    let Some(rest) = hostname.strip_prefix("nid") else {
        return -1;
    };
    // Leading white space and a sign are what C's `%d` takes too; the digits stop at the first other character.
    let rest = rest.trim_start();
    let (negative, digits) = match rest.as_bytes().first() {
        Some(b'-') => (true, &rest[1..]),
        Some(b'+') => (false, &rest[1..]),
        _ => (false, rest),
    };
    let end = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    match digits[..end].parse::<i64>() {
        Ok(n) if !negative && n <= i64::from(i32::MAX) => n as i32,
        _ => -1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int_at(b: &[u8], at: usize) -> i32 {
        i32::from_ne_bytes(b[at..at + 4].try_into().unwrap())
    }
    fn size_at(b: &[u8], at: usize) -> u64 {
        u64::from_ne_bytes(b[at..at + 8].try_into().unwrap())
    }

    #[test]
    fn three_nodes_five_tasks_match_slurms_file() {
        // Real Slurm 22.05, `srun --mpi=cray_shasta -N3 -n5` on n1..n3: a 412-byte file with this header.
        let nodes = ["n1", "n2", "n3"].map(String::from);
        let ranks = vec![vec![0, 1], vec![2, 3], vec![4]];
        let b = encode(&Step {
            nodes: &nodes,
            node_ranks: &ranks,
            cpus_per_task: 1,
        })
        .unwrap();
        assert_eq!(b.len(), 412);
        let header: Vec<u64> = [
            0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128,
        ]
        .iter()
        .enumerate()
        .map(|(i, &at)| {
            if [0, 4, 7, 10, 13, 16].contains(&i) {
                int_at(&b, at) as u64
            } else {
                size_at(&b, at)
            }
        })
        .collect();
        assert_eq!(
            header,
            vec![1, 412, 52, 136, 0, 12, 136, 1, 12, 148, 5, 68, 208, 3, 48, 412, 0]
        );
        assert_eq!(
            (int_at(&b, 136), int_at(&b, 140), int_at(&b, 144)),
            (5, 2, 1)
        );
        let pe = |r: usize| (int_at(&b, 148 + 12 * r), int_at(&b, 156 + 12 * r));
        assert_eq!(
            (0..5).map(pe).collect::<Vec<_>>(),
            vec![(0, 0), (1, 0), (0, 1), (1, 1), (0, 2)]
        );
        assert_eq!(int_at(&b, 208), -1);
        assert_eq!(&b[212..215], b"n1\0");
    }

    #[test]
    fn host_names_keep_slurms_leftover_bytes_and_nids() {
        let nodes = ["nid000012", "nid7"].map(String::from);
        let b = encode(&Step {
            nodes: &nodes,
            node_ranks: &[vec![1], vec![0]],
            cpus_per_task: 4,
        })
        .unwrap();
        let second = HEADER_SIZE + CMD_SIZE + 2 * PE_SIZE + NODE_SIZE;
        assert_eq!(int_at(&b, second - NODE_SIZE), 12);
        assert_eq!(int_at(&b, second), 7);
        assert_eq!(&b[second + 4..second + 14], b"nid7\x000012\x00");
        assert_eq!(int_at(&b, HEADER_SIZE + 8), 4);
        assert_eq!(nid("n1"), -1);
        assert_eq!(nid("nidx"), -1);
    }

    #[test]
    fn bad_layouts_are_refused() {
        let nodes = ["n1".to_string()];
        assert!(encode(&Step {
            nodes: &nodes,
            node_ranks: &[vec![3]],
            cpus_per_task: 1
        })
        .is_err());
        assert!(encode(&Step {
            nodes: &nodes,
            node_ranks: &[],
            cpus_per_task: 1
        })
        .is_err());
    }
}
