//! The snapshot header and record frame parsers on any bytes: never a panic, and what they
//! accept is consistent. A header that parses declares lengths that fit the input; a record
//! scan's records lie inside the input, in order, each matching its checksum; a header sealed
//! by the writer over the input as `meta`-less payload always parses back to the same fields.
#![no_main]

use fastmsgpack_core::frame::{self, FILE_HEADER};
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
    let (mut file, slots) = snapshot::header_bytes(Codec::None, b"\xc0");
    let n = data.len() as u64;
    snapshot::seal(&mut file, slots, n, n, snapshot::checksum_of(data));
    file.extend_from_slice(data);
    let header = snapshot::parse(&file, file.len() as u64).expect("a sealed header parses");
    assert_eq!(header.size, n);
    snapshot::verify(&header, &file[header.stored_start()..]).expect("its checksum matches");
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
