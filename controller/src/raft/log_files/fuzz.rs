//! The segment loader's fuzzing entry ([`super::super::fuzz_entry`]): segments built from the input, with valid
//! checksums so the fuzzer gets past them, then damaged as the input says.

use std::path::Path;

use super::{encode_record, scan_segment, Scanned, SEGMENT_HEADER};

/// Most records built from one input.
const MAX_RECORDS: usize = 64;

/// Scans a segment built from `data`: `[first index u64][is_last u8][mode u8]...`. Mode 0 scans the rest as raw
/// segment bytes; mode 1 reads `[index delta u8][payload length u8][payload]` records, writes them with their
/// checksums, then flips the byte `[flip at u16]` and cuts the file at `[cut u16]` (each when in range).
pub(crate) fn fuzz_segment(data: &[u8]) {
    let Some((first, rest)) = data.split_first_chunk::<8>() else {
        return;
    };
    let first = u64::from_le_bytes(*first);
    let [is_last, mode, rest @ ..] = rest else {
        return;
    };
    let is_last = is_last & 1 == 1;
    let path = Path::new("fuzz.seg");
    let bytes = if mode & 1 == 0 {
        rest.to_vec()
    } else {
        let Some(([flip_hi, flip_lo, cut_hi, cut_lo], mut rest)) = rest.split_first_chunk::<4>()
        else {
            return;
        };
        let mut bytes = SEGMENT_HEADER.to_vec();
        let mut index = first;
        for _ in 0..MAX_RECORDS {
            let [delta, len, tail @ ..] = rest else {
                break;
            };
            let (payload, tail) = tail.split_at(usize::from(*len).min(tail.len()));
            // A delta of 0 is the next index; anything else skips (damage the loader must see).
            index = index
                .wrapping_add(1)
                .wrapping_add(u64::from(*delta))
                .wrapping_sub(1);
            if encode_record(&mut bytes, index, payload).is_err() {
                return;
            }
            index = index.wrapping_add(1);
            rest = tail;
        }
        let flip = usize::from(u16::from_be_bytes([*flip_hi, *flip_lo]));
        if let Some(byte) = bytes.get_mut(flip) {
            *byte ^= 0x5a;
        }
        let cut = usize::from(u16::from_be_bytes([*cut_hi, *cut_lo]));
        if cut < bytes.len() {
            bytes.truncate(cut);
        }
        bytes
    };
    if let Ok(Scanned::Records { offsets, len, .. }) = scan_segment(path, &bytes, first, is_last) {
        // What the loader accepts it must describe truthfully: offsets inside the records, in order.
        assert!(len as usize <= bytes.len(), "records end past the file");
        assert!(
            offsets.windows(2).all(|w| matches!(w, [a, b] if a < b))
                && offsets.iter().all(|&o| o < len),
            "record offsets out of order or past the records"
        );
    }
}
