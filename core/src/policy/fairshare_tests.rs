use super::*;
use crate::model::assoc::{AcctRequest, AssocSet};

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// root{root user, phys{alice}, chem{bob}}; sub{carol} under phys.
fn db() -> AcctDb {
    let mut db = AcctDb::initial("c");
    for (name, parent) in [("phys", None), ("chem", None), ("sub", Some("phys"))] {
        db.apply(&AcctRequest::AddAccounts {
            names: names(&[name]),
            parent: parent.map(str::to_string),
            description: None,
            organization: None,
            set: AssocSet::default(),
        })
        .unwrap();
    }
    for (user, account) in [("alice", "phys"), ("bob", "chem"), ("carol", "sub")] {
        db.apply(&AcctRequest::add_user(user, account, AssocSet::default()))
            .unwrap();
    }
    db
}

fn job<'a>(user: &'a str, rate: f64, start: EpochSecs, end: Option<EpochSecs>) -> JobUse<'a> {
    JobUse {
        user,
        account: None,
        partition: "debug",
        rate,
        start,
        end,
    }
}

fn no_decay() -> FairShareSettings {
    FairShareSettings {
        half_life_secs: 0,
        ..Default::default()
    }
}

#[test]
fn the_first_accrual_only_starts_the_clock() {
    let mut u = FairShareUsage::default();
    u.accrue(&db(), &no_decay(), [job("alice", 4.0, 0, None)], 100);
    assert_eq!(u.last_calc, Some(100));
    assert!(u.raw.is_empty());
}

#[test]
fn usage_is_rate_times_seconds_on_the_user_and_every_account_above() {
    let db = db();
    let mut u = FairShareUsage {
        last_calc: Some(100),
        ..Default::default()
    };
    // carol's job started before the last accrual: only 100..160 counts; bob's ended at 130; a job that has
    // not started yet by then counts nothing.
    let jobs = [
        job("carol", 2.0, 50, None),
        job("bob", 1.0, 110, Some(130)),
        job("alice", 8.0, 170, None),
    ];
    u.accrue(&db, &no_decay(), jobs, 160);
    assert_eq!(u.raw_of("sub|carol"), 120.0);
    assert_eq!(u.raw_of("sub"), 120.0);
    assert_eq!(u.raw_of("phys"), 120.0);
    assert_eq!(u.raw_of("chem|bob"), 20.0);
    assert_eq!(u.raw_of("root"), 140.0);
    assert_eq!(u.raw_of("phys|alice"), 0.0);
    assert_eq!(u.last_calc, Some(160));
    // Again at the same time: nothing more.
    u.accrue(&db, &no_decay(), [job("carol", 2.0, 50, None)], 160);
    assert_eq!(u.raw_of("root"), 140.0);
}

#[test]
fn usage_halves_every_half_life() {
    let db = db();
    let settings = FairShareSettings {
        half_life_secs: 60,
        ..Default::default()
    };
    let mut u = FairShareUsage {
        last_calc: Some(0),
        raw: [
            ("chem|bob".to_string(), 400.0),
            ("chem".into(), 400.0),
            ("root".into(), 400.0),
        ]
        .into(),
    };
    u.accrue(&db, &settings, [], 60);
    assert_eq!(u.raw_of("chem|bob"), 200.0);
    u.accrue(&db, &settings, [], 180);
    assert_eq!(u.raw_of("root"), 50.0);
    // New usage decays over its own stretch too: 60 s at rate 1 is worth 30 once it is counted.
    u.accrue(&db, &settings, [job("alice", 1.0, 0, None)], 240);
    assert_eq!(u.raw_of("phys|alice"), 30.0);
    assert_eq!(u.raw_of("root"), 25.0 + 30.0);
    // Accruing in steps decays the old usage as much as one accrual over the whole time.
    let mut once = u.clone();
    let mut steps = u.clone();
    once.accrue(&db, &settings, [], 300);
    steps.accrue(&db, &settings, [], 270);
    steps.accrue(&db, &settings, [], 300);
    assert!((once.raw_of("root") - steps.raw_of("root")).abs() < 1e-9);
}

#[test]
fn a_reset_period_clears_usage_when_it_turns() {
    let db = db();
    let settings = FairShareSettings {
        half_life_secs: 0,
        reset: UsageReset::Daily,
        ..Default::default()
    };
    let mut u = FairShareUsage {
        last_calc: Some(86_400 - 100),
        raw: [("root".to_string(), 5.0)].into(),
    };
    u.accrue(&db, &settings, [], 86_400 - 50);
    assert_eq!(u.raw_of("root"), 5.0, "same day");
    // Midnight passed: the old usage is gone; the job's seconds since the last accrual count in the new period.
    u.accrue(&db, &settings, [job("bob", 1.0, 0, None)], 86_400 + 10);
    assert_eq!(u.raw_of("root"), 60.0);
}

#[test]
fn reset_periods_turn_where_the_calendar_does() {
    // 2026-12-06 was a Sunday; 2026-10-01 starts a quarter.
    let day = |y, m, d| crate::grammar::values::begin::days_from_civil(y, m, d) * 86_400;
    let w = UsageReset::Weekly;
    assert_eq!(w.period(day(2026, 12, 5)), w.period(day(2026, 11, 29)));
    assert_ne!(
        w.period(day(2026, 12, 5) + 86_399),
        w.period(day(2026, 12, 6))
    );
    let q = UsageReset::Quarterly;
    assert_eq!(q.period(day(2026, 7, 1)), q.period(day(2026, 9, 30)));
    assert_ne!(q.period(day(2026, 9, 30)), q.period(day(2026, 10, 1)));
    assert_ne!(
        UsageReset::Monthly.period(day(2026, 1, 31)),
        UsageReset::Monthly.period(day(2026, 2, 1))
    );
    assert_ne!(
        UsageReset::Yearly.period(day(2026, 12, 31)),
        UsageReset::Yearly.period(day(2027, 1, 1))
    );
    assert_eq!(UsageReset::None.period(5), None);
    assert_eq!(UsageReset::parse("quarterly"), Some(UsageReset::Quarterly));
    assert_eq!(UsageReset::parse("sometimes"), None);
}

#[test]
fn jobs_without_an_association_count_nothing_and_deleted_associations_are_forgotten() {
    let mut db = db();
    let mut u = FairShareUsage {
        last_calc: Some(0),
        ..Default::default()
    };
    let stranger = JobUse {
        account: Some("phys"),
        ..job("mallory", 1.0, 0, None)
    };
    let elsewhere = JobUse {
        account: Some("chem"),
        ..job("alice", 1.0, 0, None)
    };
    u.accrue(
        &db,
        &no_decay(),
        [stranger, elsewhere, job("bob", 1.0, 0, None)],
        10,
    );
    assert_eq!(u.raw_of("root"), 10.0, "only bob's job has an association");
    db.apply(&AcctRequest::DeleteUsers {
        names: names(&["bob"]),
        accounts: Vec::new(),
    })
    .unwrap();
    u.accrue(&db, &no_decay(), [], 20);
    assert_eq!(u.raw_of("chem|bob"), 0.0);
    assert!(!u.raw.contains_key("chem|bob"));
    assert_eq!(
        u.raw_of("chem"),
        10.0,
        "the account keeps what was used in it"
    );
}

fn parse(text: &str) -> crate::grammar::conf::SlurmConf {
    let text = format!("ClusterName=c\nSlurmctldHost=h\n{text}");
    crate::grammar::conf::SlurmConf::parse_str(&text, "slurm.conf").unwrap()
}

#[test]
fn settings_come_from_slurm_conf() {
    let conf = parse(
        "PriorityDecayHalfLife=1-12\nPriorityUsageResetPeriod=WEEKLY\nPriorityFlags=SMALL_RELATIVE_TO_TIME,NO_FAIR_TREE\n",
    );
    let s = FairShareSettings::from_conf(&conf);
    assert_eq!(s.half_life_secs, 36 * 3600);
    assert_eq!(s.reset, UsageReset::Weekly);
    assert!(!s.fair_tree);
    let none = parse("PriorityDecayHalfLife=0\n");
    let s = FairShareSettings::from_conf(&none);
    assert_eq!((s.half_life_secs, s.fair_tree), (0, true));
    assert!(
        !s.with_slurmdbd,
        "no AccountingStorageType: Slurm computes no fair-share"
    );
    let dbd = parse("AccountingStorageType=accounting_storage/slurmdbd\n");
    assert!(FairShareSettings::from_conf(&dbd).with_slurmdbd);
    assert_eq!(s.decay(1_000_000), 1.0);
    assert_eq!(FairShareSettings::default().half_life_secs, 7 * 86_400);
}
