//! The reference that stands in a message for an out-of-band buffer (pickle protocol 5's
//! buffers): `packb(obj, buffer_callback=cb)` writes it where a large buffer's bin would stand,
//! and `unpackb(data, buffers=...)` puts the buffer back in its place.
//!
//! The reference is the extension type [`TAG`] with a 16-byte payload: the buffer's index among
//! the message's out-of-band buffers, then its length in bytes, both big-endian `u64`s. It stands
//! where the bin would stand, also as the `data` of a raw numpy map (`OPT_NUMPY_RAW`), whose
//! other entries (dtype, shape) stay in the message.

/// The extension type of an out-of-band reference: in the range MessagePack keeps for itself,
/// next to the exact types, so that no application's own code (0 to 127) is ever read as a
/// reference.
pub const TAG: i8 = -113;

/// The payload length of a reference.
pub const REF_LEN: usize = 16;

/// Buffers of at least this many bytes go out of band unless `buffer_threshold` says otherwise:
/// below it, the copy costs less than the callback and the extra frame.
pub const DEFAULT_THRESHOLD: usize = 4096;

/// A reference's payload.
#[inline]
pub fn encode_ref(index: u64, len: u64) -> [u8; REF_LEN] {
    let mut out = [0; REF_LEN];
    out[..8].copy_from_slice(&index.to_be_bytes());
    out[8..].copy_from_slice(&len.to_be_bytes());
    out
}

/// A reference's index and length; `None` when the payload is not 16 bytes.
#[inline]
pub fn decode_ref(payload: &[u8]) -> Option<(u64, u64)> {
    let payload: &[u8; REF_LEN] = payload.try_into().ok()?;
    let (index, len) = payload.split_at(8);
    Some((
        u64::from_be_bytes(index.try_into().ok()?),
        u64::from_be_bytes(len.try_into().ok()?),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_round_trip_and_refuse_other_lengths() {
        let payload = encode_ref(3, u64::MAX);
        assert_eq!(decode_ref(&payload), Some((3, u64::MAX)));
        assert_eq!(payload[..8], [0, 0, 0, 0, 0, 0, 0, 3]);
        assert_eq!(decode_ref(&payload[..15]), None);
        assert_eq!(decode_ref(&[0; 17]), None);
    }
}
