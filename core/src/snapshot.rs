//! The snapshot header (doc/snapshots.md): a MessagePack map of fixed layout written before the
//! payload, built and parsed here without Python, compression or I/O.
//!
//! ```text
//! 88                                   map of 8 entries
//! ab "fastmsgpack" a8 "snapshot"       the magic (the first 22 bytes)
//! a7 "version" 01                      the format version (a positive fixint, byte 30)
//! a5 "codec" a4 "zstd"                 "none", "zstd" or "lz4" (a fixstr)
//! a4 "size" cf <u64>                   the payload's length uncompressed
//! ab "stored_size" cf <u64>            the length of the stored bytes
//! a8 "checksum" cf <u64>               xxh3-64 of the stored bytes
//! a4 "meta" <map or nil>               the user's map
//! af "header_checksum" cf <u64>        xxh3-64 of every header byte before this u64
//! ```
//!
//! Then the payload: the document itself for codec "none" (`stored_size == size`), else a
//! `bin 32` holding the compressed frame (`stored_size` bytes). Version 2 is version 1 with an
//! offset index after the payload ([`index`]); version 1 ends with the payload. The checks run in an order that
//! names the fault: the magic, the version, the header's checksum, the codec, the lengths
//! against the file's, and the payload's checksum last (by the caller, which holds the bytes).

use crate::reader::Reader;
use crate::skip::skip_value;

pub mod index;

/// The first bytes of every snapshot.
pub const MAGIC: &[u8; 22] = b"\x88\xabfastmsgpack\xa8snapshot";
/// The fixed bytes between the magic and the version.
const VERSION_KEY: &[u8; 8] = b"\xa7version";
/// Where the version byte is.
pub const VERSION_OFFSET: usize = 30;
/// The newest format version this code writes and reads (it reads every older one too): 2,
/// written for snapshots with an index; the others are written as version 1.
pub const VERSION: u8 = 2;
/// The version of a snapshot without an index.
pub const VERSION_PLAIN: u8 = 1;
/// The largest ratio of uncompressed to compressed length either codec can reach (zstd's
/// run-length blocks; lz4's is lower): a header claiming more is refused before allocating.
pub const MAX_RATIO: u64 = 1 << 15;

/// What went wrong, as `SnapshotError.kind` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    Truncated,
    Checksum,
    Magic,
    Codec,
    Version,
}

impl Fault {
    pub fn name(self) -> &'static str {
        match self {
            Fault::Truncated => "truncated",
            Fault::Checksum => "checksum",
            Fault::Magic => "magic",
            Fault::Codec => "codec",
            Fault::Version => "version",
        }
    }
}

/// A fault, where it was found, and what it was, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub fault: Fault,
    pub offset: usize,
    pub reason: String,
}

fn refuse(fault: Fault, offset: usize, reason: impl Into<String>) -> Refusal {
    Refusal {
        fault,
        offset,
        reason: reason.into(),
    }
}

/// The compression of the payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    None,
    Zstd,
    Lz4,
}

impl Codec {
    pub fn name(self) -> &'static str {
        match self {
            Codec::None => "none",
            Codec::Zstd => "zstd",
            Codec::Lz4 => "lz4",
        }
    }

    pub fn from_name(name: &[u8]) -> Option<Codec> {
        match name {
            b"none" => Some(Codec::None),
            b"zstd" => Some(Codec::Zstd),
            b"lz4" => Some(Codec::Lz4),
            _ => None,
        }
    }

    /// The bytes between the header and the stored bytes: a `bin 32` header when compressed.
    pub fn prefix_len(self) -> usize {
        match self {
            Codec::None => 0,
            _ => 5,
        }
    }
}

/// A parsed header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub version: u8,
    pub codec: Codec,
    pub size: u64,
    pub stored_size: u64,
    pub checksum: u64,
    /// Where the user's map (or nil) lies in the input.
    pub meta: std::ops::Range<usize>,
    /// The header's length: the payload starts here (after the `bin 32` header if compressed).
    pub len: usize,
    /// The length of the index after the stored bytes (version 2), 0 when there is none.
    pub index_len: u64,
}

impl Header {
    /// Where the stored bytes start.
    pub fn stored_start(&self) -> usize {
        self.len + self.codec.prefix_len()
    }

    /// Where the stored bytes end (and the index starts, if any).
    pub fn stored_end(&self) -> u64 {
        self.stored_start() as u64 + self.stored_size
    }

    /// The length of a complete file (or `dumps` value) with this header.
    pub fn total_len(&self) -> u64 {
        self.stored_end() + self.index_len
    }
}

/// Offsets of the fields the writer fills in after the payload, within the bytes
/// [`header_bytes`] returns.
#[derive(Debug, Clone, Copy)]
pub struct Slots {
    size: usize,
    stored_size: usize,
    checksum: usize,
    header_checksum: usize,
}

/// The header for `codec` and the user's `meta` (a packed map or nil, already checked), with
/// the lengths and checksums left zero, and where they go: of version 2 when an index is to
/// follow the payload (`indexed`), else 1.
pub fn header_bytes(codec: Codec, meta: &[u8], indexed: bool) -> (Vec<u8>, Slots) {
    let mut out = Vec::with_capacity(128 + meta.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(VERSION_KEY);
    out.push(if indexed { VERSION } else { VERSION_PLAIN });
    out.extend_from_slice(b"\xa5codec");
    let name = codec.name().as_bytes();
    out.push(0xa0 | name.len() as u8);
    out.extend_from_slice(name);
    let u64_slot = |out: &mut Vec<u8>, key: &[u8]| {
        out.push(0xa0 | key.len() as u8);
        out.extend_from_slice(key);
        out.push(0xcf);
        let at = out.len();
        out.extend_from_slice(&[0; 8]);
        at
    };
    let size = u64_slot(&mut out, b"size");
    let stored_size = u64_slot(&mut out, b"stored_size");
    let checksum = u64_slot(&mut out, b"checksum");
    out.extend_from_slice(b"\xa4meta");
    out.extend_from_slice(meta);
    let header_checksum = u64_slot(&mut out, b"header_checksum");
    let slots = Slots {
        size,
        stored_size,
        checksum,
        header_checksum,
    };
    (out, slots)
}

/// Fills in the lengths and checksums of a header made by [`header_bytes`].
pub fn seal(header: &mut [u8], slots: Slots, size: u64, stored_size: u64, checksum: u64) {
    header[slots.size..slots.size + 8].copy_from_slice(&size.to_be_bytes());
    header[slots.stored_size..slots.stored_size + 8].copy_from_slice(&stored_size.to_be_bytes());
    header[slots.checksum..slots.checksum + 8].copy_from_slice(&checksum.to_be_bytes());
    let sum = checksum_of(&header[..slots.header_checksum]);
    header[slots.header_checksum..slots.header_checksum + 8].copy_from_slice(&sum.to_be_bytes());
}

/// The `bin 32` header before compressed stored bytes.
pub fn bin32_prefix(stored_size: u64) -> Option<[u8; 5]> {
    let n = u32::try_from(stored_size).ok()?.to_be_bytes();
    Some([0xc6, n[0], n[1], n[2], n[3]])
}

/// The checksum of stored bytes taken in pieces, as they are written.
pub use xxhash_rust::xxh3::Xxh3 as Hasher;

/// The checksum of snapshots and record frames: xxh3-64.
pub fn checksum_of(data: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(data)
}

/// Parses the header at the start of `data`, the first bytes of an input `total` bytes long (a
/// file's length, or `data.len()` in memory): a `Truncated` refusal when `data` ends inside the
/// header and `total` says it should not. Checks everything but the payload's checksum.
pub fn parse(data: &[u8], total: u64) -> Result<Header, Refusal> {
    let cut = |at: usize| {
        refuse(
            Fault::Truncated,
            at,
            format!("the input ends at byte {at}, inside the snapshot header"),
        )
    };
    let fixed = data.len().min(MAGIC.len());
    if let Some(at) = (0..fixed).find(|&i| data[i] != MAGIC[i]) {
        return Err(refuse(
            Fault::Magic,
            at,
            "not a fastmsgpack snapshot: its first bytes are not the snapshot magic",
        ));
    }
    let prefix_end = MAGIC.len() + VERSION_KEY.len();
    let fixed = data.len().min(prefix_end);
    if let Some(at) = (MAGIC.len()..fixed).find(|&i| data[i] != VERSION_KEY[i - MAGIC.len()]) {
        return Err(refuse(Fault::Magic, at, "the snapshot magic is damaged"));
    }
    let Some(&version) = data.get(VERSION_OFFSET) else {
        return Err(cut(data.len()));
    };
    if version == 0 || version > VERSION {
        let reason = if (VERSION..0x80).contains(&version) {
            format!(
                "snapshot format version {version} is newer than this fastmsgpack reads \
                 ({VERSION} and older): upgrade fastmsgpack to read it"
            )
        } else {
            format!("unknown snapshot format version byte 0x{version:02x}")
        };
        return Err(refuse(Fault::Version, VERSION_OFFSET, reason));
    }
    let mut p = Parser {
        data,
        pos: VERSION_OFFSET + 1,
    };
    let fields = p.fields().map_err(|at| match at {
        Bad::Cut(at) => cut(at),
        Bad::Wrong(at) => refuse(
            Fault::Checksum,
            at,
            "the snapshot header is corrupted (an unexpected byte)",
        ),
    })?;
    let header_len = p.pos;
    if checksum_of(&data[..header_len - 8]) != fields.header_checksum {
        return Err(refuse(
            Fault::Checksum,
            0,
            "the snapshot header's checksum does not match: the header is corrupted",
        ));
    }
    let Some(codec) = Codec::from_name(&data[fields.codec.clone()]) else {
        let name = String::from_utf8_lossy(&data[fields.codec.clone()]).into_owned();
        return Err(refuse(
            Fault::Codec,
            fields.codec.start,
            format!("unknown snapshot codec {name:?}: written by a newer fastmsgpack?"),
        ));
    };
    let header = Header {
        version,
        codec,
        size: fields.size,
        stored_size: fields.stored_size,
        checksum: fields.checksum,
        meta: fields.meta,
        len: header_len,
        index_len: 0,
    };
    let consistent = match codec {
        Codec::None => header.size == header.stored_size,
        _ => header.size <= header.stored_size.saturating_mul(MAX_RATIO),
    };
    if !consistent {
        return Err(refuse(
            Fault::Checksum,
            0,
            "the snapshot header's lengths are inconsistent",
        ));
    }
    let mut header = header;
    let mut want = header.total_len();
    if version >= 2 {
        // The index follows: its own layout says where it ends ([`index::parse`]).
        want += index::MIN_LEN as u64;
        header.index_len = total.saturating_sub(header.stored_end());
    }
    if total < want {
        return Err(refuse(
            Fault::Truncated,
            total as usize,
            format!("the snapshot is truncated: {total} bytes of {want}"),
        ));
    }
    if total > want && version < 2 {
        return Err(refuse(
            Fault::Checksum,
            want as usize,
            format!(
                "{} bytes follow the end of the snapshot: it was overwritten or appended to",
                total - want
            ),
        ));
    }
    if codec != Codec::None {
        let Some(prefix) = bin32_prefix(header.stored_size) else {
            return Err(refuse(
                Fault::Checksum,
                0,
                "the stored length does not fit a bin 32",
            ));
        };
        match data.get(header.len..header.len + 5) {
            Some(found) if found == prefix => {}
            Some(_) => {
                return Err(refuse(
                    Fault::Checksum,
                    header.len,
                    "the compressed payload's bin header does not match the snapshot header",
                ))
            }
            None => return Err(cut(data.len())),
        }
    }
    Ok(header)
}

/// Checks the payload's checksum: `stored` is the stored bytes of a snapshot with `header`.
pub fn verify(header: &Header, stored: &[u8]) -> Result<(), Refusal> {
    if checksum_of(stored) != header.checksum {
        return Err(refuse(
            Fault::Checksum,
            header.stored_start(),
            "the snapshot's checksum does not match its payload: the file is corrupted \
             (restore it from a copy, or save it again)",
        ));
    }
    Ok(())
}

/// The fields of a header after the version, as read.
struct Fields {
    codec: std::ops::Range<usize>,
    size: u64,
    stored_size: u64,
    checksum: u64,
    meta: std::ops::Range<usize>,
    header_checksum: u64,
}

/// Where a header stopped making sense: the input ended, or a byte was not what it must be.
enum Bad {
    Cut(usize),
    Wrong(usize),
}

struct Parser<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn fields(&mut self) -> Result<Fields, Bad> {
        self.expect(b"\xa5codec")?;
        let len = match self.byte()? {
            b @ 0xa0..=0xbf => (b & 0x1f) as usize,
            _ => return Err(Bad::Wrong(self.pos - 1)),
        };
        let start = self.pos;
        self.take(len)?;
        let codec = start..self.pos;
        self.expect(b"\xa4size")?;
        let size = self.u64()?;
        self.expect(b"\xabstored_size")?;
        let stored_size = self.u64()?;
        self.expect(b"\xa8checksum")?;
        let checksum = self.u64()?;
        self.expect(b"\xa4meta")?;
        let start = self.pos;
        match self.data.get(start) {
            None => return Err(Bad::Cut(start)),
            Some(0xc0) => self.pos += 1,
            Some(0x80..=0x8f | 0xde | 0xdf) => {
                let mut r = Reader::new(self.data);
                r.pos = start;
                match skip_value(&mut r, 1) {
                    Ok(()) => self.pos = r.pos,
                    Err(e) if e.is_truncated() => return Err(Bad::Cut(self.data.len())),
                    Err(e) => return Err(Bad::Wrong(e.offset())),
                }
            }
            Some(_) => return Err(Bad::Wrong(start)),
        }
        let meta = start..self.pos;
        self.expect(b"\xafheader_checksum")?;
        let header_checksum = self.u64()?;
        Ok(Fields {
            codec,
            size,
            stored_size,
            checksum,
            meta,
            header_checksum,
        })
    }

    fn take(&mut self, n: usize) -> Result<&[u8], Bad> {
        let end = self.pos + n;
        let Some(bytes) = self.data.get(self.pos..end) else {
            return Err(Bad::Cut(self.data.len()));
        };
        self.pos = end;
        Ok(bytes)
    }

    fn byte(&mut self) -> Result<u8, Bad> {
        Ok(self.take(1)?[0])
    }

    fn expect(&mut self, fixed: &[u8]) -> Result<(), Bad> {
        let start = self.pos;
        let found = self.data.get(start..).unwrap_or(&[]);
        let n = found.len().min(fixed.len());
        if let Some(i) = (0..n).find(|&i| found[i] != fixed[i]) {
            return Err(Bad::Wrong(start + i));
        }
        self.take(fixed.len()).map(|_| ())
    }

    fn u64(&mut self) -> Result<u64, Bad> {
        self.expect(b"\xcf")?;
        let bytes = self.take(8)?;
        let mut out = [0; 8];
        out.copy_from_slice(bytes);
        Ok(u64::from_be_bytes(out))
    }
}

#[cfg(test)]
mod tests;
