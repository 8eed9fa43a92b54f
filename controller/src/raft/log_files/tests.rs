use super::*;

fn entries(range: std::ops::Range<u64>) -> Vec<(u64, Vec<u8>)> {
    range
        .map(|i| (i, format!("entry {i}").into_bytes()))
        .collect()
}

fn indexes(log: &LogFiles) -> Vec<u64> {
    log.read(0, None)
        .unwrap()
        .into_iter()
        .map(|(i, _)| i)
        .collect()
}

fn segment_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn crc32c_matches_the_standard_check_value() {
    assert_eq!(crc32c(&[b"123456789"]), 0xE306_9283);
    assert_eq!(crc32c(&[b"1234", b"56789"]), 0xE306_9283);
}

#[test]
fn appends_read_back_and_survive_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = LogFiles::open(dir.path(), 0).unwrap();
    assert_eq!(log.last_index(), None);
    log.append(&entries(1..6)).unwrap();
    log.append(&entries(6..11)).unwrap();
    log.sync().unwrap();
    assert_eq!(log.read(3, Some(5)).unwrap(), entries(3..5));
    assert_eq!(log.last().unwrap(), Some((10, b"entry 10".to_vec())));
    drop(log);

    let log = LogFiles::open(dir.path(), 0).unwrap();
    assert_eq!(log.read(0, None).unwrap(), entries(1..11));
    assert_eq!(log.last_index(), Some(10));
    assert_eq!(segment_files(dir.path()), vec!["00000000000000000001.seg"]);
}

#[test]
fn an_append_out_of_order_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = LogFiles::open(dir.path(), 0).unwrap();
    log.append(&entries(1..4)).unwrap();
    assert!(log.append(&entries(5..6)).is_err());
    assert!(log.append(&entries(3..4)).is_err());
    log.append(&entries(4..5)).unwrap();
    assert_eq!(indexes(&log), vec![1, 2, 3, 4]);
}

#[test]
fn truncation_cuts_within_and_across_segments() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = LogFiles::open(dir.path(), 0).unwrap();
    log.append(&entries(1..21)).unwrap();
    log.truncate_from(15).unwrap();
    assert_eq!(log.last_index(), Some(14));
    // The entries after the cut are written again, as after a leader change.
    log.append(&[(15, b"again".to_vec())]).unwrap();
    log.sync().unwrap();
    drop(log);
    let mut log = LogFiles::open(dir.path(), 0).unwrap();
    assert_eq!(
        log.read(14, None).unwrap(),
        vec![(14, b"entry 14".to_vec()), (15, b"again".to_vec())]
    );
    log.truncate_from(1).unwrap();
    assert_eq!(log.last_index(), None);
    assert!(segment_files(dir.path()).is_empty());
    log.append(&entries(1..3)).unwrap();
    assert_eq!(indexes(&log), vec![1, 2]);
}

#[test]
fn purged_entries_are_hidden_at_once_and_whole_segments_go_after_finish() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = LogFiles::open(dir.path(), 0).unwrap();
    log.append(&entries(1..11)).unwrap();
    // Force a second segment: a new one starts when the active one is full.
    log.segments[0].len = SEGMENT_BYTES;
    log.append(&entries(11..16)).unwrap();
    log.segments[0].len = log.segments[0].record_end(9);
    log.sync().unwrap();
    assert_eq!(segment_files(dir.path()).len(), 2);

    log.purge_upto(12).unwrap();
    assert_eq!(indexes(&log), vec![13, 14, 15]);
    // Not unlinked until the purge point is durable elsewhere.
    assert_eq!(segment_files(dir.path()).len(), 2);
    log.finish_purge().unwrap();
    assert_eq!(segment_files(dir.path()), vec!["00000000000000000011.seg"]);
    drop(log);

    let log = LogFiles::open(dir.path(), 13).unwrap();
    assert_eq!(indexes(&log), vec![13, 14, 15]);
}

#[test]
fn a_crash_between_purge_and_unlink_leaves_segments_that_open_drops() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = LogFiles::open(dir.path(), 0).unwrap();
    log.append(&entries(1..6)).unwrap();
    log.segments[0].len = SEGMENT_BYTES;
    log.append(&entries(6..8)).unwrap();
    log.segments[0].len = log.segments[0].record_end(4);
    log.sync().unwrap();
    drop(log);
    // The purge point reached the database, the unlinking did not happen.
    let log = LogFiles::open(dir.path(), 6).unwrap();
    assert_eq!(indexes(&log), vec![6, 7]);
    assert_eq!(segment_files(dir.path()), vec!["00000000000000000006.seg"]);
}

#[test]
fn a_purge_past_the_last_entry_lets_the_log_start_again_later() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = LogFiles::open(dir.path(), 0).unwrap();
    log.append(&entries(1..4)).unwrap();
    log.sync().unwrap();
    // A snapshot installed from a leader purges past everything held.
    log.purge_upto(9).unwrap();
    log.finish_purge().unwrap();
    assert_eq!(log.last_index(), None);
    log.append(&entries(10..12)).unwrap();
    log.sync().unwrap();
    drop(log);
    let log = LogFiles::open(dir.path(), 10).unwrap();
    assert_eq!(indexes(&log), vec![10, 11]);
}

#[test]
fn a_torn_tail_is_cut_off_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = LogFiles::open(dir.path(), 0).unwrap();
    log.append(&entries(1..4)).unwrap();
    log.sync().unwrap();
    let path = log.segments[0].path.clone();
    let whole = log.segments[0].len;
    drop(log);
    // A record whose write was cut short: its header says more bytes than follow.
    let mut record = Vec::new();
    encode_record(&mut record, 4, b"never acknowledged").unwrap();
    let file = OpenOptions::new().write(true).open(&path).unwrap();
    file.write_all_at(&record[..record.len() - 5], whole)
        .unwrap();
    drop(file);

    let mut log = LogFiles::open(dir.path(), 0).unwrap();
    assert_eq!(indexes(&log), vec![1, 2, 3]);
    assert_eq!(fs::metadata(&path).unwrap().len(), whole);
    log.append(&entries(4..5)).unwrap();
    assert_eq!(indexes(&log), vec![1, 2, 3, 4]);
}

#[test]
fn a_damaged_record_in_an_older_segment_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = LogFiles::open(dir.path(), 0).unwrap();
    log.append(&entries(1..4)).unwrap();
    log.segments[0].len = SEGMENT_BYTES;
    log.append(&entries(4..6)).unwrap();
    log.segments[0].len = log.segments[0].record_end(2);
    log.sync().unwrap();
    let path = log.segments[0].path.clone();
    let at = log.segments[0].offsets[1] + RECORD_HEADER_BYTES as u64;
    drop(log);
    let file = OpenOptions::new().write(true).open(&path).unwrap();
    file.write_all_at(b"X", at).unwrap();
    drop(file);
    let err = LogFiles::open(dir.path(), 0).err().unwrap();
    assert!(err.to_string().contains("checksum mismatch"), "{err}");
}

#[test]
fn a_segment_left_without_records_is_removed_at_open() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join(segment_name(7)), SEGMENT_HEADER).unwrap();
    let mut log = LogFiles::open(dir.path(), 0).unwrap();
    assert_eq!(log.last_index(), None);
    assert!(segment_files(dir.path()).is_empty());
    log.append(&entries(7..9)).unwrap();
    assert_eq!(indexes(&log), vec![7, 8]);
}

#[test]
fn a_foreign_file_named_like_a_segment_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join(segment_name(1)), b"not a raft log at all").unwrap();
    let err = LogFiles::open(dir.path(), 0).err().unwrap();
    assert!(
        err.to_string().contains("not a Spur raft log segment"),
        "{err}"
    );
}

#[test]
fn the_active_segment_is_filled_ahead_and_the_zeros_read_as_its_end() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = LogFiles::open(dir.path(), 0).unwrap();
    log.append(&entries(1..4)).unwrap();
    log.sync().unwrap();
    let path = log.segments[0].path.clone();
    let records_end = log.segments[0].len;
    let size = fs::metadata(&path).unwrap().len();
    assert_eq!(size, records_end + PREFILL_BYTES);
    drop(log);

    let mut log = LogFiles::open(dir.path(), 0).unwrap();
    assert_eq!(indexes(&log), vec![1, 2, 3]);
    // Not taken for damage: the file keeps its zeros, and appends go where the records end.
    assert_eq!(fs::metadata(&path).unwrap().len(), size);
    log.append(&entries(4..5)).unwrap();
    log.sync().unwrap();
    drop(log);
    let log = LogFiles::open(dir.path(), 0).unwrap();
    assert_eq!(indexes(&log), vec![1, 2, 3, 4]);
}

#[test]
fn no_record_has_a_header_of_zeros() {
    let mut record = Vec::new();
    encode_record(&mut record, 0, b"").unwrap();
    assert!(record[..RECORD_HEADER_BYTES].iter().any(|&b| b != 0));
}
