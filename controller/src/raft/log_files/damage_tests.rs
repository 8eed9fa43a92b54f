//! Damage to the segment files at open: only a last record cut short may be dropped, anything else is refused.

use super::*;

/// Records of a few sizes, so that fields land at many offsets.
fn payload(i: u64) -> Vec<u8> {
    format!("entry {i} {}", "x".repeat((i as usize * 7) % 23)).into_bytes()
}

fn entries(range: std::ops::Range<u64>) -> Vec<(u64, Vec<u8>)> {
    range.map(|i| (i, payload(i))).collect()
}

/// A directory holding one synced (acknowledged) segment of entries 1..=5; the segment's path and where its
/// records end. With `prefill` false the zeros after the records are cut away (as after a truncation); with it,
/// a few pages of them are kept (fewer than a live segment has, so that the exhaustive loops stay fast).
fn acknowledged_segment(prefill: bool) -> (tempfile::TempDir, PathBuf, u64) {
    let dir = tempfile::tempdir().unwrap();
    let mut log = LogFiles::open(dir.path(), 0).unwrap();
    log.append(&entries(1..6)).unwrap();
    log.sync().unwrap();
    let path = log.segments[0].path.clone();
    let end = log.segments[0].len;
    drop(log);
    let zeros = if prefill { 3 * 4096 } else { 0 };
    OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(end + zeros)
        .unwrap();
    (dir, path, end)
}

/// Opens the log after damage: every acknowledged entry back, or a refusal naming the file and a byte offset.
fn open_keeps_everything_or_refuses(dir: &Path, path: &Path, what: &str) -> bool {
    match LogFiles::open(dir, 0) {
        Ok(log) => {
            let held = log.read(0, None).unwrap();
            assert_eq!(
                held,
                entries(1..6),
                "{what}: an acknowledged entry was lost"
            );
            true
        }
        Err(e) => {
            let text = e.to_string();
            assert!(
                text.contains(&path.display().to_string()) && text.contains("at byte "),
                "{what}: the refusal names no file and offset: {text}"
            );
            false
        }
    }
}

fn flip_each_byte(prefill: bool, masks: &[u8]) {
    let (dir, path, end) = acknowledged_segment(prefill);
    let original = fs::read(&path).unwrap();
    // Every byte of the header and records, and the first bytes of the zeros after them.
    let upto = original.len().min(end as usize + 64);
    let mut refused = 0;
    for at in 0..upto {
        for &mask in masks {
            // Only the byte is rewritten: an open that cut the file restores it as it was.
            let file = OpenOptions::new().write(true).open(&path).unwrap();
            file.set_len(original.len() as u64).unwrap();
            file.write_all_at(&original[..upto], 0).unwrap();
            file.write_all_at(&[original[at] ^ mask], at as u64)
                .unwrap();
            drop(file);
            let what = format!("byte {at} ^ {mask:#04x} (prefill {prefill})");
            if !open_keeps_everything_or_refuses(dir.path(), &path, &what) {
                refused += 1;
            }
        }
    }
    // Every flip inside the records is damage to acknowledged data.
    assert!(refused >= end as usize * masks.len(), "{refused}");
}

#[test]
fn a_flipped_byte_anywhere_is_refused_or_loses_nothing() {
    flip_each_byte(false, &[0x01, 0x80, 0xff]);
}

#[test]
fn a_flipped_byte_anywhere_with_the_zeros_ahead_is_refused_or_loses_nothing() {
    flip_each_byte(true, &[0x01, 0xff]);
}

#[test]
fn a_flipped_byte_in_the_last_record_is_refused() {
    for prefill in [false, true] {
        let (dir, path, end) = acknowledged_segment(prefill);
        let original = fs::read(&path).unwrap();
        let mut record = Vec::new();
        encode_record(&mut record, 5, &payload(5)).unwrap();
        let start = end as usize - record.len();
        for at in start..end as usize {
            let mut damaged = original.clone();
            damaged[at] ^= 0x10;
            fs::write(&path, &damaged).unwrap();
            let err = LogFiles::open(dir.path(), 0)
                .err()
                .unwrap_or_else(|| panic!("byte {at} (prefill {prefill}) was not refused"));
            assert!(
                err.to_string().contains(&format!("at byte {start}")),
                "{err}"
            );
        }
    }
}

#[test]
fn a_last_record_cut_short_at_every_length_is_cut_off_cleanly() {
    for prefill in [false, true] {
        let (dir, path, end) = acknowledged_segment(prefill);
        let original = fs::read(&path).unwrap();
        let mut record = Vec::new();
        encode_record(&mut record, 6, b"never acknowledged, cut short by a crash").unwrap();
        for kept in 1..record.len() {
            // A short write: a prefix of the record, then the file's zeros (prefill) or its end.
            let mut torn = original.clone();
            let at = end as usize;
            if prefill {
                torn[at..at + kept].copy_from_slice(&record[..kept]);
            } else {
                torn.extend_from_slice(&record[..kept]);
            }
            fs::write(&path, &torn).unwrap();
            let mut log = LogFiles::open(dir.path(), 0)
                .unwrap_or_else(|e| panic!("{kept} bytes kept (prefill {prefill}): {e}"));
            assert_eq!(log.read(0, None).unwrap(), entries(1..6));
            assert_eq!(fs::metadata(&path).unwrap().len(), end);
            // The log goes on where the records end (checked for some lengths: each append fills a MiB ahead).
            if kept % 8 == 1 {
                log.append(&entries(6..7)).unwrap();
                drop(log);
                let log = LogFiles::open(dir.path(), 0).unwrap();
                assert_eq!(log.read(0, None).unwrap(), entries(1..7));
            }
            fs::write(&path, &original).unwrap();
        }
    }
}

#[test]
fn a_bad_record_followed_by_more_bytes_is_refused() {
    let (dir, path, _) = acknowledged_segment(true);
    let log = LogFiles::open(dir.path(), 0).unwrap();
    let second = log.segments[0].offsets[1] as usize;
    drop(log);
    let mut damaged = fs::read(&path).unwrap();
    // The second record's payload: its checksum fails, and the records after it are acknowledged.
    damaged[second + RECORD_HEADER_BYTES + 2] ^= 0x01;
    fs::write(&path, &damaged).unwrap();
    let err = LogFiles::open(dir.path(), 0).err().unwrap();
    let text = err.to_string();
    assert!(
        text.contains(&format!("damaged at byte {second}")),
        "{text}"
    );
    assert!(text.contains("checksum mismatch"), "{text}");
}

#[test]
fn a_grown_length_field_on_the_last_record_is_refused() {
    let (dir, path, end) = acknowledged_segment(true);
    let log = LogFiles::open(dir.path(), 0).unwrap();
    let last = log.segments[0].offsets[4] as usize;
    drop(log);
    let mut damaged = fs::read(&path).unwrap();
    // The record now claims to run into the zeros after it, as a record cut short would.
    damaged[last + 1] ^= 0x01;
    fs::write(&path, &damaged).unwrap();
    let err = LogFiles::open(dir.path(), 0).err().unwrap();
    assert!(err.to_string().contains("length field damaged"), "{err}");
    assert!(end as usize > last);
}

#[test]
fn bytes_after_the_end_of_the_records_are_refused() {
    let (dir, path, end) = acknowledged_segment(true);
    let mut damaged = fs::read(&path).unwrap();
    let at = end as usize + 4096;
    damaged[at] = 7;
    fs::write(&path, &damaged).unwrap();
    let err = LogFiles::open(dir.path(), 0).err().unwrap();
    assert!(
        err.to_string().contains(&format!("damaged at byte {at}")),
        "{err}"
    );
}

/// Found by fuzzing the segment loader: a segment named for the largest index (`18446744073709551615.seg`) whose
/// record carries that index made the loader count one past it, an overflow that panicked the controller at start.
/// Such a record is now damage the loader refuses, naming the file and the byte.
#[test]
fn a_record_at_the_largest_index_is_refused_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(segment_name(u64::MAX));
    let mut bytes = SEGMENT_HEADER.to_vec();
    encode_record(&mut bytes, u64::MAX, b"entry").unwrap();
    fs::write(&path, &bytes).unwrap();
    let e = LogFiles::open(dir.path(), 0)
        .err()
        .expect("the segment is refused");
    let text = e.to_string();
    assert!(
        text.contains(&path.display().to_string()) && text.contains("an index no log reaches"),
        "{text}"
    );
}
