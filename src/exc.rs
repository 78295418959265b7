//! The two exception classes, real subclasses of `TypeError` and `ValueError`.

use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};

create_exception!(
    fastmsgpack,
    MsgpackEncodeError,
    PyTypeError,
    "An object could not be packed. Subclass of TypeError."
);
create_exception!(
    fastmsgpack,
    MsgpackDecodeError,
    PyValueError,
    "Input is not valid MessagePack, or a value could not be built from it. Subclass of ValueError."
);

create_exception!(
    fastmsgpack,
    JSONEncodeError,
    MsgpackEncodeError,
    "An object could not be written as JSON. Subclass of MsgpackEncodeError (and so of TypeError)."
);

create_exception!(
    fastmsgpack,
    OutOfData,
    MsgpackDecodeError,
    "Unpacker.unpack() or skip() found no complete object in what was fed or read. Subclass of \
     MsgpackDecodeError."
);
create_exception!(
    fastmsgpack,
    BufferFull,
    MsgpackDecodeError,
    "Unpacker: holding more would go over max_buffer_size. Subclass of MsgpackDecodeError."
);

create_exception!(
    fastmsgpack,
    ValidationError,
    MsgpackDecodeError,
    "unpackb(data, type=T): the input is MessagePack, but a value does not fit T (the message \
     names the expected type, what was found and where, as a path such as $.stops[3].at). \
     Subclass of MsgpackDecodeError."
);
