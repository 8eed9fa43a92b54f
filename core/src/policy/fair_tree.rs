//! The fair-share factor of each association, from the association tree, its shares and its usage, as Slurm
//! 22.05 computes it: Fair Tree by default, the classic formula with `PriorityFlags=NO_FAIR_TREE`. A pure function
//! of the state, so the scheduler (once per pass), `sprio` and `sshare` all see the same numbers.
//!
//! Fair Tree: among siblings, an association's level fair-share is its share of the siblings' shares over its
//! share of the parent's usage (S / U; no usage: infinite; no shares: 0). Walking the tree depth first with
//! siblings in decreasing level fair-share ranks every user association; a user's factor is its rank (counting
//! down from the number of users) over the number of users. Ties: sibling users with equal values share a rank,
//! sibling accounts with equal values have their children ranked together, and a user tied with an account ranks
//! with that account's best user.
//!
//! Classic: a user's factor is 2^(-UE / S), S its shares normalised along the path from root and UE its effective
//! usage, its own normalised usage pulled towards its parent's effective usage by its share of the siblings'.

use std::collections::{BTreeMap, HashMap};

use crate::model::assoc::{AcctDb, Association, ROOT_ACCOUNT};
use crate::policy::fairshare::{assoc_key, FairShareUsage};

/// One association as `sshare` shows it, with the factor its users' jobs get.
#[derive(Debug, Clone, PartialEq)]
pub struct AssocShare {
    pub account: String,
    pub user: Option<String>,
    pub partition: Option<String>,
    /// The key of its usage ([`assoc_key`]).
    pub key: String,
    /// Depth in the tree: root's account is 0, its users and sub-accounts 1, ...
    pub depth: usize,
    /// `Fairshare=`; `None` for root's account, which has no siblings.
    pub raw_shares: Option<u32>,
    /// Its shares over its siblings' (Fair Tree), or that times its parent's all the way up (classic).
    pub norm_shares: f64,
    pub raw_usage: f64,
    /// Its raw usage over root's.
    pub norm_usage: f64,
    /// Fair Tree: its raw usage over its parent's; classic: see the module; root: 1.
    pub effective_usage: f64,
    /// Fair Tree's level fair-share (may be infinite); `None` for root's account and under classic.
    pub level_fs: Option<f64>,
    /// The fair-share factor: of user associations under Fair Tree, of every association under classic.
    pub fairshare: Option<f64>,
}

impl AssocShare {
    pub fn is_user(&self) -> bool {
        self.user.is_some()
    }
}

/// Every association reachable from root, in `sshare`'s order (each account, its users, then its sub-accounts,
/// by name), with its shares, usage and factor.
pub fn shares(acct: &AcctDb, usage: &FairShareUsage, fair_tree: bool) -> Vec<AssocShare> {
    let mut tree = Tree::new(acct, usage);
    if fair_tree {
        tree.fair_tree();
    } else {
        tree.classic();
    }
    tree.rows
}

/// The factor of each user association, by (user, account), with its partition: what the scheduler looks jobs up
/// in, built once per pass.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FactorTable {
    /// user → account → the factor of each of its associations there (`None`: every partition).
    by_user: HashMap<String, HashMap<String, PartitionFactors>>,
}

type PartitionFactors = Vec<(Option<String>, f64)>;

impl FactorTable {
    pub fn new(acct: &AcctDb, usage: &FairShareUsage, fair_tree: bool) -> FactorTable {
        let mut by_user: HashMap<String, HashMap<String, PartitionFactors>> = HashMap::new();
        for row in shares(acct, usage, fair_tree) {
            if let (Some(user), Some(factor)) = (row.user, row.fairshare) {
                by_user
                    .entry(user)
                    .or_default()
                    .entry(row.account)
                    .or_default()
                    .push((row.partition, factor));
            }
        }
        FactorTable { by_user }
    }

    /// The factor of a job of `user` in `account` (`None`: the user's default) and `partition`: its partition's
    /// association first, else the one for every partition; 0 without an association, as in Slurm.
    pub fn factor(&self, acct: &AcctDb, user: &str, account: Option<&str>, partition: &str) -> f64 {
        let account = match account {
            Some(a) => a,
            None => match acct.users.get(user) {
                Some(u) => u.default_account.as_str(),
                None => return 0.0,
            },
        };
        let Some(list) = self.by_user.get(user).and_then(|a| a.get(account)) else {
            return 0.0;
        };
        list.iter()
            .find(|(p, _)| p.as_deref() == Some(partition))
            .or_else(|| list.iter().find(|(p, _)| p.is_none()))
            .map_or(0.0, |(_, f)| *f)
    }
}

struct Tree {
    rows: Vec<AssocShare>,
    parent: Vec<Option<usize>>,
    children: Vec<Vec<usize>>,
}

impl Tree {
    fn new(acct: &AcctDb, usage: &FairShareUsage) -> Tree {
        let order = tree_order(acct);
        let account_row: BTreeMap<&str, usize> = order
            .iter()
            .enumerate()
            .filter(|(_, a)| a.user.is_none())
            .map(|(i, a)| (a.account.as_str(), i))
            .collect();
        let parent: Vec<Option<usize>> = order
            .iter()
            .map(|a| match &a.user {
                Some(_) => account_row.get(a.account.as_str()).copied(),
                None => a
                    .parent
                    .as_deref()
                    .and_then(|p| account_row.get(p).copied()),
            })
            .collect();
        let mut children = vec![Vec::new(); order.len()];
        for (i, p) in parent.iter().enumerate() {
            if let Some(p) = p {
                children[*p].push(i);
            }
        }
        let mut rows: Vec<AssocShare> = order
            .iter()
            .map(|a| {
                let key = assoc_key(a);
                AssocShare {
                    account: a.account.clone(),
                    user: a.user.clone(),
                    partition: a.partition.clone(),
                    raw_usage: usage.raw_of(&key),
                    key,
                    depth: 0,
                    raw_shares: Some(a.shares),
                    norm_shares: 0.0,
                    norm_usage: 0.0,
                    effective_usage: 0.0,
                    level_fs: None,
                    fairshare: None,
                }
            })
            .collect();
        let root_usage = rows.first().map_or(0.0, |r| r.raw_usage);
        for i in 0..rows.len() {
            rows[i].depth = parent[i].map_or(0, |p| rows[p].depth + 1);
            rows[i].norm_usage = ratio(rows[i].raw_usage, root_usage);
            if parent[i].is_none() {
                rows[i].raw_shares = None;
                rows[i].effective_usage = 1.0;
            }
        }
        let mut tree = Tree {
            rows,
            parent,
            children,
        };
        tree.level_shares();
        tree
    }

    /// Each association's shares over its siblings'.
    fn level_shares(&mut self) {
        for siblings in &self.children {
            let total: f64 = siblings
                .iter()
                .map(|&c| f64::from(self.rows[c].raw_shares.unwrap_or(0)))
                .sum();
            for &c in siblings {
                self.rows[c].norm_shares =
                    ratio(f64::from(self.rows[c].raw_shares.unwrap_or(0)), total);
            }
        }
    }

    fn fair_tree(&mut self) {
        for i in 0..self.rows.len() {
            let Some(p) = self.parent[i] else { continue };
            let u = ratio(self.rows[i].raw_usage, self.rows[p].raw_usage);
            self.rows[i].effective_usage = u;
            let s = self.rows[i].norm_shares;
            self.rows[i].level_fs = Some(if s == 0.0 {
                0.0
            } else if u == 0.0 {
                f64::INFINITY
            } else {
                s / u
            });
        }
        let users = self.rows.iter().filter(|r| r.is_user()).count() as u32;
        if users == 0 || self.rows.is_empty() {
            return;
        }
        let mut rank = Ranking {
            users,
            rank: users,
            untied: users,
        };
        let top = self.children[0].clone();
        self.rank_siblings(top, false, &mut rank, 0);
    }

    /// Ranks one level (siblings, or the merged children of tied accounts) and the levels below it.
    fn rank_siblings(
        &mut self,
        mut siblings: Vec<usize>,
        account_tied: bool,
        rank: &mut Ranking,
        depth: usize,
    ) {
        if depth > self.rows.len() {
            return;
        }
        let level_fs = |rows: &[AssocShare], i: usize| rows[i].level_fs.unwrap_or(0.0);
        // Higher level fair-share first; on equal values, users before accounts.
        siblings.sort_by(|&a, &b| {
            level_fs(&self.rows, b)
                .total_cmp(&level_fs(&self.rows, a))
                .then_with(|| self.rows[b].is_user().cmp(&self.rows[a].is_user()))
        });
        let mut prev: Option<f64> = None;
        let mut i = 0;
        while i < siblings.len() {
            let at = siblings[i];
            let lf = level_fs(&self.rows, at);
            let tied = if i == 0 && account_tied {
                true
            } else {
                prev == Some(lf)
            };
            if self.rows[at].is_user() {
                if !tied {
                    rank.rank = rank.untied;
                }
                self.rows[at].fairshare = Some(f64::from(rank.rank) / f64::from(rank.users));
                rank.untied = rank.untied.saturating_sub(1);
            } else {
                let mut merged = self.children[at].clone();
                let mut last = i;
                while let Some(&next) = siblings.get(last + 1) {
                    if self.rows[next].is_user() || level_fs(&self.rows, next) != lf {
                        break;
                    }
                    merged.extend(self.children[next].iter().copied());
                    last += 1;
                }
                self.rank_siblings(merged, tied, rank, depth + 1);
                i = last;
            }
            prev = Some(lf);
            i += 1;
        }
    }

    /// Every association gets a factor here, accounts and root included, as sshare shows them; root's shares
    /// are the whole (1).
    fn classic(&mut self) {
        for i in 0..self.rows.len() {
            let Some(p) = self.parent[i] else {
                self.rows[i].norm_shares = 1.0;
                self.rows[i].fairshare = Some(0.5);
                continue;
            };
            let own = self.rows[i].norm_shares;
            if self.parent[p].is_some() {
                self.rows[i].norm_shares = own * self.rows[p].norm_shares;
            }
            let actual = self.rows[i].norm_usage;
            self.rows[i].effective_usage = if self.parent[p].is_none() {
                actual
            } else {
                actual + (self.rows[p].effective_usage - actual) * own
            };
            let s = self.rows[i].norm_shares;
            self.rows[i].fairshare = Some(if s > 0.0 {
                (-self.rows[i].effective_usage / s).exp2()
            } else {
                0.0
            });
        }
    }
}

/// The associations in sacctmgr's tree order (as [`AcctDb::tree_order`]), grouped once so that a pass over a
/// large tree costs O(n log n) rather than a scan of every association per account.
fn tree_order(acct: &AcctDb) -> Vec<&Association> {
    let mut users: HashMap<&str, Vec<&Association>> = HashMap::new();
    let mut sub_accounts: HashMap<&str, Vec<&Association>> = HashMap::new();
    let mut roots = Vec::new();
    for a in &acct.assocs {
        match (&a.user, &a.parent) {
            (Some(_), _) => users.entry(&a.account).or_default().push(a),
            (None, Some(parent)) => sub_accounts.entry(parent).or_default().push(a),
            (None, None) if a.account == ROOT_ACCOUNT => roots.push(a),
            (None, None) => {}
        }
    }
    for list in users.values_mut() {
        list.sort_by(|a, b| (&a.user, &a.partition).cmp(&(&b.user, &b.partition)));
    }
    for list in sub_accounts.values_mut() {
        list.sort_by(|a, b| a.account.cmp(&b.account));
    }
    let mut out = Vec::with_capacity(acct.assocs.len());
    // Depth first without recursion: each account, its users, then its sub-accounts in name order.
    let mut stack: Vec<&Association> = roots.into_iter().take(1).collect();
    while let Some(account) = stack.pop() {
        if out.len() > acct.assocs.len() {
            break;
        }
        out.push(account);
        if let Some(list) = users.get(account.account.as_str()) {
            out.extend(list.iter().copied());
        }
        if let Some(list) = sub_accounts.get(account.account.as_str()) {
            stack.extend(list.iter().rev().copied());
        }
    }
    out
}

struct Ranking {
    users: u32,
    /// The rank the next user gets unless tied with the one before.
    rank: u32,
    /// The rank it would get without ties.
    untied: u32,
}

fn ratio(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        part / whole
    } else {
        0.0
    }
}

#[cfg(test)]
#[path = "fair_tree_tests.rs"]
mod tests;
