//! Record files (doc/snapshots.md#record-files): a header map, then one frame per record, each
//! a MessagePack array `[length, checksum, bin]`, appended and never rewritten.
//!
//! ```text
//! 82 ab "fastmsgpack" a7 "records" a7 "version" 01      the file header (30 bytes)
//! 93 ce <u32 length> cf <u64 checksum> c6 <u32 length> <payload>   a frame (20 bytes + payload)
//! ```
//!
//! The checksum is xxh3-64 of the payload seeded with its length. The length is written twice,
//! so that a damaged length is told from a frame cut short: a frame whose two lengths agree but
//! whose payload runs past the end of the file is torn; one whose lengths differ is damaged. A reader takes every complete frame and stops at the first that is not: a torn
//! last frame (a crash while appending) is where the file ends; a damaged frame with more bytes
//! after it is corruption.

use crate::snapshot::{Fault, Refusal};

/// The first bytes of every record file.
pub const FILE_HEADER: &[u8; 30] = b"\x82\xabfastmsgpack\xa7records\xa7version\x01";
/// The bytes before each payload.
pub const FRAME_HEADER_LEN: usize = 20;

/// The checksum of one record's payload.
pub fn frame_checksum(payload: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(payload, payload.len() as u64)
}

/// The header of the frame holding `payload` (`None` past 4 GiB, which a `bin 32` cannot hold).
pub fn frame_header(payload: &[u8]) -> Option<[u8; FRAME_HEADER_LEN]> {
    let len = u32::try_from(payload.len()).ok()?;
    let mut out = [0; FRAME_HEADER_LEN];
    out[0] = 0x93;
    out[1] = 0xce;
    out[2..6].copy_from_slice(&len.to_be_bytes());
    out[6] = 0xcf;
    out[7..15].copy_from_slice(&frame_checksum(payload).to_be_bytes());
    out[15] = 0xc6;
    out[16..20].copy_from_slice(&len.to_be_bytes());
    Some(out)
}

/// What a scan of a record file found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scan {
    /// Where each complete record's payload lies.
    pub records: Vec<std::ops::Range<usize>>,
    /// Where the last complete frame ends: a writer appends here.
    pub end: usize,
    /// Whether bytes follow `end` (a torn last frame).
    pub torn: bool,
}

/// Checks the file header at the start of `data`.
pub fn check_file_header(data: &[u8]) -> Result<(), Refusal> {
    let n = data.len().min(FILE_HEADER.len());
    if let Some(at) = (0..n).find(|&i| data[i] != FILE_HEADER[i]) {
        let (fault, reason) = if at == FILE_HEADER.len() - 1 {
            (Fault::Version, "the record file's format version is not 1")
        } else {
            (Fault::Magic, "not a fastmsgpack record file")
        };
        return Err(Refusal {
            fault,
            offset: at,
            reason: reason.into(),
        });
    }
    if data.len() < FILE_HEADER.len() {
        return Err(Refusal {
            fault: Fault::Truncated,
            offset: data.len(),
            reason: "the record file ends inside its header".into(),
        });
    }
    Ok(())
}

/// Finds the records of a whole record file: every complete frame, up to the first that is
/// not. A damaged frame that is not the last thing in the file is refused (`Checksum`).
pub fn scan(data: &[u8]) -> Result<Scan, Refusal> {
    check_file_header(data)?;
    let mut records = Vec::new();
    let mut pos = FILE_HEADER.len();
    while pos < data.len() {
        match frame_at(data, pos) {
            Some(range) => {
                pos = range.end;
                records.push(range);
            }
            None => {
                return match damaged_inside(data, pos) {
                    true => Err(Refusal {
                        fault: Fault::Checksum,
                        offset: pos,
                        reason: format!(
                            "the record frame at byte {pos} is damaged and records follow it"
                        ),
                    }),
                    false => Ok(Scan {
                        records,
                        end: pos,
                        torn: true,
                    }),
                };
            }
        }
    }
    Ok(Scan {
        records,
        end: pos,
        torn: false,
    })
}

/// The payload of the complete, intact frame at `pos`, if there is one.
fn frame_at(data: &[u8], pos: usize) -> Option<std::ops::Range<usize>> {
    let (sum, payload) = frame_parts(data, pos)?;
    let payload = data.get(payload)?;
    (frame_checksum(payload) == sum)
        .then_some(pos + FRAME_HEADER_LEN..pos + FRAME_HEADER_LEN + payload.len())
}

/// The checksum and the payload's place that the frame header at `pos` declares.
fn frame_parts(data: &[u8], pos: usize) -> Option<(u64, std::ops::Range<usize>)> {
    let head = data.get(pos..pos.checked_add(FRAME_HEADER_LEN)?)?;
    if head[0] != 0x93 || head[1] != 0xce || head[6] != 0xcf || head[15] != 0xc6 {
        return None;
    }
    if head[2..6] != head[16..20] {
        return None;
    }
    let sum = u64::from_be_bytes(head[7..15].try_into().ok()?);
    let len = u32::from_be_bytes(head[16..20].try_into().ok()?) as usize;
    let start = pos + FRAME_HEADER_LEN;
    Some((sum, start..start.checked_add(len)?))
}

/// Whether the bad frame at `pos` is corruption rather than a torn append. A torn append is
/// cut short (its header, or its payload, runs past the end of the file), or ends exactly at
/// the end of the file (a payload written in part), or is zeros to the end (a file system that
/// grew the file before the data reached it). Anything else, with bytes after the frame it
/// declares, is damage in the middle of the file.
fn damaged_inside(data: &[u8], pos: usize) -> bool {
    let rest = &data[pos..];
    if rest.iter().all(|&b| b == 0) {
        return false;
    }
    match frame_parts(data, pos) {
        None => rest.len() >= FRAME_HEADER_LEN,
        Some((_, payload)) => payload.end < data.len(),
    }
}

#[cfg(test)]
mod tests;
