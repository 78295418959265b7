//! The JSON entry points: `json.dumps` over the shared dispatch tree, and `json.from_msgpack`,
//! which transcodes MessagePack without building Python objects.

use pyo3::prelude::*;

use crate::de::transcode::{Stop, Transcoder};
use crate::de::{self, DeError};
use crate::emit::JsonEmitter;
use crate::exc::{with_data, ErrorData, JSONEncodeError, MsgpackEncodeError};
use crate::ffi::BytesWriter;
use crate::opt::{self, Opt};
use crate::ser;

use super::request::Pack;

/// `json.dumps`: encode errors come out as `JSONEncodeError`, with message and cause kept.
pub fn dumps<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    request: &Pack<'_, 'py>,
) -> PyResult<Bound<'py, PyAny>> {
    ser::json_dumps(py, obj, request.hooks(py), request.opts).map_err(|err| as_json_error(py, err))
}

#[cold]
fn as_json_error(py: Python<'_>, err: PyErr) -> PyErr {
    let err = crate::exc::settled(py, err);
    if !err.is_instance_of::<MsgpackEncodeError>(py) || err.is_instance_of::<JSONEncodeError>(py) {
        return err;
    }
    // The shared tree names MessagePack in a few messages; here the output is JSON.
    let message = err
        .value(py)
        .to_string()
        .replace("MessagePack serializable", "JSON serializable")
        .replace("for MessagePack", "for JSON");
    let json = JSONEncodeError::new_err(message);
    json.set_cause(py, err.cause(py));
    // The data of the error, as it was.
    let (from, to) = (err.value(py), json.value(py));
    for name in [
        crate::intern!(py, "kind"),
        crate::intern!(py, "path"),
        crate::intern!(py, "type"),
    ] {
        if let Ok(value) = from.getattr(name) {
            if to.setattr(name, value).is_err() {
                break;
            }
        }
    }
    json
}

/// `json.from_msgpack`: the one object that makes up `data`, as JSON.
pub fn from_msgpack<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    opts: Opt,
) -> PyResult<Bound<'py, PyAny>> {
    let (json, _) = transcode_at(py, data, 0, opts, true)?;
    Ok(json)
}

/// The object that starts at `offset` in `data`, as JSON, and where it ends (for reading a
/// stream of concatenated objects).
pub fn from_msgpack_at<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    offset: usize,
    opts: Opt,
) -> PyResult<(Bound<'py, PyAny>, usize)> {
    transcode_at(py, data, offset, opts, false)
}

/// The largest output buffer started for one object of a stream.
const STREAM_START: usize = 64 * 1024;

/// The object at `offset` as JSON, and where it ends; with `whole`, it must end the input.
fn transcode_at<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    offset: usize,
    opts: Opt,
    whole: bool,
) -> PyResult<(Bound<'py, PyAny>, usize)> {
    let mut holder = None;
    let bytes = de::input_of(py, data, &mut holder, "from_msgpack() argument")?;
    // The output starts at about the input's size; for one object of a stream, at most
    // `STREAM_START` (the rest of the stream says little about one object).
    let mut start = bytes.len().saturating_sub(offset);
    if !whole {
        start = start.min(STREAM_START);
    }
    // SAFETY: attached.
    let writer = unsafe { BytesWriter::with_capacity(start.max(64))? };
    let (result, writer) = if opts & opt::INDENT_2 != 0 {
        transcode_into::<true>(bytes, offset, opts, writer)
    } else {
        transcode_into::<false>(bytes, offset, opts, writer)
    };
    let end = match result {
        Ok(end) => end,
        Err(Stop::Input(err)) => return Err(err.into_pyerr()),
        // A value JSON cannot hold, unless a repeated key replaces it later or the input is
        // malformed further on: the object path decides, and the error keeps this offset.
        Err(Stop::NotJson(err, at, kind)) => {
            let err: PyErr = err.into();
            let reason = err.value(py).to_string();
            let located = with_data(
                JSONEncodeError::new_err(format!("{reason} at byte offset {at}")),
                &ErrorData {
                    kind,
                    reason: &reason,
                    offset: Some(at),
                    path: None,
                },
            );
            return match through_objects(py, bytes, offset, opts, whole) {
                Err(e) if e.is_instance_of::<JSONEncodeError>(py) => Err(located),
                other => other,
            };
        }
        Err(Stop::UseObjects) => return through_objects(py, bytes, offset, opts, whole),
    };
    if whole && end != bytes.len() {
        return Err(trailing(bytes.len(), end));
    }
    let mut writer = writer;
    if opts & opt::APPEND_NEWLINE != 0 {
        writer.put(b"\n")?;
    }
    let json = writer.finish()?;
    // SAFETY: `finish` hands over a strong reference to a complete bytes object.
    Ok((unsafe { Bound::from_owned_ptr(py, json) }, end))
}

/// Walks the object at `offset` into `writer`; the writer holds a finished document when the
/// walk succeeded.
fn transcode_into<const INDENT: bool>(
    bytes: &[u8],
    offset: usize,
    opts: Opt,
    writer: BytesWriter,
) -> (Result<usize, Stop>, BytesWriter) {
    let mut emitter = JsonEmitter::<INDENT>::new(writer);
    let result = Transcoder::new(bytes, opts, &mut emitter).object_at(offset);
    (result, emitter.into_writer())
}

#[cold]
fn trailing(len: usize, end: usize) -> PyErr {
    DeError::input(de::Kind::Trailing { extra: len - end }, end).into_pyerr()
}

/// The object path, for maps a direct walk cannot reproduce: `dumps(unpackb(...))`, decoding
/// straight from the whole input (so decode errors keep their offsets in it).
#[cold]
fn through_objects<'py>(
    py: Python<'py>,
    bytes: &[u8],
    offset: usize,
    opts: Opt,
    whole: bool,
) -> PyResult<(Bound<'py, PyAny>, usize)> {
    let (obj, end) = de::unpack_at(py, bytes, offset, opts)?;
    if whole && end != bytes.len() {
        return Err(trailing(bytes.len(), end));
    }
    let request = Pack {
        opts: opts & (opt::NON_STR_KEYS | opt::INDENT_2 | opt::APPEND_NEWLINE),
        default: None,
        registry: None,
    };
    let json = dumps(py, &obj, &request)?;
    Ok((json, end))
}

/// Serializes `obj` as JSON bytes, with the type rules, `default` and options of `packb`
/// (dataclasses, datetimes, UUIDs, enums, sets, named tuples...), plus the JSON options
/// OPT_INDENT_2, OPT_APPEND_NEWLINE and OPT_STRICT_INTEGER. Raises JSONEncodeError.
///
/// Example:
///     >>> fastmsgpack.json.dumps({"id": 1, "at": datetime.date(2024, 5, 17)})
///     b'{"id":1,"at":"2024-05-17"}'
#[pyfunction]
#[pyo3(signature = (obj, /, default=None, option=None))]
pub fn json_dumps<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    default: Option<&Bound<'py, PyAny>>,
    option: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    dumps(py, obj, &Pack::parse_json(default, option)?)
}

/// The one MessagePack object in `data` (bytes-like) as JSON bytes, transcoded without
/// building Python objects: the bytes `json.dumps(unpackb(data))` gives. `option`:
/// OPT_NON_STR_KEYS, OPT_INDENT_2, OPT_APPEND_NEWLINE.
///
/// Example:
///     >>> fastmsgpack.json.from_msgpack(b'\x92\x01\xc0')
///     b'[1,null]'
#[pyfunction]
#[pyo3(signature = (data, /, option=None))]
pub fn json_from_msgpack<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    option: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let opts = parse_from_msgpack_option(option)?;
    from_msgpack(py, data, opts)
}

/// The MessagePack object that starts at `offset`, as JSON, and its end offset.
#[pyfunction]
#[pyo3(signature = (data, offset, /, option=None))]
pub fn _json_from_msgpack_at<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    offset: usize,
    option: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyAny>, usize)> {
    let opts = parse_from_msgpack_option(option)?;
    from_msgpack_at(py, data, offset, opts)
}

fn parse_from_msgpack_option(option: Option<&Bound<'_, PyAny>>) -> PyResult<opt::Opt> {
    opt::parse_for_reading(option, opt::JSON_FROM_MSGPACK_MASK, "json.from_msgpack")
}
