//! `sacctmgr show` tables: each entity's fields with sacctmgr 22.05's headers and widths, its default columns,
//! `format=` names and the values of the records in [`crate::model::assoc`].

use crate::format::print_fields::{header, line, Column, Layout};
use crate::grammar::values::time::format_minutes;
use crate::model::assoc::{AcctDb, Association, Qos, User};
use crate::model::records::PreemptMode;

/// The entities `sacctmgr show` lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entity {
    Qos,
    Account,
    User,
    Association,
    Cluster,
}

/// One field of an entity: the names `format=` accepts (the first is the header), and its width.
struct Field {
    names: &'static [&'static str],
    width: i32,
}

const fn f(names: &'static [&'static str], width: i32) -> Field {
    Field { names, width }
}

const QOS_FIELDS: &[Field] = &[
    f(&["Name"], 10),
    f(&["Priority"], 10),
    f(&["GraceTime"], 10),
    f(&["Preempt"], 10),
    f(&["PreemptExemptTime"], 19),
    f(&["PreemptMode"], 11),
    f(&["Flags"], 40),
    f(&["UsageThres", "UsageThreshold"], 10),
    f(&["UsageFactor"], 11),
    f(&["GrpTRES"], 13),
    f(&["GrpTRESMins"], 13),
    f(&["GrpTRESRunMins"], 13),
    f(&["GrpJobs"], 7),
    f(&["GrpSubmit", "GrpSubmitJobs"], 9),
    f(&["GrpWall"], 11),
    f(&["MaxTRES", "MaxTRESPerJob"], 13),
    f(&["MaxTRESPerNode", "MaxTRESPN"], 14),
    f(&["MaxTRESMins"], 13),
    f(&["MaxWall", "MaxWallDurationPerJob"], 11),
    f(&["MaxTRESPU", "MaxTRESPerUser"], 13),
    f(&["MaxJobsPU", "MaxJobsPerUser"], 9),
    f(&["MaxSubmitPU", "MaxSubmitJobsPerUser"], 11),
    f(&["MaxTRESPA", "MaxTRESPerAccount"], 13),
    f(&["MaxJobsPA", "MaxJobsPerAccount"], 9),
    f(&["MaxSubmitPA", "MaxSubmitJobsPerAccount"], 11),
    f(&["MinTRES", "MinTRESPerJob"], 13),
    f(&["Descr", "Description"], 20),
    f(&["ID"], 6),
];
const QOS_DEFAULT: usize = 26;

const ACCOUNT_FIELDS: &[Field] = &[
    f(&["Account"], 10),
    f(&["Descr", "Description"], 20),
    f(&["Org", "Organization"], 20),
];

/// Association fields shared by `show assoc`, `show account withassoc` and `show user withassoc`.
const ASSOC_FIELDS: &[Field] = &[
    f(&["Cluster"], 10),
    f(&["Account"], 10),
    f(&["User"], 10),
    f(&["Partition"], 10),
    f(&["Share", "Fairshare", "Shares"], 9),
    f(&["Priority"], 10),
    f(&["GrpJobs"], 7),
    f(&["GrpTRES"], 13),
    f(&["GrpSubmit", "GrpSubmitJobs"], 9),
    f(&["GrpWall"], 11),
    f(&["GrpTRESMins"], 13),
    f(&["MaxJobs"], 7),
    f(&["MaxTRES", "MaxTRESPerJob"], 13),
    f(&["MaxTRESPerNode"], 14),
    f(&["MaxSubmit", "MaxSubmitJobs"], 9),
    f(&["MaxWall", "MaxWallDurationPerJob"], 11),
    f(&["MaxTRESMins"], 13),
    f(&["QOS"], 20),
    f(&["Def QOS", "DefaultQOS", "DefQOS"], 9),
    f(&["GrpTRESRunMins"], 13),
    f(&["ParentName"], 10),
    f(&["GrpNodes"], 8),
    f(&["GrpCPUs"], 8),
    f(&["GrpMem"], 7),
    f(&["GrpCPUMins"], 11),
    f(&["MaxNodes"], 8),
    f(&["MaxCPUs"], 8),
    f(&["MaxCPUMins"], 11),
];
const ASSOC_DEFAULT: usize = 20;

const USER_FIELDS: &[Field] = &[
    f(&["User"], 10),
    f(&["Def Acct", "DefaultAccount"], 10),
    f(&["Admin", "AdminLevel"], 9),
];

const CLUSTER_FIELDS: &[Field] = &[
    f(&["Cluster"], 10),
    f(&["ControlHost"], 15),
    f(&["ControlPort"], 12),
    f(&["RPC"], 5),
    f(&["Share", "Fairshare"], 9),
    f(&["GrpJobs"], 7),
    f(&["GrpTRES"], 13),
    f(&["GrpSubmit"], 9),
    f(&["MaxJobs"], 7),
    f(&["MaxTRES"], 13),
    f(&["MaxSubmit"], 9),
    f(&["MaxWall"], 11),
    f(&["QOS"], 20),
    f(&["Def QOS", "DefaultQOS"], 9),
];

/// `show account withassoc`'s columns after the account's own.
const ACCOUNT_WITHASSOC: &[&str] = &[
    "Cluster",
    "ParentName",
    "User",
    "Share",
    "Priority",
    "GrpJobs",
    "GrpNodes",
    "GrpCPUs",
    "GrpMem",
    "GrpSubmit",
    "GrpWall",
    "GrpCPUMins",
    "MaxJobs",
    "MaxNodes",
    "MaxCPUs",
    "MaxSubmit",
    "MaxWall",
    "MaxCPUMins",
    "QOS",
    "Def QOS",
];

/// `show user withassoc`'s columns after the user's own.
const USER_WITHASSOC: &[&str] = &[
    "Cluster",
    "Account",
    "Partition",
    "Share",
    "Priority",
    "MaxJobs",
    "MaxNodes",
    "MaxCPUs",
    "MaxSubmit",
    "MaxWall",
    "MaxCPUMins",
    "QOS",
    "Def QOS",
];

/// Which fields a table shows: the entity's own, or also its associations' (`withassoc`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chosen {
    columns: Vec<(Source, usize, i32)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    Own,
    Assoc,
}

/// `format=` named a field the entity does not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownField(pub String);

fn own_fields(entity: Entity) -> &'static [Field] {
    match entity {
        Entity::Qos => QOS_FIELDS,
        Entity::Account => ACCOUNT_FIELDS,
        Entity::User => USER_FIELDS,
        Entity::Association => ASSOC_FIELDS,
        Entity::Cluster => CLUSTER_FIELDS,
    }
}

fn find(fields: &[Field], name: &str) -> Option<usize> {
    fields
        .iter()
        .position(|f| f.names.iter().any(|n| n.eq_ignore_ascii_case(name)))
}

/// The default columns, with `withassoc` where the entity has it.
pub fn default_columns(entity: Entity, withassoc: bool) -> Chosen {
    let own = own_fields(entity);
    let count = match entity {
        Entity::Qos => QOS_DEFAULT,
        Entity::Association => ASSOC_DEFAULT,
        _ => own.len(),
    };
    let mut columns: Vec<(Source, usize, i32)> =
        (0..count).map(|i| (Source::Own, i, own[i].width)).collect();
    let extra = match (entity, withassoc) {
        (Entity::Account, true) => ACCOUNT_WITHASSOC,
        (Entity::User, true) => USER_WITHASSOC,
        _ => &[],
    };
    for name in extra {
        if let Some(i) = find(ASSOC_FIELDS, name) {
            columns.push((Source::Assoc, i, ASSOC_FIELDS[i].width));
        }
    }
    Chosen { columns }
}

/// `format=Name,Priority%20,...`: names in any case, a width after `%`.
pub fn chosen_columns(
    entity: Entity,
    withassoc: bool,
    format: &[String],
) -> Result<Chosen, UnknownField> {
    let mut columns = Vec::new();
    for item in format {
        let (name, width) = match item.split_once('%') {
            Some((n, w)) => (n, w.parse::<i32>().ok()),
            None => (item.as_str(), None),
        };
        let own = own_fields(entity);
        let hit = match find(own, name) {
            Some(i) => Some((Source::Own, i, own[i].width)),
            None if withassoc || matches!(entity, Entity::Account | Entity::User) => {
                find(ASSOC_FIELDS, name).map(|i| (Source::Assoc, i, ASSOC_FIELDS[i].width))
            }
            None => None,
        };
        let Some((source, i, default_width)) = hit else {
            return Err(UnknownField(name.to_string()));
        };
        columns.push((source, i, width.unwrap_or(default_width)));
    }
    Ok(Chosen { columns })
}

impl Chosen {
    fn columns(&self, entity: Entity) -> Vec<Column> {
        self.columns
            .iter()
            .map(|(source, i, width)| Column {
                name: match source {
                    Source::Own => own_fields(entity)[*i].names[0],
                    Source::Assoc => ASSOC_FIELDS[*i].names[0],
                },
                width: *width,
            })
            .collect()
    }

    fn uses_assoc(&self) -> bool {
        self.columns.iter().any(|(s, _, _)| *s == Source::Assoc)
    }
}

/// How the table is printed: layout, header or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Style {
    pub layout: Layout,
    pub noheader: bool,
}

/// The controller's address as `show cluster` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ControlAddress {
    pub host: String,
    pub port: u32,
}

fn render(columns: &[Column], rows: &[Vec<String>], style: Style) -> String {
    let mut out = String::new();
    if !style.noheader {
        out.push_str(&header(columns, style.layout, "|"));
    }
    for row in rows {
        out.push_str(&line(columns, row, style.layout, "|"));
    }
    out
}

/// The QOS table, in id order, narrowed to `names` when given.
pub fn qos_table(db: &AcctDb, names: &[String], chosen: &Chosen, style: Style) -> String {
    let rows: Vec<Vec<String>> = db
        .qos
        .iter()
        .filter(|q| names.is_empty() || names.contains(&q.name))
        .map(|q| {
            chosen
                .columns
                .iter()
                .map(|(_, i, _)| qos_value(q, QOS_FIELDS[*i].names[0]))
                .collect()
        })
        .collect();
    render(&chosen.columns(Entity::Qos), &rows, style)
}

fn opt<T: ToString>(v: &Option<T>) -> String {
    v.as_ref().map(ToString::to_string).unwrap_or_default()
}

fn hms(secs: u32) -> String {
    format!(
        "{:02}:{:02}:{:02}",
        secs / 3600,
        (secs / 60) % 60,
        secs % 60
    )
}

fn qos_value(q: &Qos, field: &str) -> String {
    let l = &q.limits;
    match field {
        "Name" => q.name.clone(),
        "Priority" => q.priority.to_string(),
        "GraceTime" => hms(q.grace_time_secs),
        "Preempt" => q.preempt.join(","),
        "PreemptMode" => match q.preempt_mode {
            None => "cluster".into(),
            Some(PreemptMode::Off) => "off".into(),
            Some(PreemptMode::Cancel) => "cancel".into(),
            Some(PreemptMode::Requeue) => "requeue".into(),
            Some(PreemptMode::Suspend) => "suspend".into(),
        },
        "Flags" => q.flags.join(","),
        "UsageFactor" => format!("{:.6}", q.usage_factor),
        "GrpTRES" => opt(&l.grp_tres),
        "GrpJobs" => opt(&l.grp_jobs),
        "GrpSubmit" => opt(&l.grp_submit),
        "MaxTRES" => opt(&l.max_tres_per_job),
        "MaxWall" => l.max_wall_min.map(format_minutes).unwrap_or_default(),
        "MaxTRESPU" => opt(&l.max_tres_per_user),
        "MaxJobsPU" => opt(&l.max_jobs_per_user),
        "MaxSubmitPU" => opt(&l.max_submit_jobs_per_user),
        "MaxTRESPA" => opt(&l.max_tres_per_account),
        "MaxJobsPA" => opt(&l.max_jobs_per_account),
        "MaxSubmitPA" => opt(&l.max_submit_jobs_per_account),
        "Descr" => q.description.clone(),
        "ID" => q.id.to_string(),
        _ => String::new(),
    }
}

fn assoc_value(db: &AcctDb, a: &Association, field: &str) -> String {
    let l = &a.limits;
    match field {
        "Cluster" => db.cluster.clone(),
        "Account" => a.account.clone(),
        "User" => a.user.clone().unwrap_or_default(),
        "Partition" => a.partition.clone().unwrap_or_default(),
        "ParentName" => a.parent.clone().unwrap_or_default(),
        "Share" => a.shares.to_string(),
        "GrpJobs" => opt(&l.grp_jobs),
        "GrpTRES" => opt(&l.grp_tres),
        "GrpSubmit" => opt(&l.grp_submit),
        // slurmdbd hands an account's Max limits down to the associations under it that set none, and shows
        // them there.
        "MaxJobs" => opt(&db.inherited_max(a, |l| l.max_jobs)),
        "MaxTRES" => opt(&db.inherited_max_tres(a, |l| l.max_tres.as_deref())),
        "MaxSubmit" => opt(&db.inherited_max(a, |l| l.max_submit)),
        "MaxWall" => db
            .inherited_max(a, |l| l.max_wall_min)
            .map(format_minutes)
            .unwrap_or_default(),
        "QOS" => a.qos.join(","),
        "Def QOS" => a.default_qos.clone().unwrap_or_default(),
        _ => String::new(),
    }
}

/// Which associations `show assoc` lists.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AssocFilter {
    pub accounts: Vec<String>,
    pub users: Vec<String>,
    pub partitions: Vec<String>,
}

impl AssocFilter {
    fn keeps(&self, a: &Association) -> bool {
        (self.accounts.is_empty() || self.accounts.contains(&a.account))
            && (self.users.is_empty() || a.user.as_ref().is_some_and(|u| self.users.contains(u)))
            && (self.partitions.is_empty()
                || a.partition
                    .as_ref()
                    .is_some_and(|p| self.partitions.contains(p)))
    }
}

/// `show assoc`, in sacctmgr's tree order.
pub fn assoc_table(db: &AcctDb, filter: &AssocFilter, chosen: &Chosen, style: Style) -> String {
    let rows: Vec<Vec<String>> = db
        .tree_order()
        .into_iter()
        .filter(|a| filter.keeps(a))
        .map(|a| {
            chosen
                .columns
                .iter()
                .map(|(_, i, _)| assoc_value(db, a, ASSOC_FIELDS[*i].names[0]))
                .collect()
        })
        .collect();
    render(&chosen.columns(Entity::Association), &rows, style)
}

/// `show account`: by name; with association columns, one row per association of the account.
pub fn account_table(db: &AcctDb, names: &[String], chosen: &Chosen, style: Style) -> String {
    let mut rows = Vec::new();
    for account in db.accounts.values() {
        if !names.is_empty() && !names.contains(&account.name) {
            continue;
        }
        let own = |field: &str| match field {
            "Account" => account.name.clone(),
            "Descr" => account.description.clone(),
            "Org" => account.organization.clone(),
            _ => String::new(),
        };
        let assocs = db
            .tree_order()
            .into_iter()
            .filter(|a| a.account == account.name)
            .collect();
        push_rows(&mut rows, db, chosen, ACCOUNT_FIELDS, assocs, own);
    }
    render(&chosen.columns(Entity::Account), &rows, style)
}

/// `show user`: by name; with association columns, one row per association of the user.
pub fn user_table(db: &AcctDb, names: &[String], chosen: &Chosen, style: Style) -> String {
    let mut rows = Vec::new();
    for user in db.users.values() {
        if !names.is_empty() && !names.contains(&user.name) {
            continue;
        }
        let own = |field: &str| user_value(user, field);
        let mut assocs: Vec<&Association> = db
            .assocs
            .iter()
            .filter(|a| a.user.as_deref() == Some(user.name.as_str()))
            .collect();
        assocs.sort_by(|a, b| (&a.account, &a.partition).cmp(&(&b.account, &b.partition)));
        push_rows(&mut rows, db, chosen, USER_FIELDS, assocs, own);
    }
    render(&chosen.columns(Entity::User), &rows, style)
}

/// The rows of one account or user: with association columns one per association of it (none without any), else
/// one; its own columns from `own`, named as in `own_fields`.
fn push_rows(
    rows: &mut Vec<Vec<String>>,
    db: &AcctDb,
    chosen: &Chosen,
    own_fields: &[Field],
    assocs: Vec<&Association>,
    own: impl Fn(&str) -> String,
) {
    let assocs: Vec<Option<&Association>> = if chosen.uses_assoc() {
        assocs.into_iter().map(Some).collect()
    } else {
        vec![None]
    };
    for assoc in assocs {
        rows.push(
            chosen
                .columns
                .iter()
                .map(|(source, i, _)| match (source, assoc) {
                    (Source::Own, _) => own(own_fields[*i].names[0]),
                    (Source::Assoc, Some(a)) => assoc_value(db, a, ASSOC_FIELDS[*i].names[0]),
                    (Source::Assoc, None) => String::new(),
                })
                .collect(),
        );
    }
}

fn user_value(user: &User, field: &str) -> String {
    match field {
        "User" => user.name.clone(),
        "Def Acct" => user.default_account.clone(),
        "Admin" => user.admin.name().to_string(),
        _ => String::new(),
    }
}

/// slurmctld's RPC protocol version of 22.05, which `show cluster` prints.
const RPC_VERSION: &str = "9728";

/// `show cluster`: the one cluster, with root's association's share and QOS.
pub fn cluster_table(
    db: &AcctDb,
    address: &ControlAddress,
    chosen: &Chosen,
    style: Style,
) -> String {
    let root = db
        .assocs
        .iter()
        .find(|a| a.account == crate::model::assoc::ROOT_ACCOUNT && a.user.is_none());
    let row: Vec<String> = chosen
        .columns
        .iter()
        .map(|(_, i, _)| match CLUSTER_FIELDS[*i].names[0] {
            "Cluster" => db.cluster.clone(),
            "ControlHost" => address.host.clone(),
            "ControlPort" => address.port.to_string(),
            "RPC" => RPC_VERSION.to_string(),
            field => root.map(|a| assoc_value(db, a, field)).unwrap_or_default(),
        })
        .collect();
    render(&chosen.columns(Entity::Cluster), &[row], style)
}

#[cfg(test)]
#[path = "sacctmgr_tests.rs"]
mod tests;
