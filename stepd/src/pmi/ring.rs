//! PMI-2's `ring` (Slurm's PMIX_Ring extension, used by MVAPICH): every task gives a count and a left and a
//! right value; each gets back the sum of the counts before it in the ring, the right value of its left neighbour
//! and the left value of its right neighbour (the ends wrapping round).
//!
//! The order and the answers are Slurm's mpi/pmi2 ones: its supervisors form a tree of width
//! `SLURM_PMIX_RING_WIDTH` (16 unless set to 2 or more; node `r`'s children are nodes `r*w+1 ..= r*w+w`), and a
//! node's children in the ring are its tasks by local id, then its child nodes' subtrees. A value a task left out
//! is passed over (the neighbour's is taken from further on), except at the edges of a subtree, where Slurm's
//! aggregation takes the first child's left and the last child's right as they are; a missing one is printed
//! as glibc prints a NULL string, `(null)`. Spur gathers every node's entries in one collective and each node
//! replays Slurm's tree walk for its own tasks, so the answers are the same without the tree's messages.

/// One task's `ring` request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub count: i32,
    pub left: Option<String>,
    pub right: Option<String>,
}

/// One task's answer: `ring-count`, `ring-left`, `ring-right`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub count: i32,
    pub left: Option<String>,
    pub right: Option<String>,
}

/// Slurm's default tree width.
pub const DEFAULT_WIDTH: usize = 16;

/// The tree width from the step's `SLURM_PMIX_RING_WIDTH`, as Slurm reads it (`atoi`, values below 2 ignored).
pub fn width_from_env(value: Option<&str>) -> usize {
    let parsed = value.map(|v| {
        let t = v.trim_start();
        let (sign, digits) = match t.strip_prefix('-') {
            Some(rest) => (-1i64, rest),
            None => (1, t.strip_prefix('+').unwrap_or(t)),
        };
        let n: String = digits
            .chars()
            .take_while(char::is_ascii_digit)
            .take(9)
            .collect();
        sign * n.parse::<i64>().unwrap_or(0)
    });
    match parsed {
        Some(w) if w >= 2 => usize::try_from(w).unwrap_or(DEFAULT_WIDTH),
        _ => DEFAULT_WIDTH,
    }
}

/// What a subtree (or a task) reports upwards: its count sum, its leftmost left and its rightmost right.
struct Up<'a> {
    sum: i32,
    left: Option<&'a str>,
    right: Option<&'a str>,
}

struct Tree<'a> {
    nodes: &'a [Vec<Entry>],
    width: usize,
}

impl<'a> Tree<'a> {
    fn child_nodes(&self, node: usize) -> std::ops::Range<usize> {
        let first = node.saturating_mul(self.width).saturating_add(1);
        let end = first.saturating_add(self.width).min(self.nodes.len());
        first.min(end)..end
    }

    /// Slurm's ring_in: the children's reports combined.
    fn up(&self, node: usize) -> Up<'a> {
        let children = self.children_up(node);
        Up {
            sum: children.iter().fold(0i32, |s, c| s.wrapping_add(c.sum)),
            left: children.first().and_then(|c| c.left),
            right: children.last().and_then(|c| c.right),
        }
    }

    fn children_up(&self, node: usize) -> Vec<Up<'a>> {
        let tasks = self.nodes.get(node).map(Vec::as_slice).unwrap_or(&[]);
        let mut out: Vec<Up<'a>> = tasks
            .iter()
            .map(|e| Up {
                sum: e.count,
                left: e.left.as_deref(),
                right: e.right.as_deref(),
            })
            .collect();
        out.extend(self.child_nodes(node).map(|c| self.up(c)));
        out
    }

    /// Slurm's ring_out: hands each child its offset and neighbours; the answers of `want`'s tasks go to `out`.
    fn down(
        &self,
        node: usize,
        mut count: i32,
        mut left: Option<&'a str>,
        mut right: Option<&'a str>,
        want: usize,
        out: &mut Vec<Answer>,
    ) {
        let children = self.children_up(node);
        let mut msgs: Vec<(i32, Option<&'a str>, Option<&'a str>)> =
            Vec::with_capacity(children.len());
        for c in &children {
            msgs.push((count, left, None));
            count = count.wrapping_add(c.sum);
            if c.right.is_some() {
                left = c.right;
            }
        }
        for (msg, c) in msgs.iter_mut().zip(&children).rev() {
            msg.2 = right;
            if c.left.is_some() {
                right = c.left;
            }
        }
        let ntasks = self.nodes.get(node).map_or(0, Vec::len);
        for (i, (count, left, right)) in msgs.into_iter().enumerate() {
            if i < ntasks {
                if node == want {
                    out.push(Answer {
                        count,
                        left: left.map(str::to_string),
                        right: right.map(str::to_string),
                    });
                }
            } else {
                let child = self.child_nodes(node).start + (i - ntasks);
                // Only the path to `want` matters; other subtrees are skipped.
                if self.holds(child, want) {
                    self.down(child, count, left, right, want, out);
                }
            }
        }
    }

    /// Whether `node`'s subtree holds node `want`.
    fn holds(&self, node: usize, want: usize) -> bool {
        let mut n = want;
        loop {
            if n == node {
                return true;
            }
            if n == 0 {
                return false;
            }
            n = (n - 1) / self.width;
        }
    }
}

/// The answers of node `want`'s tasks (by local id), given every node's entries (by node index, each node's by
/// local id) and the tree width.
pub fn answers(nodes: &[Vec<Entry>], width: usize, want: usize) -> Vec<Answer> {
    let tree = Tree {
        nodes,
        width: width.max(2),
    };
    let mut out = Vec::new();
    if nodes.is_empty() {
        return out;
    }
    // At the root the ends wrap round: the rightmost right is the first task's left neighbour.
    let root = tree.up(0);
    tree.down(0, 0, root.right, root.left, want, &mut out);
    out
}

/// A node's entries as one collective contribution: three fields per task (count; left and right each with a
/// leading `1` when given, `0` when not).
pub fn encode(entries: &[Entry]) -> Vec<Vec<u8>> {
    let opt = |v: &Option<String>| match v {
        Some(s) => [b"1".as_slice(), s.as_bytes()].concat(),
        None => b"0".to_vec(),
    };
    entries
        .iter()
        .flat_map(|e| {
            [
                e.count.to_string().into_bytes(),
                opt(&e.left),
                opt(&e.right),
            ]
        })
        .collect()
}

/// The reverse of [`encode`]; `None` for fields that are not a node's ring entries.
pub fn decode(fields: &[Vec<u8>]) -> Option<Vec<Entry>> {
    if !fields.len().is_multiple_of(3) {
        return None;
    }
    let opt = |f: &[u8]| match f.split_first() {
        Some((b'1', rest)) => Some(Some(String::from_utf8_lossy(rest).into_owned())),
        Some((b'0', [])) => Some(None),
        _ => None,
    };
    fields
        .chunks_exact(3)
        .map(|c| match c {
            [count, left, right] => Some(Entry {
                count: std::str::from_utf8(count).ok()?.parse().ok()?,
                left: opt(left)?,
                right: opt(right)?,
            }),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(count: i32, left: &str, right: &str) -> Entry {
        Entry {
            count,
            left: Some(left.to_string()),
            right: Some(right.to_string()),
        }
    }

    fn all(nodes: &[Vec<Entry>], width: usize) -> Vec<(i32, String, String)> {
        (0..nodes.len())
            .flat_map(|n| answers(nodes, width, n))
            .map(|a| {
                (
                    a.count,
                    a.left.unwrap_or_else(|| "(null)".into()),
                    a.right.unwrap_or_else(|| "(null)".into()),
                )
            })
            .collect()
    }

    #[test]
    fn a_ring_over_nodes_in_order() {
        // MVAPICH's use: each task gives 1 and its own address as both values.
        let nodes = vec![
            vec![e(1, "a0", "a0"), e(1, "a1", "a1")],
            vec![e(1, "b0", "b0")],
            vec![e(1, "c0", "c0"), e(1, "c1", "c1")],
        ];
        let got = all(&nodes, DEFAULT_WIDTH);
        let want = [
            (0, "c1", "a1"),
            (1, "a0", "b0"),
            (2, "a1", "c0"),
            (3, "b0", "c1"),
            (4, "c0", "a0"),
        ];
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert_eq!((g.0, g.1.as_str(), g.2.as_str()), w);
        }
    }

    #[test]
    fn the_ring_follows_slurms_tree_not_node_order() {
        // Width 2 over 5 nodes: 0's children are 1 and 2, 1's are 3 and 4: the ring is 0, 1, 3, 4, 2.
        let nodes: Vec<Vec<Entry>> = (0..5)
            .map(|n| vec![e(10, &format!("L{n}"), &format!("R{n}"))])
            .collect();
        let by_node: Vec<Answer> = (0..5).map(|n| answers(&nodes, 2, n).remove(0)).collect();
        let order = [0usize, 1, 3, 4, 2];
        for (pos, &n) in order.iter().enumerate() {
            let a = &by_node[n];
            assert_eq!(a.count, 10 * pos as i32, "node {n}");
            let left = order[(pos + order.len() - 1) % order.len()];
            let right = order[(pos + 1) % order.len()];
            assert_eq!(a.left.as_deref(), Some(format!("R{left}").as_str()));
            assert_eq!(a.right.as_deref(), Some(format!("L{right}").as_str()));
        }
        // With the default width the same nodes are in node order.
        let by_node: Vec<Answer> = (0..5)
            .map(|n| answers(&nodes, DEFAULT_WIDTH, n).remove(0))
            .collect();
        for (n, a) in by_node.iter().enumerate() {
            assert_eq!(a.count, 10 * n as i32);
        }
    }

    #[test]
    fn missing_values_are_passed_over_as_slurm_does() {
        let nodes = vec![vec![
            e(1, "x", "x"),
            Entry {
                count: 2,
                left: None,
                right: None,
            },
            e(3, "z", "z"),
        ]];
        let got = all(&nodes, DEFAULT_WIDTH);
        assert_eq!(
            got,
            vec![
                (0, "z".into(), "z".into()),
                (1, "x".into(), "z".into()),
                (3, "x".into(), "x".into())
            ]
        );
        // A missing value at the edge of the ring stays missing.
        let nodes = vec![vec![Entry {
            count: 1,
            left: None,
            right: None,
        }]];
        assert_eq!(
            all(&nodes, DEFAULT_WIDTH),
            vec![(0, "(null)".into(), "(null)".into())]
        );
    }

    #[test]
    fn entries_survive_the_collective() {
        let entries = vec![
            e(-4, "", "r;x"),
            Entry {
                count: 7,
                left: None,
                right: Some("0".into()),
            },
        ];
        assert_eq!(decode(&encode(&entries)), Some(entries));
        assert_eq!(decode(&[b"1".to_vec()]), None);
        assert_eq!(decode(&[b"x".to_vec(), b"0".to_vec(), b"0".to_vec()]), None);
    }

    #[test]
    fn width_as_slurm_reads_it() {
        assert_eq!(width_from_env(None), 16);
        assert_eq!(width_from_env(Some("4")), 4);
        assert_eq!(width_from_env(Some("1")), 16);
        assert_eq!(width_from_env(Some("abc")), 16);
        assert_eq!(width_from_env(Some("3x")), 3);
        assert_eq!(width_from_env(Some("-5")), 16);
    }
}
