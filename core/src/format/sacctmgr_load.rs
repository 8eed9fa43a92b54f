//! `sacctmgr load file=F`: reads a flat file (see `sacctmgr_file`) against the current accounting entities and
//! plans what sacctmgr 22.05 would do: the messages it prints line by line (changes to what exists), the tables
//! of what it adds, and the requests, which the controller applies as one batch, all or none.

use crate::format::print_fields::{self, Column, Layout};
use crate::format::sacctmgr_file::{
    key_is, logical_lines, split_object, split_options, OptError, Split,
};
use crate::grammar::values::time::{format_minutes, parse_time_limit, TimeLimit};
use crate::model::assoc::{
    normalize_tres, AcctDb, AcctRequest, AdminLevel, AssocSet, Association, ListEdit, ROOT_ACCOUNT,
};

/// Text for stdout or stderr, in the order sacctmgr prints it (each ends with its newline).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Print {
    Out(String),
    Err(String),
}

/// The words after `load`: `file=`, `cluster=`, `clean`, and sacctmgr's complaints about the rest.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LoadArgs {
    pub file: Option<String>,
    pub cluster: Option<String>,
    pub clean: bool,
    /// Printed on stderr; any of them makes the exit status 1 (and, as in sacctmgr, fails the file's first line).
    pub errors: Vec<String>,
}

pub fn load_args(words: &[String]) -> LoadArgs {
    let mut args = LoadArgs::default();
    for word in words {
        let (key, value) = match word
            .find(['=', '+', '-'])
            .filter(|&i| word.as_bytes()[i] == b'=' || word.as_bytes().get(i + 1) == Some(&b'='))
        {
            Some(i) => {
                let skip = if word.as_bytes()[i] == b'=' { 1 } else { 2 };
                (Some(&word[..i]), &word[i + skip..])
            }
            None => (None, word.as_str()),
        };
        match key {
            None if key_is(word, "clean", 3) => args.clean = true,
            None => set_file(&mut args, value),
            Some(k) if key_is(k, "File", 1) => set_file(&mut args, value),
            Some(k) if key_is(k, "Cluster", 3) => match &args.cluster {
                Some(c) => args.errors.push(format!(
                    " Can only do one cluster at a time.  Already doing {c}"
                )),
                None => args.cluster = Some(value.to_string()),
            },
            Some(_) => args.errors.push(format!(" Unknown option: {word}")),
        }
    }
    args
}

fn set_file(args: &mut LoadArgs, value: &str) {
    match &args.file {
        Some(f) => args.errors.push(format!(" File name already set to {f}")),
        None => args.file = Some(value.to_string()),
    }
}

/// What a load does: its output up to the commit question, the requests, whether anything is to commit
/// (`set`), whether the reading succeeded (`ok`: else sacctmgr reports `Problem with requests`), the exit
/// status so far and whether sacctmgr stopped at once (`fatal`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Plan {
    pub prints: Vec<Print>,
    pub requests: Vec<AcctRequest>,
    pub set: bool,
    pub ok: bool,
    pub failed: bool,
    pub fatal: bool,
}

/// The options of one line, read as sacctmgr reads them.
#[derive(Debug, Clone, Default)]
struct FileOpts {
    name: String,
    admin: Option<AdminLevel>,
    def_acct: Option<String>,
    desc: Option<String>,
    org: Option<String>,
    partition: Option<String>,
    set: AssocSet,
}

/// A row of the tables of added associations: the values as the file gave them.
#[derive(Debug, Clone)]
struct AssocRow {
    first: String,
    second: String,
    set: AssocSet,
}

/// The keys sacctmgr accepts in a file that Spur keeps nothing for: loading them would lose a site's limit
/// without a word, so the load stops at them.
const NOT_KEPT: &[(&str, usize)] = &[
    ("Coordinator", 2),
    ("Classification", 2),
    ("DefaultWCKey", 8),
    ("WCKeys", 2),
    ("GrpCPUMins", 7),
    ("GrpCPURunMins", 7),
    ("GrpCpus", 7),
];

const NOT_KEPT_ASSOC: &[(&str, usize)] = &[("GrpJobsAccrue", 8), ("GrpMemory", 4), ("GrpNodes", 4)];

const NOT_KEPT_LATE: &[(&str, usize)] = &[
    ("GrpTRESMins", 8),
    ("GrpTRESRunMins", 8),
    ("GrpWall", 4),
    ("MaxCPUMinsPerJob", 7),
    ("MaxCPURunMins", 7),
    ("MaxCpusPerJob", 7),
];

enum OptsError {
    /// sacctmgr's message(s) on stderr; the caller adds `Problem with line(N)`.
    Bad(Vec<String>),
    Fatal(String),
    /// A setting Spur does not keep.
    NotKept(String),
}

fn parse_uint(value: &str, name: &str) -> Result<Option<u32>, String> {
    let digits: String = value
        .trim_start()
        .chars()
        .enumerate()
        .take_while(|(i, c)| c.is_ascii_digit() || (*i == 0 && (*c == '-' || *c == '+')))
        .map(|(_, c)| c)
        .collect();
    match digits.parse::<i64>() {
        Ok(n) if n < 0 => Ok(None),
        Ok(n) => Ok(Some(u32::try_from(n).unwrap_or(u32::MAX))),
        Err(_) if value.is_empty() => Ok(Some(0)),
        Err(_) => Err(format!(
            "sacctmgr: error: Invalid value for {name} ({value})"
        )),
    }
}

fn parse_opts(options: &str) -> Result<FileOpts, OptsError> {
    let opts = split_options(options).map_err(|e| match e {
        OptError::Fatal(m) | OptError::Message(m) => OptsError::Fatal(m),
    })?;
    let mut out = FileOpts::default();
    let mut named = false;
    for o in opts {
        let Some(key) = o.key.as_deref() else {
            if named {
                return Err(OptsError::Bad(vec![format!(
                    " Bad format on {}: End your option with an '=' sign",
                    o.text
                )]));
            }
            out.name = o.value;
            named = true;
            continue;
        };
        let v = o.value;
        if v.is_empty() {
            continue;
        }
        let unknown = || OptsError::Bad(vec![format!(" Unknown option: {}", o.text)]);
        let not_kept = |list: &[(&str, usize)]| {
            list.iter()
                .find(|(w, m)| key_is(key, w, *m))
                .map(|(w, _)| OptsError::NotKept((*w).to_string()))
        };
        let uint = |name: &str| -> Result<Option<u32>, OptsError> {
            parse_uint(&v, name)
                .map_err(|m| OptsError::Bad(vec![m, format!(" Unknown option: {}", o.text)]))
        };
        let tres = || (v != "-1").then(|| normalize_tres(&v)).flatten();
        if key_is(key, "AdminLevel", 2) {
            out.admin = AdminLevel::parse(&v);
        } else if let Some(e) = not_kept(&NOT_KEPT[..2]) {
            return Err(e);
        } else if key_is(key, "DefaultAccount", 8) {
            out.def_acct = Some(v);
        } else if let Some(e) = not_kept(&NOT_KEPT[2..3]) {
            return Err(e);
        } else if key_is(key, "Description", 3) {
            out.desc = Some(v);
        } else if key_is(key, "Organization", 1) {
            out.org = Some(v);
        } else if key_is(key, "Partition", 1) {
            out.partition = Some(v);
        } else if let Some(e) = not_kept(&NOT_KEPT[3..4]) {
            return Err(e);
        } else if key_is(key, "DefaultQOS", 8) {
            out.set.default_qos = Some((v != "-1").then_some(v));
        } else if key_is(key, "FairShare", 1) || key_is(key, "Shares", 1) {
            if v.starts_with("parent") {
                return Err(OptsError::NotKept("Fairshare=parent".into()));
            }
            out.set.shares = Some(uint("FairShare")?.unwrap_or(1));
        } else if let Some(e) = not_kept(&NOT_KEPT[4..]) {
            return Err(e);
        } else if key_is(key, "GrpJobs", 4) {
            out.set.grp_jobs = Some(uint("GrpJobs")?);
        } else if let Some(e) = not_kept(NOT_KEPT_ASSOC) {
            return Err(e);
        } else if key_is(key, "GrpSubmitJobs", 4) {
            out.set.grp_submit = Some(uint("GrpSubmitJobs")?);
        } else if key_is(key, "GrpTRES", 7) {
            out.set.grp_tres = Some(tres());
        } else if let Some(e) = not_kept(NOT_KEPT_LATE) {
            return Err(e);
        } else if key_is(key, "MaxJobs", 4) {
            out.set.max_jobs = Some(uint("MaxJobs")?);
        } else if key_is(key, "MaxJobsAccrue", 8)
            || key_is(key, "MaxNodesPerJob", 4)
            || key_is(key, "MinPrioThresh", 4)
        {
            return Err(OptsError::NotKept(key.to_string()));
        } else if key_is(key, "MaxSubmitJobs", 4) {
            out.set.max_submit = Some(uint("MaxSubmitJobs")?);
        } else if key_is(key, "MaxTRESPerJob", 7) {
            out.set.max_tres = Some(tres());
        } else if key_is(key, "MaxTRESPerNode", 11)
            || key_is(key, "MaxTRESMinsPerJob", 8)
            || key_is(key, "MaxTRESRunMins", 8)
        {
            return Err(OptsError::NotKept(key.to_string()));
        } else if key_is(key, "MaxWallDurationPerJob", 4) {
            let wall = match parse_time_limit(&v) {
                Ok(TimeLimit::Minutes(m)) => Some(m),
                Ok(TimeLimit::Unlimited) => None,
                _ => return Err(unknown()),
            };
            out.set.max_wall_min = Some(wall);
        } else if key_is(key, "Parent", 2) || key_is(key, "Priority", 2) {
            return Err(OptsError::NotKept(key.to_string()));
        } else if key_is(key, "QosLevel", 1) {
            let mut names: Vec<String> = v
                .split(',')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            // A dump writes an inheriting association's changes (`+a,-b`) rather than a list.
            if names.iter().any(|n| n.starts_with(['+', '-'])) {
                out.set.qos = Some(ListEdit::Delta(names));
            } else {
                names.sort();
                names.dedup();
                out.set.qos = Some(ListEdit::Set(names));
            }
        } else {
            return Err(unknown());
        }
    }
    if !named {
        return Err(OptsError::Bad(vec![" No name given".into()]));
    }
    Ok(out)
}

/// The state of a load as it reads the file.
struct Loader<'a> {
    orig: &'a AcctDb,
    sim: AcctDb,
    plan: Plan,
    cluster: Option<String>,
    parent: Option<String>,
    new_accounts: Vec<(String, String, String)>,
    acct_rows: Vec<AssocRow>,
    new_users: Vec<(String, String, Option<AdminLevel>)>,
    user_rows: Vec<AssocRow>,
    modified_accounts: Vec<String>,
    modified_users: Vec<String>,
    modified_assocs: Vec<(String, Option<String>, Option<String>)>,
    /// Default accounts set last, once every association of the file exists.
    defaults: Vec<AcctRequest>,
}

/// Plans `sacctmgr load` of `text` against `db` (Spur's one cluster, `db.cluster`).
pub fn plan(db: &AcctDb, text: &str, args: &LoadArgs, layout: Layout) -> Plan {
    let mut l = Loader {
        orig: db,
        sim: db.clone(),
        plan: Plan {
            ok: true,
            failed: !args.errors.is_empty(),
            ..Plan::default()
        },
        cluster: None,
        parent: None,
        new_accounts: Vec::new(),
        acct_rows: Vec::new(),
        new_users: Vec::new(),
        user_rows: Vec::new(),
        modified_accounts: Vec::new(),
        modified_users: Vec::new(),
        modified_assocs: Vec::new(),
        defaults: Vec::new(),
    };
    let sticky = !args.errors.is_empty();
    for line in logical_lines(text) {
        if line.text.is_empty() {
            continue;
        }
        let keep_going = l.line(&line.text, line.number, args, sticky);
        if !keep_going {
            break;
        }
    }
    if l.plan.fatal {
        return l.plan;
    }
    let defaults = std::mem::take(&mut l.defaults);
    for d in defaults {
        l.request(d);
    }
    if l.plan.ok {
        l.tables(layout);
    }
    l.plan
}

impl Loader<'_> {
    fn out(&mut self, text: String) {
        self.plan.prints.push(Print::Out(text));
    }

    fn err(&mut self, text: String) {
        self.plan.prints.push(Print::Err(text));
    }

    /// Stops the reading with an error (sacctmgr's `rc = SLURM_ERROR; break`).
    fn fail(&mut self, lines: Vec<String>) -> bool {
        for line in lines {
            self.err(format!("{line}\n"));
        }
        self.plan.failed = true;
        self.plan.ok = false;
        false
    }

    /// Applies a request to the simulated entities and keeps it for the batch; Spur's rules refusing it end the
    /// reading.
    fn request(&mut self, request: AcctRequest) -> bool {
        match self.sim.apply(&request) {
            Ok(_) => {
                self.plan.requests.push(request);
                self.plan.set = true;
                true
            }
            Err(e) => {
                let cluster = self.sim.cluster.clone();
                let lines = e.lines(&cluster);
                self.fail(lines)
            }
        }
    }

    fn opts(&mut self, options: &str, number: usize, cluster_line: bool) -> Option<FileOpts> {
        match parse_opts(options) {
            Ok(o) => Some(o),
            Err(OptsError::Fatal(m)) => {
                self.err(format!("sacctmgr: fatal: {m}\n"));
                self.plan.fatal = true;
                self.plan.failed = true;
                self.plan.ok = false;
                None
            }
            Err(OptsError::Bad(mut lines)) => {
                lines.push(if cluster_line {
                    format!(" error: Problem with line({number})")
                } else {
                    format!(" Problem with line({number})")
                });
                self.fail(lines);
                None
            }
            Err(OptsError::NotKept(key)) => {
                self.fail(vec![format!(
                    " Spur keeps no {key}: line({number}) cannot be loaded"
                )]);
                None
            }
        }
    }

    /// One line; `false` ends the reading.
    fn line(&mut self, text: &str, number: usize, args: &LoadArgs, sticky: bool) -> bool {
        let (object, options) = match split_object(text) {
            Split::Skip => return true,
            Split::NothingAfter(object) => {
                return self.fail(vec![format!(
                    " Nothing after object name '{object}'. line({number})"
                )])
            }
            Split::Object { object, options } => (object, options),
        };
        if object.eq_ignore_ascii_case("Machine") || object.eq_ignore_ascii_case("Cluster") {
            return self.cluster_line(options, number, args, sticky);
        }
        let Some(cluster) = self.cluster.clone() else {
            self.err(
                " You need to specify a cluster name first with 'Cluster - $NAME' in your file\n"
                    .into(),
            );
            self.plan.failed = true;
            return false;
        };
        if object.eq_ignore_ascii_case("Parent") {
            let Some(o) = self.opts(options, number, false) else {
                return false;
            };
            if self.sim.account_assoc(&o.name).is_none() {
                self.err(format!(
                    " line({number}) You need to add this parent ({}) as a child before you can add children to it.\n",
                    o.name
                ));
                self.plan.failed = true;
                return false;
            }
            self.parent = Some(o.name);
            return true;
        }
        let parent = match &self.parent {
            Some(p) => p.clone(),
            None => {
                self.out(" No parent given creating off root, If incorrect specify 'Parent - name' before any children in your file\n".into());
                self.parent = Some(ROOT_ACCOUNT.into());
                ROOT_ACCOUNT.into()
            }
        };
        if object.eq_ignore_ascii_case("Project") || object.eq_ignore_ascii_case("Account") {
            let Some(o) = self.opts(options, number, false) else {
                return false;
            };
            self.account_line(o, &parent, &cluster, number)
        } else if object.eq_ignore_ascii_case("User") {
            let Some(o) = self.opts(options, number, false) else {
                return false;
            };
            self.user_line(o, &parent, &cluster)
        } else {
            self.fail(vec![format!(" Misformatted line({number}): {text}")])
        }
    }

    fn cluster_line(
        &mut self,
        options: &str,
        number: usize,
        args: &LoadArgs,
        sticky: bool,
    ) -> bool {
        if self.cluster.is_some() && args.cluster.is_none() {
            return self.fail(vec![" You can only add one cluster at a time.".into()]);
        }
        if sticky {
            // sacctmgr's exit status, already 1 from the command line, fails the reading of the first line.
            return self.fail(vec![format!(" error: Problem with line({number})")]);
        }
        let Some(o) = self.opts(options, number, true) else {
            return false;
        };
        let name = args.cluster.clone().unwrap_or_else(|| o.name.clone());
        if args.clean {
            return self.fail(vec![format!(
                " Spur keeps one cluster ({}) and does not remove it: load without 'clean'",
                self.orig.cluster
            )]);
        }
        self.out(format!("For cluster {name}\n"));
        if name != self.orig.cluster {
            return self.fail(vec![format!(
                " Spur keeps the associations of its own cluster ({0}) only: load with cluster={0}",
                self.orig.cluster
            )]);
        }
        self.cluster = Some(name.clone());
        let Some(root) = self.sim.account_assoc(ROOT_ACCOUNT).cloned() else {
            return self.fail(vec![" Problem getting assocs for this cluster".into()]);
        };
        let set = self.assoc_changes(&o, &root, "Cluster", &name);
        if !set.is_empty() {
            return self.request(AcctRequest::ModifyAccounts {
                names: vec![ROOT_ACCOUNT.into()],
                description: None,
                organization: None,
                set,
            });
        }
        true
    }

    fn account_line(&mut self, o: FileOpts, parent: &str, cluster: &str, number: usize) -> bool {
        let _ = cluster;
        if !self.sim.accounts.contains_key(&o.name) {
            let desc = o.desc.clone().unwrap_or_else(|| o.name.clone());
            let org = o.org.clone().unwrap_or_else(|| {
                if parent == ROOT_ACCOUNT {
                    o.name.clone()
                } else {
                    parent.to_string()
                }
            });
            self.new_accounts
                .push((o.name.clone(), desc.clone(), org.clone()));
            self.acct_rows.push(AssocRow {
                first: o.name.clone(),
                second: parent.to_string(),
                set: o.set.clone(),
            });
            return self.request(AcctRequest::AddAccounts {
                names: vec![o.name],
                parent: Some(parent.to_string()),
                description: Some(desc),
                organization: Some(org),
                set: o.set,
            });
        }
        let Some(assoc) = self.sim.account_assoc(&o.name).cloned() else {
            return self.fail(vec![format!(
                " Spur cannot add an association to the existing account '{}': line({number}) cannot be loaded",
                o.name
            )]);
        };
        if !self.modified_accounts.contains(&o.name) {
            self.modified_accounts.push(o.name.clone());
            let Some(record) = self.sim.accounts.get(&o.name).cloned() else {
                return true;
            };
            let mut description = None;
            let mut organization = None;
            if let Some(d) = o.desc.as_ref().filter(|d| **d != record.description) {
                self.out(changed(
                    "description",
                    "Account",
                    &o.name,
                    &record.description,
                    d,
                ));
                description = Some(d.clone());
            }
            if let Some(org) = o.org.as_ref().filter(|org| **org != record.organization) {
                self.out(changed(
                    "organization",
                    "Account",
                    &o.name,
                    &record.organization,
                    org,
                ));
                organization = Some(org.clone());
            }
            if (description.is_some() || organization.is_some())
                && !self.request(AcctRequest::ModifyAccounts {
                    names: vec![o.name.clone()],
                    description,
                    organization,
                    set: AssocSet::default(),
                })
            {
                return false;
            }
        }
        let key = (o.name.clone(), None, None);
        if self.modified_assocs.contains(&key) {
            return true;
        }
        self.modified_assocs.push(key);
        if assoc.parent.as_deref().is_some_and(|p| p != parent) {
            return self.fail(vec![format!(
                " Spur cannot move account '{}' from parent '{}' to '{parent}': line({number}) cannot be loaded",
                o.name,
                assoc.parent.as_deref().unwrap_or("")
            )]);
        }
        let set = self.assoc_changes(&o, &assoc, "Account", &o.name);
        if set.is_empty() {
            return true;
        }
        self.request(AcctRequest::ModifyAccounts {
            names: vec![o.name],
            description: None,
            organization: None,
            set,
        })
    }

    fn user_line(&mut self, o: FileOpts, parent: &str, cluster: &str) -> bool {
        let _ = cluster;
        let existed = self.orig.users.contains_key(&o.name);
        let added_here = self.new_users.iter().any(|(n, _, _)| *n == o.name);
        let partitions: Vec<String> = o.partition.iter().cloned().collect();
        if !existed && !added_here {
            let default = o.def_acct.clone().unwrap_or_else(|| parent.to_string());
            self.new_users
                .push((o.name.clone(), default.clone(), o.admin));
            self.user_rows.push(AssocRow {
                first: o.name.clone(),
                second: parent.to_string(),
                set: o.set.clone(),
            });
            if default != parent {
                self.defaults.push(AcctRequest::ModifyUsers {
                    names: vec![o.name.clone()],
                    accounts: Vec::new(),
                    default_account: Some(default),
                    admin: None,
                    set: AssocSet::default(),
                });
            }
            return self.request(AcctRequest::AddUsers {
                names: vec![o.name],
                accounts: vec![parent.to_string()],
                partitions,
                default_account: None,
                admin: o.admin,
                set: o.set,
            });
        }
        let assoc = self
            .sim
            .assocs
            .iter()
            .find(|a| {
                a.account == parent
                    && a.user.as_deref() == Some(o.name.as_str())
                    && a.partition == o.partition
            })
            .cloned();
        if existed && !self.modified_users.contains(&o.name) {
            self.modified_users.push(o.name.clone());
            if !self.modify_user(&o) {
                return false;
            }
        }
        let Some(assoc) = assoc else {
            self.user_rows.push(AssocRow {
                first: o.name.clone(),
                second: parent.to_string(),
                set: o.set.clone(),
            });
            return self.request(AcctRequest::AddUsers {
                names: vec![o.name],
                accounts: vec![parent.to_string()],
                partitions,
                default_account: None,
                admin: None,
                set: o.set,
            });
        };
        let key = (
            parent.to_string(),
            Some(o.name.clone()),
            o.partition.clone(),
        );
        if self.modified_assocs.contains(&key) {
            return true;
        }
        self.modified_assocs.push(key);
        let set = self.assoc_changes(&o, &assoc, "User", &o.name);
        if set.is_empty() {
            return true;
        }
        self.request(AcctRequest::ModifyUsers {
            names: vec![o.name],
            accounts: vec![parent.to_string()],
            default_account: None,
            admin: None,
            set,
        })
    }

    fn modify_user(&mut self, o: &FileOpts) -> bool {
        let Some(user) = self.sim.users.get(&o.name).cloned() else {
            return true;
        };
        if let Some(d) = o.def_acct.as_ref().filter(|d| **d != user.default_account) {
            self.out(changed(
                "Default Account",
                "User",
                &o.name,
                &user.default_account,
                d,
            ));
            self.defaults.push(AcctRequest::ModifyUsers {
                names: vec![o.name.clone()],
                accounts: Vec::new(),
                default_account: Some(d.clone()),
                admin: None,
                set: AssocSet::default(),
            });
        }
        if let Some(level) = o.admin.filter(|l| *l != user.admin) {
            self.out(changed(
                "Admin Level",
                "User",
                &o.name,
                user.admin.name(),
                level.name(),
            ));
            return self.request(AcctRequest::ModifyUsers {
                names: vec![o.name.clone()],
                accounts: Vec::new(),
                default_account: None,
                admin: Some(level),
                set: AssocSet::default(),
            });
        }
        true
    }

    /// sacctmgr's `_mod_assoc`: the settings of the file that differ from the association's own, each reported.
    fn assoc_changes(
        &mut self,
        o: &FileOpts,
        assoc: &Association,
        kind: &str,
        name: &str,
    ) -> AssocSet {
        let mut set = AssocSet::default();
        let f = &o.set;
        let l = &assoc.limits;
        let int = |v: Option<u32>| v.map_or_else(|| "-1".to_string(), |v| v.to_string());
        if let Some(s) = f.shares.filter(|s| *s != assoc.shares) {
            self.out(changed(
                "fairshare",
                kind,
                name,
                &assoc.shares.to_string(),
                &s.to_string(),
            ));
            set.shares = Some(s);
        }
        if let Some(Some(t)) = &f.grp_tres {
            if l.grp_tres.as_deref().map(tres_ids) != Some(tres_ids(t)) {
                let now = l
                    .grp_tres
                    .as_deref()
                    .map_or_else(|| "(null)".into(), tres_ids);
                self.out(changed("GrpTRES", kind, name, &now, &tres_ids(t)));
                set.grp_tres = Some(Some(t.clone()));
            }
        }
        for (label, new, now, slot) in [
            ("GrpJobs", f.grp_jobs, l.grp_jobs, 0),
            ("GrpSubmitJobs", f.grp_submit, l.grp_submit, 1),
        ] {
            if let Some(v) = new.filter(|v| *v != now) {
                self.out(changed(label, kind, name, &int(now), &int(v)));
                if slot == 0 {
                    set.grp_jobs = Some(v);
                } else {
                    set.grp_submit = Some(v);
                }
            }
        }
        if let Some(Some(t)) = &f.max_tres {
            if l.max_tres.as_deref().map(tres_ids) != Some(tres_ids(t)) {
                let now = l
                    .max_tres
                    .as_deref()
                    .map_or_else(|| "(null)".into(), tres_ids);
                self.out(changed("MaxTRESPerJob", kind, name, &now, &tres_ids(t)));
                set.max_tres = Some(Some(t.clone()));
            }
        }
        for (label, new, now, slot) in [
            ("MaxJobs", f.max_jobs, l.max_jobs, 0),
            ("MaxSubmitJobs", f.max_submit, l.max_submit, 1),
            ("MaxWallDurationPerJob", f.max_wall_min, l.max_wall_min, 2),
        ] {
            if let Some(v) = new.filter(|v| *v != now) {
                self.out(changed(label, kind, name, &int(now), &int(v)));
                match slot {
                    0 => set.max_jobs = Some(v),
                    1 => set.max_submit = Some(v),
                    _ => set.max_wall_min = Some(v),
                }
            }
        }
        if let Some(ListEdit::Set(names)) = &f.qos {
            let added: Vec<String> = names
                .iter()
                .filter(|q| !assoc.qos.contains(q))
                .cloned()
                .collect();
            if !added.is_empty() {
                self.out(format!(
                    "{:<30.30} for {kind:<7.7} {name:<10.10} {:>8}\n",
                    " Added QOS",
                    added.join(",")
                ));
                set.qos = Some(ListEdit::Add(added));
            }
        }
        if let Some(Some(q)) = &f.default_qos {
            if assoc.default_qos.as_ref() != Some(q) {
                set.default_qos = Some(Some(q.clone()));
            }
        }
        set
    }

    fn tables(&mut self, layout: Layout) {
        let dashes = |n: usize| format!("{}\n\n", "-".repeat(n));
        if !self.new_accounts.is_empty() {
            let cols = [
                col("Name", 10),
                col("Descr", 20),
                col("Org", 20),
                col("QOS", 20),
            ];
            let mut text = String::from("Accounts\n");
            text.push_str(&print_fields::header(&cols, layout, "|"));
            for (name, desc, org) in &self.new_accounts {
                let row = [name.clone(), desc.clone(), org.clone(), String::new()];
                text.push_str(&print_fields::line(&cols, &row, layout, "|"));
            }
            text.push_str(&dashes(51));
            self.out(text);
        }
        if !self.acct_rows.is_empty() {
            let text = assoc_table(
                "Account Associations",
                ["Account", "ParentName"],
                &self.acct_rows,
                layout,
            );
            self.out(text);
        }
        if !self.new_users.is_empty() {
            let cols = [
                col("Name", 10),
                col("Def Acct", 10),
                col("Def WCKey", 10),
                col("QOS", 20),
                col("Admin", 9),
                col("Coord Accounts", 20),
            ];
            let mut text = String::from("Users\n");
            text.push_str(&print_fields::header(&cols, layout, "|"));
            for (name, default, admin) in &self.new_users {
                let admin = admin.map_or("Not Set", AdminLevel::name);
                let row = [
                    name.clone(),
                    default.clone(),
                    String::new(),
                    String::new(),
                    admin.to_string(),
                    String::new(),
                ];
                text.push_str(&print_fields::line(&cols, &row, layout, "|"));
            }
            text.push_str(&dashes(51));
            self.out(text);
        }
        if !self.user_rows.is_empty() {
            let text = assoc_table(
                "User Associations",
                ["User", "Account"],
                &self.user_rows,
                layout,
            );
            self.out(text);
        }
    }
}

fn col(name: &'static str, width: i32) -> Column {
    Column { name, width }
}

/// sacctmgr's change line: `%-30.30s for %-7.7s %-10.10s %8s -> %s`.
fn changed(what: &str, kind: &str, name: &str, now: &str, new: &str) -> String {
    format!(
        "{:<30.30} for {kind:<7.7} {name:<10.10} {now:>8} -> {new}\n",
        format!(" Changed {what}")
    )
}

/// A TRES list as slurmdbd hands it back in a change message: by id (`cpu=16` is `1=16`, memory in megabytes).
fn tres_ids(text: &str) -> String {
    const IDS: [&str; 8] = [
        "cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages",
    ];
    text.split(',')
        .filter(|i| !i.is_empty())
        .map(|item| {
            let (k, v) = item.split_once('=').unwrap_or((item, ""));
            let v = if k == "mem" {
                crate::grammar::values::size::parse_megabytes(v)
                    .map_or_else(|| v.to_string(), |mb| mb.to_string())
            } else {
                v.to_string()
            };
            match IDS.iter().position(|n| *n == k) {
                Some(i) => format!("{}={v}", i + 1),
                None => format!("{k}={v}"),
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// The table of added associations (`Account Associations` or `User Associations`).
fn assoc_table(title: &str, first: [&'static str; 2], rows: &[AssocRow], layout: Layout) -> String {
    let cols = [
        col(first[0], 10),
        col(first[1], 10),
        col("Share", 9),
        col("GrpTRESMins", 13),
        col("GrpTRESRunMins", 13),
        col("GrpTRES", 13),
        col("GrpJobs", 7),
        col("GrpJobsAccrue", 13),
        col("GrpMem", 7),
        col("GrpNodes", 8),
        col("GrpSubmit", 9),
        col("GrpWall", 11),
        col("MaxTRESMins", 13),
        col("MaxTRES", 13),
        col("MaxTRESPerNode", 14),
        col("MaxJobs", 7),
        col("MaxSubmit", 9),
        col("MaxNodes", 8),
        col("MaxWall", 11),
        col("QOS", 20),
        col("Def QOS", 9),
    ];
    let mut text = format!("{title}\n");
    text.push_str(&print_fields::header(&cols, layout, "|"));
    let num = |v: &Option<Option<u32>>| v.flatten().map(|v| v.to_string()).unwrap_or_default();
    let txt = |v: &Option<Option<String>>| v.clone().flatten().unwrap_or_default();
    // The old single-TRES columns show the memory (in megabytes) and node counts of the TRES lists.
    let tres_of = |v: &Option<Option<String>>, key: &str| -> String {
        let text = txt(v);
        text.split(',')
            .find_map(|item| {
                let (k, value) = item.split_once('=')?;
                (k == key).then(|| match key {
                    "mem" => crate::grammar::values::size::parse_megabytes(value)
                        .map_or_else(|| value.to_string(), |mb| mb.to_string()),
                    _ => value.to_string(),
                })
            })
            .unwrap_or_default()
    };
    for row in rows {
        let s = &row.set;
        let qos = match &s.qos {
            Some(ListEdit::Set(v)) => v.join(","),
            _ => String::new(),
        };
        let values = [
            row.first.clone(),
            row.second.clone(),
            s.shares.map(|v| v.to_string()).unwrap_or_default(),
            String::new(),
            String::new(),
            txt(&s.grp_tres),
            num(&s.grp_jobs),
            String::new(),
            tres_of(&s.grp_tres, "mem"),
            tres_of(&s.grp_tres, "node"),
            num(&s.grp_submit),
            String::new(),
            String::new(),
            txt(&s.max_tres),
            String::new(),
            num(&s.max_jobs),
            num(&s.max_submit),
            tres_of(&s.max_tres, "node"),
            s.max_wall_min
                .flatten()
                .map(format_minutes)
                .unwrap_or_default(),
            qos,
            txt(&s.default_qos),
        ];
        text.push_str(&print_fields::line(&cols, &values, layout, "|"));
    }
    text.push_str(&format!("{}\n\n", "-".repeat(62)));
    text
}

#[cfg(test)]
#[path = "sacctmgr_load_tests.rs"]
mod tests;
