//! The limits both directions share, in one place: the encoder refuses what the decoders could
//! not read back, and the transcoder refuses what `json.dumps` would refuse.

/// Containers nested deeper than this are refused by `unpackb`, `json.from_msgpack`, the
/// structure check of a `Fragment` and the streaming reader.
pub const MAX_DECODE_DEPTH: u32 = 1024;

/// Containers nested deeper than this are refused by `packb` and `json.dumps` (this is also how
/// a circular reference ends), and by `json.from_msgpack`, which writes what `json.dumps` would.
pub const MAX_ENCODE_DEPTH: u64 = 254;

/// Nested calls of `default` beyond this many are refused (a chain of 255 calls, each packing
/// what the one before returned, succeeds, as in orjson and ormsgpack).
pub const MAX_DEFAULT_DEPTH: u64 = 255;
