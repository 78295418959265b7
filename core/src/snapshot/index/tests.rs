use super::*;
use crate::snapshot::{header_bytes, parse as parse_header, seal, Codec};

/// `{"id": 7, "values": [0.5] * n, "children": [{"id": i, "p": [i, i]} ...] * n}`, packed.
fn document(n: u32) -> Vec<u8> {
    let mut out = vec![0x83, 0xa2, b'i', b'd', 0x07, 0xa6];
    out.extend_from_slice(b"values\xdd");
    out.extend_from_slice(&n.to_be_bytes());
    for _ in 0..n {
        out.push(0xcb);
        out.extend_from_slice(&0.5f64.to_be_bytes());
    }
    out.extend_from_slice(b"\xa8children\xdd");
    out.extend_from_slice(&n.to_be_bytes());
    for i in 0..n {
        out.extend_from_slice(b"\x82\xa2id\xce");
        out.extend_from_slice(&i.to_be_bytes());
        out.extend_from_slice(b"\xa1p\x92\xce");
        out.extend_from_slice(&i.to_be_bytes());
        out.push(0xce);
        out.extend_from_slice(&i.to_be_bytes());
    }
    out
}

/// Where item `i` of the array whose header is at `start` begins, walked.
fn item_start(data: &[u8], start: usize, i: usize) -> usize {
    let mut r = Reader::new(data);
    r.pos = start;
    let Ok(Token::Array(_)) = token::next(&mut r, "value") else {
        panic!("not an array at {start}");
    };
    for _ in 0..i {
        crate::skip::skip_value(&mut r, 1).unwrap();
    }
    r.pos
}

#[test]
fn the_index_points_at_the_large_containers_and_every_strideth_item() {
    let n = 20_000;
    let data = document(n);
    let index = build(&data).unwrap();
    let values = 1 + 3 + 1 + 7;
    let children = values + 5 + 9 * n as usize + 9;
    assert_eq!(
        index.spans,
        vec![
            (0, data.len() as u64),
            (values as u64, children as u64 - 9),
            (children as u64, data.len() as u64)
        ]
    );
    assert_eq!(index.arrays.len(), 2);
    for marks in &index.arrays {
        assert_eq!(marks.stride, STRIDE);
        assert_eq!(marks.items.len() as u64, (n as u64 - 1) / STRIDE);
        for (k, &item) in marks.items.iter().enumerate() {
            let i = (k + 1) * STRIDE as usize;
            assert_eq!(item as usize, item_start(&data, marks.start as usize, i));
        }
    }
    index.check_against(&data, 0).unwrap();
    let bytes = index.encode(99);
    assert_eq!(parse(&bytes, 0, data.len() as u64, 99).unwrap(), index);
    // Another payload's checksum: refused.
    assert_eq!(
        parse(&bytes, 0, data.len() as u64, 98).unwrap_err().fault,
        Fault::Checksum
    );
}

#[test]
fn a_small_document_has_an_empty_index() {
    let index = build(&document(10)).unwrap();
    assert_eq!(index, Index::default());
    assert_eq!(index.encode(1).len(), MIN_LEN);
    assert!(build(b"\x92\x01").is_none(), "not one whole object");
}

#[test]
fn every_flip_and_cut_of_an_index_is_refused() {
    let data = document(8_000);
    let index = build(&data).unwrap();
    let bytes = index.encode(5);
    let size = data.len() as u64;
    for at in 0..bytes.len() {
        for bit in [0x01, 0x80] {
            let mut bad = bytes.clone();
            bad[at] ^= bit;
            let refusal = parse(&bad, 100, size, 5).unwrap_err();
            assert!(
                matches!(refusal.fault, Fault::Checksum | Fault::Truncated),
                "flip at {at}: {refusal:?}"
            );
        }
    }
    for len in 0..bytes.len() {
        let refusal = parse(&bytes[..len], 100, size, 5).unwrap_err();
        assert_eq!(refusal.fault, Fault::Truncated, "cut at {len}");
        assert!(refusal.offset <= 100 + len);
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert_eq!(
        parse(&longer, 0, size, 5).unwrap_err().fault,
        Fault::Checksum
    );
}

#[test]
fn an_index_made_to_lie_is_refused_by_its_checks() {
    let data = document(8_000);
    let good = build(&data).unwrap();
    let size = data.len() as u64;
    let lies = [
        // Out of order, overlapping, past the payload.
        Index {
            spans: vec![(10, 20), (5, 30)],
            arrays: vec![],
        },
        Index {
            spans: vec![(0, 20), (10, 30)],
            arrays: vec![],
        },
        Index {
            spans: vec![(0, size + 1)],
            arrays: vec![],
        },
        // Marks of an array without a span, out of order, or past its span.
        Index {
            spans: vec![(0, size)],
            arrays: vec![Marks {
                start: 12,
                stride: 64,
                items: vec![100],
            }],
        },
        Index {
            spans: good.spans.clone(),
            arrays: vec![Marks {
                start: good.arrays[0].start,
                stride: 64,
                items: vec![500, 400],
            }],
        },
        Index {
            spans: good.spans.clone(),
            arrays: vec![Marks {
                start: good.arrays[0].start,
                stride: 0,
                items: vec![500],
            }],
        },
    ];
    for lie in lies {
        let bytes = lie.encode(5);
        let refusal = parse(&bytes, 0, size, 5).unwrap_err();
        assert_eq!(refusal.fault, Fault::Checksum, "{lie:?}");
    }
    // Well-formed, but not this payload's: a span on a scalar, marks too few for the array.
    let mut off = good.clone();
    off.spans[1].0 += 1;
    off.arrays.clear();
    let parsed = parse(&off.encode(5), 0, size, 5).unwrap();
    assert_eq!(
        parsed.check_against(&data, 0).unwrap_err().fault,
        Fault::Checksum
    );
    let mut few = good.clone();
    few.arrays[1].items.pop();
    let parsed = parse(&few.encode(5), 0, size, 5).unwrap();
    assert_eq!(
        parsed.check_against(&data, 0).unwrap_err().fault,
        Fault::Checksum
    );
}

#[test]
fn a_version_2_header_takes_the_index_after_the_payload() {
    let data = document(8_000);
    let index = build(&data)
        .unwrap()
        .encode(crate::snapshot::checksum_of(&data));
    let (mut file, slots) = header_bytes(Codec::None, b"\xc0", true);
    let n = data.len() as u64;
    seal(&mut file, slots, n, n, crate::snapshot::checksum_of(&data));
    file.extend_from_slice(&data);
    file.extend_from_slice(&index);
    let header = parse_header(&file, file.len() as u64).unwrap();
    assert_eq!(header.version, 2);
    assert_eq!(header.index_len, index.len() as u64);
    assert_eq!(header.total_len(), file.len() as u64);
    let end = header.stored_end() as usize;
    let parsed = parse(&file[end..], end, n, header.checksum).unwrap();
    parsed
        .check_against(&file[header.stored_start()..end], header.stored_start())
        .unwrap();
    // Cut at the end of the payload, or inside the index's fixed part: truncated.
    for len in [end, end + MIN_LEN - 1] {
        let refusal = parse_header(&file[..len], len as u64).unwrap_err();
        assert_eq!(refusal.fault, Fault::Truncated, "cut at {len}");
    }
}
