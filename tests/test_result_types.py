"""Every tool function declares the TypedDict it returns, and the MCP server publishes exactly
that type's schema as the tool's output schema (nothing patched in at run time)."""

from __future__ import annotations

import asyncio
import typing

import pytest

from chatmem.config import Config
from chatmem.tools.api import MEMORY_ADMIN, TOOLS
from chatmem.tools.mcp.specs import TOOL_SPECS
from chatmem.tools.types import RESULT_SCHEMAS, RESULT_TYPES


@pytest.mark.parametrize("name", sorted({**TOOLS, **MEMORY_ADMIN}))
def test_each_tool_function_declares_its_result_type(name):
    fn = {**TOOLS, **MEMORY_ADMIN}[name]
    assert typing.get_type_hints(fn)["return"] is RESULT_TYPES[name]


@pytest.mark.parametrize("spec", TOOL_SPECS, ids=lambda s: s.name)
def test_each_mcp_tool_is_annotated_with_the_functions_result_type(spec):
    wrapper = spec.make(lambda name, **args: None)
    assert typing.get_type_hints(wrapper)["return"] is typing.get_type_hints(TOOLS[spec.name])["return"]


def test_the_server_publishes_the_result_schemas(tmp_path):
    from chatmem.store import Store
    from chatmem.tools.mcp.server import build_server

    config = Config()
    with Store.open(tmp_path / "home", config) as store:
        server = build_server(store, config.seat(None))
        listed = asyncio.run(server.list_tools())
    assert {t.name for t in listed} == {s.name for s in TOOL_SPECS}
    for tool in listed:
        schema = tool.output_schema
        assert schema is not None, tool.name
        expected = RESULT_SCHEMAS[tool.name]
        assert schema["properties"] == expected["properties"], tool.name
        assert sorted(schema.get("required", [])) == sorted(expected.get("required", [])), tool.name
        assert schema.get("additionalProperties") is False, tool.name
