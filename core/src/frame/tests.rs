use super::*;

fn file_of(records: &[&[u8]]) -> Vec<u8> {
    let mut out = FILE_HEADER.to_vec();
    for payload in records {
        out.extend_from_slice(&frame_header(payload).unwrap());
        out.extend_from_slice(payload);
    }
    out
}

#[test]
fn complete_records_are_found() {
    let file = file_of(&[b"\x01", b"\xa3abc", b""]);
    let scan = scan(&file).unwrap();
    assert_eq!(scan.records.len(), 3);
    assert_eq!(&file[scan.records[1].clone()], b"\xa3abc");
    assert!(!scan.torn);
    assert_eq!(scan.end, file.len());
}

#[test]
fn a_torn_last_frame_at_every_byte_ends_the_file() {
    let file = file_of(&[b"\x01", b"\xa5hello"]);
    let last = FILE_HEADER.len() + FRAME_HEADER_LEN + 1;
    for len in last..file.len() {
        let scan = scan(&file[..len]).unwrap();
        assert_eq!(scan.records.len(), 1, "cut at {len}");
        assert_eq!(scan.end, last);
        assert_eq!(scan.torn, len > last);
    }
    let mut zeros = file[..last].to_vec();
    zeros.extend_from_slice(&[0; 40]);
    assert!(scan(&zeros).unwrap().torn);
}

#[test]
fn damage_before_the_last_frame_is_refused() {
    let file = file_of(&[b"\xa5hello", b"\x02"]);
    for at in FILE_HEADER.len()..FILE_HEADER.len() + FRAME_HEADER_LEN + 6 {
        let mut bad = file.clone();
        bad[at] ^= 0x01;
        assert_eq!(
            scan(&bad).unwrap_err().fault,
            Fault::Checksum,
            "flip at {at}"
        );
    }
    assert_eq!(
        scan(b"\x82\xabfastmsgpack\xa7records\xa7version\x02")
            .unwrap_err()
            .fault,
        Fault::Version
    );
    assert_eq!(scan(b"\x80").unwrap_err().fault, Fault::Magic);
}
