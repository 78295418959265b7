//! Compressing into a writer as the bytes go out, and decompressing into a given buffer.

use std::io::{self, Read, Write};

use fastmsgpack_core::snapshot::{Codec, Hasher};

/// What is asked of the compressor.
#[derive(Clone, Copy)]
pub struct Settings {
    pub codec: Codec,
    /// zstd's level (0: its default, 3).
    pub level: i32,
    /// zstd's worker threads (0: none, compress on the calling thread).
    pub threads: u32,
    /// Whether an offset index follows an uncompressed payload (format version 2).
    pub index: bool,
}

/// A writer that passes bytes on while counting them and taking their checksum.
pub struct Summing<W> {
    inner: W,
    hasher: Hasher,
    count: u64,
}

impl<W: Write> Summing<W> {
    pub fn new(inner: W) -> Summing<W> {
        Summing {
            inner,
            hasher: Hasher::new(),
            count: 0,
        }
    }

    /// The writer, the number of bytes written and their checksum.
    pub fn finish(self) -> (W, u64, u64) {
        (self.inner, self.count, self.hasher.digest())
    }
}

impl<W: Write> Write for Summing<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.count += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Compresses `data` into `out` with `settings` (not `Codec::None`), in pieces: the compressed
/// bytes go to `out` as the compressor makes them, never held whole. Returns `out`, the number
/// of compressed bytes and their checksum.
pub fn compress_into<W: Write>(
    out: W,
    data: &[u8],
    settings: Settings,
) -> io::Result<(W, u64, u64)> {
    let summing = Summing::new(out);
    let summing = match settings.codec {
        Codec::Zstd => {
            let mut enc = zstd::stream::write::Encoder::new(summing, settings.level)?;
            enc.include_checksum(false)?;
            enc.include_contentsize(true)?;
            enc.set_pledged_src_size(Some(data.len() as u64))?;
            if settings.threads > 0 {
                enc.multithread(settings.threads)?;
            }
            enc.write_all(data)?;
            enc.finish()?
        }
        Codec::Lz4 => {
            let info = lz4_flex::frame::FrameInfo::new()
                .content_size(Some(data.len() as u64))
                .block_size(lz4_flex::frame::BlockSize::Max256KB);
            let mut enc = lz4_flex::frame::FrameEncoder::with_frame_info(info, summing);
            enc.write_all(data)?;
            enc.finish().map_err(io::Error::other)?
        }
        Codec::None => {
            let mut summing = summing;
            summing.write_all(data)?;
            summing
        }
    };
    Ok(summing.finish())
}

/// Decompresses `stored` (checked against its checksum already) into `out`, which must come out
/// exactly full: `Err` with a reason otherwise.
pub fn decompress_into(codec: Codec, stored: &[u8], out: &mut [u8]) -> Result<(), String> {
    match codec {
        Codec::None => {
            if stored.len() != out.len() {
                return Err("the stored length is not the size".into());
            }
            out.copy_from_slice(stored);
            Ok(())
        }
        Codec::Zstd => {
            let mut dec = zstd::bulk::Decompressor::new().map_err(|e| e.to_string())?;
            let n = dec
                .decompress_to_buffer(stored, out)
                .map_err(|e| format!("zstd: {e}"))?;
            if n != out.len() {
                return Err(format!("zstd gave {n} bytes, not {}", out.len()));
            }
            Ok(())
        }
        Codec::Lz4 => {
            let mut dec = lz4_flex::frame::FrameDecoder::new(stored);
            dec.read_exact(out).map_err(|e| format!("lz4: {e}"))?;
            let mut more = [0u8; 1];
            match dec.read(&mut more) {
                Ok(0) => Ok(()),
                Ok(_) => Err("lz4 gave more bytes than the size".into()),
                Err(e) => Err(format!("lz4: {e}")),
            }
        }
    }
}
