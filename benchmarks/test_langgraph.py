"""LangGraph checkpoint serialization: fastmsgpack's FastmsgpackSerializer against LangGraph's
own JsonPlusSerializer (ormsgpack), ``dumps_typed`` and ``loads_typed`` of one channel value.

Three values: a conversation of 60 LangChain messages (human, AI with tool calls, tool
results), 20 documents with metadata, and 500 plain records. Both give the same bytes (checked
before timing). Groups ``langgraph-dumps-*`` and ``langgraph-loads-*``.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from fastmsgpack.integrations.langgraph import FastmsgpackSerializer


def conversation() -> list[BaseMessage]:
    out: list[BaseMessage] = []
    for i in range(20):
        out.append(HumanMessage(f"question {i} " * 10, id=f"h{i}"))
        call = {"name": "search", "args": {"q": f"q{i}", "k": 5}, "id": f"c{i}"}
        out.append(AIMessage("", id=f"a{i}", tool_calls=[call]))
        out.append(ToolMessage("result " * 30, tool_call_id=f"c{i}", id=f"t{i}"))
    return out


WHEN = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
VALUES: dict[str, Any] = {
    "messages": conversation(),
    "documents": [
        Document(page_content="lorem ipsum " * 50, metadata={"source": f"{i}.pdf", "at": WHEN})
        for i in range(20)
    ],
    "records": {"rows": [{"id": i, "name": f"n{i}", "v": i * 0.5} for i in range(500)]},
}
SERIALIZERS = {"fastmsgpack": FastmsgpackSerializer(), "langgraph-jsonplus": JsonPlusSerializer()}


@pytest.mark.parametrize("library", list(SERIALIZERS))
@pytest.mark.parametrize("name", list(VALUES))
def test_langgraph_dumps(benchmark: Any, name: str, library: str) -> None:
    benchmark.group = f"langgraph-dumps-{name}"
    benchmark.extra_info["library"] = library
    serde = SERIALIZERS[library]
    value = VALUES[name]
    assert serde.dumps_typed(value) == JsonPlusSerializer().dumps_typed(value)
    benchmark(serde.dumps_typed, value)


@pytest.mark.parametrize("library", list(SERIALIZERS))
@pytest.mark.parametrize("name", list(VALUES))
def test_langgraph_loads(benchmark: Any, name: str, library: str) -> None:
    benchmark.group = f"langgraph-loads-{name}"
    benchmark.extra_info["library"] = library
    serde = SERIALIZERS[library]
    data = JsonPlusSerializer().dumps_typed(VALUES[name])
    assert serde.loads_typed(data) == VALUES[name]
    benchmark(serde.loads_typed, data)
