"""MessagePack for Starlette and FastAPI: responses, request bodies, content negotiation.

- :class:`MsgpackResponse` writes its content as ``application/msgpack``
  (``response_class=MsgpackResponse`` in FastAPI, or returned from any Starlette endpoint).
- :func:`read_body` reads a request body into a type (``type=`` of ``fastmsgpack.unpackb``:
  dataclasses, pydantic models, ``TypedDict``, ``list[int]``...), as MessagePack, or as JSON
  when the request says ``Content-Type: application/json`` and ``json`` is allowed.
  :func:`body` makes the same a FastAPI dependency:
  ``item: Annotated[Item, Depends(body(Item))]``.
- :func:`respond` answers in the format the request's ``Accept`` header prefers, by the same
  type rules either way: MessagePack by ``fastmsgpack.packb``, JSON by ``fastmsgpack.json.dumps``
  (:class:`JsonResponse`), so that a value one branch sends the other sends too.
- A body that cannot be read raises :class:`BodyError`, an ``HTTPException``: 415 for a
  ``Content-Type`` that is neither, 400 for bytes that are not one valid object, 413 for a body
  over ``max_size``, 422 for an object that does not fit the type, with the path of the
  value refused (``$.stops[0].at``) in the body. FastAPI answers it as JSON by itself;
  :func:`install` makes any Starlette or FastAPI app answer it in the negotiated format.

Starlette is imported here: install ``fastmsgpack[starlette]`` (or ``fastmsgpack[fastapi]``).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from fastmsgpack import (
    OPT_SERIALIZE_PYDANTIC,
    MsgpackDecodeError,
    ValidationError,
    packb,
    unpackb,
)
from fastmsgpack import json as fastjson

__all__ = [
    "MSGPACK_TYPES",
    "BodyError",
    "JsonResponse",
    "MsgpackResponse",
    "body",
    "error_response",
    "install",
    "read_body",
    "respond",
    "wants_msgpack",
]

#: The media types read as MessagePack; the first is the one responses carry.
MSGPACK_TYPES = ("application/msgpack", "application/x-msgpack", "application/vnd.msgpack")
_JSON_TYPES = ("application/json",)
#: The largest body read_body reads unless told otherwise: 16 MiB.
DEFAULT_MAX_SIZE = 16 << 20


class MsgpackResponse(Response):
    """A response whose content is packed by ``fastmsgpack.packb``, as ``application/msgpack``.

    pydantic models are packed as their fields (``OPT_SERIALIZE_PYDANTIC``); subclass and set
    ``option`` (and ``default``) to pack otherwise."""

    media_type = MSGPACK_TYPES[0]
    option: int | None = OPT_SERIALIZE_PYDANTIC
    default: Callable[[Any], Any] | None = None

    def __init__(
        self,
        content: Any,
        status_code: int = 200,
        headers: Mapping[str, str] | None = None,
        media_type: str | None = None,
        background: BackgroundTask | None = None,
    ) -> None:
        super().__init__(content, status_code, headers, media_type, background)

    def render(self, content: Any) -> bytes:
        return packb(content, default=type(self).default, option=self.option)


class JsonResponse(Response):
    """A response whose content is written by ``fastmsgpack.json.dumps``, as
    ``application/json``: the type rules, ``default`` and ``option`` of :class:`MsgpackResponse`
    (dataclasses, datetimes, UUIDs, enums, sets, named tuples, pydantic models...), in JSON.

    Starlette's own ``JSONResponse`` uses the standard library's ``json``, which refuses most of
    these; :func:`respond` answers JSON with this class instead."""

    media_type = "application/json"
    option: int | None = OPT_SERIALIZE_PYDANTIC
    default: Callable[[Any], Any] | None = None

    def render(self, content: Any) -> bytes:
        return fastjson.dumps(content, default=type(self).default, option=self.option)


def _media_type(header: str) -> str:
    return header.split(";", 1)[0].strip().lower()


def _accept(header: str) -> list[tuple[str, float, int]]:
    """The media ranges of an ``Accept`` header: (range, q, position)."""
    out = []
    for position, part in enumerate(header.split(",")):
        fields = part.split(";")
        media = fields[0].strip().lower()
        if not media:
            continue
        q = 1.0
        for param in fields[1:]:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value.strip())
                except ValueError:
                    q = 0.0
        out.append((media, q, position))
    return out


def _quality(ranges: list[tuple[str, float, int]], media: str) -> tuple[float, int, int]:
    """How much ``media`` is wanted: (q, specificity, -position) of the range that matches it
    most specifically."""
    best = (0.0, -1, 0)
    kind = media.split("/", 1)[0]
    for accepted, q, position in ranges:
        if accepted == media:
            specificity = 2
        elif accepted == f"{kind}/*":
            specificity = 1
        elif accepted == "*/*":
            specificity = 0
        else:
            continue
        if specificity > best[1]:
            best = (q, specificity, -position)
    return best


def wants_msgpack(request: Request, *, default: bool = False) -> bool:
    """Whether the request's ``Accept`` header prefers MessagePack to JSON. Without the header,
    or when it does not tell them apart (``*/*``), ``default``."""
    header = request.headers.get("accept")
    if not header:
        return default
    ranges = _accept(header)
    msgpack = max(_quality(ranges, media) for media in MSGPACK_TYPES)
    as_json = _quality(ranges, _JSON_TYPES[0])
    if msgpack[0] <= 0 and as_json[0] <= 0:
        return default
    if msgpack[0] != as_json[0]:
        return msgpack[0] > as_json[0]
    if msgpack[1] != as_json[1]:
        return msgpack[1] > as_json[1]
    return default


def respond(
    request: Request,
    content: Any,
    status_code: int = 200,
    headers: Mapping[str, str] | None = None,
    *,
    default: bool = False,
) -> Response:
    """``content`` as a :class:`MsgpackResponse` when the request prefers MessagePack
    (:func:`wants_msgpack`), else as a :class:`JsonResponse`: both apply fastmsgpack's type
    rules (``packb`` and ``json.dumps``, with ``OPT_SERIALIZE_PYDANTIC``). Either way the
    response says ``Vary: Accept``.

    ``default`` is the answer when the request does not say which it prefers: ``True`` for
    MessagePack, ``False`` (the default) for JSON.

    Example, in a Starlette or FastAPI endpoint::

        async def trip(request: Request) -> Response:
            return respond(request, Trip(id=7, stops=[...]))
    """
    vary = {"vary": "Accept", **(headers or {})}
    if wants_msgpack(request, default=default):
        return MsgpackResponse(content, status_code, vary)
    return JsonResponse(content, status_code, vary)


class BodyError(HTTPException):
    """A request body that could not be read; ``detail`` is a dict: ``error`` (a short code),
    ``message``, and for 422 ``path`` (where the refused value is, ``$`` for the whole body)
    and ``offset`` (its byte offset in the MessagePack body)."""

    def __init__(self, status_code: int, detail: dict[str, Any]) -> None:
        super().__init__(status_code, detail)  # type: ignore[arg-type]
        self.info = detail


def _refusal(exc: ValidationError) -> BodyError:
    message = str(exc)
    detail: dict[str, Any] = {"error": "validation", "message": message}
    path, offset = exc.path, exc.offset
    if path is not None:
        detail["path"] = path
        detail["offset"] = offset
    cause: Any = exc.__cause__
    if type(cause).__name__ == "ValidationError" and hasattr(cause, "errors"):  # pydantic's
        detail["errors"] = [
            {"loc": list(e["loc"]), "msg": str(e["msg"]), "type": str(e["type"])}
            for e in cause.errors(include_url=False)
        ]
    return BodyError(422, detail)


async def read_body(
    request: Request,
    type: Any = None,
    *,
    json_allowed: bool = True,
    max_size: int = DEFAULT_MAX_SIZE,
    option: int | None = None,
    dec_hook: Callable[[type, Any], Any] | None = None,
) -> Any:
    """The request's body, decoded (into ``type`` when given, as ``unpackb(type=...)`` does).

    A MessagePack body (``Content-Type`` one of :data:`MSGPACK_TYPES`) is decoded straight
    into ``type``; a JSON one (when ``json_allowed``) is parsed, then decoded into ``type`` by the
    same rules. Raises :class:`BodyError`: 415, 413, 400 or 422."""
    media = _media_type(request.headers.get("content-type", ""))
    is_json = json_allowed and media in _JSON_TYPES
    if media not in MSGPACK_TYPES and not is_json:
        accepted = ", ".join(MSGPACK_TYPES + (_JSON_TYPES if json_allowed else ()))
        raise BodyError(
            415,
            {
                "error": "unsupported media type",
                "message": f"expected a body of type {accepted}, not {media or 'none'}",
            },
        )
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_size:
        raise _too_large(max_size)
    chunks = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_size:
            raise _too_large(max_size)
        chunks.append(chunk)
    data = b"".join(chunks)
    try:
        if is_json:
            try:
                value = json.loads(data)
            except (ValueError, RecursionError) as exc:
                raise BodyError(
                    400, {"error": "malformed body", "message": f"invalid JSON: {exc}"}
                ) from None
            if type is None:
                return value
            data = packb(value)
        return unpackb(data, type=type, option=option, dec_hook=dec_hook)
    except ValidationError as exc:
        raise _refusal(exc) from None
    except MsgpackDecodeError as exc:
        raise BodyError(400, {"error": "malformed body", "message": str(exc)}) from None


def _too_large(max_size: int) -> BodyError:
    return BodyError(
        413, {"error": "body too large", "message": f"the body is over {max_size} bytes"}
    )


def body(
    type: Any,
    *,
    json_allowed: bool = True,
    max_size: int = DEFAULT_MAX_SIZE,
    option: int | None = None,
    dec_hook: Callable[[type, Any], Any] | None = None,
) -> Callable[[Request], Awaitable[Any]]:
    """A FastAPI dependency that gives the request's body decoded into ``type``
    (:func:`read_body`): ``item: Annotated[Item, Depends(body(Item))]``."""

    async def dependency(request: Request) -> Any:
        return await read_body(
            request,
            type,
            json_allowed=json_allowed,
            max_size=max_size,
            option=option,
            dec_hook=dec_hook,
        )

    return dependency


async def error_response(request: Request, exc: Exception) -> Response:
    """The exception handler :func:`install` adds: a :class:`BodyError` answered in the format
    the request prefers, as ``{"detail": {...}}`` (the shape FastAPI gives its errors)."""
    assert isinstance(exc, BodyError)
    return respond(request, {"detail": exc.info}, exc.status_code)


def install(app: Starlette) -> None:
    """Makes ``app`` answer :class:`BodyError` in the format the request's ``Accept`` prefers
    (MessagePack or JSON)."""
    app.add_exception_handler(BodyError, error_response)
