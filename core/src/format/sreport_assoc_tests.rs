use super::*;
use crate::format::sreport::Layout;
use crate::format::test_records::{running, NOW};
use crate::model::states::JobBaseState;

/// 2026-12-07T00:00:00 UTC.
const DAY: i64 = 1_796_601_600;
const H: i64 = 3600;
/// A ten-hour report window from DAY.
const WINDOW: (i64, i64) = (DAY, DAY + 10 * H);

fn job(account: Option<&str>, user: &str, cpus: u32, run: Option<(i64, i64)>) -> JobAccounting {
    let mut record = JobAccounting::of_job(&running(), NOW);
    record.account = account.map(str::to_string);
    record.user_name = user.to_string();
    record.cpus = cpus;
    record.start = run.map(|r| r.0);
    record.end = run.map(|r| r.1);
    record.state = JobBaseState::Completed;
    record
}

/// The workload every test reads, with its CPU-seconds inside WINDOW worked out by hand:
/// phys/alice 4 CPUs from an hour before the window to an hour in: 4 × 3600 = 14400;
/// phys/bob 2 CPUs for the first two hours: 2 × 7200 = 14400;
/// chem/alice 1 CPU from 00:30 to 01:30: 3600;
/// theory/carol 8 CPUs from 09:00 to 11:00, cut at the window's end (10:00): 8 × 3600 = 28800;
/// a job without an account and one that never ran count nothing. The cluster allocated 61200 in all.
fn workload() -> Vec<JobAccounting> {
    vec![
        job(Some("phys"), "alice", 4, Some((DAY - H, DAY + H))),
        job(Some("phys"), "bob", 2, Some((DAY, DAY + 2 * H))),
        job(
            Some("chem"),
            "alice",
            1,
            Some((DAY + H / 2, DAY + 3 * H / 2)),
        ),
        job(
            Some("theory"),
            "carol",
            8,
            Some((DAY + 9 * H, DAY + 11 * H)),
        ),
        job(None, "dave", 16, Some((DAY, DAY + H))),
        job(Some("phys"), "erin", 16, None),
    ]
}

/// root → phys → theory, root → chem.
fn parent_of(account: &str) -> Option<String> {
    match account {
        "phys" | "chem" => Some("root".into()),
        "theory" => Some("phys".into()),
        _ => None,
    }
}

fn usage() -> BTreeMap<(String, String), u64> {
    assoc_usage(&workload(), WINDOW, NOW)
}

fn row(account: &str, user: Option<&str>, secs: u64, depth: usize) -> AssocRow {
    AssocRow {
        account: account.into(),
        user: user.map(str::to_string),
        secs,
        depth,
    }
}

fn users(list: &[&str]) -> AssocFilter {
    AssocFilter {
        users: list.iter().map(|u| u.to_string()).collect(),
        accounts: vec![],
    }
}

fn accounts(list: &[&str]) -> AssocFilter {
    AssocFilter {
        users: vec![],
        accounts: list.iter().map(|a| a.to_string()).collect(),
    }
}

#[test]
fn usage_by_association_clipped_to_the_window() {
    let u = usage();
    let get = |a: &str, user: &str| u.get(&(a.to_string(), user.to_string())).copied();
    assert_eq!(get("phys", "alice"), Some(14400));
    assert_eq!(get("phys", "bob"), Some(14400));
    assert_eq!(get("chem", "alice"), Some(3600));
    assert_eq!(get("theory", "carol"), Some(28800));
    assert_eq!(get("phys", "erin"), None);
    assert_eq!(u.len(), 4);
}

#[test]
fn account_tree_sums_usage_upwards_users_before_sub_accounts() {
    let rows = account_by_user(&usage(), &parent_of, &AssocFilter::default());
    assert_eq!(
        rows,
        vec![
            row("root", None, 61200, 0),
            row("chem", None, 3600, 1),
            row("chem", Some("alice"), 3600, 2),
            row("phys", None, 57600, 1),
            row("phys", Some("alice"), 14400, 2),
            row("phys", Some("bob"), 14400, 2),
            row("theory", None, 28800, 2),
            row("theory", Some("carol"), 28800, 3),
        ]
    );
}

#[test]
fn account_tree_from_the_accounts_named() {
    let rows = account_by_user(&usage(), &parent_of, &accounts(&["phys"]));
    assert_eq!(
        rows,
        vec![
            row("phys", None, 57600, 0),
            row("phys", Some("alice"), 14400, 1),
            row("phys", Some("bob"), 14400, 1),
            row("theory", None, 28800, 1),
            row("theory", Some("carol"), 28800, 2),
        ]
    );
}

#[test]
fn account_tree_of_named_users_is_their_rows_alone() {
    let rows = account_by_user(&usage(), &parent_of, &users(&["alice"]));
    assert_eq!(
        rows,
        vec![
            row("chem", Some("alice"), 3600, 0),
            row("phys", Some("alice"), 14400, 0),
        ]
    );
}

#[test]
fn a_parent_loop_is_not_followed() {
    let looped = |a: &str| Some(if a == "x" { "y" } else { "x" }.to_string());
    let mut u = BTreeMap::new();
    u.insert(("x".to_string(), "alice".to_string()), 60);
    let rows = account_by_user(&u, &looped, &AssocFilter::default());
    // x's chain is x, y and stops where it would come back to x: y is the top.
    assert_eq!(
        rows,
        vec![
            row("y", None, 60, 0),
            row("x", None, 60, 1),
            row("x", Some("alice"), 60, 2)
        ]
    );
}

#[test]
fn users_by_account_most_used_first_ties_by_name() {
    let rows = user_by_account(&usage(), &AssocFilter::default(), UserSort::Time);
    assert_eq!(
        rows,
        vec![
            row("theory", Some("carol"), 28800, 0),
            row("phys", Some("alice"), 14400, 0),
            row("phys", Some("bob"), 14400, 0),
            row("chem", Some("alice"), 3600, 0),
        ]
    );
    let by_name = user_by_account(&usage(), &AssocFilter::default(), UserSort::Name);
    let names: Vec<(&str, &str)> = by_name
        .iter()
        .map(|r| (r.user.as_deref().unwrap_or(""), r.account.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("alice", "chem"),
            ("alice", "phys"),
            ("bob", "phys"),
            ("carol", "theory")
        ]
    );
    let phys = user_by_account(&usage(), &accounts(&["phys"]), UserSort::Time);
    assert_eq!(phys.len(), 2);
}

#[test]
fn top_users_grouped_and_counted() {
    let grouped = top_users(&usage(), &AssocFilter::default(), true, UserSort::Time, 10);
    assert_eq!(
        grouped,
        vec![
            row("theory", Some("carol"), 28800, 0),
            row("chem, phys", Some("alice"), 18000, 0),
            row("phys", Some("bob"), 14400, 0),
        ]
    );
    let two = top_users(&usage(), &AssocFilter::default(), false, UserSort::Time, 2);
    assert_eq!(
        two,
        vec![
            row("theory", Some("carol"), 28800, 0),
            row("phys", Some("alice"), 14400, 0),
        ]
    );
    // TopCount=0: Slurm's loop checks the count after printing, so one row is printed.
    assert_eq!(
        top_users(&usage(), &AssocFilter::default(), false, UserSort::Time, 0).len(),
        1
    );
}

#[test]
fn proper_names_from_gecos_as_strtok_reads_them() {
    assert_eq!(proper_name("Alice Liddell,Room 1,,"), "Alice Liddell");
    assert_eq!(proper_name(",,,"), ",,,");
    assert_eq!(proper_name(""), "");
    assert_eq!(proper_name(",,Bob"), "Bob");
}

#[test]
fn field_names_and_their_shortest_prefixes() {
    use AssocReport::*;
    let au = |w: &str| AssocField::parse(AccountByUser, w);
    assert_eq!(au("a"), None);
    assert_eq!(au("ac"), Some(AssocField::Account));
    assert_eq!(au("p"), None);
    assert_eq!(au("pr"), Some(AssocField::Proper));
    assert_eq!(au("u"), Some(AssocField::Used));
    assert_eq!(au("e"), Some(AssocField::Energy));
    assert_eq!(au("w"), None);
    assert_eq!(au("wckey"), Some(AssocField::WcKey));
    assert_eq!(au("idle"), Some(AssocField::ClusterTime("Idle", 12, 20)));
    let top = |w: &str| AssocField::parse(TopUsage, w);
    assert_eq!(top("a"), Some(AssocField::Account));
    assert_eq!(top("p"), Some(AssocField::Proper));
    assert_eq!(top("idle"), None);
    let (fields, unknown) = assoc_fields(UserByAccount, &[]);
    assert_eq!(fields.len(), 6);
    assert_eq!(fields[3].0, AssocField::Account);
    let (fields, unknown_named) = assoc_fields(TopUsage, &["bogus".into(), "u%20".into()]);
    assert!(unknown.is_empty());
    assert_eq!(unknown_named, [" Unknown field 'bogus'"]);
    assert_eq!(fields, [(AssocField::Used, Some(20))]);
}

#[test]
fn title_names_the_window_and_its_seconds() {
    let out = Output {
        header: true,
        ..Output::default()
    };
    assert_eq!(
        title_with_secs("Cluster/Account/User Utilization", WINDOW, 0, out),
        format!(
            "{r}\nCluster/Account/User Utilization 2026-12-07T00:00:00 - 2026-12-07T09:59:59 (36000 secs)\n\
             Usage reported in CPU Minutes\n{r}\n",
            r = "-".repeat(80)
        )
    );
    let quiet = Output {
        header: false,
        ..out
    };
    assert_eq!(title_with_secs("Top 10 Users", WINDOW, 0, quiet), "");
}

fn proper(user: &str) -> Option<String> {
    match user {
        "alice" => Some(proper_name("Alice Liddell,,,")),
        "bob" => Some(proper_name(",,,")),
        _ => None,
    }
}

#[test]
fn account_report_printed_aligned() {
    let rows = account_by_user(&usage(), &parent_of, &AssocFilter::default());
    let (fields, _) = assoc_fields(AssocReport::AccountByUser, &[]);
    let print = AssocPrint {
        cluster: "c1",
        cluster_allocated: 61200,
        proper: &proper,
        tree: false,
    };
    let out = Output {
        header: true,
        ..Output::default()
    };
    let text = assoc_report(Some(&rows), &fields, &print, out);
    let line = |c: [&str; 6]| {
        format!(
            "{:>9} {:>15} {:>9} {:>15} {:>8} {:>8} \n",
            c[0], c[1], c[2], c[3], c[4], c[5]
        )
    };
    let mut expected = line([
        "Cluster",
        "Account",
        "Login",
        "Proper Name",
        "Used",
        "Energy",
    ]);
    expected.push_str("--------- --------------- --------- --------------- -------- -------- \n");
    // Minutes: 61200 s = 1020, 57600 = 960, 28800 = 480, 14400 = 240, 3600 = 60.
    for r in [
        ["c1", "root", "", "", "1020", "0"],
        ["c1", "chem", "", "", "60", "0"],
        ["c1", "chem", "alice", "Alice Liddell", "60", "0"],
        ["c1", "phys", "", "", "960", "0"],
        ["c1", "phys", "alice", "Alice Liddell", "240", "0"],
        ["c1", "phys", "bob", ",,,", "240", "0"],
        ["c1", "theory", "", "", "480", "0"],
        ["c1", "theory", "carol", "", "480", "0"],
    ] {
        expected.push_str(&line(r));
    }
    assert_eq!(text, expected);
    // Without rows (no hour of the window recorded) only the header is printed.
    let empty = assoc_report(None, &fields, &print, out);
    assert_eq!(empty.lines().count(), 2);
}

#[test]
fn tree_indents_accounts_and_users() {
    let rows = account_by_user(&usage(), &parent_of, &AssocFilter::default());
    let (fields, _) = assoc_fields(AssocReport::AccountByUser, &["ac".into(), "l".into()]);
    let print = AssocPrint {
        cluster: "c1",
        cluster_allocated: 61200,
        proper: &proper,
        tree: true,
    };
    let out = Output {
        header: false,
        layout: Layout::Parsable2,
        ..Output::default()
    };
    assert_eq!(
        assoc_report(Some(&rows), &fields, &print, out),
        "root|\n chem|\n  chem|alice\n phys|\n  phys|alice\n  phys|bob\n  theory|\n   theory|carol\n"
    );
}

#[test]
fn user_report_in_percent_parsable() {
    let rows = user_by_account(&usage(), &AssocFilter::default(), UserSort::Time);
    let (fields, _) = assoc_fields(AssocReport::UserByAccount, &[]);
    let print = AssocPrint {
        cluster: "c1",
        cluster_allocated: 61200,
        proper: &proper,
        tree: false,
    };
    let out = Output {
        header: true,
        layout: Layout::Parsable2,
        time: TimeFormat::Percent,
    };
    // 28800 / 61200 = 47.06 %, 14400 / 61200 = 23.53 %, 3600 / 61200 = 5.88 %; energy 0 of 0 (counted as 1).
    assert_eq!(
        assoc_report(Some(&rows), &fields, &print, out),
        "Cluster|Login|Proper Name|Account|Used|Energy\n\
         c1|carol||theory|47.06%|0.00%\n\
         c1|alice|Alice Liddell|phys|23.53%|0.00%\n\
         c1|bob|,,,|phys|23.53%|0.00%\n\
         c1|alice|Alice Liddell|chem|5.88%|0.00%\n"
    );
}

#[test]
fn usage_column_sized_to_the_first_row_over_any_width() {
    let big = vec![row("root", None, 1_000_000_000, 0)];
    let (fields, _) = assoc_fields(AssocReport::AccountByUser, &["u%3".into(), "ac%4".into()]);
    let print = AssocPrint {
        cluster: "c1",
        cluster_allocated: 1,
        proper: &proper,
        tree: false,
    };
    let out = Output {
        header: true,
        time: TimeFormat::Seconds,
        ..Output::default()
    };
    let text = assoc_report(Some(&big), &fields, &print, out);
    // Ten digits: width 10; the account column takes its %4 and cuts the name.
    assert_eq!(
        text,
        "      Used Acco \n---------- ---- \n1000000000 root \n"
    );
}

#[test]
fn wckey_reports_columns_and_an_empty_cluster_sizes_used_by_its_total() {
    let (fields, _) = assoc_fields(AssocReport::WckeyByUser, &[]);
    let names: Vec<AssocField> = fields.iter().map(|f| f.0).collect();
    use AssocField::*;
    assert_eq!(names, [Cluster, WcKey, Login, Proper, Used]);
    let print = AssocPrint {
        cluster: "c1",
        cluster_allocated: 1_000_000_000,
        proper: &proper,
        tree: false,
    };
    let out = Output {
        header: true,
        ..Output::default()
    };
    // The cluster used 10^9 s but no row is printed: Used is still 10 wide, as Slurm sizes it then.
    let text = assoc_report(Some(&[]), &fields, &print, out);
    let header = format!(
        "{:>9} {:>15} {:>9} {:>15} {:>10} ",
        "Cluster", "WCKey", "Login", "Proper Name", "Used"
    );
    assert_eq!(text.lines().next(), Some(header.as_str()));
    assert_eq!(text.lines().count(), 2);
    // No cluster recorded in the window: the narrowest column.
    let text = assoc_report(None, &fields, &print, out);
    assert_eq!(
        text.lines().nth(1),
        Some("--------- --------------- --------- --------------- -------- ")
    );
}

#[test]
fn roots_jobs_without_an_account_are_roots() {
    let mut root_job = job(None, "root", 1, Some((DAY, DAY + 30)));
    root_job.user_id = 0;
    let mut other = job(None, "dave", 1, Some((DAY, DAY + 30)));
    other.user_id = 1000;
    let u = assoc_usage(&[root_job, other], WINDOW, NOW);
    assert_eq!(
        u.into_iter().collect::<Vec<_>>(),
        [(("root".to_string(), "root".to_string()), 30)]
    );
}
