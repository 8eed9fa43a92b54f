//! Slurm's accounting entities (what slurmdbd keeps and `sacctmgr` edits): QOS, accounts, users and their
//! associations, kept in the controller's replicated state instead of a database. This module holds the records,
//! the typed requests `sacctmgr` sends and the pure rules that apply them; the state machine calls
//! [`AcctDb::apply`] inside `apply`, so every controller holds the same entities.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

use crate::model::records::PreemptMode;

/// The account every slurmdbd installation starts with, and root's.
pub const ROOT_ACCOUNT: &str = "root";
/// The QOS slurmdbd creates, and the one jobs get when nothing else says.
pub const DEFAULT_QOS: &str = "normal";

/// A quality of service (`sacctmgr show qos`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Qos {
    /// slurmdbd's id: listings are in id order.
    pub id: u32,
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub priority: u32,
    /// QOS this one may preempt (`Preempt=`).
    #[serde(default)]
    pub preempt: Vec<String>,
    /// `None`: the cluster's `PreemptMode` (shown `cluster`).
    #[serde(default)]
    pub preempt_mode: Option<PreemptMode>,
    #[serde(default = "one")]
    pub usage_factor: f64,
    #[serde(default)]
    pub grace_time_secs: u32,
    #[serde(default)]
    pub flags: Vec<String>,
    #[serde(default)]
    pub limits: QosLimits,
}

fn one() -> f64 {
    1.0
}

/// A QOS's limits, stored as given (TRES lists as text, `cpu=4`); `None` is no limit.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct QosLimits {
    pub max_wall_min: Option<u32>,
    pub max_tres_per_job: Option<String>,
    pub max_tres_per_user: Option<String>,
    pub max_jobs_per_user: Option<u32>,
    pub max_submit_jobs_per_user: Option<u32>,
    pub grp_tres: Option<String>,
    pub grp_jobs: Option<u32>,
    pub grp_submit: Option<u32>,
    /// The `PerAccount` limits count the jobs of each account (the job's own) apart.
    pub max_tres_per_account: Option<String>,
    pub max_jobs_per_account: Option<u32>,
    pub max_submit_jobs_per_account: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Account {
    pub name: String,
    pub description: String,
    pub organization: String,
}

/// `AdminLevel` of a user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum AdminLevel {
    #[default]
    None,
    Operator,
    Administrator,
}

impl AdminLevel {
    pub fn name(self) -> &'static str {
        match self {
            AdminLevel::None => "None",
            AdminLevel::Operator => "Operator",
            AdminLevel::Administrator => "Administrator",
        }
    }

    pub fn parse(text: &str) -> Option<AdminLevel> {
        match text.to_ascii_lowercase().as_str() {
            "none" => Some(AdminLevel::None),
            "operator" => Some(AdminLevel::Operator),
            "admin" | "administrator" => Some(AdminLevel::Administrator),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct User {
    pub name: String,
    pub default_account: String,
    #[serde(default)]
    pub admin: AdminLevel,
}

/// An association's limits, stored as given; fair-share reads `shares`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AssocLimits {
    pub max_jobs: Option<u32>,
    pub max_submit: Option<u32>,
    pub max_wall_min: Option<u32>,
    pub max_tres: Option<String>,
    pub grp_jobs: Option<u32>,
    pub grp_submit: Option<u32>,
    pub grp_tres: Option<String>,
}

/// An association: an account (user `None`, with its parent account) or a user in an account, optionally for
/// one partition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Association {
    pub account: String,
    #[serde(default)]
    pub user: Option<String>,
    #[serde(default)]
    pub partition: Option<String>,
    /// The parent account of an account's association (`None` for root's and for users').
    #[serde(default)]
    pub parent: Option<String>,
    /// `Fairshare=` (Slurm's default 1).
    #[serde(default = "one_share")]
    pub shares: u32,
    /// The QOS the association may use, sorted by name.
    #[serde(default)]
    pub qos: Vec<String>,
    #[serde(default)]
    pub default_qos: Option<String>,
    #[serde(default)]
    pub limits: AssocLimits,
    /// Whether the QOS list, and the default QOS, were given for this association (by add, modify or load)
    /// rather than copied from the parent at add: slurmdbd keeps only given ones, and `sacctmgr dump` writes
    /// only those.
    #[serde(default)]
    pub qos_given: bool,
    #[serde(default)]
    pub default_qos_given: bool,
    /// slurmdbd's `qos` column: the association's own list, `,ID,ID,`, or empty while it inherits
    /// ([`assoc_qos`](self::assoc_qos)); `qos` above is what it may use, computed from these.
    #[serde(default)]
    pub qos_raw: String,
    /// slurmdbd's `delta_qos` column: `,+ID,-ID,` changes to what it inherits.
    #[serde(default)]
    pub delta_qos_raw: String,
}

fn one_share() -> u32 {
    1
}

/// Every accounting entity of the cluster.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AcctDb {
    /// ClusterName: the one cluster whose associations these are.
    pub cluster: String,
    /// In id order.
    pub qos: Vec<Qos>,
    pub next_qos_id: u32,
    pub accounts: BTreeMap<String, Account>,
    pub users: BTreeMap<String, User>,
    pub assocs: Vec<Association>,
}

/// The walks up the account tree, written once for [`AcctDb`] (which searches its list of associations, enough
/// for one submission or one `sacctmgr` listing) and for [`AcctIndex`] (a map, for the scheduler, which asks for
/// every pending job in every pass).
pub trait AccountTree {
    /// The association of an account (not of a user in it).
    fn account_assoc(&self, account: &str) -> Option<&Association>;

    /// How many steps a walk up may take: a parent loop cannot be made through sacctmgr, but is not followed.
    fn walk_limit(&self) -> usize;

    /// The association of `account` and of every account above it, nearest first.
    fn account_chain<'a>(&'a self, account: &'a str) -> impl Iterator<Item = &'a Association> + 'a {
        walk_up(
            move |name| self.account_assoc(name),
            self.walk_limit(),
            account,
        )
    }

    /// A `Max` limit of a user's association as slurmctld applies it: the association's own, else the nearest
    /// account's above it (slurmdbd hands an account's `Max` limits down to the associations under it that set
    /// none).
    fn inherited_max<'a, T>(
        &'a self,
        assoc: &'a Association,
        limit: impl Fn(&'a AssocLimits) -> Option<T>,
    ) -> Option<T> {
        limit(&assoc.limits).or_else(|| {
            self.account_chain(&assoc.account)
                .find_map(|node| limit(&node.limits))
        })
    }

    /// A TRES `Max` limit (`MaxTRES`) of an association as slurmctld applies it and sacctmgr shows it: each
    /// TRES from the nearest association that sets it, its own first, then each account above (slurmdbd hands
    /// limits down TRES by TRES).
    fn inherited_max_tres(
        &self,
        assoc: &Association,
        limit: impl Fn(&AssocLimits) -> Option<&str>,
    ) -> Option<String> {
        let mut merged: Option<String> = None;
        let levels = std::iter::once(assoc).chain(self.account_chain(&assoc.account));
        for level in levels {
            let Some(text) = limit(&level.limits) else {
                continue;
            };
            let have: Vec<String> = tres_keys(merged.as_deref().unwrap_or(""));
            let missing: Vec<&str> = text
                .split(',')
                .filter(|item| {
                    let key = item.split_once('=').map_or(*item, |(k, _)| k);
                    !have.iter().any(|k| k.eq_ignore_ascii_case(key.trim()))
                })
                .collect();
            if !missing.is_empty() {
                edit_tres(&mut merged, &Some(Some(missing.join(","))));
            }
        }
        merged
    }
}

/// `account` and every account above it, found by `lookup`, for at most `limit` steps.
fn walk_up<'a: 'l, 'l>(
    lookup: impl Fn(&str) -> Option<&'a Association> + 'l,
    limit: usize,
    account: &'a str,
) -> impl Iterator<Item = &'a Association> + 'l {
    let mut above = Some(account);
    let mut steps = 0;
    std::iter::from_fn(move || {
        steps += 1;
        if steps > limit {
            return None;
        }
        let node = lookup(above?)?;
        above = node.parent.as_deref();
        Some(node)
    })
}

impl AccountTree for AcctDb {
    fn account_assoc(&self, account: &str) -> Option<&Association> {
        AcctDb::account_assoc(self, account)
    }

    fn walk_limit(&self) -> usize {
        self.assocs.len()
    }
}

/// The associations of an [`AcctDb`] by account and by user, for lookups in a loop.
pub struct AcctIndex<'a> {
    db: &'a AcctDb,
    accounts: HashMap<&'a str, &'a Association>,
    /// Each user's associations in an account, in the database's order (partition ones among them).
    users: HashMap<(&'a str, &'a str), Vec<&'a Association>>,
}

impl<'a> AcctIndex<'a> {
    pub fn new(db: &'a AcctDb) -> Self {
        let mut accounts = HashMap::new();
        let mut users: HashMap<(&str, &str), Vec<&Association>> = HashMap::new();
        for assoc in &db.assocs {
            match &assoc.user {
                // The first one wins, as in `AcctDb::account_assoc`.
                None => {
                    accounts.entry(assoc.account.as_str()).or_insert(assoc);
                }
                Some(user) => users
                    .entry((user.as_str(), assoc.account.as_str()))
                    .or_default()
                    .push(assoc),
            }
        }
        AcctIndex {
            db,
            accounts,
            users,
        }
    }

    /// As [`AccountTree::account_chain`], with associations that outlive the index.
    pub fn chain<'s>(&'s self, account: &'a str) -> impl Iterator<Item = &'a Association> + 's
    where
        'a: 's,
    {
        walk_up(
            move |name| self.accounts.get(name).copied(),
            self.db.assocs.len(),
            account,
        )
    }

    /// As [`AcctDb::user_assoc`]: the partition's own first.
    pub fn user_assoc(
        &self,
        user: &str,
        account: &str,
        partition: Option<&str>,
    ) -> Option<&'a Association> {
        let mine = self.users.get(&(user, account))?;
        mine.iter()
            .find(|a| partition.is_some() && a.partition.as_deref() == partition)
            .or_else(|| mine.iter().find(|a| a.partition.is_none()))
            .copied()
    }
}

impl AccountTree for AcctIndex<'_> {
    fn account_assoc(&self, account: &str) -> Option<&Association> {
        self.accounts.get(account).copied()
    }

    fn walk_limit(&self) -> usize {
        self.db.assocs.len()
    }
}

/// A change to a list setting: `QOS=a,b`, `QOS+=c`, `QOS-=a`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ListEdit {
    Set(Vec<String>),
    Add(Vec<String>),
    Remove(Vec<String>),
    /// Signed entries in order (`+a`, `-b`; an unsigned one adds), as a `sacctmgr dump` file writes the changes
    /// of an association that inherits its QOS.
    Delta(Vec<String>),
}

impl ListEdit {
    /// The names the edit mentions, without their signs.
    pub fn names(&self) -> Vec<String> {
        match self {
            ListEdit::Set(v) | ListEdit::Add(v) | ListEdit::Remove(v) => v.clone(),
            ListEdit::Delta(v) => v
                .iter()
                .map(|e| e.trim_start_matches(['+', '-']).to_string())
                .collect(),
        }
    }

    fn edit(&self, list: &mut Vec<String>) {
        match self {
            ListEdit::Set(v) => *list = v.clone(),
            ListEdit::Add(v) => list.extend(v.iter().cloned()),
            ListEdit::Remove(v) => list.retain(|q| !v.contains(q)),
            ListEdit::Delta(v) => {
                for entry in v {
                    match entry.strip_prefix('-') {
                        Some(name) => list.retain(|q| q != name),
                        None => list.push(entry.trim_start_matches('+').to_string()),
                    }
                }
            }
        }
        list.sort();
        list.dedup();
    }
}

/// QOS settings of an add or modify; `Some(None)` clears a limit (`=-1`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct QosSet {
    pub description: Option<String>,
    pub priority: Option<u32>,
    pub preempt: Option<ListEdit>,
    #[serde(with = "crate::model::clearable")]
    pub preempt_mode: Option<Option<PreemptMode>>,
    pub usage_factor: Option<f64>,
    pub grace_time_secs: Option<u32>,
    pub flags: Option<Vec<String>>,
    #[serde(with = "crate::model::clearable")]
    pub max_wall_min: Option<Option<u32>>,
    #[serde(with = "crate::model::clearable")]
    pub max_tres_per_job: Option<Option<String>>,
    #[serde(with = "crate::model::clearable")]
    pub max_tres_per_user: Option<Option<String>>,
    #[serde(with = "crate::model::clearable")]
    pub max_jobs_per_user: Option<Option<u32>>,
    #[serde(with = "crate::model::clearable")]
    pub max_submit_jobs_per_user: Option<Option<u32>>,
    #[serde(with = "crate::model::clearable")]
    pub grp_tres: Option<Option<String>>,
    #[serde(with = "crate::model::clearable")]
    pub grp_jobs: Option<Option<u32>>,
    #[serde(with = "crate::model::clearable")]
    pub grp_submit: Option<Option<u32>>,
    #[serde(with = "crate::model::clearable")]
    pub max_tres_per_account: Option<Option<String>>,
    #[serde(with = "crate::model::clearable")]
    pub max_jobs_per_account: Option<Option<u32>>,
    #[serde(with = "crate::model::clearable")]
    pub max_submit_jobs_per_account: Option<Option<u32>>,
}

/// Association settings of an add or modify; `Some(None)` clears one (`=-1`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AssocSet {
    pub shares: Option<u32>,
    pub qos: Option<ListEdit>,
    #[serde(with = "crate::model::clearable")]
    pub default_qos: Option<Option<String>>,
    #[serde(with = "crate::model::clearable")]
    pub max_jobs: Option<Option<u32>>,
    #[serde(with = "crate::model::clearable")]
    pub max_submit: Option<Option<u32>>,
    #[serde(with = "crate::model::clearable")]
    pub max_wall_min: Option<Option<u32>>,
    #[serde(with = "crate::model::clearable")]
    pub max_tres: Option<Option<String>>,
    #[serde(with = "crate::model::clearable")]
    pub grp_jobs: Option<Option<u32>>,
    #[serde(with = "crate::model::clearable")]
    pub grp_submit: Option<Option<u32>>,
    #[serde(with = "crate::model::clearable")]
    pub grp_tres: Option<Option<String>>,
}

impl AssocSet {
    pub fn is_empty(&self) -> bool {
        *self == AssocSet::default()
    }
}

/// What `sacctmgr` asks the controller to change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum AcctRequest {
    AddQos {
        names: Vec<String>,
        set: QosSet,
    },
    /// `names` empty: every QOS.
    ModifyQos {
        names: Vec<String>,
        set: QosSet,
    },
    DeleteQos {
        names: Vec<String>,
    },
    AddAccounts {
        names: Vec<String>,
        parent: Option<String>,
        description: Option<String>,
        organization: Option<String>,
        set: AssocSet,
    },
    ModifyAccounts {
        names: Vec<String>,
        description: Option<String>,
        organization: Option<String>,
        set: AssocSet,
    },
    DeleteAccounts {
        names: Vec<String>,
    },
    AddUsers {
        names: Vec<String>,
        accounts: Vec<String>,
        #[serde(default)]
        partitions: Vec<String>,
        default_account: Option<String>,
        admin: Option<AdminLevel>,
        set: AssocSet,
    },
    /// `accounts` (from `where account=`) narrows the associations changed.
    ModifyUsers {
        names: Vec<String>,
        accounts: Vec<String>,
        default_account: Option<String>,
        admin: Option<AdminLevel>,
        set: AssocSet,
    },
    /// `accounts` empty: the users and all their associations; else only those associations.
    DeleteUsers {
        names: Vec<String>,
        accounts: Vec<String>,
    },
    /// `sacctmgr load`: the adds and modifies of a flat file, applied in order and all or none (slurmdbd's one
    /// transaction). The change lists every request's names and associations.
    Batch {
        requests: Vec<AcctRequest>,
    },
}

impl AcctRequest {
    /// Whether applying it can change what associations may use (their QOS columns, or the QOS themselves).
    fn touches_qos_lists(&self) -> bool {
        match self {
            AcctRequest::DeleteQos { .. } => true,
            AcctRequest::AddAccounts { set, .. }
            | AcctRequest::ModifyAccounts { set, .. }
            | AcctRequest::AddUsers { set, .. }
            | AcctRequest::ModifyUsers { set, .. } => set.qos.is_some(),
            AcctRequest::Batch { requests } => requests.iter().any(AcctRequest::touches_qos_lists),
            _ => false,
        }
    }

    /// `sacctmgr add user NAME account=ACCOUNT` with the association settings `set` and nothing else.
    pub fn add_user(name: &str, account: &str, set: AssocSet) -> AcctRequest {
        AcctRequest::AddUsers {
            names: vec![name.to_string()],
            accounts: vec![account.to_string()],
            partitions: Vec::new(),
            default_account: None,
            admin: None,
            set,
        }
    }
}

/// The outcome of an accounting request: what changed, or why nothing did.
pub type AcctResult = Result<AcctChange, AcctError>;

/// What a request changed, for sacctmgr's messages.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct AcctChange {
    /// The QOS, accounts or users added, modified or deleted.
    pub names: Vec<String>,
    /// Associations added or modified: (account, user).
    pub assocs: Vec<(String, Option<String>)>,
}

/// Why sacctmgr's request changed nothing; the texts are sacctmgr's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum AcctError {
    NothingAdded,
    NothingModified,
    NothingDeleted,
    /// `You gave a bad qos 'X'. Valid QOS's are a,b`.
    BadQos {
        name: String,
        valid: Vec<String>,
    },
    ParentMissing {
        parent: String,
    },
    AccountMissing {
        account: String,
    },
    RootAccount,
    NotAssociatedWithDefault {
        account: String,
        users: Vec<String>,
    },
    /// A default QOS that these associations may not use: (default QOS, account, user).
    DefaultQosNotAllowed {
        rows: Vec<(String, String, String)>,
    },
}

impl AcctError {
    /// sacctmgr's lines for the error (stdout or `sacctmgr: error:` on stderr, see [`AcctError::on_stderr`]).
    pub fn lines(&self, cluster: &str) -> Vec<String> {
        match self {
            AcctError::NothingAdded => vec![" Nothing new added.".into()],
            AcctError::NothingModified => vec![" Nothing modified".into()],
            AcctError::NothingDeleted => vec![" Nothing deleted".into()],
            AcctError::BadQos { name, valid } => vec![format!(
                "You gave a bad qos '{name}'. Valid QOS's are {}",
                valid.join(",")
            )],
            AcctError::ParentMissing { parent } => vec![
                format!(" Parent account '{parent}' doesn't exist on cluster {cluster}"),
                "        Contact your admin to add this account.".into(),
                " No associations created.".into(),
            ],
            AcctError::AccountMissing { account } => vec![
                format!(" This account '{account}' doesn't exist."),
                "        Contact your admin to add this account.".into(),
                " No associations or wckeys created.".into(),
            ],
            AcctError::RootAccount => vec![
                " You are not allowed to remove the root account.".into(),
                " Use remove cluster instead.".into(),
            ],
            AcctError::NotAssociatedWithDefault { account, users } => {
                let mut out = vec![format!(
                    " Can't modify because these users aren't associated with new default account '{account}'..."
                )];
                out.extend(users.iter().map(|u| format!("  U = {u} C = {cluster}")));
                out
            }
            AcctError::DefaultQosNotAllowed { rows } => {
                let mut out = vec![
                    " These associations don't have access to their default qos.".to_string(),
                    " Please give them access before they the default can be set to this.".into(),
                ];
                out.extend(rows.iter().map(|(qos, account, user)| {
                    format!(
                        "  DefQOS = {qos:<10} C = {cluster:<10} A = {account:<20} U = {user:<9}"
                    )
                }));
                out
            }
        }
    }

    /// Whether sacctmgr prints the lines on stderr (the rest go to stdout).
    pub fn on_stderr(&self) -> bool {
        matches!(
            self,
            AcctError::BadQos { .. }
                | AcctError::ParentMissing { .. }
                | AcctError::AccountMissing { .. }
                | AcctError::RootAccount
        )
    }

    /// Whether sacctmgr prefixes the lines with `sacctmgr: error: `.
    pub fn is_logged(&self) -> bool {
        matches!(self, AcctError::BadQos { .. })
    }
}

impl AcctDb {
    /// What slurmdbd holds once a cluster is added: QOS `normal`, account `root` and user `root` in it.
    pub fn initial(cluster: &str) -> AcctDb {
        let mut db = AcctDb {
            cluster: cluster.to_string(),
            next_qos_id: 1,
            ..Default::default()
        };
        // slurmdbd describes the QOS it creates as "Normal QOS default" (a QOS added without a description is
        // described by its name).
        db.add_qos_record(
            DEFAULT_QOS,
            &QosSet {
                description: Some("Normal QOS default".into()),
                ..QosSet::default()
            },
        );
        db.accounts.insert(
            ROOT_ACCOUNT.into(),
            Account {
                name: ROOT_ACCOUNT.into(),
                description: "default root account".into(),
                organization: ROOT_ACCOUNT.into(),
            },
        );
        db.users.insert(
            ROOT_ACCOUNT.into(),
            User {
                name: ROOT_ACCOUNT.into(),
                default_account: ROOT_ACCOUNT.into(),
                admin: AdminLevel::Administrator,
            },
        );
        db.assocs.push(Association {
            account: ROOT_ACCOUNT.into(),
            user: None,
            partition: None,
            parent: None,
            shares: 1,
            qos: vec![DEFAULT_QOS.into()],
            default_qos: None,
            limits: AssocLimits::default(),
            qos_given: true,
            default_qos_given: false,
            qos_raw: format!(",{},", db.next_qos_id.saturating_sub(1).max(1)),
            delta_qos_raw: String::new(),
        });
        let root_user = Association {
            user: Some(ROOT_ACCOUNT.into()),
            qos_given: false,
            qos_raw: String::new(),
            ..db.assocs[0].clone()
        };
        db.assocs.push(root_user);
        db
    }

    pub fn qos(&self, name: &str) -> Option<&Qos> {
        self.qos.iter().find(|q| q.name == name)
    }

    /// A `Max` limit of a user's association as slurmctld applies it: see [`AccountTree::inherited_max`].
    pub fn inherited_max<'a, T>(
        &'a self,
        assoc: &'a Association,
        limit: impl Fn(&'a AssocLimits) -> Option<T>,
    ) -> Option<T> {
        AccountTree::inherited_max(self, assoc, limit)
    }

    /// A TRES `Max` limit of an association: see [`AccountTree::inherited_max_tres`].
    pub fn inherited_max_tres(
        &self,
        assoc: &Association,
        limit: impl Fn(&AssocLimits) -> Option<&str>,
    ) -> Option<String> {
        AccountTree::inherited_max_tres(self, assoc, limit)
    }

    /// The association of `account` and of every account above it, nearest first.
    pub fn account_chain<'a>(
        &'a self,
        account: &'a str,
    ) -> impl Iterator<Item = &'a Association> + 'a {
        AccountTree::account_chain(self, account)
    }

    /// The association of an account (not of a user in it).
    pub fn account_assoc(&self, account: &str) -> Option<&Association> {
        self.assocs
            .iter()
            .find(|a| a.account == account && a.user.is_none())
    }

    /// The association a job of `user` in `account` (and `partition`) runs under: the partition's own first.
    pub fn user_assoc(
        &self,
        user: &str,
        account: &str,
        partition: Option<&str>,
    ) -> Option<&Association> {
        let mine = |a: &&Association| a.account == account && a.user.as_deref() == Some(user);
        self.assocs
            .iter()
            .filter(mine)
            .find(|a| partition.is_some() && a.partition.as_deref() == partition)
            .or_else(|| {
                self.assocs
                    .iter()
                    .filter(mine)
                    .find(|a| a.partition.is_none())
            })
    }

    /// The highest QOS priority (the QOS factor's normaliser).
    pub fn max_qos_priority(&self) -> u32 {
        self.qos.iter().map(|q| q.priority).max().unwrap_or(0)
    }

    /// Associations in sacctmgr's order: each account, then its users, then its sub-accounts, by name.
    pub fn tree_order(&self) -> Vec<&Association> {
        let mut out = Vec::with_capacity(self.assocs.len());
        self.walk(ROOT_ACCOUNT, &mut out, 0);
        out
    }

    fn walk<'a>(&'a self, account: &str, out: &mut Vec<&'a Association>, depth: usize) {
        if depth > self.accounts.len() {
            return;
        }
        if let Some(a) = self.account_assoc(account) {
            out.push(a);
        }
        let mut users: Vec<&Association> = self
            .assocs
            .iter()
            .filter(|a| a.account == account && a.user.is_some())
            .collect();
        users.sort_by(|a, b| (&a.user, &a.partition).cmp(&(&b.user, &b.partition)));
        out.extend(users);
        let mut children: Vec<&str> = self
            .assocs
            .iter()
            .filter(|a| a.user.is_none() && a.parent.as_deref() == Some(account))
            .map(|a| a.account.as_str())
            .collect();
        children.sort_unstable();
        for child in children {
            self.walk(child, out, depth + 1);
        }
    }

    /// Applies one request; on error nothing changed.
    pub fn apply(&mut self, request: &AcctRequest) -> Result<AcctChange, AcctError> {
        let mut next = self.clone();
        let change = next.apply_in_place(request)?;
        if request.touches_qos_lists() {
            next.refresh_qos();
        }
        *self = next;
        Ok(change)
    }

    fn apply_in_place(&mut self, request: &AcctRequest) -> Result<AcctChange, AcctError> {
        match request {
            AcctRequest::AddQos { names, set } => self.add_qos(names, set),
            AcctRequest::ModifyQos { names, set } => self.modify_qos(names, set),
            AcctRequest::DeleteQos { names } => self.delete_qos(names),
            AcctRequest::AddAccounts {
                names,
                parent,
                description,
                organization,
                set,
            } => self.add_accounts(names, parent.as_deref(), description, organization, set),
            AcctRequest::ModifyAccounts {
                names,
                description,
                organization,
                set,
            } => self.modify_accounts(names, description, organization, set),
            AcctRequest::DeleteAccounts { names } => self.delete_accounts(names),
            AcctRequest::AddUsers {
                names,
                accounts,
                partitions,
                default_account,
                admin,
                set,
            } => self.add_users(
                names,
                accounts,
                partitions,
                default_account.as_deref(),
                *admin,
                set,
            ),
            AcctRequest::ModifyUsers {
                names,
                accounts,
                default_account,
                admin,
                set,
            } => self.modify_users(names, accounts, default_account.as_deref(), *admin, set),
            AcctRequest::DeleteUsers { names, accounts } => self.delete_users(names, accounts),
            AcctRequest::Batch { requests } => {
                let mut all = AcctChange::default();
                for request in requests {
                    let change = self.apply_in_place(request)?;
                    all.names.extend(change.names);
                    all.assocs.extend(change.assocs);
                }
                Ok(all)
            }
        }
    }

    fn check_qos_names(&self, names: &[String]) -> Result<(), AcctError> {
        match names.iter().find(|n| self.qos(n).is_none()) {
            Some(bad) => Err(AcctError::BadQos {
                name: bad.clone(),
                valid: self.qos.iter().map(|q| q.name.clone()).collect(),
            }),
            None => Ok(()),
        }
    }

    fn add_qos_record(&mut self, name: &str, set: &QosSet) {
        let mut qos = Qos {
            id: self.next_qos_id.max(1),
            name: name.to_string(),
            description: name.to_string(),
            priority: 0,
            preempt: Vec::new(),
            preempt_mode: None,
            usage_factor: 1.0,
            grace_time_secs: 0,
            flags: Vec::new(),
            limits: QosLimits::default(),
        };
        self.next_qos_id = qos.id + 1;
        set_qos(&mut qos, set);
        self.qos.push(qos);
    }

    fn add_qos(&mut self, names: &[String], set: &QosSet) -> Result<AcctChange, AcctError> {
        if let Some(edit) = &set.preempt {
            self.check_qos_names(&edit.names())?;
        }
        let mut added = Vec::new();
        for name in names {
            if self.qos(name).is_none() && !added.contains(name) {
                self.add_qos_record(name, set);
                added.push(name.clone());
            }
        }
        if added.is_empty() {
            return Err(AcctError::NothingAdded);
        }
        Ok(AcctChange {
            names: added,
            ..Default::default()
        })
    }

    fn modify_qos(&mut self, names: &[String], set: &QosSet) -> Result<AcctChange, AcctError> {
        if let Some(edit) = &set.preempt {
            self.check_qos_names(&edit.names())?;
        }
        let mut changed = Vec::new();
        for qos in self
            .qos
            .iter_mut()
            .filter(|q| names.is_empty() || names.contains(&q.name))
        {
            set_qos(qos, set);
            changed.push(qos.name.clone());
        }
        if changed.is_empty() {
            return Err(AcctError::NothingModified);
        }
        Ok(AcctChange {
            names: changed,
            ..Default::default()
        })
    }

    fn delete_qos(&mut self, names: &[String]) -> Result<AcctChange, AcctError> {
        let deleted: Vec<String> = self
            .qos
            .iter()
            .filter(|q| names.contains(&q.name))
            .map(|q| q.name.clone())
            .collect();
        if deleted.is_empty() {
            return Err(AcctError::NothingDeleted);
        }
        let ids = assoc_qos::QosIds::new(self);
        let deleted_ids: Vec<u32> = self
            .qos
            .iter()
            .filter(|q| deleted.contains(&q.name))
            .map(|q| q.id)
            .collect();
        self.qos.retain(|q| !deleted.contains(&q.name));
        for qos in &mut self.qos {
            qos.preempt.retain(|p| !deleted.contains(p));
        }
        for assoc in &mut self.assocs {
            for id in &deleted_ids {
                assoc_qos::forget(assoc, *id, &ids);
            }
            assoc.qos.retain(|q| !deleted.contains(q));
            if assoc
                .default_qos
                .as_ref()
                .is_some_and(|d| deleted.contains(d))
            {
                assoc.default_qos = None;
            }
        }
        Ok(AcctChange {
            names: deleted,
            ..Default::default()
        })
    }

    fn add_accounts(
        &mut self,
        names: &[String],
        parent: Option<&str>,
        description: &Option<String>,
        organization: &Option<String>,
        set: &AssocSet,
    ) -> Result<AcctChange, AcctError> {
        let parent = parent.unwrap_or(ROOT_ACCOUNT).to_string();
        let Some(parent_assoc) = self.account_assoc(&parent).cloned() else {
            return Err(AcctError::ParentMissing { parent });
        };
        self.check_assoc_set(set)?;
        let ids = assoc_qos::QosIds::new(self);
        let mut change = AcctChange::default();
        for name in names {
            if self.accounts.contains_key(name) {
                continue;
            }
            self.accounts.insert(
                name.clone(),
                Account {
                    name: name.clone(),
                    description: description.clone().unwrap_or_else(|| name.clone()),
                    // slurmdbd's default: the parent, or the account's own name under root.
                    organization: organization.clone().unwrap_or_else(|| {
                        if parent == ROOT_ACCOUNT {
                            name.clone()
                        } else {
                            parent.clone()
                        }
                    }),
                },
            );
            let mut assoc = Association {
                account: name.clone(),
                user: None,
                partition: None,
                parent: Some(parent.clone()),
                shares: 1,
                qos: parent_assoc.qos.clone(),
                default_qos: parent_assoc.default_qos.clone(),
                limits: AssocLimits::default(),
                qos_given: false,
                default_qos_given: false,
                qos_raw: String::new(),
                delta_qos_raw: String::new(),
            };
            set_assoc(&mut assoc, set, &ids);
            self.assocs.push(assoc);
            change.names.push(name.clone());
            change.assocs.push((name.clone(), None));
        }
        if change.names.is_empty() {
            return Err(AcctError::NothingAdded);
        }
        Ok(change)
    }

    fn check_assoc_set(&self, set: &AssocSet) -> Result<(), AcctError> {
        if let Some(edit) = &set.qos {
            self.check_qos_names(&edit.names())?;
        }
        if let Some(Some(q)) = &set.default_qos {
            self.check_qos_names(std::slice::from_ref(q))?;
        }
        Ok(())
    }

    fn modify_accounts(
        &mut self,
        names: &[String],
        description: &Option<String>,
        organization: &Option<String>,
        set: &AssocSet,
    ) -> Result<AcctChange, AcctError> {
        self.check_assoc_set(set)?;
        let ids = assoc_qos::QosIds::new(self);
        let mut change = AcctChange::default();
        for account in self.accounts.values_mut() {
            if !names.contains(&account.name) {
                continue;
            }
            if let Some(d) = description {
                account.description = d.clone();
            }
            if let Some(o) = organization {
                account.organization = o.clone();
            }
            change.names.push(account.name.clone());
        }
        if !set.is_empty() {
            for assoc in &mut self.assocs {
                if assoc.user.is_none() && names.contains(&assoc.account) {
                    set_assoc(assoc, set, &ids);
                    change.assocs.push((assoc.account.clone(), None));
                }
            }
        }
        if change.names.is_empty() {
            return Err(AcctError::NothingModified);
        }
        Ok(change)
    }

    fn delete_accounts(&mut self, names: &[String]) -> Result<AcctChange, AcctError> {
        if names.iter().any(|n| n == ROOT_ACCOUNT) {
            return Err(AcctError::RootAccount);
        }
        let deleted: Vec<String> = self
            .accounts
            .keys()
            .filter(|a| names.contains(a))
            .cloned()
            .collect();
        if deleted.is_empty() {
            return Err(AcctError::NothingDeleted);
        }
        for name in &deleted {
            self.accounts.remove(name);
        }
        // slurmdbd drops the whole subtree of associations (sub-accounts' and their users'); the sub-accounts
        // and the users stay, without them.
        let mut doomed: Vec<String> = deleted.clone();
        loop {
            let more: Vec<String> = self
                .assocs
                .iter()
                .filter(|a| a.user.is_none())
                .filter(|a| a.parent.as_ref().is_some_and(|p| doomed.contains(p)))
                .filter(|a| !doomed.contains(&a.account))
                .map(|a| a.account.clone())
                .collect();
            if more.is_empty() {
                break;
            }
            doomed.extend(more);
        }
        self.assocs.retain(|a| !doomed.contains(&a.account));
        Ok(AcctChange {
            names: deleted,
            ..Default::default()
        })
    }

    /// A user whose default account lost its association defaults to another of theirs.
    fn fix_default_accounts(&mut self) {
        let assocs = &self.assocs;
        for user in self.users.values_mut() {
            let keeps_default = assocs.iter().any(|a| {
                a.user.as_deref() == Some(user.name.as_str()) && a.account == user.default_account
            });
            if !keeps_default {
                if let Some(first) = assocs
                    .iter()
                    .find(|a| a.user.as_deref() == Some(user.name.as_str()))
                {
                    user.default_account = first.account.clone();
                }
            }
        }
    }

    fn add_users(
        &mut self,
        names: &[String],
        accounts: &[String],
        partitions: &[String],
        default_account: Option<&str>,
        admin: Option<AdminLevel>,
        set: &AssocSet,
    ) -> Result<AcctChange, AcctError> {
        let mut accounts = accounts.to_vec();
        if let Some(d) = default_account {
            if !accounts.iter().any(|a| a == d) {
                accounts.insert(0, d.to_string());
            }
        }
        if let Some(missing) = accounts.iter().find(|a| !self.accounts.contains_key(*a)) {
            return Err(AcctError::AccountMissing {
                account: missing.clone(),
            });
        }
        self.check_assoc_set(set)?;
        let ids = assoc_qos::QosIds::new(self);
        let partitions: Vec<Option<String>> = if partitions.is_empty() {
            vec![None]
        } else {
            partitions.iter().cloned().map(Some).collect()
        };
        let mut change = AcctChange::default();
        for name in names {
            let mut new_user = false;
            if !self.users.contains_key(name) {
                let Some(default) = default_account.or(accounts.first().map(String::as_str)) else {
                    continue;
                };
                self.users.insert(
                    name.clone(),
                    User {
                        name: name.clone(),
                        default_account: default.to_string(),
                        admin: admin.unwrap_or_default(),
                    },
                );
                new_user = true;
            }
            let mut added_any = false;
            for account in &accounts {
                for partition in &partitions {
                    let exists = self.assocs.iter().any(|a| {
                        a.account == *account
                            && a.user.as_deref() == Some(name.as_str())
                            && a.partition == *partition
                    });
                    if exists {
                        continue;
                    }
                    let parent = self.account_assoc(account).cloned();
                    let mut assoc = Association {
                        account: account.clone(),
                        user: Some(name.clone()),
                        partition: partition.clone(),
                        parent: None,
                        shares: 1,
                        qos: parent.as_ref().map(|p| p.qos.clone()).unwrap_or_default(),
                        default_qos: parent.and_then(|p| p.default_qos),
                        limits: AssocLimits::default(),
                        qos_given: false,
                        default_qos_given: false,
                        qos_raw: String::new(),
                        delta_qos_raw: String::new(),
                    };
                    set_assoc(&mut assoc, set, &ids);
                    self.assocs.push(assoc);
                    change.assocs.push((account.clone(), Some(name.clone())));
                    added_any = true;
                }
            }
            if new_user || added_any {
                change.names.push(name.clone());
            }
        }
        if change.names.is_empty() {
            return Err(AcctError::NothingAdded);
        }
        Ok(change)
    }

    fn modify_users(
        &mut self,
        names: &[String],
        accounts: &[String],
        default_account: Option<&str>,
        admin: Option<AdminLevel>,
        set: &AssocSet,
    ) -> Result<AcctChange, AcctError> {
        self.check_assoc_set(set)?;
        let ids = assoc_qos::QosIds::new(self);
        let users: Vec<String> = self
            .users
            .keys()
            .filter(|u| names.is_empty() || names.contains(u))
            .cloned()
            .collect();
        if let Some(account) = default_account {
            let missing: Vec<String> = users
                .iter()
                .filter(|u| self.user_assoc(u, account, None).is_none())
                .cloned()
                .collect();
            if !missing.is_empty() {
                return Err(AcctError::NotAssociatedWithDefault {
                    account: account.to_string(),
                    users: missing,
                });
            }
        }
        let mut change = AcctChange::default();
        let mut refused = Vec::new();
        for name in &users {
            if let Some(user) = self.users.get_mut(name) {
                if let Some(account) = default_account {
                    user.default_account = account.to_string();
                }
                if let Some(level) = admin {
                    user.admin = level;
                }
            }
            if default_account.is_some() || admin.is_some() {
                change.names.push(name.clone());
            }
        }
        if !set.is_empty() {
            for assoc in &mut self.assocs {
                let Some(user) = assoc.user.clone() else {
                    continue;
                };
                if !users.contains(&user)
                    || (!accounts.is_empty() && !accounts.contains(&assoc.account))
                {
                    continue;
                }
                if let Some(qos) = set_assoc(assoc, set, &ids) {
                    refused.push((qos, assoc.account.clone(), user.clone()));
                }
                change.assocs.push((assoc.account.clone(), Some(user)));
            }
        }
        // sacctmgr refuses the whole change when one association could not use its new default.
        if !refused.is_empty() {
            return Err(AcctError::DefaultQosNotAllowed { rows: refused });
        }
        if change.names.is_empty() && change.assocs.is_empty() {
            return Err(AcctError::NothingModified);
        }
        Ok(change)
    }

    fn delete_users(
        &mut self,
        names: &[String],
        accounts: &[String],
    ) -> Result<AcctChange, AcctError> {
        let before = self.assocs.len();
        let mut deleted: Vec<String> = Vec::new();
        self.assocs.retain(|a| {
            let hit = a.user.as_ref().is_some_and(|u| names.contains(u))
                && (accounts.is_empty() || accounts.contains(&a.account));
            if hit {
                if let Some(u) = &a.user {
                    if !deleted.contains(u) {
                        deleted.push(u.clone());
                    }
                }
            }
            !hit
        });
        if accounts.is_empty() {
            for name in names {
                if self.users.remove(name).is_some() && !deleted.contains(name) {
                    deleted.push(name.clone());
                }
            }
        }
        if self.assocs.len() == before && deleted.is_empty() {
            return Err(AcctError::NothingDeleted);
        }
        deleted.sort();
        self.fix_default_accounts();
        Ok(AcctChange {
            names: deleted,
            ..Default::default()
        })
    }
}

fn set_opt<T: Clone>(target: &mut Option<T>, value: &Option<Option<T>>) {
    if let Some(v) = value {
        target.clone_from(v);
    }
}

/// Applies a TRES limit change as slurmdbd does, TRES by TRES: `GrpTRES=node=1` adds to or replaces the node
/// limit and leaves the others; `cpu=-1` drops the CPU limit; `-1` alone drops them all. The result is kept in
/// slurmdbd's TRES order (`cpu`, `mem`, `energy`, `node`, `billing`, then the others by name), with memory as
/// Slurm prints it (`mem=1500M`, `mem=2G`).
fn edit_tres(target: &mut Option<String>, edit: &Option<Option<String>>) {
    let text = match edit {
        None => return,
        Some(None) => {
            *target = None;
            return;
        }
        Some(Some(text)) => text,
    };
    let split = |item: &str| {
        let (key, value) = item.split_once('=').unwrap_or((item, ""));
        (key.trim().to_ascii_lowercase(), value.trim().to_string())
    };
    let mut entries: Vec<(String, String)> = target
        .as_deref()
        .unwrap_or("")
        .split(',')
        .filter(|item| !item.is_empty())
        .map(split)
        .collect();
    for (key, value) in text.split(',').filter(|item| !item.is_empty()).map(split) {
        entries.retain(|(k, _)| *k != key);
        if value != "-1" {
            let value = match (
                key.as_str(),
                crate::grammar::values::size::parse_megabytes(&value),
            ) {
                ("mem", Some(mb)) => crate::grammar::values::size::format_megabytes(mb),
                _ => value,
            };
            entries.push((key, value));
        }
    }
    entries.sort_by_key(|(key, _)| tres_order(key));
    *target = (!entries.is_empty()).then(|| {
        entries
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    });
}

/// A TRES list as slurmdbd keeps it (see [`edit_tres`]): `mem=8g,cpu=4` reads `cpu=4,mem=8G`.
pub fn normalize_tres(text: &str) -> Option<String> {
    let mut out = None;
    edit_tres(&mut out, &Some(Some(text.to_string())));
    out
}

fn tres_keys(text: &str) -> Vec<String> {
    text.split(',')
        .filter(|item| !item.is_empty())
        .map(|item| item.split_once('=').map_or(item, |(k, _)| k).to_string())
        .collect()
}

/// slurmdbd's TRES ids for the built-in ones; the rest (GRES, licenses, ...) after them by name.
fn tres_order(key: &str) -> (usize, String) {
    const BUILT_IN: [&str; 8] = [
        "cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages",
    ];
    match BUILT_IN.iter().position(|k| *k == key) {
        Some(i) => (i, String::new()),
        None => (BUILT_IN.len(), key.to_string()),
    }
}

fn set_qos(qos: &mut Qos, set: &QosSet) {
    if let Some(d) = &set.description {
        qos.description.clone_from(d);
    }
    if let Some(p) = set.priority {
        qos.priority = p;
    }
    if let Some(edit) = &set.preempt {
        edit.edit(&mut qos.preempt);
    }
    if let Some(mode) = set.preempt_mode {
        qos.preempt_mode = mode;
    }
    if let Some(f) = set.usage_factor {
        qos.usage_factor = f;
    }
    if let Some(g) = set.grace_time_secs {
        qos.grace_time_secs = g;
    }
    if let Some(flags) = &set.flags {
        qos.flags.clone_from(flags);
    }
    let l = &mut qos.limits;
    set_opt(&mut l.max_wall_min, &set.max_wall_min);
    edit_tres(&mut l.max_tres_per_job, &set.max_tres_per_job);
    edit_tres(&mut l.max_tres_per_user, &set.max_tres_per_user);
    set_opt(&mut l.max_jobs_per_user, &set.max_jobs_per_user);
    set_opt(
        &mut l.max_submit_jobs_per_user,
        &set.max_submit_jobs_per_user,
    );
    edit_tres(&mut l.grp_tres, &set.grp_tres);
    set_opt(&mut l.grp_jobs, &set.grp_jobs);
    set_opt(&mut l.grp_submit, &set.grp_submit);
    edit_tres(&mut l.max_tres_per_account, &set.max_tres_per_account);
    set_opt(&mut l.max_jobs_per_account, &set.max_jobs_per_account);
    set_opt(
        &mut l.max_submit_jobs_per_account,
        &set.max_submit_jobs_per_account,
    );
}

/// Applies `set`; a default QOS the association may not use is left unset and returned (sacctmgr reports it).
fn set_assoc(assoc: &mut Association, set: &AssocSet, ids: &assoc_qos::QosIds) -> Option<String> {
    if let Some(s) = set.shares {
        assoc.shares = s;
    }
    if let Some(edit) = &set.qos {
        // What it may use until `refresh_qos` recomputes every association: enough for the default's check.
        let mut usable = assoc.qos.clone();
        edit.edit(&mut usable);
        assoc_qos::edit(assoc, edit, ids);
        assoc.qos = usable;
    }
    let mut refused = None;
    if let Some(default) = &set.default_qos {
        match default {
            Some(q) if !assoc.qos.contains(q) => refused = Some(q.clone()),
            _ => {
                assoc.default_qos.clone_from(default);
                assoc.default_qos_given = default.is_some();
            }
        }
    }
    let l = &mut assoc.limits;
    set_opt(&mut l.max_jobs, &set.max_jobs);
    set_opt(&mut l.max_submit, &set.max_submit);
    set_opt(&mut l.max_wall_min, &set.max_wall_min);
    edit_tres(&mut l.max_tres, &set.max_tres);
    set_opt(&mut l.grp_jobs, &set.grp_jobs);
    set_opt(&mut l.grp_submit, &set.grp_submit);
    edit_tres(&mut l.grp_tres, &set.grp_tres);
    refused
}

#[path = "assoc_qos.rs"]
mod assoc_qos;

#[cfg(test)]
#[path = "assoc_tests.rs"]
mod tests;
