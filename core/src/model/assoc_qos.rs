//! An association's QOS list as slurmdbd keeps it: either a list of its own (the `qos` column, `,ID,ID,`) or,
//! while it inherits, the changes made to what it inherits (the `delta_qos` column, `,+ID,-ID,`). What the
//! association may use is computed from those and its ancestors' whenever they change, so a child that inherits
//! follows its parent as in Slurm.
//!
//! The two columns are kept as slurmdbd's strings, edited by the same textual rules (`replace` of `,ID,`
//! patterns), because the rules have visible quirks that `sacctmgr show assoc` and `sacctmgr dump` print: deleting
//! a QOS removes `,ID,` with both commas, so the ids on either side run together (`,1,2,3,` less 2 is `,13,`),
//! and the first character of each column is skipped when it is read back. A drop-in keeps those too.

use std::collections::HashMap;

use super::{AcctDb, Association, ListEdit};
use crate::grammar::options::error::atoi;

/// `REPLACE(haystack, from, to)` as MySQL does it: every non-overlapping match, left to right.
fn replace(haystack: &str, from: &str, to: &str) -> String {
    haystack.replace(from, to)
}

/// `slurm_addto_char_list`: comma-separated entries, empty ones skipped, a repeated entry moved to the end.
pub(super) fn entries(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for entry in text.split(',').filter(|e| !e.is_empty()) {
        out.retain(|e| e != entry);
        out.push(entry.to_ascii_lowercase());
    }
    out
}

/// A column as slurmdbd reads it back: from its second character on (the first is the leading comma of an
/// intact column).
fn column_entries(column: &str) -> Vec<String> {
    match column.get(1..) {
        Some(rest) if !column.is_empty() => entries(rest),
        _ => Vec::new(),
    }
}

/// The QOS ids of the database, by name and by id.
pub(super) struct QosIds {
    by_name: HashMap<String, u32>,
    by_id: HashMap<i64, String>,
}

impl QosIds {
    pub(super) fn new(db: &AcctDb) -> Self {
        QosIds {
            by_name: db.qos.iter().map(|q| (q.name.clone(), q.id)).collect(),
            by_id: db
                .qos
                .iter()
                .map(|q| (i64::from(q.id), q.name.clone()))
                .collect(),
        }
    }

    fn id(&self, name: &str) -> Option<u32> {
        self.by_name.get(name).copied()
    }

    /// `slurmdb_qos_str(list, atoi(entry))`.
    fn name(&self, entry: &str) -> Option<&str> {
        self.by_id.get(&i64::from(atoi(entry))).map(String::as_str)
    }

    /// Entries as `get_qos_complete_str` prints them: a `+`/`-` kept in front of the name, entries whose id is
    /// no QOS dropped, sorted as strings.
    fn render(&self, entries: &[String]) -> Vec<String> {
        let mut out: Vec<String> = entries
            .iter()
            .filter_map(|e| {
                let (sign, rest) = match e.as_bytes().first() {
                    Some(b'+') | Some(b'-') => (&e[..1], &e[1..]),
                    _ => ("", e.as_str()),
                };
                self.name(rest).map(|n| format!("{sign}{n}"))
            })
            .collect();
        out.sort();
        out
    }
}

/// `sacctmgr modify ... set qos=`/`qos+=`/`qos-=` on one association, as slurmdbd's update rewrites its columns.
pub(super) fn edit(assoc: &mut Association, edit: &ListEdit, ids: &QosIds) {
    upgrade(assoc, ids);
    let id_of = |name: &str| ids.id(name).map(|i| i.to_string());
    match edit {
        ListEdit::Set(names) => {
            let mut listed: Vec<String> = Vec::new();
            for id in names.iter().filter_map(|n| id_of(n)) {
                listed.retain(|i| *i != id);
                listed.push(id);
            }
            // `qos=` with nothing makes the association inherit again.
            assoc.qos_raw = if listed.is_empty() {
                String::new()
            } else {
                format!(",{},", listed.join(","))
            };
            assoc.delta_qos_raw.clear();
        }
        ListEdit::Add(names) => {
            for id in names.iter().filter_map(|n| id_of(n)) {
                plus(assoc, &id);
            }
        }
        ListEdit::Remove(names) => {
            for id in names.iter().filter_map(|n| id_of(n)) {
                minus(assoc, &id);
            }
        }
        ListEdit::Delta(items) => {
            for item in items {
                match item.as_bytes().first() {
                    Some(b'+') => {
                        if let Some(id) = id_of(&item[1..]) {
                            plus(assoc, &id);
                        }
                    }
                    Some(b'-') => {
                        if let Some(id) = id_of(&item[1..]) {
                            minus(assoc, &id);
                        }
                    }
                    _ => {
                        if let Some(id) = id_of(item) {
                            plus(assoc, &id);
                        }
                    }
                }
            }
        }
    }
    assoc.qos_given = !assoc.qos_raw.is_empty();
}

/// The delta rule of both signs: any earlier `+ID`/`-ID` dropped, the new one appended.
fn delta_with(delta: &str, id: &str, sign: char) -> String {
    let cleared = replace(
        &replace(delta, &format!(",+{id},"), ","),
        &format!(",-{id},"),
        ",",
    );
    replace(&format!("{cleared},{sign}{id},"), ",,", ",")
}

fn plus(assoc: &mut Association, id: &str) {
    if assoc.qos_raw.is_empty() {
        assoc.delta_qos_raw = delta_with(&assoc.delta_qos_raw, id, '+');
    } else {
        let without = replace(&assoc.qos_raw, &format!(",{id},"), ",");
        assoc.qos_raw = replace(&format!("{without},{id},"), ",,", ",");
        assoc.delta_qos_raw.clear();
    }
}

fn minus(assoc: &mut Association, id: &str) {
    if !assoc.qos_raw.is_empty() {
        let without = replace(&replace(&assoc.qos_raw, &format!(",{id},"), ","), ",,", ",");
        // Removing the last QOS of its own list makes the association inherit, less that QOS.
        assoc.qos_raw = if without == "," {
            String::new()
        } else {
            without
        };
    }
    if assoc.qos_raw.is_empty() {
        assoc.delta_qos_raw = delta_with(&assoc.delta_qos_raw, id, '-');
    } else {
        assoc.delta_qos_raw.clear();
    }
}

/// `sacctmgr delete qos`: slurmdbd strips `,ID,` (both commas) from every association's columns.
pub(super) fn forget(assoc: &mut Association, id: u32, ids: &QosIds) {
    upgrade(assoc, ids);
    assoc.qos_raw = replace(&assoc.qos_raw, &format!(",{id},"), "");
    assoc.delta_qos_raw = replace(&assoc.delta_qos_raw, &format!(",+{id},"), "");
    assoc.delta_qos_raw = replace(&assoc.delta_qos_raw, &format!(",-{id},"), "");
    assoc.qos_given = !assoc.qos_raw.is_empty();
}

/// Records written before the columns were kept carry only the resolved list and `qos_given`.
pub(super) fn upgrade(assoc: &mut Association, ids: &QosIds) {
    if assoc.qos_given && assoc.qos_raw.is_empty() && assoc.delta_qos_raw.is_empty() {
        let listed: Vec<String> = assoc
            .qos
            .iter()
            .filter_map(|n| ids.id(n).map(|i| i.to_string()))
            .collect();
        if !listed.is_empty() {
            assoc.qos_raw = format!(",{},", listed.join(","));
        }
    }
}

/// What `sacctmgr dump` writes as the association's `QOS=`: its own list, else its changes (`+name`/`-name`),
/// else nothing. `Some("")` where every entry names a QOS that no longer exists (slurmdbd prints `QOS=''`).
pub(super) fn dump_value(assoc: &Association, ids: &QosIds) -> Option<String> {
    if assoc.qos_raw.is_empty() && assoc.delta_qos_raw.is_empty() {
        // A record from before the columns were kept.
        return (assoc.qos_given && !assoc.qos.is_empty()).then(|| assoc.qos.join(","));
    }
    let listed = if assoc.qos_raw.is_empty() {
        column_entries(&assoc.delta_qos_raw)
    } else {
        column_entries(&assoc.qos_raw)
    };
    if listed.is_empty() {
        return None;
    }
    Some(ids.render(&listed).join(","))
}

impl AcctDb {
    /// The association's `QOS=` in a `sacctmgr dump` file: see [`dump_value`].
    pub fn dump_qos(&self, assoc: &Association) -> Option<String> {
        dump_value(assoc, &QosIds::new(self))
    }

    /// Recomputes every association's usable QOS from the columns, parents first, as slurmdbd does when it
    /// reads them: an own list alone; else the nearest ancestor's own list, then the changes of every
    /// association between (the highest first), then its own changes.
    pub(super) fn refresh_qos(&mut self) {
        let ids = QosIds::new(self);
        for assoc in &mut self.assocs {
            upgrade(assoc, &ids);
            assoc.qos_given = !assoc.qos_raw.is_empty();
        }
        let accounts: HashMap<String, usize> = self
            .assocs
            .iter()
            .enumerate()
            .filter(|(_, a)| a.user.is_none())
            .rev()
            .map(|(i, a)| (a.account.clone(), i))
            .collect();
        let limit = self.assocs.len();
        let mut resolved: Vec<Vec<String>> = Vec::with_capacity(limit);
        for assoc in &self.assocs {
            if !assoc.qos_raw.is_empty() {
                resolved.push(ids.render(&column_entries(&assoc.qos_raw)));
                continue;
            }
            // Up the tree from the parent until an association with a list of its own.
            let mut base = String::new();
            let mut deltas = String::new();
            let mut next = match &assoc.user {
                Some(_) => Some(assoc.account.as_str()),
                None => assoc.parent.as_deref(),
            };
            let mut steps = 0;
            while let Some(name) = next.filter(|_| base.is_empty() && steps <= limit) {
                steps += 1;
                let Some(up) = accounts.get(name).map(|&i| &self.assocs[i]) else {
                    break;
                };
                base.clone_from(&up.qos_raw);
                deltas = replace(&format!("{}{deltas}", up.delta_qos_raw), ",,", ",");
                next = up.parent.as_deref();
            }
            let mut list = column_entries(&base);
            let mut changes = column_entries(&deltas);
            for change in column_entries(&assoc.delta_qos_raw) {
                changes.retain(|c| *c != change);
                changes.push(change);
            }
            for change in changes {
                match change.as_bytes().first() {
                    Some(b'-') => {
                        if let Some(at) = list.iter().position(|q| *q == change[1..]) {
                            list.remove(at);
                        }
                    }
                    Some(b'+') if !list.iter().any(|q| *q == change[1..]) => {
                        list.push(change[1..].to_string());
                    }
                    _ => {}
                }
            }
            let mut names = ids.render(&list);
            names.dedup();
            resolved.push(names);
        }
        for (assoc, names) in self.assocs.iter_mut().zip(resolved) {
            assoc.qos = names;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_skip_empty_and_move_repeats_to_the_end() {
        assert_eq!(entries("1,,2,1,"), vec!["2", "1"]);
        assert_eq!(column_entries(",+2,-3,"), vec!["+2", "-3"]);
        // A column whose leading comma a QOS deletion took: its first character is lost on reading.
        assert_eq!(column_entries("-3,+5,"), vec!["3", "+5"]);
        assert!(column_entries("").is_empty());
    }

    #[test]
    fn the_delta_rule_replaces_an_earlier_change_of_the_same_qos() {
        assert_eq!(delta_with("", "5", '+'), ",+5,");
        assert_eq!(delta_with(",+5,+6,", "5", '-'), ",+6,-5,");
        assert_eq!(delta_with(",+6,-5,", "6", '-'), ",-5,-6,");
    }

    use crate::model::assoc::{AcctRequest, AssocSet, QosSet};

    fn v(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn qos_edit(edit: ListEdit) -> AssocSet {
        AssocSet {
            qos: Some(edit),
            ..Default::default()
        }
    }

    fn add_qos(db: &mut AcctDb, names: &[&str]) {
        db.apply(&AcctRequest::AddQos {
            names: v(names),
            set: QosSet::default(),
        })
        .unwrap();
    }

    fn add_account(db: &mut AcctDb, name: &str, parent: &str, set: AssocSet) {
        db.apply(&AcctRequest::AddAccounts {
            names: v(&[name]),
            parent: Some(parent.into()),
            description: None,
            organization: None,
            set,
        })
        .unwrap();
    }

    fn modify_account(db: &mut AcctDb, name: &str, edit: ListEdit) {
        db.apply(&AcctRequest::ModifyAccounts {
            names: v(&[name]),
            description: None,
            organization: None,
            set: qos_edit(edit),
        })
        .unwrap();
    }

    fn modify_user(db: &mut AcctDb, name: &str, edit: ListEdit) {
        db.apply(&AcctRequest::ModifyUsers {
            names: v(&[name]),
            accounts: Vec::new(),
            default_account: None,
            admin: None,
            set: qos_edit(edit),
        })
        .unwrap();
    }

    fn delete_qos(db: &mut AcctDb, names: &[&str]) {
        db.apply(&AcctRequest::DeleteQos { names: v(names) })
            .unwrap();
    }

    /// `sacctmgr show assoc format=qos` of an account's association, or of a user's (`account/user`).
    fn usable(db: &AcctDb, who: &str) -> String {
        let assoc = match who.split_once('/') {
            Some((account, user)) => db.user_assoc(user, account, None),
            None => db.account_assoc(who),
        };
        assoc.map(|a| a.qos.join(",")).unwrap_or_else(|| "?".into())
    }

    fn dumped(db: &AcctDb, who: &str) -> Option<String> {
        let assoc = match who.split_once('/') {
            Some((account, user)) => db.user_assoc(user, account, None),
            None => db.account_assoc(who),
        };
        assoc.and_then(|a| db.dump_qos(a))
    }

    // Every expectation below is what sacctmgr 22.05 with slurmdbd printed for the same commands.
    #[test]
    fn children_that_inherit_follow_their_parents_changes() {
        let mut db = AcctDb::initial("c");
        add_qos(&mut db, &["x1", "x2", "x3"]);
        add_account(&mut db, "e1", "root", AssocSet::default());
        add_account(&mut db, "e2", "e1", AssocSet::default());
        db.apply(&AcctRequest::add_user("u", "e2", AssocSet::default()))
            .unwrap();
        assert_eq!(usable(&db, "e2/u"), "normal");
        assert_eq!(dumped(&db, "root"), Some("normal".into()));
        assert_eq!(dumped(&db, "root/root"), None);

        modify_account(&mut db, "e1", ListEdit::Add(v(&["x1"])));
        assert_eq!(usable(&db, "e1"), "normal,x1");
        assert_eq!(usable(&db, "e2"), "normal,x1");
        assert_eq!(usable(&db, "e2/u"), "normal,x1");
        assert_eq!(dumped(&db, "e1"), Some("+x1".into()));
        assert_eq!(dumped(&db, "e2"), None);

        modify_account(&mut db, "e2", ListEdit::Add(v(&["x2"])));
        modify_account(&mut db, "root", ListEdit::Add(v(&["x3"])));
        assert_eq!(usable(&db, "root/root"), "normal,x3");
        assert_eq!(usable(&db, "e1"), "normal,x1,x3");
        assert_eq!(usable(&db, "e2/u"), "normal,x1,x2,x3");
        assert_eq!(dumped(&db, "root"), Some("normal,x3".into()));
        assert_eq!(dumped(&db, "e2"), Some("+x2".into()));

        modify_account(&mut db, "e1", ListEdit::Set(v(&["normal", "x1", "x2"])));
        assert_eq!(usable(&db, "e1"), "normal,x1,x2");
        assert_eq!(usable(&db, "e2"), "normal,x1,x2");
        modify_account(&mut db, "e1", ListEdit::Remove(v(&["x1"])));
        modify_user(&mut db, "u", ListEdit::Remove(v(&["x2"])));
        assert_eq!(usable(&db, "e2"), "normal,x2");
        assert_eq!(usable(&db, "e2/u"), "normal");
        assert_eq!(dumped(&db, "e1"), Some("normal,x2".into()));
        assert_eq!(dumped(&db, "e2/u"), Some("-x2".into()));

        // `qos=` with nothing: e1 inherits again.
        modify_account(&mut db, "e1", ListEdit::Set(Vec::new()));
        assert_eq!(usable(&db, "e1"), "normal,x3");
        assert_eq!(usable(&db, "e2"), "normal,x2,x3");
        assert_eq!(usable(&db, "e2/u"), "normal,x3");

        delete_qos(&mut db, &["x2"]);
        assert_eq!(usable(&db, "e2"), "normal,x3");
        assert_eq!(dumped(&db, "e1"), None);
        assert_eq!(dumped(&db, "e2"), None);
        assert_eq!(dumped(&db, "e2/u"), None);

        modify_account(&mut db, "e1", ListEdit::Remove(v(&["normal", "x3"])));
        assert_eq!(usable(&db, "e1"), "");
        assert_eq!(usable(&db, "e2/u"), "");
        assert_eq!(dumped(&db, "e1"), Some("-normal,-x3".into()));

        // Removing the last QOS of its own list: it inherits, less that QOS.
        modify_account(&mut db, "e2", ListEdit::Set(v(&["x1"])));
        assert_eq!(usable(&db, "e2/u"), "x1");
        modify_account(&mut db, "e2", ListEdit::Remove(v(&["x1"])));
        assert_eq!(usable(&db, "e2"), "");
        assert_eq!(dumped(&db, "e2"), Some("-x1".into()));
    }

    #[test]
    fn deleting_a_qos_runs_neighbouring_ids_together_as_slurmdbd_does() {
        let mut db = AcctDb::initial("c");
        add_qos(&mut db, &["y1", "y2", "y3", "y4"]);
        add_account(
            &mut db,
            "f1",
            "root",
            qos_edit(ListEdit::Set(v(&["normal", "y1", "y2", "y3"]))),
        );
        add_account(&mut db, "f2", "root", AssocSet::default());
        add_account(&mut db, "f3", "root", AssocSet::default());
        modify_account(&mut db, "f2", ListEdit::Add(v(&["y1", "y2", "y3"])));
        modify_account(&mut db, "f3", ListEdit::Remove(v(&["y1", "y2"])));
        modify_account(&mut db, "f3", ListEdit::Add(v(&["y4"])));
        assert_eq!(usable(&db, "f2"), "normal,y1,y2,y3");
        assert_eq!(usable(&db, "f3"), "normal,y4");
        assert_eq!(dumped(&db, "f2"), Some("+y1,+y2,+y3".into()));
        assert_eq!(dumped(&db, "f3"), Some("+y4,-y1,-y2".into()));

        delete_qos(&mut db, &["y1"]);
        assert_eq!(usable(&db, "f1"), "y3");
        assert_eq!(usable(&db, "f2"), "normal,y3");
        assert_eq!(usable(&db, "f3"), "normal,y4");
        assert_eq!(dumped(&db, "f1"), Some("y3".into()));
        assert_eq!(dumped(&db, "f2"), Some("+y3,y2".into()));
        assert_eq!(dumped(&db, "f3"), Some("+y4,y2".into()));

        delete_qos(&mut db, &["y2"]);
        assert_eq!(dumped(&db, "f2"), Some("+y3".into()));
        assert_eq!(dumped(&db, "f3"), Some("+y4".into()));
        assert_eq!(usable(&db, "f1"), "y3");
    }

    #[test]
    fn changes_to_a_deleted_qos_dump_as_an_empty_list() {
        // Cases 441/442: `qos+=` then `qos-=` on root's user association, then the QOS deleted.
        let mut db = AcctDb::initial("c");
        add_qos(&mut db, &["hi", "lo"]);
        modify_user(&mut db, "root", ListEdit::Add(v(&["hi", "lo"])));
        assert_eq!(usable(&db, "root/root"), "hi,lo,normal");
        modify_user(&mut db, "root", ListEdit::Remove(v(&["hi", "lo"])));
        delete_qos(&mut db, &["hi", "lo"]);
        assert_eq!(usable(&db, "root/root"), "normal");
        assert_eq!(dumped(&db, "root/root"), Some(String::new()));
    }

    #[test]
    fn records_from_before_the_columns_keep_their_lists() {
        let mut db = AcctDb::initial("c");
        add_qos(&mut db, &["hi"]);
        add_account(&mut db, "a", "root", AssocSet::default());
        for assoc in &mut db.assocs {
            if assoc.account == "a" {
                assoc.qos = v(&["hi", "normal"]);
                assoc.qos_given = true;
            }
            assoc.qos_raw.clear();
            assoc.delta_qos_raw.clear();
        }
        assert_eq!(dumped(&db, "a"), Some("hi,normal".into()));
        db.refresh_qos();
        assert_eq!(usable(&db, "a"), "hi,normal");
        assert_eq!(usable(&db, "root/root"), "normal");
        assert_eq!(dumped(&db, "a"), Some("hi,normal".into()));
    }

    #[test]
    fn a_dumps_changes_load_back_as_changes() {
        let mut db = AcctDb::initial("c");
        add_qos(&mut db, &["x1"]);
        add_account(
            &mut db,
            "a",
            "root",
            qos_edit(ListEdit::Delta(v(&["+x1", "-normal"]))),
        );
        assert_eq!(usable(&db, "a"), "x1");
        assert_eq!(dumped(&db, "a"), Some("+x1,-normal".into()));
        modify_account(&mut db, "root", ListEdit::Add(v(&["x1"])));
        modify_account(&mut db, "root", ListEdit::Remove(v(&["normal"])));
        assert_eq!(usable(&db, "root"), "x1");
        assert_eq!(usable(&db, "a"), "x1");
    }
}
