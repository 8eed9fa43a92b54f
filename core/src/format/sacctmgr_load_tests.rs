use super::*;
use crate::model::assoc::AcctDb;

fn args() -> LoadArgs {
    LoadArgs {
        file: Some("f".into()),
        ..LoadArgs::default()
    }
}

fn out(plan: &Plan) -> String {
    plan.prints
        .iter()
        .map(|p| match p {
            Print::Out(t) => t.clone(),
            Print::Err(t) => format!("ERR{t}"),
        })
        .collect()
}

#[test]
fn a_new_hierarchy_is_one_batch_and_dumps_back_as_written() {
    let db = AcctDb::initial("c1");
    let text = "Cluster - 'c1':Fairshare=1:QOS='normal'\nParent - 'root'\n\
Account - 'bio':Description='Biology':Organization='sci':Fairshare=20:GrpTRES=cpu=16:GrpJobs=30\n\
Parent - 'bio'\nUser - 'dave':DefaultAccount='bio':Fairshare=2:MaxJobs=3:MaxTRESPerJob=mem=8g,cpu=4\n";
    let plan = plan(&db, text, &args(), Layout::Columns);
    assert!(plan.ok && plan.set, "{}", out(&plan));
    assert_eq!(plan.requests.len(), 2);
    let text = out(&plan);
    assert!(text.starts_with("For cluster c1\nAccounts\n"), "{text}");
    assert!(
        text.contains("       bio              biology                  sci"),
        "{text}"
    );
    assert!(text.contains("cpu=4,mem=8G"), "{text}");
    let mut after = db.clone();
    after
        .apply(&AcctRequest::Batch {
            requests: plan.requests,
        })
        .expect("batch applies");
    let dump = crate::format::sacctmgr_file::dump_lines(&after, "c1").join("\n");
    assert_eq!(
        dump,
        "Cluster - 'c1':Fairshare=1:QOS='normal'\nParent - 'root'\n\
User - 'root':DefaultAccount='root':AdminLevel='Administrator':Fairshare=1\n\
Account - 'bio':Description='biology':Organization='sci':Fairshare=20:GrpTRES=cpu=16:GrpJobs=30\n\
Parent - 'bio'\nUser - 'dave':DefaultAccount='bio':Fairshare=2:MaxTRESPerJob=cpu=4,mem=8G:MaxJobs=3"
    );
}

#[test]
fn changes_to_what_exists_are_reported_as_sacctmgr_reports_them() {
    let db = AcctDb::initial("c1");
    let first = "Cluster - 'c1'\nParent - 'root'\nAccount - 'bio':Fairshare=20:GrpTRES=cpu=16\n";
    let p = plan(&db, first, &args(), Layout::Columns);
    let mut db2 = db.clone();
    db2.apply(&AcctRequest::Batch {
        requests: p.requests,
    })
    .expect("applies");
    let second = "Cluster - 'c1'\nParent - 'root'\nAccount - 'bio':Description='Bio Dept':Fairshare=25:GrpTRES=cpu=32\n";
    let p = plan(&db2, second, &args(), Layout::Columns);
    assert_eq!(
        out(&p),
        "For cluster c1\n Changed description           for Account bio             bio -> bio dept\n Changed fairshare             for Account bio              20 -> 25\n Changed GrpTRES               for Account bio            1=16 -> 1=32\n"
    );
    let again = plan(&db2, first, &args(), Layout::Columns);
    assert!(!again.set && again.ok);
}

#[test]
fn bad_lines_stop_the_load_with_sacctmgrs_messages() {
    let db = AcctDb::initial("c1");
    let p = plan(&db, "Cluster - 'c1'\nFoo - 'x'\n", &args(), Layout::Columns);
    assert!(!p.ok && p.failed);
    assert!(
        out(&p).ends_with("ERR Misformatted line(2): Foo - 'x'\n\n"),
        "{}",
        out(&p)
    );
    let p = plan(&db, "Parent - 'root'\n", &args(), Layout::Columns);
    assert!(p.ok && p.failed && !p.set);
    let p = plan(
        &db,
        "Cluster - 'c1'\nParent - 'nosuch'\n",
        &args(),
        Layout::Columns,
    );
    assert!(out(&p).contains("line(2) You need to add this parent (nosuch)"));
    let p = plan(
        &db,
        "Cluster - 'c1'\nAccount - 'x':GrpWall=10\n",
        &args(),
        Layout::Columns,
    );
    assert!(!p.ok && p.requests.is_empty(), "{}", out(&p));
    let p = plan(&db, "Cluster - 'other'\n", &args(), Layout::Columns);
    assert!(!p.ok);
    let loaded = load_args(&["f.cfg".into(), "bogus=1".into(), "cluster=c1".into()]);
    assert_eq!(loaded.file.as_deref(), Some("f.cfg"));
    assert_eq!(loaded.errors, vec![" Unknown option: bogus=1".to_string()]);
}
