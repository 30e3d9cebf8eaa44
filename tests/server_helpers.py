"""Helpers for the MCP server tests: a store with our fixture imported, the server started as a
subprocess (stdio through the SDK's client, HTTP on a free port), and schema checks."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx2
import jsonschema
from click.testing import CliRunner
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parents[1]
FIXTURE_CONFIG = ROOT / "fixtures" / "config.yaml"
TELEGRAM_JSONL = ROOT / "fixtures" / "jsonl" / "notes-from-telegram.jsonl"
ASSISTANT_TOKEN = "fixture-token-assistant-7d1f9c04b2e6a85f"  # fixtures/config.yaml: may not write
NOTEBOOK_TOKEN = "fixture-token-notebook-41aa0e93c7d2b16f"  # may write
READ_TOOLS = {"search_memory", "get_context", "get_conversation_context",
              "get_conversation_history", "read_raw_data", "list_chats", "read_attachment"}
WRITE_TOOLS = {"start_conversation", "log_conversation_turn", "save_memory"}


def chatmem(home: Path, *args: str) -> Any:
    """`chatmem --home HOME --config fixtures/config.yaml ARGS --json` in-process, parsed."""
    from chatmem.tools.cli import cli

    result = CliRunner().invoke(cli, ["--home", str(home), "--config", str(FIXTURE_CONFIG),
                                      *args, "--json"])
    assert result.exit_code == 0, f"{args}: {result.output}\n{result.exception!r}"
    return json.loads(result.stdout)


def import_into(home: Path, path: Path) -> None:
    """`chatmem import PATH` in another process, as a user's cron job would run it."""
    subprocess.run([sys.executable, "-m", "chatmem", "--home", str(home), "--config",
                    str(FIXTURE_CONFIG), "import", str(path), "--json"],
                   env=child_env(), check=True, capture_output=True, timeout=60)


def write_jsonl(path: Path, chat: str, messages: list[tuple[str, str, str]]) -> Path:
    """A small JSON Lines export: one chat, messages as (sender, ISO timestamp, text)."""
    lines = [{"type": "chat", "platform": "telegram", "chat": chat, "group": False}]
    lines += [{"platform": "telegram", "chat": chat, "sender": s, "timestamp": t, "text": x}
              for s, t, x in messages]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def child_env() -> dict[str, str]:
    """The environment for a server process: ours, minus anything that picks a store or seat."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CHATMEM_") or k == "CHATMEM_SEARCH_MODE"}  # the suite's default mode
    env["PYTHONUNBUFFERED"] = "1"
    return env


def serve_args(home: Path, *extra: str, seat: str | None = None) -> list[str]:
    seat_args = ["--seat", seat] if seat else []
    return ["-m", "chatmem", "--home", str(home), "--config", str(FIXTURE_CONFIG), *seat_args,
            "serve", *extra]


def stdio_client(home: Path, seat: str | None = None, errlog=None) -> Client:
    """The SDK's own client, starting `chatmem serve` over stdio."""
    env = {k: v for k, v in child_env().items() if k in ("PYTHONUNBUFFERED", "PYTHONPATH", "CHATMEM_SEARCH_MODE")}
    params = StdioServerParameters(command=sys.executable, args=serve_args(home, seat=seat),
                                   env=env, cwd=str(ROOT))
    if errlog is None:
        return Client(params)
    from mcp.client.stdio import stdio_client as transport

    return Client(transport(params, errlog=errlog))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class HttpServer:
    """`chatmem serve --http` in a subprocess; its stderr is kept in a file to inspect."""

    def __init__(self, home: Path, log: Path, seat: str | None = None):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.log = log
        self._err = log.open("wb")
        self.proc = subprocess.Popen(
            [sys.executable, *serve_args(home, "--http", "--port", str(self.port), seat=seat)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._err,
            env=child_env(), cwd=str(ROOT))

    def wait_ready(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited {self.proc.returncode}:\n{self.stderr()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.1)
        raise AssertionError(f"server did not listen within {timeout}s:\n{self.stderr()}")

    def stderr(self) -> str:
        self._err.flush()
        return self.log.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._err.close()


@contextmanager
def http_server(home: Path, log: Path, seat: str | None = None):
    server = HttpServer(home, log, seat=seat)
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


@asynccontextmanager
async def http_client(url: str, token: str | None):
    """The SDK's own client over streamable HTTP, sending `token` as a bearer token."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            yield client


class SyncClient:
    """The SDK's client driven from plain (sync) tests: its event loop runs in a portal thread,
    so one server can serve every test of a module."""

    def __init__(self, portal, client: Client):
        self.portal = portal
        self.client = client

    def tools(self) -> list:
        return self.portal.call(self.client.list_tools).tools

    def call(self, name: str, **args: Any):
        """The raw CallToolResult (to look at errors)."""
        return self.portal.call(self.client.call_tool, name, args)

    def result(self, name: str, **args: Any) -> dict:
        """A successful call's structured content, validated against the tool's schema."""
        return check_result(name, self.call(name, **args))


@contextmanager
def session(client: Client):
    """Enter `client` (a stdio or HTTP client) for the duration of the block."""
    from anyio.from_thread import start_blocking_portal

    with start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(client) as entered:
            yield SyncClient(portal, entered)


def http_session(url: str, token: str | None):
    return session(http_client(url, token))


def result_schemas() -> dict[str, dict]:
    from chatmem.tools.types import RESULT_SCHEMAS

    return RESULT_SCHEMAS


def check_result(name: str, result) -> dict:
    """A successful call's structured content, validated against the tool's JSON Schema."""
    assert not result.is_error, f"{name} failed: {result.content}"
    data = result.structured_content
    assert isinstance(data, dict), f"{name} returned no structured content"
    jsonschema.validate(data, result_schemas()[name])
    # the text content is the same result, for clients that do not read structured content
    assert json.loads(result.content[0].text) == data
    return data


def check_listing(tools) -> dict[str, Any]:
    """Every tool: a description, described arguments, an output schema, honest annotations."""
    by_name = {t.name: t for t in tools}
    schemas = result_schemas()
    for name, tool in by_name.items():
        assert len(tool.description or "") > 80, name
        props = tool.input_schema.get("properties", {})
        for arg, prop in props.items():
            assert prop.get("description"), f"{name}.{arg} has no description"
        assert tool.output_schema is not None, f"{name} has no output schema"
        jsonschema.Draft202012Validator.check_schema(tool.output_schema)
        assert tool.output_schema == schemas[name], f"{name}: published schema differs"
        ann = tool.annotations
        if name in READ_TOOLS:
            assert ann.read_only_hint is True and ann.idempotent_hint is True, name
        else:
            assert ann.read_only_hint is False and ann.idempotent_hint is False, name
    return by_name
