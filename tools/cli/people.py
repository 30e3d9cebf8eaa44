"""`chatmem people`: who is who across platforms, and fixing what matching got wrong."""

from __future__ import annotations

import click

from chatmem.store.db import next_seq
from chatmem.store.people import People, list_people, merge, rename, split

from ..app import AppContext, handle_errors, json_option
from .output import emit, table


def _people(app: AppContext, conn) -> People:
    cfg = app.config()
    return People(conn, next_seq(conn), cfg.region, cfg.owner_names, cfg.owner_handles)


@click.group(invoke_without_command=True)
@click.option("--query", "-q", default=None, help="Only people whose name or handle contains this.")
@json_option
@click.pass_context
@handle_errors
def people(ctx: click.Context, query: str | None, as_json: bool):
    """People with their handles and message counts, on every platform."""
    if ctx.invoked_subcommand is not None:
        return
    app: AppContext = ctx.obj
    with app.store().read() as conn:
        result = {"people": list_people(conn, query)}
    if as_json:
        emit(result, True)
        return
    rows = [(p["messages"], ",".join(p["platforms"]), p["person"], p["name"],
             ", ".join(h["value"] for h in p["handles"] if h["kind"] != "name")) for p in result["people"]]
    click.echo(table(rows, ["messages", "platforms", "person", "name", "handles"]))


def _change(app: AppContext, fn, *args) -> str:
    store = app.store()
    with store.write() as conn:
        pid = fn(conn, _people(app, conn), *args)
    store.catch_up_index()
    return pid


@people.command("merge")
@click.argument("person")
@click.argument("other")
@json_option
@click.pass_obj
@handle_errors
def merge_cmd(app: AppContext, person: str, other: str, as_json: bool):
    """Make OTHER part of PERSON (names, handles or person ids). Survives re-imports."""
    pid = _change(app, merge, person, other)
    emit({"person": pid}, as_json, text=f"merged {other!r} into {person!r} ({pid})")


@people.command("split")
@click.argument("person")
@click.argument("handle")
@click.option("--name", default=None, help="Name of the new person (default: the handle as seen).")
@json_option
@click.pass_obj
@handle_errors
def split_cmd(app: AppContext, person: str, handle: str, name: str | None, as_json: bool):
    """Move HANDLE (a phone number, e-mail or name) of PERSON to a person of its own."""
    pid = _change(app, split, person, handle, name)
    emit({"person": pid}, as_json, text=f"{handle!r} is now its own person ({pid})")


@people.command("rename")
@click.argument("person")
@click.argument("name")
@json_option
@click.pass_obj
@handle_errors
def rename_cmd(app: AppContext, person: str, name: str, as_json: bool):
    """Give PERSON the name NAME everywhere."""
    pid = _change(app, rename, person, name)
    emit({"person": pid}, as_json, text=f"{pid} is now called {name!r}")
