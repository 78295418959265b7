//! The snapshot header and record frame parsers on any bytes: never a panic, and what they
//! accept is consistent. A header that parses declares lengths that fit the input; a record
//! scan's records lie inside the input, in order, each matching its checksum; a header sealed
//! by the writer over the input as `meta`-less payload always parses back to the same fields.
//! The index parser on any bytes (and on the input laid out as an index with a right checksum):
//! never a panic, and an index it accepts is ordered and within the payload; the index built
//! of the input (when it is one object) encodes and parses back to itself, and is consistent
//! with it.
#![no_main]

use fastmsgpack_core::frame::{self, FILE_HEADER};
use fastmsgpack_core::snapshot::index::{self, Index};
use fastmsgpack_core::snapshot::{self, Codec, MAGIC};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // As a whole snapshot, and after the fixed prefix (which a fuzzer would rarely find).
    let mut prefixed = MAGIC.to_vec();
    prefixed.extend_from_slice(b"\xa7version\x01");
    prefixed.extend_from_slice(data);
    for input in [data, &prefixed[..]] {
        if let Ok(header) = snapshot::parse(input, input.len() as u64) {
            assert_eq!(header.total_len(), input.len() as u64);
            assert!(header.meta.end <= header.len && header.len <= input.len());
            let _ = snapshot::verify(&header, &input[header.stored_start()..]);
        }
    }
    // A sealed header over the input as the payload.
    let (mut file, slots) = snapshot::header_bytes(Codec::None, b"\xc0", false);
    let n = data.len() as u64;
    snapshot::seal(&mut file, slots, n, n, snapshot::checksum_of(data));
    file.extend_from_slice(data);
    let header = snapshot::parse(&file, file.len() as u64).expect("a sealed header parses");
    assert_eq!(header.size, n);
    snapshot::verify(&header, &file[header.stored_start()..]).expect("its checksum matches");
    // As an index: raw, and with the input's halves as its two tables under a right checksum.
    let size = data.len() as u64;
    let _ = index::parse(data, 0, size, 7);
    let half = data.len() / 2;
    let mut laid = b"\x83\xa5spans\xc6".to_vec();
    laid.extend_from_slice(&(half as u32).to_be_bytes());
    laid.extend_from_slice(&data[..half]);
    laid.extend_from_slice(b"\xa6arrays\xc6");
    laid.extend_from_slice(&((data.len() - half) as u32).to_be_bytes());
    laid.extend_from_slice(&data[half..]);
    laid.extend_from_slice(b"\xa8checksum\xcf");
    let sum = index::checksum(&laid, 7);
    laid.extend_from_slice(&sum.to_be_bytes());
    for payload_size in [size, 1 << 20] {
        if let Ok(found) = index::parse(&laid, 0, payload_size, 7) {
            accepted(&found, payload_size);
            let _ = found.check_against(data, 0);
        }
    }
    if let Some(built) = index::build(data) {
        accepted(&built, size);
        built
            .check_against(data, 0)
            .expect("a built index fits its payload");
        let parsed = index::parse(&built.encode(3), 0, size, 3).expect("a built index parses");
        assert_eq!(parsed, built);
    }
    // As the frames of a record file.
    let mut records = FILE_HEADER.to_vec();
    records.extend_from_slice(data);
    if let Ok(scan) = frame::scan(&records) {
        let mut last = FILE_HEADER.len();
        for range in &scan.records {
            assert!(last < range.start && range.end <= scan.end);
            last = range.end;
        }
        assert!(scan.end <= records.len());
        assert_eq!(scan.torn, scan.end < records.len());
    }
});

/// What every accepted index holds: spans ordered, nested and within the payload; marks
/// ordered and inside their array's span.
fn accepted(found: &Index, size: u64) {
    for pair in found.spans.windows(2) {
        assert!(pair[0].0 < pair[1].0);
        assert!(pair[1].1 <= pair[0].1 || pair[1].0 >= pair[0].1);
    }
    for &(start, end) in &found.spans {
        assert!(start < end && end <= size);
    }
    for marks in &found.arrays {
        let span = found
            .spans
            .iter()
            .find(|s| s.0 == marks.start)
            .expect("a span");
        assert!(marks.stride > 0 && !marks.items.is_empty());
        let mut last = marks.start;
        for &item in &marks.items {
            assert!(last < item && item < span.1);
            last = item;
        }
    }
}
