"""The `chatmem` command line: a thin click layer over the store and the tool functions.

Each command parses its arguments, calls one library function and prints its result: a
readable table for people, the tool's result dict with `--json`. A ChatmemError becomes one
line on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import importlib
import sys

import click

from chatmem import __version__

from ..app import AppContext

# Every command, in the order `--help` lists them: name -> "module:attribute". A command's
# module is imported only when that command runs (or `--help` describes it), so `--version`
# and `--help` stay quick and each command loads only what it needs.
COMMANDS: dict[str, str] = {
    "import": "chatmem.tools.cli.admin:import_cmd",
    "sync": "chatmem.tools.cli.admin:sync",
    "search": "chatmem.tools.cli.reads:search",
    "chats": "chatmem.tools.cli.reads:chats",
    "context": "chatmem.tools.cli.reads:context",
    "conversation": "chatmem.tools.cli.reads:conversation",
    "history": "chatmem.tools.cli.reads:history",
    "raw": "chatmem.tools.cli.reads:raw",
    "attachment": "chatmem.tools.cli.attachment:attachment",
    "memory": "chatmem.tools.cli.reads:memory",
    "people": "chatmem.tools.cli.people:people",
    "stats": "chatmem.tools.cli.admin:stats",
    "export": "chatmem.tools.cli.admin:export",
    "reindex": "chatmem.tools.cli.admin:reindex",
    "doctor": "chatmem.tools.cli.admin:doctor",
    "forget": "chatmem.tools.cli.admin:forget",
    "serve": "chatmem.tools.mcp.command:serve",
    "web": "chatmem.tools.web.command:web",
}


class LazyGroup(click.Group):
    """A group whose commands are the entries of COMMANDS, imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, _, attr = target.partition(":")
        command = getattr(importlib.import_module(module_name), attr)
        assert isinstance(command, click.Command), target
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="chatmem")
@click.option("--home", type=click.Path(file_okay=False), envvar="CHATMEM_HOME",
              help="Store folder (default: $CHATMEM_HOME, else the per-user data folder).")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), envvar="CHATMEM_CONFIG",
              help="YAML config (default: $CHATMEM_CONFIG, else the per-user config folder).")
@click.option("--seat", default=None, envvar="CHATMEM_SEAT",
              help="Read as this seat from the config (default: the owner, who sees everything).")
@click.pass_context
def cli(ctx: click.Context, home: str | None, config_path: str | None, seat: str | None) -> None:
    """chatmem: your iMessage, WhatsApp and Signal archives as one searchable memory."""
    from .output import cli_words

    ctx.obj = AppContext(home=home, config_path=config_path, seat_name=seat, error_words=cli_words)
    ctx.call_on_close(ctx.obj.close)
    if sys.stderr.isatty():  # progress only on a terminal, never into a pipe or a log
        from .output import LineProgress

        progress = LineProgress("chatmem")
        ctx.obj.on_progress = progress
        ctx.call_on_close(progress.close)


# True once main() runs: this process runs one command and ends (not click's test runner, not a
# program calling the library), so a command may tune the process for itself
ONE_COMMAND = False


def main() -> None:
    global ONE_COMMAND
    ONE_COMMAND = True
    cli(prog_name="chatmem")

