//! `sacctmgr`'s command line as words: the verb, the entity, names, `where` conditions and `set` settings, turned
//! into the typed requests of [`spur_core::model::assoc`] (first the words' syntax, then each key's value).

use spur_core::format::sacctmgr::Entity;
use spur_core::grammar::values::time::{parse_time_limit, TimeLimit};
use spur_core::model::assoc::{AcctRequest, AdminLevel, AssocSet, ListEdit, QosSet};
use spur_core::model::records::PreemptMode;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    Add,
    Modify,
    Delete,
    Show,
}

pub fn verb(word: &str) -> Option<Verb> {
    match word.to_ascii_lowercase().as_str() {
        "add" | "create" => Some(Verb::Add),
        "modify" | "update" => Some(Verb::Modify),
        "delete" | "remove" => Some(Verb::Delete),
        "show" | "list" => Some(Verb::Show),
        _ => None,
    }
}

pub fn entity(word: &str) -> Option<Entity> {
    let w = word.to_ascii_lowercase();
    let is = |full: &str, min: usize| w.len() >= min && full.starts_with(&w);
    if is("qos", 1) {
        Some(Entity::Qos)
    } else if is("accounts", 2) || w == "acct" {
        Some(Entity::Account)
    } else if is("users", 1) {
        Some(Entity::User)
    } else if is("associations", 2) {
        Some(Entity::Association)
    } else if is("clusters", 1) {
        Some(Entity::Cluster)
    } else {
        None
    }
}

/// One `key=value`, `key+=value` or `key-=value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pair {
    pub key: String,
    pub op: Op,
    pub value: String,
    /// As typed, for messages.
    pub word: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Set,
    Add,
    Remove,
}

/// The words after the entity: plain names, conditions (before `set`, or after `where`) and settings.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Words {
    pub names: Vec<String>,
    pub conditions: Vec<Pair>,
    pub settings: Vec<Pair>,
    pub withassoc: bool,
    pub format: Vec<String>,
}

fn pair(word: &str) -> Option<Pair> {
    let (key, value) = word.split_once('=')?;
    let (key, op) = if let Some(k) = key.strip_suffix('+') {
        (k, Op::Add)
    } else if let Some(k) = key.strip_suffix('-') {
        (k, Op::Remove)
    } else {
        (key, Op::Set)
    };
    Some(Pair {
        key: key.to_ascii_lowercase(),
        op,
        value: value.to_string(),
        word: word.to_string(),
    })
}

fn list(value: &str) -> Vec<String> {
    value
        .split(',')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Splits the words; for `add`, every `key=value` is a setting (names and accounts among them).
pub fn split(words: &[String], verb: Verb) -> Words {
    let mut out = Words::default();
    let mut in_set = verb == Verb::Add;
    for word in words {
        match word.to_ascii_lowercase().as_str() {
            "where" => {
                in_set = false;
                continue;
            }
            "set" => {
                in_set = true;
                continue;
            }
            "withassoc" | "withassocs" => {
                out.withassoc = true;
                continue;
            }
            _ => {}
        }
        match pair(word) {
            Some(p) if p.key == "format" => out.format = list(&p.value),
            Some(p) if matches!(p.key.as_str(), "name" | "names") && verb != Verb::Modify => {
                out.names.extend(list(&p.value))
            }
            Some(p) if in_set => out.settings.push(p),
            Some(p) => out.conditions.push(p),
            None => out.names.extend(list(word)),
        }
    }
    out
}

/// sacctmgr keeps account and QOS names in lower case: the names of an account or QOS, and the accounts and QOS
/// named in conditions and settings (`where account=`, `account=`, `parent=`, `qos+=`, `defaultqos=`, ...), are
/// lowered before anything is looked up or stored, so `add account Physics` makes `physics` and `-A Physics` finds
/// it (case 480). An account's description and organisation are lowered too (sacctmgr 22.05 stores
/// `Description="Physics Dept"` as `physics dept`, as its dump shows, case 521); user names and QOS descriptions
/// keep their case.
pub fn lower_case_names(entity: Entity, words: &mut Words) {
    if entity == Entity::Account {
        for pair in &mut words.settings {
            if pair.key.starts_with("desc") || pair.key.starts_with("org") {
                pair.value.make_ascii_lowercase();
            }
        }
    }
    if matches!(entity, Entity::Account | Entity::Qos) {
        words
            .names
            .iter_mut()
            .for_each(|n| n.make_ascii_lowercase());
    }
    let names_accounts_or_qos = |key: &str| {
        matches!(
            key,
            "account" | "accounts" | "acct" | "parent" | "defaultaccount" | "qos" | "defaultqos"
        ) || (matches!(entity, Entity::Account | Entity::Qos) && matches!(key, "name" | "names"))
    };
    for pair in words.conditions.iter_mut().chain(words.settings.iter_mut()) {
        if names_accounts_or_qos(&pair.key) {
            pair.value.make_ascii_lowercase();
        }
    }
}

/// Why the words make no request: sacctmgr's lines, and where they go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub lines: Vec<String>,
    pub stderr: bool,
}

fn unknown(p: &Pair) -> Refused {
    Refused {
        lines: vec![
            format!(" Unknown option: {}", p.word),
            " Use keyword 'where' to modify condition".into(),
        ],
        stderr: false,
    }
}

/// A value sacctmgr reports and skips (it goes on with the rest, as sacctmgr does).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Warnings(pub Vec<String>);

impl Warnings {
    fn bad(&mut self, name: &str, value: &str) {
        self.0.push(format!("Invalid value for {name} ({value})"));
    }
}

/// What sacctmgr prints for a TRES limit given as `-1` as a whole (`GrpTRES=-1`): `-1` drops one TRES
/// (`GrpTRES=cpu=-1`), and slurmdbd finds no TRES of that name.
const TRES_MINUS_ONE: &str = "sacctmgr: error: slurmdb_format_tres_str: no TRES id found for -1";

/// The TRES-list settings, whose value `-1` alone sacctmgr refuses.
fn is_tres_setting(key: &str) -> bool {
    matches!(
        key,
        "grptres"
            | "maxtres"
            | "maxtresperjob"
            | "maxtresperuser"
            | "maxtrespu"
            | "maxtresperaccount"
            | "maxtrespa"
    )
}

/// The refusal of an account or user change with a TRES limit of `-1`: the first one ends it.
fn assoc_tres_refused(p: &Pair, use_where: bool) -> Refused {
    let mut lines = vec![
        TRES_MINUS_ONE.to_string(),
        format!(" Unknown option: {}", p.word),
    ];
    if use_where {
        lines.push(" Use keyword 'where' to modify condition".into());
    }
    Refused {
        lines,
        stderr: true,
    }
}

/// `-1` clears a limit.
fn limit_u32(p: &Pair, name: &str, w: &mut Warnings) -> Option<Option<u32>> {
    if p.value == "-1" {
        return Some(None);
    }
    match p.value.parse::<u32>() {
        Ok(v) => Some(Some(v)),
        Err(_) => {
            w.bad(name, &p.value);
            None
        }
    }
}

fn limit_text(p: &Pair) -> Option<Option<String>> {
    Some((p.value != "-1").then(|| p.value.clone()))
}

fn limit_wall(p: &Pair, w: &mut Warnings) -> Option<Option<u32>> {
    if p.value == "-1" {
        return Some(None);
    }
    match parse_time_limit(&p.value) {
        Ok(TimeLimit::Minutes(m)) => Some(Some(m)),
        Ok(TimeLimit::Unlimited) => Some(None),
        _ => {
            w.bad("MaxWall", &p.value);
            None
        }
    }
}

fn list_edit(p: &Pair) -> ListEdit {
    let names = list(&p.value);
    match p.op {
        Op::Set => ListEdit::Set(names),
        Op::Add => ListEdit::Add(names),
        Op::Remove => ListEdit::Remove(names),
    }
}

/// Reads a QOS setting into `set`; `false`: not a QOS key.
fn qos_setting(p: &Pair, set: &mut QosSet, w: &mut Warnings) -> bool {
    match p.key.as_str() {
        "description" | "descr" => set.description = Some(p.value.clone()),
        "priority" => match p.value.parse::<u32>() {
            Ok(v) => set.priority = Some(v),
            Err(_) => w.bad("Priority", &p.value),
        },
        "preempt" => set.preempt = Some(list_edit(p)),
        "preemptmode" => {
            if p.value.eq_ignore_ascii_case("cluster") {
                set.preempt_mode = Some(None);
            } else {
                match PreemptMode::parse(&p.value) {
                    Some(m) => set.preempt_mode = Some(Some(m)),
                    None => w.bad("PreemptMode", &p.value),
                }
            }
        }
        "usagefactor" => match p.value.parse::<f64>() {
            Ok(v) if v >= 0.0 => set.usage_factor = Some(v),
            _ => w.bad("UsageFactor", &p.value),
        },
        // Seconds, or a time as `[D-]HH:MM:SS`.
        "gracetime" => match p.value.parse::<u32>() {
            Ok(v) => set.grace_time_secs = Some(v),
            Err(_) => match spur_core::grammar::values::time::parse_time_secs(&p.value) {
                Ok(Some(v)) => set.grace_time_secs = Some(v),
                _ => w.bad("GraceTime", &p.value),
            },
        },
        "flags" => set.flags = Some(list(&p.value)),
        "maxwall" | "maxwalldurationperjob" => {
            if let Some(v) = limit_wall(p, w) {
                set.max_wall_min = Some(v);
            }
        }
        "maxtresperjob" | "maxtres" => set.max_tres_per_job = limit_text(p),
        "maxtresperuser" | "maxtrespu" => set.max_tres_per_user = limit_text(p),
        "maxjobsperuser" | "maxjobspu" => {
            set.max_jobs_per_user = limit_u32(p, "MaxJobsPerUser", w).or(set.max_jobs_per_user)
        }
        "maxsubmitjobsperuser" | "maxsubmitpu" => {
            set.max_submit_jobs_per_user =
                limit_u32(p, "MaxSubmitJobsPerUser", w).or(set.max_submit_jobs_per_user)
        }
        "grptres" => set.grp_tres = limit_text(p),
        "grpjobs" => set.grp_jobs = limit_u32(p, "GrpJobs", w).or(set.grp_jobs),
        "grpsubmitjobs" | "grpsubmit" => {
            set.grp_submit = limit_u32(p, "GrpSubmitJobs", w).or(set.grp_submit)
        }
        "maxtresperaccount" | "maxtrespa" => set.max_tres_per_account = limit_text(p),
        "maxjobsperaccount" | "maxjobspa" => {
            set.max_jobs_per_account =
                limit_u32(p, "MaxJobsPerAccount", w).or(set.max_jobs_per_account)
        }
        "maxsubmitjobsperaccount" | "maxsubmitpa" => {
            set.max_submit_jobs_per_account =
                limit_u32(p, "MaxSubmitJobsPerAccount", w).or(set.max_submit_jobs_per_account)
        }
        _ => return false,
    }
    true
}

/// Reads an association setting into `set`; `false`: not an association key.
fn assoc_setting(p: &Pair, set: &mut AssocSet, w: &mut Warnings) -> bool {
    match p.key.as_str() {
        "fairshare" | "shares" => match p.value.parse::<u32>() {
            Ok(v) => set.shares = Some(v),
            Err(_) => w.bad("Fairshare", &p.value),
        },
        "qos" | "qoslevel" => set.qos = Some(list_edit(p)),
        "defaultqos" | "defqos" => {
            set.default_qos =
                Some((p.value != "-1" && !p.value.is_empty()).then(|| p.value.clone()))
        }
        "maxjobs" => set.max_jobs = limit_u32(p, "MaxJobs", w).or(set.max_jobs),
        "maxsubmitjobs" | "maxsubmit" => {
            set.max_submit = limit_u32(p, "MaxSubmitJobs", w).or(set.max_submit)
        }
        "maxwall" | "maxwalldurationperjob" => {
            if let Some(v) = limit_wall(p, w) {
                set.max_wall_min = Some(v);
            }
        }
        "maxtres" | "maxtresperjob" => set.max_tres = limit_text(p),
        "grpjobs" => set.grp_jobs = limit_u32(p, "GrpJobs", w).or(set.grp_jobs),
        "grpsubmitjobs" | "grpsubmit" => {
            set.grp_submit = limit_u32(p, "GrpSubmitJobs", w).or(set.grp_submit)
        }
        "grptres" => set.grp_tres = limit_text(p),
        _ => return false,
    }
    true
}

fn condition_names(conditions: &[Pair], keys: &[&str]) -> Vec<String> {
    conditions
        .iter()
        .filter(|p| keys.contains(&p.key.as_str()))
        .flat_map(|p| list(&p.value))
        .collect()
}

/// Conditions every entity accepts and Spur has only one of (the cluster).
fn ignorable(p: &Pair) -> bool {
    matches!(p.key.as_str(), "cluster" | "clusters")
}

/// The request an add, modify or delete makes.
pub fn request(
    verb: Verb,
    entity: Entity,
    words: &Words,
    warnings: &mut Warnings,
) -> Result<AcctRequest, Refused> {
    let mut names = words.names.clone();
    names.extend(condition_names(&words.conditions, &["name", "names"]));
    match entity {
        Entity::Qos => qos_request(verb, names, words, warnings),
        Entity::Account => account_request(verb, names, words, warnings),
        Entity::User => user_request(verb, names, words, warnings),
        Entity::Association | Entity::Cluster => Err(Refused {
            lines: vec![" Spur keeps one cluster from ClusterName; change associations through account and user.".into()],
            stderr: false,
        }),
    }
}

fn check_conditions(words: &Words, allowed: &[&str]) -> Result<(), Refused> {
    match words
        .conditions
        .iter()
        .find(|p| !allowed.contains(&p.key.as_str()) && !ignorable(p))
    {
        Some(p) => Err(unknown(p)),
        None => Ok(()),
    }
}

fn qos_request(
    verb: Verb,
    names: Vec<String>,
    words: &Words,
    w: &mut Warnings,
) -> Result<AcctRequest, Refused> {
    check_conditions(words, &["name", "names"])?;
    let mut set = QosSet::default();
    // sacctmgr reports each TRES limit of -1 and goes on reading; any of them fails the command.
    let mut tres_refusals = Vec::new();
    for p in &words.settings {
        if is_tres_setting(&p.key) && p.value == "-1" {
            tres_refusals.push(TRES_MINUS_ONE.to_string());
            continue;
        }
        if !qos_setting(p, &mut set, w) {
            return Err(unknown(p));
        }
    }
    if !tres_refusals.is_empty() {
        return Err(Refused {
            lines: tres_refusals,
            stderr: true,
        });
    }
    match verb {
        Verb::Add if names.is_empty() => Err(Refused {
            lines: vec![" Need name of qos to add.".into()],
            stderr: true,
        }),
        Verb::Add => Ok(AcctRequest::AddQos { names, set }),
        Verb::Modify => Ok(AcctRequest::ModifyQos { names, set }),
        _ => Ok(AcctRequest::DeleteQos { names }),
    }
}

fn account_request(
    verb: Verb,
    names: Vec<String>,
    words: &Words,
    w: &mut Warnings,
) -> Result<AcctRequest, Refused> {
    check_conditions(words, &["name", "names"])?;
    let mut set = AssocSet::default();
    let (mut parent, mut description, mut organization) = (None, None, None);
    for p in &words.settings {
        match p.key.as_str() {
            "parent" => parent = Some(p.value.clone()),
            "description" | "descr" => description = Some(p.value.clone()),
            "organization" | "org" => organization = Some(p.value.clone()),
            "cluster" | "clusters" => {}
            key if is_tres_setting(key) && p.value == "-1" => {
                return Err(assoc_tres_refused(p, true));
            }
            _ if assoc_setting(p, &mut set, w) => {}
            _ => return Err(unknown(p)),
        }
    }
    match verb {
        Verb::Add if names.is_empty() => Err(Refused {
            lines: vec![" Need name of account to add.".into()],
            stderr: true,
        }),
        Verb::Add => Ok(AcctRequest::AddAccounts {
            names,
            parent,
            description,
            organization,
            set,
        }),
        Verb::Modify => Ok(AcctRequest::ModifyAccounts {
            names,
            description,
            organization,
            set,
        }),
        _ => Ok(AcctRequest::DeleteAccounts { names }),
    }
}

fn user_request(
    verb: Verb,
    names: Vec<String>,
    words: &Words,
    w: &mut Warnings,
) -> Result<AcctRequest, Refused> {
    check_conditions(words, &["name", "names", "account", "accounts"])?;
    let mut set = AssocSet::default();
    let mut accounts = condition_names(&words.conditions, &["account", "accounts"]);
    let (mut default_account, mut admin, mut partitions) = (None, None, Vec::new());
    for p in &words.settings {
        match p.key.as_str() {
            "account" | "accounts" if verb == Verb::Add => accounts.extend(list(&p.value)),
            "defaultaccount" => default_account = Some(p.value.clone()),
            "partition" | "partitions" if verb == Verb::Add => partitions.extend(list(&p.value)),
            "adminlevel" => match AdminLevel::parse(&p.value) {
                Some(level) => admin = Some(level),
                None => w.bad("AdminLevel", &p.value),
            },
            "cluster" | "clusters" => {}
            // Only a modify adds the hint about `where`, as sacctmgr does.
            key if is_tres_setting(key) && p.value == "-1" => {
                return Err(assoc_tres_refused(p, verb == Verb::Modify));
            }
            _ if assoc_setting(p, &mut set, w) => {}
            _ => return Err(unknown(p)),
        }
    }
    match verb {
        Verb::Add if names.is_empty() => Err(Refused {
            lines: vec![" Need name of user to add.".into()],
            stderr: true,
        }),
        Verb::Add if accounts.is_empty() && default_account.is_none() => Err(Refused {
            lines: vec![" Need name of account to add user to.".into()],
            stderr: true,
        }),
        Verb::Add => Ok(AcctRequest::AddUsers {
            names,
            accounts,
            partitions,
            default_account,
            admin,
            set,
        }),
        Verb::Modify => Ok(AcctRequest::ModifyUsers {
            names,
            accounts,
            default_account,
            admin,
            set,
        }),
        _ => Ok(AcctRequest::DeleteUsers { names, accounts }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str, verb: Verb) -> Words {
        let w: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        split(&w, verb)
    }

    #[test]
    fn add_qos_reads_every_setting() {
        let w = words(
            "low,mid Description=foo MaxWall=1:00:00 MaxTRESPerJob=cpu=2 MaxJobsPerUser=2 GraceTime=30 \
             PreemptMode=cancel Priority=abc",
            Verb::Add,
        );
        let mut warnings = Warnings::default();
        let AcctRequest::AddQos { names, set } =
            request(Verb::Add, Entity::Qos, &w, &mut warnings).unwrap()
        else {
            panic!("not an AddQos");
        };
        assert_eq!(names, vec!["low", "mid"]);
        assert_eq!(set.description.as_deref(), Some("foo"));
        assert_eq!(set.max_wall_min, Some(Some(60)));
        assert_eq!(set.max_tres_per_job, Some(Some("cpu=2".into())));
        assert_eq!(set.max_jobs_per_user, Some(Some(2)));
        assert_eq!(set.grace_time_secs, Some(30));
        assert_eq!(set.preempt_mode, Some(Some(PreemptMode::Cancel)));
        assert_eq!(set.priority, None);
        assert_eq!(warnings.0, vec!["Invalid value for Priority (abc)"]);
    }

    #[test]
    fn modify_splits_where_and_set() {
        let w = words("where name=high set preempt+=low,mid", Verb::Modify);
        let req = request(Verb::Modify, Entity::Qos, &w, &mut Warnings::default()).unwrap();
        assert_eq!(
            req,
            AcctRequest::ModifyQos {
                names: vec!["high".into()],
                set: QosSet {
                    preempt: Some(ListEdit::Add(vec!["low".into(), "mid".into()])),
                    ..Default::default()
                }
            }
        );
        let w = words(
            "bob where account=a1 set qos-=high fairshare=10",
            Verb::Modify,
        );
        let req = request(Verb::Modify, Entity::User, &w, &mut Warnings::default()).unwrap();
        let AcctRequest::ModifyUsers {
            names,
            accounts,
            set,
            ..
        } = req
        else {
            panic!("not ModifyUsers");
        };
        assert_eq!(
            (names, accounts),
            (vec!["bob".to_string()], vec!["a1".to_string()])
        );
        assert_eq!(set.qos, Some(ListEdit::Remove(vec!["high".into()])));
        assert_eq!(set.shares, Some(10));
    }

    #[test]
    fn a_tres_limit_of_minus_one_is_refused_like_sacctmgr() {
        let refused = |verb, entity, line: &str| {
            let w = words(line, verb);
            let refused = request(verb, entity, &w, &mut Warnings::default()).unwrap_err();
            assert!(refused.stderr);
            refused.lines
        };
        // A QOS reports every one and goes on; an account or user stops at the first.
        assert_eq!(
            refused(
                Verb::Modify,
                Entity::Qos,
                "q set GrpTRES=-1 MaxTRESPU=-1 GrpJobs=2"
            ),
            vec![TRES_MINUS_ONE, TRES_MINUS_ONE]
        );
        assert_eq!(
            refused(Verb::Modify, Entity::Account, "a set GrpJobs=3 GrpTRES=-1"),
            vec![
                TRES_MINUS_ONE,
                " Unknown option: GrpTRES=-1",
                " Use keyword 'where' to modify condition"
            ]
        );
        assert_eq!(
            refused(Verb::Add, Entity::User, "bob account=a MaxTRES=-1"),
            vec![TRES_MINUS_ONE, " Unknown option: MaxTRES=-1"]
        );
        // One TRES of -1 drops that TRES: not refused.
        let w = words("a set GrpTRES=cpu=-1", Verb::Modify);
        assert!(request(Verb::Modify, Entity::Account, &w, &mut Warnings::default()).is_ok());
    }

    #[test]
    fn refusals_read_like_sacctmgr() {
        let w = words("y badkey=1", Verb::Add);
        let refused = request(Verb::Add, Entity::Qos, &w, &mut Warnings::default()).unwrap_err();
        assert_eq!(
            refused.lines,
            vec![
                " Unknown option: badkey=1",
                " Use keyword 'where' to modify condition"
            ]
        );
        let w = words("carol", Verb::Add);
        let refused = request(Verb::Add, Entity::User, &w, &mut Warnings::default()).unwrap_err();
        assert_eq!(refused.lines, vec![" Need name of account to add user to."]);
        assert_eq!(entity("assoc"), Some(Entity::Association));
        assert_eq!(entity("accounts"), Some(Entity::Account));
        assert_eq!(entity("foo"), None);
    }

    #[test]
    fn account_and_qos_names_and_account_texts_are_lowered_user_names_are_not() {
        let mut w = words(
            "Physics Parent=Top Description=Big_Lab where account=Chem qos+=High",
            Verb::Add,
        );
        lower_case_names(Entity::Account, &mut w);
        assert_eq!(w.names, ["physics"]);
        let value = |key: &str| {
            w.conditions
                .iter()
                .chain(&w.settings)
                .find(|p| p.key == key)
                .map(|p| p.value.clone())
        };
        assert_eq!(value("parent").as_deref(), Some("top"));
        assert_eq!(value("description").as_deref(), Some("big_lab"));
        assert_eq!(value("account").as_deref(), Some("chem"));
        assert_eq!(value("qos").as_deref(), Some("high"));
        let mut user = words("Alice account=Physics DefaultAccount=Physics", Verb::Add);
        lower_case_names(Entity::User, &mut user);
        assert_eq!(user.names, ["Alice"]);
        assert!(user.settings.iter().all(|p| p.value == "physics"));
    }
}
