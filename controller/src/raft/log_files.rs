//! The raft log as append-only segment files.
//!
//! redb commits copy-on-write: one log entry rewrote about a dozen 4 KiB pages scattered over the file, and the
//! fsync of those pages was most of a submission's commit. Here an append is one `pwrite` at the end of the active
//! segment and the group commit's one `fdatasync` flushes a few contiguous blocks.
//!
//! A segment is named by the index of its first entry (`00000000000000000042.seg`), starts with an 8-byte
//! header, and holds records of `[payload length u32][crc32c u32][index u64][payload]` (little endian; the
//! checksum covers the index and the payload). Only one kind of damage is repaired at open: the last record of the
//! last segment cut short by a crash (a short write: its header or its body ends early, in end of file or in the
//! zeros the file was filled with ahead), which was never acknowledged since the acknowledgement waits for the sync.
//! Anything else (a bad checksum on a record whose every byte is there, bytes after a bad record, a flipped byte
//! anywhere) is refused with the file and byte offset named, rather than guessed around: cutting there would drop
//! acknowledged entries.
//!
//! Purged entries are forgotten at once and their whole segments unlinked only once the purge point is durable in
//! the database ([`LogFiles::finish_purge`]), so a crash in between leaves entries the database still counts as
//! present.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::error::StoreError;

const SEGMENT_HEADER: &[u8; 8] = b"spurwal\x01";
const RECORD_HEADER_BYTES: usize = 16;
const SEGMENT_SUFFIX: &str = ".seg";
/// A new segment is started once the active one has grown past this; purging works by whole segments.
const SEGMENT_BYTES: u64 = 64 << 20;
/// How far ahead of the records the active segment's file is filled with zeros. Overwriting blocks the file
/// already has needs no change to its size or extents, so the sync after an append flushes the data alone; growing
/// the file at every append also wrote its inode (ext4 without a journal) or committed the journal (with one), which
/// made each sync about half again as long.
const PREFILL_BYTES: u64 = 1 << 20;
/// A payload longer than this is taken for a damaged length field, not an entry.
const MAX_PAYLOAD_BYTES: u32 = 1 << 30;

pub(crate) struct LogFiles {
    dir: PathBuf,
    segments: Vec<Segment>,
    /// The first index that may be read: entries below it were purged, even where their segment is kept.
    floor: u64,
    /// Purged segments, unlinked once the purge point is durable.
    doomed: Vec<PathBuf>,
    /// Set by the first failed write or sync: what is on disk is then unknown, so every later call fails.
    failed: Option<String>,
    /// The first index appended since [`begin_batch`](Self::begin_batch), for [`undo_appends`](Self::undo_appends).
    appended_from: Option<u64>,
}

struct Segment {
    first: u64,
    path: PathBuf,
    file: File,
    /// Byte offset of each record: entry `first + i` starts at `offsets[i]`.
    offsets: Vec<u64>,
    /// The end of the records.
    len: u64,
    /// The file's size: zeros from `len` on.
    allocated: u64,
    /// Written (or cut) since the last sync.
    unsynced: bool,
}

impl Segment {
    /// One past the last index held.
    fn end(&self) -> u64 {
        self.first + self.offsets.len() as u64
    }

    fn record_end(&self, slot: usize) -> u64 {
        self.offsets.get(slot + 1).copied().unwrap_or(self.len)
    }
}

fn segment_name(first: u64) -> String {
    format!("{first:020}{SEGMENT_SUFFIX}")
}

fn parse_segment_name(name: &str) -> Option<u64> {
    let digits = name.strip_suffix(SEGMENT_SUFFIX)?;
    (digits.len() == 20 && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

fn io_error(e: io::Error) -> StoreError {
    StoreError::Log(std::sync::Arc::new(e))
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// One record as read back: its index and payload, or why it is not one.
enum Parsed<'a> {
    Record {
        index: u64,
        payload: &'a [u8],
        len: usize,
    },
    /// Too few bytes left for the record (the tail of a write cut short).
    Short,
    /// A header of zeros: the prefilled space after the last record.
    End,
    Bad(String),
}

/// A record header's fields: payload length, checksum and the index's bytes. The layout is spelled as a pattern,
/// so no field is read by an index that could miss.
fn header_fields(header: &[u8; RECORD_HEADER_BYTES]) -> (u32, u32, [u8; 8]) {
    let [l0, l1, l2, l3, c0, c1, c2, c3, i0, i1, i2, i3, i4, i5, i6, i7] = *header;
    (
        u32::from_le_bytes([l0, l1, l2, l3]),
        u32::from_le_bytes([c0, c1, c2, c3]),
        [i0, i1, i2, i3, i4, i5, i6, i7],
    )
}

fn parse_record(bytes: &[u8]) -> Parsed<'_> {
    let Some(header) = bytes.first_chunk::<RECORD_HEADER_BYTES>() else {
        return Parsed::Short;
    };
    if header.iter().all(|&b| b == 0) {
        return Parsed::End;
    }
    let (payload_len, crc, index_bytes) = header_fields(header);
    if payload_len > MAX_PAYLOAD_BYTES {
        return Parsed::Bad(format!("record length {payload_len}"));
    }
    let len = RECORD_HEADER_BYTES + payload_len as usize;
    let Some(payload) = bytes.get(RECORD_HEADER_BYTES..len) else {
        return Parsed::Short;
    };
    if crc32c(&[&index_bytes, payload]) != crc {
        return Parsed::Bad("checksum mismatch".into());
    }
    Parsed::Record {
        index: u64::from_le_bytes(index_bytes),
        payload,
        len,
    }
}

fn encode_record(out: &mut Vec<u8>, index: u64, payload: &[u8]) -> Result<(), StoreError> {
    let payload_len = u32::try_from(payload.len())
        .ok()
        .filter(|&n| n <= MAX_PAYLOAD_BYTES)
        .ok_or_else(|| {
            StoreError::corrupt(
                "log entry",
                format!("entry {index} is {} bytes", payload.len()),
            )
        })?;
    let index_bytes = index.to_le_bytes();
    out.extend_from_slice(&payload_len.to_le_bytes());
    out.extend_from_slice(&crc32c(&[&index_bytes, payload]).to_le_bytes());
    out.extend_from_slice(&index_bytes);
    out.extend_from_slice(payload);
    Ok(())
}

impl LogFiles {
    /// Opens the segments in `dir` (creating it), cutting off a torn tail and dropping segments wholly below
    /// `floor` (left by a purge whose unlinking a crash interrupted).
    pub(crate) fn open(dir: &Path, floor: u64) -> io::Result<Self> {
        fs::create_dir_all(dir)?;
        let mut firsts = Vec::new();
        for entry in fs::read_dir(dir)? {
            let entry = entry?;
            if let Some(first) = entry.file_name().to_str().and_then(parse_segment_name) {
                firsts.push(first);
            }
        }
        firsts.sort_unstable();
        let mut segments: Vec<Segment> = Vec::with_capacity(firsts.len());
        let count = firsts.len();
        for (i, first) in firsts.into_iter().enumerate() {
            let path = dir.join(segment_name(first));
            let is_last = i + 1 == count;
            let Some(segment) = load_segment(&path, first, is_last)? else {
                continue;
            };
            if let Some(prev) = segments.last() {
                if !prev.offsets.is_empty() && prev.end() != segment.first {
                    return Err(corrupted(format!(
                        "raft log segment {} starts at {} but the one before ends at {}",
                        path.display(),
                        segment.first,
                        prev.end()
                    )));
                }
            }
            segments.push(segment);
        }
        let mut log = LogFiles {
            dir: dir.to_path_buf(),
            segments,
            floor,
            doomed: Vec::new(),
            failed: None,
            appended_from: None,
        };
        if log.drop_segments_below(floor) {
            log.finish_purge()
                .map_err(|e| io::Error::other(e.to_string()))?;
        }
        Ok(log)
    }

    fn check(&self) -> Result<(), StoreError> {
        match &self.failed {
            Some(reason) => Err(StoreError::corrupt(
                "raft log",
                format!("an earlier write failed ({reason}); restart the controller"),
            )),
            None => Ok(()),
        }
    }

    fn fail(&mut self, e: io::Error) -> StoreError {
        self.failed = Some(e.to_string());
        io_error(e)
    }

    /// The index the next append must have, if any entry is held.
    fn next_index(&self) -> Option<u64> {
        self.segments
            .iter()
            .rev()
            .find(|s| !s.offsets.is_empty())
            .map(Segment::end)
    }

    pub(crate) fn last_index(&self) -> Option<u64> {
        self.next_index().map(|n| n - 1)
    }

    /// Appends consecutive entries after the last one held (any index when none is held). Not durable until
    /// [`sync`](Self::sync).
    pub(crate) fn append(&mut self, entries: &[(u64, Vec<u8>)]) -> Result<(), StoreError> {
        self.check()?;
        let Some((first_index, _)) = entries.first() else {
            return Ok(());
        };
        let next = self.next_index().unwrap_or(*first_index);
        let mut buf = Vec::with_capacity(
            entries
                .iter()
                .map(|(_, p)| p.len() + RECORD_HEADER_BYTES)
                .sum(),
        );
        let mut offsets = Vec::with_capacity(entries.len());
        for (expected, (index, payload)) in (next..).zip(entries) {
            if *index != expected {
                return Err(StoreError::corrupt(
                    "raft log",
                    format!("append of entry {index} where entry {expected} comes next"),
                ));
            }
            offsets.push(buf.len() as u64);
            encode_record(&mut buf, *index, payload)?;
        }
        let needs_segment = self.segments.last().is_none_or(|s| s.len >= SEGMENT_BYTES);
        if needs_segment {
            if let Err(e) = self.start_segment(*first_index) {
                return Err(self.fail(e));
            }
        }
        let Some(segment) = self.segments.last_mut() else {
            return Err(StoreError::corrupt("raft log", "no segment to append to"));
        };
        // The space is taken before the records are written: on a full disk the fill fails and no byte of the
        // records reaches the file, so an append refused for want of space cannot come back after a restart.
        let end = segment.len + buf.len() as u64;
        let filled = if end <= segment.allocated {
            Ok(())
        } else {
            let from = segment.allocated.max(segment.len);
            let until = end + PREFILL_BYTES;
            segment
                .file
                .write_all_at(&vec![0u8; (until - from) as usize], from)
                .map(|()| segment.allocated = until)
        };
        let written = filled.and_then(|()| segment.file.write_all_at(&buf, segment.len));
        if let Err(e) = written {
            // Part of the records may have reached the file: cut them away, so that none is read back at the next
            // start (whole ones would pass their checksums).
            if let Err(cut) = segment
                .file
                .set_len(segment.len)
                .and_then(|()| segment.file.sync_all())
            {
                tracing::error!(segment = %segment.path.display(), error = %cut, "could not cut a failed append off the raft log");
            }
            segment.allocated = segment.len;
            return Err(self.fail(e));
        }
        let base = segment.len;
        segment
            .offsets
            .extend(offsets.into_iter().map(|o| base + o));
        segment.len += buf.len() as u64;
        segment.unsynced = true;
        self.appended_from.get_or_insert(*first_index);
        Ok(())
    }

    /// Starts a group of operations whose appends [`undo_appends`](Self::undo_appends) may take back.
    pub(crate) fn begin_batch(&mut self) {
        self.appended_from = None;
    }

    /// Takes back the appends since [`begin_batch`](Self::begin_batch): the batch they were part of failed, so
    /// none of it may be reported or read as written. Tried even after a failed write or sync (which is most often
    /// why the batch failed): records that reached the file without being acknowledged must not come back at the
    /// next start as entries nobody was told about.
    pub(crate) fn undo_appends(&mut self) -> Result<(), StoreError> {
        let Some(from) = self.appended_from.take() else {
            return Ok(());
        };
        let failed = self.failed.take();
        let result = self.truncate_from(from);
        // A failure stays a failure: what is on disk is still unknown to the rest of this process.
        if let Some(reason) = failed {
            self.failed.get_or_insert(reason);
        }
        result
    }

    /// Why the log refuses all work, if an earlier write or sync failed.
    pub(crate) fn failure(&self) -> Option<&str> {
        self.failed.as_deref()
    }

    fn start_segment(&mut self, first: u64) -> io::Result<()> {
        let path = self.dir.join(segment_name(first));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)?;
        file.write_all_at(SEGMENT_HEADER, 0)?;
        // The new name must survive a crash as much as the records written into the file.
        sync_dir(&self.dir)?;
        self.segments.push(Segment {
            first,
            path,
            file,
            offsets: Vec::new(),
            len: SEGMENT_HEADER.len() as u64,
            allocated: SEGMENT_HEADER.len() as u64,
            unsynced: true,
        });
        Ok(())
    }

    /// Makes every append and cut so far durable.
    pub(crate) fn sync(&mut self) -> Result<(), StoreError> {
        self.check()?;
        let synced = self
            .segments
            .iter_mut()
            .filter(|s| s.unsynced)
            .try_for_each(|s| {
                s.file.sync_data()?;
                s.unsynced = false;
                Ok(())
            });
        synced.map_err(|e| self.fail(e))
    }

    /// Entries with `start <= index < end` (`end == None`: to the last), in order; purged ones are not returned.
    pub(crate) fn read(
        &self,
        start: u64,
        end: Option<u64>,
    ) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
        self.check()?;
        let start = start.max(self.floor);
        let mut out = Vec::new();
        for segment in &self.segments {
            let from = start.max(segment.first);
            let to = end.map_or(segment.end(), |e| e.min(segment.end()));
            if from >= to {
                continue;
            }
            let first_slot = (from - segment.first) as usize;
            let last_slot = (to - 1 - segment.first) as usize;
            // `first <= from < end()`, so the slot is there; a miss is reported, not a panic.
            let Some(&at) = segment.offsets.get(first_slot) else {
                return Err(StoreError::corrupt(
                    "raft log",
                    format!("entry {from} of {} has no offset", segment.path.display()),
                ));
            };
            let until = segment.record_end(last_slot);
            let mut buf = vec![0u8; (until - at) as usize];
            segment.file.read_exact_at(&mut buf, at).map_err(io_error)?;
            let mut rest = buf.as_slice();
            for expected in from..to {
                match parse_record(rest) {
                    Parsed::Record {
                        index,
                        payload,
                        len,
                    } if index == expected => {
                        out.push((index, payload.to_vec()));
                        // `len` bytes were just parsed from `rest`; were they not, the next entry reads as cut short.
                        rest = rest.get(len..).unwrap_or_default();
                    }
                    Parsed::Record { index, .. } => {
                        return Err(StoreError::corrupt(
                            "raft log",
                            format!(
                                "entry {expected} of {} reads as entry {index}",
                                segment.path.display()
                            ),
                        ))
                    }
                    Parsed::Short | Parsed::End => {
                        return Err(StoreError::corrupt(
                            "raft log",
                            format!(
                                "entry {expected} of {} is cut short",
                                segment.path.display()
                            ),
                        ))
                    }
                    Parsed::Bad(reason) => {
                        return Err(StoreError::corrupt(
                            "raft log",
                            format!("entry {expected} of {}: {reason}", segment.path.display()),
                        ))
                    }
                }
            }
        }
        Ok(out)
    }

    /// The last entry held, if any.
    pub(crate) fn last(&self) -> Result<Option<(u64, Vec<u8>)>, StoreError> {
        match self.last_index() {
            Some(last) if last >= self.floor => Ok(self.read(last, None)?.pop()),
            _ => Ok(None),
        }
    }

    /// Removes the entries with `index >= from`, durably when this returns.
    pub(crate) fn truncate_from(&mut self, from: u64) -> Result<(), StoreError> {
        self.check()?;
        let mut unlinked = false;
        while let Some(segment) = self.segments.last() {
            if segment.first < from {
                break;
            }
            let path = segment.path.clone();
            self.segments.pop();
            if let Err(e) = fs::remove_file(&path) {
                return Err(self.fail(e));
            }
            unlinked = true;
        }
        if unlinked {
            if let Err(e) = sync_dir(&self.dir) {
                return Err(self.fail(e));
            }
        }
        if let Some(segment) = self.segments.last_mut() {
            if from < segment.end() {
                let slot = (from - segment.first) as usize;
                // The segments from `from` on were unlinked above, so `first < from < end()`: the slot is there.
                let Some(&cut) = segment.offsets.get(slot) else {
                    return Err(StoreError::corrupt(
                        "raft log",
                        format!("entry {from} of {} has no offset", segment.path.display()),
                    ));
                };
                let result = segment
                    .file
                    .set_len(cut)
                    .and_then(|()| segment.file.sync_all());
                segment.offsets.truncate(slot);
                segment.len = cut;
                segment.allocated = cut;
                segment.unsynced = false;
                if let Err(e) = result {
                    return Err(self.fail(e));
                }
            }
        }
        Ok(())
    }

    /// Forgets the entries with `index <= upto`. Segments holding nothing newer are unlinked by
    /// [`finish_purge`](Self::finish_purge), once the caller has made the purge point durable.
    pub(crate) fn purge_upto(&mut self, upto: u64) -> Result<(), StoreError> {
        self.check()?;
        let floor = upto.saturating_add(1);
        if floor > self.floor {
            self.floor = floor;
        }
        self.drop_segments_below(self.floor);
        Ok(())
    }

    /// Moves the segments holding only entries below `floor` to the doomed list; true if there were any.
    fn drop_segments_below(&mut self, floor: u64) -> bool {
        let keep_from = self
            .segments
            .iter()
            .position(|s| s.end() > floor)
            .unwrap_or(self.segments.len());
        let dropped: Vec<Segment> = self.segments.drain(..keep_from).collect();
        let any = !dropped.is_empty();
        self.doomed.extend(dropped.into_iter().map(|s| s.path));
        any
    }

    /// Unlinks the segments a purge dropped.
    pub(crate) fn finish_purge(&mut self) -> Result<(), StoreError> {
        if self.doomed.is_empty() {
            return Ok(());
        }
        for path in std::mem::take(&mut self.doomed) {
            match fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(io_error(e)),
            }
        }
        sync_dir(&self.dir).map_err(io_error)
    }

    /// Drops the purge's pending unlinks when the purge point could not be made durable: the files still count.
    pub(crate) fn keep_doomed(&mut self) {
        self.doomed.clear();
    }

    /// Removes every segment (a migration that restarts).
    pub(crate) fn clear(&mut self) -> io::Result<()> {
        for segment in self.segments.drain(..) {
            fs::remove_file(&segment.path)?;
        }
        sync_dir(&self.dir)
    }
}

fn corrupted(reason: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, reason)
}

/// Reads one segment's records. A last record of the last segment cut short by a crash is cut off (it was never
/// acknowledged, see [`torn_last_record`]); a last segment left without a whole record (its creation was cut short)
/// is removed; any other damage is refused, naming the file and the byte where it starts.
fn load_segment(path: &Path, first: u64, is_last: bool) -> io::Result<Option<Segment>> {
    let bytes = fs::read(path)?;
    let file = OpenOptions::new().read(true).write(true).open(path)?;
    let (offsets, len, allocated) = match scan_segment(path, &bytes, first, is_last)
        .map_err(corrupted)?
    {
        Scanned::Unfinished => {
            drop(file);
            remove_unfinished(path)?;
            return Ok(None);
        }
        Scanned::Records {
            offsets,
            len,
            torn: Some(damage),
        } => {
            tracing::warn!(
                segment = %path.display(),
                byte = len,
                %damage,
                "cutting off the raft log's last record, cut short by a crash before it was acknowledged"
            );
            file.set_len(len)?;
            file.sync_all()?;
            (offsets, len, len)
        }
        Scanned::Records {
            offsets,
            len,
            torn: None,
        } => (offsets, len, bytes.len() as u64),
    };
    Ok(Some(Segment {
        first,
        path: path.to_path_buf(),
        file,
        offsets,
        len,
        allocated,
        unsynced: false,
    }))
}

/// What a segment's bytes hold, as [`scan_segment`] read them.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Scanned {
    /// The last segment, created but without a whole record: it is removed.
    Unfinished,
    /// Records start at `offsets` and end at `len`; `torn` says why the bytes from `len` on (the last write, cut
    /// short) are cut off, if they are.
    Records {
        offsets: Vec<u64>,
        len: u64,
        torn: Option<String>,
    },
}

/// The records of the segment `path` (named by its `first` index) from its bytes: no I/O, so it can be fuzzed.
/// Refused damage is the error, naming the file and the byte.
pub(crate) fn scan_segment(
    path: &Path,
    bytes: &[u8],
    first: u64,
    is_last: bool,
) -> Result<Scanned, String> {
    if is_last && bytes.len() < SEGMENT_HEADER.len() && SEGMENT_HEADER.starts_with(bytes) {
        return Ok(Scanned::Unfinished);
    }
    if !bytes.starts_with(SEGMENT_HEADER) {
        return Err(format!(
            "{} is not a Spur raft log segment (its header at byte 0 does not match)",
            path.display()
        ));
    }
    // Everything after the records must be the zeros the file was filled with: a byte that is not is damage.
    let last_nonzero = bytes.iter().rposition(|&b| b != 0).unwrap_or(0);
    let damaged = |at: usize, damage: String| {
        format!(
            "raft log segment {} is damaged at byte {at}: {damage}; refusing to start rather than drop \
             acknowledged entries",
            path.display()
        )
    };
    let mut offsets = Vec::new();
    let mut at = SEGMENT_HEADER.len();
    let mut expected = first;
    let mut torn = None;
    while let Some(rest) = bytes.get(at..).filter(|r| !r.is_empty()) {
        let damage = match parse_record(rest) {
            // The largest index is never a log's (one past it would not be a number): taken for damage.
            Parsed::Record {
                index: u64::MAX, ..
            } => "an index no log reaches".to_string(),
            Parsed::Record { index, len, .. } if index == expected => {
                offsets.push(at as u64);
                at += len;
                expected += 1;
                continue;
            }
            Parsed::End if last_nonzero < at => break,
            Parsed::End => {
                return Err(damaged(
                    last_nonzero,
                    format!("a byte that is not zero after the end of the records at byte {at}"),
                ))
            }
            Parsed::Record { index, .. } => {
                return Err(damaged(
                    at,
                    format!("entry {expected} reads as entry {index}"),
                ))
            }
            Parsed::Short => "a record cut short".to_string(),
            Parsed::Bad(reason) => reason,
        };
        if !is_last {
            return Err(damaged(at, damage));
        }
        if let Err(why) = torn_last_record(bytes, at, last_nonzero) {
            return Err(damaged(at, format!("{damage}, {why}")));
        }
        torn = Some(damage);
        break;
    }
    if offsets.is_empty() {
        if !is_last {
            return Err(format!(
                "raft log segment {} holds no entry but is not the last",
                path.display()
            ));
        }
        // Created, but no record made it: the next append starts the segment again.
        return Ok(Scanned::Unfinished);
    }
    Ok(Scanned::Records {
        offsets,
        len: at as u64,
        torn,
    })
}

/// Whether the damaged record at `at` of the last segment is the last write cut short by a crash, which may be cut
/// off: `Ok(())` if so, else why not.
///
/// A short write leaves a prefix of the record, and then zeros (the file was filled ahead) or the end of the file.
/// So every byte that is not zero must lie before the record's end as its length field gives it, and the record's
/// last byte must be missing. A record whose bytes are all there with a bad checksum is damaged, not torn, and so is
/// one followed by anything. A record that looks cut short only because its length field grew is caught by its
/// checksum, which then matches a shorter payload (the record was whole).
fn torn_last_record(bytes: &[u8], at: usize, last_nonzero: usize) -> Result<(), String> {
    let Some(header) = bytes.get(at..).and_then(<[u8]>::first_chunk) else {
        // The header itself runs past the end of the file: nothing can follow it.
        return Ok(());
    };
    let (payload_len, crc, index_bytes) = header_fields(header);
    if payload_len > MAX_PAYLOAD_BYTES {
        // A short write leaves bytes as written or zero, and a length written whole is never this large.
        return Err("a length no write makes".into());
    }
    let record_end = at + RECORD_HEADER_BYTES + payload_len as usize;
    if last_nonzero + 1 >= record_end {
        return Err("and the record's bytes are all there (not cut short)".into());
    }
    // Could the length field be what is damaged? A payload ending at some byte the checksum matches says the record
    // was whole. Only ends up to a few bytes past the last byte that is not zero are tried (a payload ends in
    // a byte that is not zero, or in few zeros), which also keeps a chance match of the checksum unlikely.
    let payload_start = at + RECORD_HEADER_BYTES;
    let last_end = (last_nonzero + 1 + 8).min(record_end - 1).min(bytes.len());
    // The payload ends tried: `payload_start` itself, then one more byte at a time up to `last_end`.
    let candidates = bytes.get(payload_start..last_end).unwrap_or_default();
    let whole = |payload_len: usize| {
        format!(
            "but its checksum matches a payload of {payload_len} bytes: the record is whole and its length field damaged"
        )
    };
    let mut state = crc32c_update(!0, &index_bytes);
    if !state == crc {
        return Err(whole(0));
    }
    for (n, byte) in candidates.iter().enumerate() {
        state = crc32c_update(state, std::slice::from_ref(byte));
        if !state == crc {
            return Err(whole(n + 1));
        }
    }
    Ok(())
}

fn remove_unfinished(path: &Path) -> io::Result<()> {
    fs::remove_file(path)?;
    match path.parent() {
        Some(dir) => sync_dir(dir),
        None => Ok(()),
    }
}

// Evaluated at compile time (it builds a static): an index out of range would fail the build, never a daemon.
#[allow(clippy::indexing_slicing)]
const fn crc32c_table() -> [u32; 256] {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0x82F6_3B78 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
}

static CRC32C_TABLE: [u32; 256] = crc32c_table();

/// CRC-32C (Castagnoli) over the concatenation of `parts`.
fn crc32c(parts: &[&[u8]]) -> u32 {
    !parts
        .iter()
        .fold(!0u32, |crc, part| crc32c_update(crc, part))
}

/// Feeds `bytes` to a running CRC-32C state (the checksum is the state's complement).
// The table has 256 entries and its index is masked to 0..=255, so it cannot miss.
#[allow(clippy::indexing_slicing)]
fn crc32c_update(mut crc: u32, bytes: &[u8]) -> u32 {
    for &byte in bytes {
        crc = CRC32C_TABLE[((crc ^ u32::from(byte)) & 0xff) as usize] ^ (crc >> 8);
    }
    crc
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod damage_tests;

pub(crate) mod fuzz;
