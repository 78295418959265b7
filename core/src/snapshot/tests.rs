use super::*;

/// A sealed snapshot of `payload`, stored as it is (codec "none").
fn plain(payload: &[u8], meta: &[u8]) -> Vec<u8> {
    let (mut out, slots) = header_bytes(Codec::None, meta, false);
    let n = payload.len() as u64;
    seal(&mut out, slots, n, n, checksum_of(payload));
    out.extend_from_slice(payload);
    out
}

#[test]
fn round_trip_of_a_plain_header() {
    let file = plain(b"\x93\x01\x02\x03", b"\x81\xa1v\x02");
    let header = parse(&file, file.len() as u64).unwrap();
    assert_eq!(header.codec, Codec::None);
    assert_eq!(header.size, 4);
    assert_eq!(&file[header.meta.clone()], b"\x81\xa1v\x02");
    verify(&header, &file[header.stored_start()..]).unwrap();
    // The header is a MessagePack map, then the payload: two whole objects.
    let mut r = Reader::new(&file);
    skip_value(&mut r, 0).unwrap();
    assert_eq!(r.pos, header.len);
}

#[test]
fn every_flip_and_cut_is_refused_with_its_kind() {
    let file = plain(b"\x92\xa3abc\xcb\x40\x09\x21\xfb\x54\x44\x2d\x18", b"\xc0");
    let header = parse(&file, file.len() as u64).unwrap();
    for at in 0..file.len() {
        let mut bad = file.clone();
        bad[at] ^= 0x10;
        let fault = match parse(&bad, bad.len() as u64) {
            Err(refusal) => refusal.fault,
            Ok(h) => verify(&h, &bad[h.stored_start()..]).unwrap_err().fault,
        };
        let want = match at {
            0..30 => Fault::Magic,
            30 => Fault::Version,
            _ => Fault::Checksum,
        };
        assert_eq!(fault, want, "flip at {at}");
    }
    for len in 0..file.len() {
        let cut = &file[..len];
        let refusal = parse(cut, len as u64).unwrap_err();
        assert_eq!(refusal.fault, Fault::Truncated, "cut at {len}");
    }
    assert!(header.len < file.len());
}

#[test]
fn newer_versions_and_codecs_are_named() {
    let mut file = plain(b"\xc0", b"\xc0");
    file[VERSION_OFFSET] = 3;
    let refusal = parse(&file, file.len() as u64).unwrap_err();
    assert_eq!(refusal.fault, Fault::Version);
    assert!(refusal.reason.contains("upgrade"));
    let (mut other, slots) = header_bytes(Codec::Zstd, b"\xc0", false);
    let at = other.windows(4).position(|w| w == b"zstd").unwrap();
    other[at..at + 4].copy_from_slice(b"brot");
    seal(&mut other, slots, 1, 1, 0);
    let refusal = parse(&other, 1 << 20).unwrap_err();
    assert_eq!(refusal.fault, Fault::Codec);
    assert_eq!(refusal.offset, at);
}

#[test]
fn lengths_beyond_the_input_are_refused_before_use() {
    let (mut file, slots) = header_bytes(Codec::Zstd, b"\xc0", false);
    seal(&mut file, slots, u64::MAX, 10, 0);
    assert_eq!(
        parse(&file, 1 << 30).unwrap_err().fault,
        Fault::Checksum,
        "a ratio no codec reaches"
    );
    let (mut file, slots) = header_bytes(Codec::None, b"\xc0", false);
    seal(&mut file, slots, 1 << 40, 1 << 40, 0);
    assert_eq!(
        parse(&file, file.len() as u64).unwrap_err().fault,
        Fault::Truncated
    );
}
