"""`chatmem serve`: the chatmem tools for AI assistants over the Model Context Protocol.

stdio by default (the client starts `chatmem serve` and talks over its stdin/stdout), or
streamable HTTP on loopback with `--http`, where a seat's bearer token picks the seat.

Each MCP tool is the same library function the CLI calls (`tools.api.TOOLS`), run on the one
store this process opened. Before each call the store catches up with what another process
(`chatmem import`, `chatmem sync`) added since, so a long-running server sees new messages.
A ChatmemError comes back as a tool error the model can read; results are cut to fit the
response limit of MCP clients (`server_fit`). Logs go to stderr only: stdout is the stdio
transport.
"""

from __future__ import annotations

import logging
import sys
import threading
from typing import TYPE_CHECKING, Any

from chatmem import __version__
from chatmem.config import Seat
from chatmem.errors import ChatmemError

from ..app import AppContext, catch_up_in_background
from .fit import dumps, fit_result

if TYPE_CHECKING:  # the SDK loads only for `chatmem serve`: every other command starts faster
    from mcp.server import MCPServer
    from mcp.types import CallToolResult

    from .specs import ToolSpec

log = logging.getLogger("chatmem.server")

INSTRUCTIONS = (
    "chatmem is the user's chat archives (iMessage, WhatsApp, Signal, plus logged agent "
    "sessions) as one searchable memory. Find a chat by a person's or group's name with "
    "list_chats; find messages by what they say with search_memory; read around a hit with "
    "get_context; catch up on a whole conversation with get_conversation_context; read one "
    "record in full with read_raw_data. Ids: m_ message, c_ call, a_ attachment, t_ logged turn, "
    "s_ chat (a chat's `source` is the conversation_id the conversation tools take). `me` is the "
    "user."
)


def tool_functions() -> tuple[dict[str, Any], frozenset[str]]:
    """The registry: tool functions by name, and the names of those that write."""
    from ..api import TOOLS, WRITE_TOOLS

    return dict(TOOLS), frozenset(WRITE_TOOLS)


class ToolRunner:
    """Calls one tool function for one seat on the shared store. Calls run in parallel (the
    SDK's worker threads): each thread reads with its own database connection and its own
    index searcher, so one slow query stalls nobody else."""

    def __init__(self, store, seat: Seat, functions: dict[str, Any], schemas: dict[str, dict],
                 catching_up: threading.Lock):
        self.store = store
        self.seat = seat
        self.functions = functions
        self.schemas = schemas
        self.catching_up = catching_up  # one thread at a time catches the index up

    def catch_up(self) -> None:
        """See what another process imported since the last call, in a thread of its own that
        no call waits for (tools/app.py: catch_up_in_background)."""
        catch_up_in_background(self.store, self.catching_up, "serve")

    def __call__(self, name: str, **args: Any) -> CallToolResult:
        from mcp.server.mcpserver.exceptions import ToolError
        from mcp.types import CallToolResult, TextContent

        fn = self.functions[name]
        try:
            self.catch_up()
            result = fn(self.store, self.seat, **args)
        except ChatmemError as e:
            # the model reads this and can correct its call; the server keeps serving
            raise ToolError(str(e)) from e
        # an image travels as MCP image content, not as base64 inside the JSON
        image = result.get("image") if isinstance(result.get("image"), dict) else None
        data = image.pop("data", None) if image is not None else None
        result = fit_result(name, result, schema=self.schemas.get(name))
        # compact JSON as the text for clients without structured output; the same dict as
        # structured content, which the SDK checks against the tool's output schema
        content: list[Any] = [TextContent(type="text", text=dumps(result))]
        if image is not None and data:
            from mcp.types import ImageContent

            content.append(ImageContent(type="image", data=data, mime_type=image["mime_type"]))
        return CallToolResult(content=content, structured_content=result)


def tools_for(seat: Seat, functions: dict[str, Any], writes: frozenset[str]) -> list[ToolSpec]:
    """The tools a seat sees: every read, and the writes only for a seat that may write."""
    from .specs import TOOL_SPECS

    return [s for s in TOOL_SPECS if s.name in functions and (seat.write or s.name not in writes)]


def _server_class() -> type:
    """MCPServer, checking each call's arguments in our words before the SDK's pydantic does."""
    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    from .arguments import check_arguments

    class ChatmemServer(MCPServer):
        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            tool = self._tool_manager.get_tool(name)
            if tool is not None:
                try:
                    arguments = check_arguments(name, dict(arguments or {}), tool.parameters)
                except ChatmemError as e:
                    raise ToolError(str(e)) from e
            return await super().call_tool(name, arguments, context)

    return ChatmemServer


def publish_platforms(server: Any, platforms: list[str]) -> None:
    """List the platforms a `platform` argument takes in every tool's input schema."""
    for tool in server._tool_manager.list_tools():
        prop = (tool.parameters.get("properties") or {}).get("platform")
        if prop is None:
            continue
        for option in prop.get("anyOf") or [prop]:
            if option.get("type") == "string":
                option["enum"] = list(platforms)


def build_server(store, seat: Seat, lock: threading.Lock | None = None) -> MCPServer:
    """An MCP server exposing the tools `seat` may use, over `store`. Secrets are masked
    for every seat, the owner included, unless the config lets that seat reveal them to
    assistants (`Seat.for_assistants`)."""
    from ..lookup import known_platforms
    from ..types import RESULT_SCHEMAS
    from .specs import READ, TOOL_SPECS, WRITE

    seat = seat.for_assistants()
    functions, writes = tool_functions()
    runner = ToolRunner(store, seat, functions, RESULT_SCHEMAS, lock or threading.Lock())
    server = _server_class()("chatmem", title="chatmem", version=__version__, instructions=INSTRUCTIONS,
                       log_level="WARNING")
    for spec in tools_for(seat, functions, writes):
        # the wrapper's return annotation (the tool function's result type) gives the tool
        # its output schema
        fn = spec.make(runner)
        server.add_tool(fn, name=spec.name, title=spec.title, description=spec.description,
                        annotations=WRITE if spec.name in writes else READ)
    publish_platforms(server, known_platforms(store))
    missing = [s.name for s in TOOL_SPECS if s.name not in functions]
    if missing:
        log.warning("not served (no tool function yet): %s", ", ".join(missing))
    return server


def setup_logging() -> None:
    """chatmem's messages on stderr; the SDK's only when they matter."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("chatmem serve: %(levelname)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    log.setLevel(logging.INFO)


def settle_memory() -> None:
    """Set what start-up made aside from the garbage collector: a long-lived server would
    otherwise walk every module, schema and compiled statement (hundreds of thousands of
    objects) in each full collection, a pause of 35-50 ms in the middle of some call. Frozen,
    only what calls made since is walked (`gc.freeze`, after one collection so no garbage is
    kept for good)."""
    import gc

    gc.collect()
    gc.freeze()


def serve_stdio(store, seat: Seat) -> None:
    import anyio

    server = build_server(store, seat)
    log.info("serving seat %s over stdio", seat.name)
    settle_memory()
    anyio.run(server.run_stdio_async)


def serve_http(app: AppContext, store, host: str, port: int) -> None:
    import uvicorn

    from .http import LOOPBACK_HOSTS, MCP_PATH, http_app, http_seats, uvicorn_log_config

    config = app.config()
    seats = http_seats(config, app.seat_name)
    lock = threading.Lock()
    servers = {seat.name: build_server(store, seat, lock) for seat in seats}
    if host not in LOOPBACK_HOSTS:
        log.warning("listening on %s: reachable from other machines (requests still need a "
                    "seat's token)", host)
    shown = f"[{host}]" if ":" in host else host
    log.info("serving seats %s at http://%s:%d%s", ", ".join(servers), shown, port, MCP_PATH)
    settle_memory()
    uvicorn.Server(uvicorn.Config(http_app(servers, config, host), host=host, port=port,
                                  log_config=uvicorn_log_config(), access_log=False)).run()
