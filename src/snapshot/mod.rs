//! Snapshots (`fastmsgpack.snapshot`, doc/snapshots.md): MessagePack written durably to a file,
//! or framed in memory, with a header, a checksum and optional compression.
//!
//! The Python side packs and unpacks (`packb` and `unpackb`, with all their arguments); this
//! module does the rest with the GIL released: the header ([`fastmsgpack_core::snapshot`]),
//! compressing ([`codec`]) straight into the temporary file, `fsync`, the rename and the
//! directory's `fsync` ([`write`]), and reading, checking and decompressing straight into the
//! `bytes` that `unpackb` then reads ([`read`]). Record files share the checksum ([`records`]).
//! A compressed save packs in `crate::api` instead, into [`pieces`] that a thread of their own
//! compresses while the walk goes on.

mod codec;
mod error;
mod pieces;
mod read;
mod records;
mod send;
mod temp;
mod write;

pub use error::{add_defaults, SnapshotError};
pub use pieces::{Packed, Plan};
pub use read::{header, info, load, loads};
pub use records::{frame_header, scan};
pub use write::{begin, dumps, remove_stale, save_buffer, settings};
