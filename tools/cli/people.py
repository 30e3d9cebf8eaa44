"""`chatmem people`: who is who across platforms, and fixing what matching got wrong."""

from __future__ import annotations

import click

from ..app import AppContext, handle_errors, json_option
from .output import emit, table


@click.group(invoke_without_command=True)
@click.option("--query", "-q", default=None, help="Only people whose name or handle contains this.")
@json_option
@click.pass_context
@handle_errors
def people(ctx: click.Context, query: str | None, as_json: bool):
    """People with their handles and message counts, on every platform."""
    if ctx.invoked_subcommand is not None:
        return
    from ..people import list_people

    app: AppContext = ctx.obj
    result = list_people(app.store(), app.seat(), query)
    if as_json:
        emit(result, True)
        return
    rows = [(p["messages"], ",".join(p["platforms"]), p["person"], p["name"],
             ", ".join(h["value"] for h in p["handles"] if h["kind"] != "name")) for p in result["people"]]
    click.echo(table(rows, ["messages", "platforms", "person", "name", "handles"]))


@people.command("merge")
@click.argument("person")
@click.argument("other")
@json_option
@click.pass_obj
@handle_errors
def merge_cmd(app: AppContext, person: str, other: str, as_json: bool):
    """Make OTHER part of PERSON (names, handles or person ids). Survives re-imports."""
    from ..people import merge_people

    result = merge_people(app.store(write=True), app.seat(), person, other)
    emit(result, as_json, text=f"merged {other!r} into {person!r} ({result['person']})")


@people.command("split")
@click.argument("person")
@click.argument("handle")
@click.option("--name", default=None, help="Name of the new person (default: the handle as seen).")
@json_option
@click.pass_obj
@handle_errors
def split_cmd(app: AppContext, person: str, handle: str, name: str | None, as_json: bool):
    """Move HANDLE (a phone number, e-mail or name) of PERSON to a person of its own."""
    from ..people import split_person

    result = split_person(app.store(write=True), app.seat(), person, handle, name)
    emit(result, as_json, text=f"{handle!r} is now its own person ({result['person']})")


@people.command("rename")
@click.argument("person")
@click.argument("name")
@json_option
@click.pass_obj
@handle_errors
def rename_cmd(app: AppContext, person: str, name: str, as_json: bool):
    """Give PERSON the name NAME everywhere."""
    from ..people import rename_person

    result = rename_person(app.store(write=True), app.seat(), person, name)
    emit(result, as_json, text=f"{result['person']} is now called {name!r}")
