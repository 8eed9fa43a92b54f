//! Property tests: no parser panics on arbitrary text, and printed forms read back to the same value.

use proptest::prelude::*;
use spur_core::grammar::values::{
    array, begin, bitmap, constraint, dependency, distribution, filename, gres, mail, nodes,
    signal, size, stepid, time,
};

/// Text drawn mostly from the characters these grammars care about, with some arbitrary Unicode.
fn grammar_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[0-9:\\-a-zA-Z ,%\\[\\]*_+.?&|()/=!@\\\\\t\n]{0,32}",
        "\\PC{0,24}",
        "[0-9]{0,25}[kKmMgGtT]?[bB]?",
    ]
}

fn now() -> impl Strategy<Value = begin::LocalNow> {
    (-4_000_000_000i64..8_000_000_000, -50_400i32..50_400).prop_map(
        |(epoch_secs, utc_offset_secs)| begin::LocalNow {
            epoch_secs,
            utc_offset_secs,
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn parsers_never_panic(s in grammar_text()) {
        let _ = time::parse_time_limit(&s);
        let _ = time::parse_time_secs(&s);
        let _ = size::parse_megabytes(&s);
        let _ = nodes::parse_node_count(&s);
        let _ = array::parse_array_spec(&s, 1001);
        let _ = array::xlate_array_task_str(&s, 3, Some(10));
        let _ = bitmap::bit_unfmt(128, &s);
        let _ = bitmap::bit_unfmt_hexmask(64, &s);
        let _ = dependency::parse_dependency(&s);
        let _ = gres::parse_gres(&s, &["gpu", "shard"]);
        let _ = gres::parse_gpus(&s, &["gpu", "shard"]);
        let _ = gres::parse_tres_per(&s);
        let _ = gres::parse_tres_list(&s);
        let _ = constraint::parse_constraint(&s).map(|c| c.matches(&|f: &str| f.len().is_multiple_of(2)));
        let _ = distribution::parse_distribution(&s);
        let _ = signal::parse_signal_spec(&s, true);
        let _ = signal::parse_scancel_signal(&s);
        let _ = mail::parse_mail_type(&s);
        let _ = stepid::parse_step_list(&s);
        let _ = array::bitstr_len_from_env(Some(&s));
        let _ = filename::single_task_io(&s);
    }

    #[test]
    fn parse_time_never_panics(s in grammar_text(), now in now(), past in any::<bool>()) {
        let _ = begin::parse_time(&s, now, past);
        let _ = begin::parse_begin(&s, now);
    }

    #[test]
    fn filename_expansion_never_panics(s in grammar_text(), job in any::<u32>(), task in proptest::option::of(any::<u32>())) {
        let ctx = filename::FilenameContext {
            job_id: job,
            array_job_id: task.map(|_| job),
            array_task_id: task,
            job_name: "name",
            node_name: "node1",
            node_id: 1,
            task_id: 2,
            user: "user",
            step: stepid::Step::Numbered(3),
        };
        let _ = filename::expand_filename(&s, &ctx);
    }

    #[test]
    fn durations_read_back(secs in 0i64..2_000_000_000) {
        let shown = time::format_duration(secs);
        prop_assert_eq!(time::parse_time_secs(&shown), Ok(Some(u32::try_from(secs).unwrap())));
    }

    #[test]
    fn civil_dates_round_trip(days in -3_000_000i64..3_000_000) {
        let (y, m, d) = begin::civil_from_days(days);
        prop_assert_eq!(begin::days_from_civil(y, m, i64::from(d)), days);
    }

    #[test]
    fn bitmaps_read_back(bits in proptest::collection::btree_set(0usize..300, 0..40)) {
        let map = bitmap::Bitmap::from_bits(300, bits.iter().copied()).unwrap();
        prop_assert_eq!(bitmap::bit_unfmt(300, &bitmap::bit_fmt(&map)), Ok(map.clone()));
        prop_assert_eq!(bitmap::bit_unfmt_hexmask(300, &bitmap::bit_fmt_hexmask(&map)), Ok(map));
    }

    #[test]
    fn printed_forms_read_back(s in grammar_text()) {
        if let Ok(c) = constraint::parse_constraint(&s) {
            let again = constraint::parse_constraint(&c.to_string()).unwrap();
            prop_assert_eq!(again.expr, c.expr);
        }
        if let Ok(ids) = stepid::parse_step_list(&s) {
            for id in ids {
                prop_assert_eq!(stepid::parse_step_id(&id.to_string()), Ok(id));
            }
        }
        if let Ok(d) = distribution::parse_distribution(&s) {
            prop_assert_eq!(distribution::parse_distribution(&d.to_string()), Ok(d));
        }
        if let Ok(spec) = signal::parse_signal_spec(&s, true) {
            prop_assert_eq!(signal::parse_signal_spec(&spec.to_string(), true), Ok(spec));
        }
        if let Ok(m) = mail::parse_mail_type(&s) {
            prop_assert_eq!(mail::parse_mail_type(&m.to_string()), Ok(m));
        }
        if let Ok(reqs) = gres::parse_gres(&s, &["gpu", "shard"]) {
            prop_assert_eq!(gres::parse_tres_per(&gres::format_tres_per(&reqs)), Ok(reqs));
        }
    }
}
