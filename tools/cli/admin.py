"""The commands that change the store or describe it as a whole: import, sync, stats,
export, reindex."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

import click

from chatmem.errors import ChatmemError
from chatmem.importers import REGISTRY, find_sources, folder_entries

from ..app import AppContext, handle_errors, json_option
from .output import emit, print_report, progress_printer


@click.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--platform", type=click.Choice(sorted(REGISTRY)), default=None,
              help="Say what the export is instead of detecting it.")
@click.option("--timezone", "tz", default=None,
              help="Time zone of exports without one (WhatsApp), e.g. Europe/Berlin.")
@click.option("--date-format", default=None,
              help="WhatsApp date order when it cannot be inferred (DMY, MDY or YMD), or the "
                   "whole header, e.g. '[dd.mm.yy HH:MM:SS]' (see the README).")
@click.option("--chat", default=None, help="Merge the export into the chat with this name or source id.")
@click.option("--force", is_flag=True, help="Read the export again even if it has not changed.")
@click.option("--no-wait", is_flag=True, help="Fail instead of waiting when another import is running.")
@click.option("--copy-media", is_flag=True,
              help="Also copy the attachments' files into the store (decrypted), so they stay "
                   "readable when the export is gone. Without it nothing is copied.")
@json_option
@click.pass_obj
@handle_errors
def import_cmd(app: AppContext, paths, platform, tz, date_format, chat, force, no_wait, copy_media,
               as_json):
    """Import exports: files, or folders whose recognised exports are all imported.

    Recognises iMessage chat.db / sms.db / iOS backup folders / CallHistory.storedata, WhatsApp
    .txt and .zip exports, Signal Desktop databases, Signal's own export from the phone
    (main.jsonl) and signal-export folders, Telegram Desktop exports (result.json, or the
    HTML export's messages.html folders), Android SMS
    Backup & Restore XML (sms-*.xml, calls-*.xml), Messenger and Instagram threads from Meta's
    download (message_1.json...), contacts
    (vCard files, the macOS AddressBook database) and JSON Lines. The same conversation in
    several exports is one chat. A source whose files have not changed since its last import is
    skipped (--force reads it again).
    """
    from chatmem.config import load_timezone

    zone = None
    if tz:
        try:
            zone = load_timezone(tz)
        except ChatmemError as e:
            raise click.BadParameter(str(e), param_hint="'--timezone'") from None
    if no_wait:
        app.refuse_if_importing()
    if not (force or chat or copy_media):
        quick = app.unchanged_imports(paths, platform, zone, date_format, folder_entries)
        if quick is not None:  # every path unchanged: said without loading the store
            _print_reports(quick, as_json)
            return
    store = app.store(write=True, catch_up=not no_wait)
    options = store.default_options()
    if zone is not None:
        options.timezone = zone
    options.date_format = date_format
    if chat:
        options.chat = app.resolve_chat_name(chat)
    show = not as_json and sys.stderr.isatty()
    reports = []
    for n, path in enumerate(paths):
        sources = find_sources(path, platform)
        if n == 0 and one_command():
            _settle_start_up()
        with progress_printer(show, str(path)) as on_progress:
            reports += store.import_sources(
                sources, options, force=force, wait=not no_wait,
                on_progress=on_progress,
                on_wait=lambda: click.echo("waiting for another chatmem import to finish...", err=True))
    if copy_media:
        from chatmem.store.media import copy_media as copy_attachments

        copied, size, problems = copy_attachments(store)
        click.echo(f"copied {copied:,} attachments ({size / 1e6:.1f} MB) into the store"
                   + (f"; {len(problems):,} could not be read" if problems else ""), err=True)
        for problem in problems[:5]:
            click.echo(f"  {problem}", err=True)
    _print_reports(reports, as_json)


def _settle_start_up() -> None:
    """What the command loaded to start (SQLAlchemy, Whoosh, the store, the importer: some
    56,000 objects that live as long as the process) is set aside from the cyclic garbage
    collector, so that its full collections during the import walk only what the import itself
    made (a 1M WhatsApp re-import's two: ~0.11 s -> 0.02-0.05 s at load 6). Only where the
    process runs this one command: what is set aside lives until it ends anyway."""
    gc.freeze()


def one_command() -> bool:
    """Whether this process is `chatmem` running one command (see cli.ONE_COMMAND)."""
    from . import ONE_COMMAND

    return ONE_COMMAND


def _print_reports(reports: list, as_json: bool) -> None:
    if as_json:
        emit([r.as_dict() for r in reports], True)
    else:
        for r in reports:
            print_report(r.as_dict())


@click.command()
@click.option("--force", is_flag=True, help="Read every source again, changed or not.")
@json_option
@click.pass_obj
@handle_errors
def sync(app: AppContext, force: bool, as_json: bool):
    """Re-import every known source that changed since its last import.

    One cron line keeps the memory current, e.g. every night at 3:
    `0 3 * * * chatmem sync --json >> ~/chatmem-sync.log 2>&1`
    """
    from ..sync import sync_sources

    store = app.store(write=True)
    reports = sync_sources(store, force=force)
    if as_json:
        emit(reports, True)
    else:
        if not reports:
            click.echo("no sources imported yet; use `chatmem import PATH` first")
        for r in reports:
            print_report(r)


@click.command()
@click.option("--merge", "merge_only", is_flag=True,
              help="Only merge the index's small segments (each import of 1,000 or more messages "
                   "adds one; searches walk each) and drop deleted documents: no text is read "
                   "again, search results stay the same.")
@json_option
@click.pass_obj
@handle_errors
def reindex(app: AppContext, merge_only: bool, as_json: bool):
    """Rebuild the full-text index from the database (or, with --merge, merge its segments)."""
    if merge_only:
        before, after = app.store(write=True).merge_index()
        emit({"segments_before": before, "segments": after}, as_json,
             text=f"merged the search index: {before} segments before, {after} now")
        return
    n = app.store(catch_up=False, write=True).reindex()
    emit({"indexed": n}, as_json, text=f"indexed {n:,} records")


@click.command()
@json_option
@click.pass_obj
@handle_errors
def stats(app: AppContext, as_json: bool):
    """What the store holds: messages, chats, calls per platform, and the last imports."""
    from ..stats import store_stats

    result = store_stats(app.store(), app.seat())
    emit(result, as_json)


@click.command()
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write to this file instead of standard output.")
@click.pass_obj
@handle_errors
def export(app: AppContext, out: Path | None):
    """Write the whole store as JSON Lines in the `--platform jsonl` import format."""
    from chatmem.store.export import write_export

    with app.store().read() as conn:
        n = write_export(conn, out if out is not None else sys.stdout)
    if out is not None:
        click.echo(f"wrote {n:,} records to {out}", err=True)


@click.command()
@json_option
@click.pass_obj
@handle_errors
def doctor(app: AppContext, as_json: bool):
    """Where the store and config are, their sizes and counts, whether the search index is
    current, what `sync` would read again, and anything that looks wrong."""
    from ..doctor import diagnose

    result = diagnose(app.store(catch_up=False), app.seat(), app.config())
    if as_json:
        emit(result, True)
        return
    mb = {k: f"{v / 1e6:,.1f} MB" for k, v in result["sizes"].items()}
    c = result["counts"]
    click.echo(f"store:    {result['home']}{' (read-only)' if result['read_only'] else ''}")
    click.echo(f"config:   {result['config'] or '(none: defaults)'}"
               + ("" if result["config_found"] or not result["config"] else " (not found: defaults)"))
    click.echo(f"database: {result['database']} ({mb['database']}); index {mb['index']}; "
               f"copied media {mb['media']}")
    click.echo(f"holds:    {c['messages']:,} messages, {c['calls']:,} calls in {c['chats']:,} chats; "
               f"{c['people']:,} people; {c['sources']:,} sources")
    ix = result["index"]
    state = "current" if not ix["behind"] else f"behind by {ix['behind']} import step(s)"
    click.echo(f"index:    {ix['documents']:,} documents, {state}"
               + (" (an import is writing it)" if ix["busy"] else ""))
    changed = [s for s in result["sync"] if s["status"] != "unchanged"]
    click.echo(f"sync:     {len(result['sync'])} sources; "
               + (f"{len(changed)} would be read again or are missing:" if changed else "all unchanged"))
    for s in changed:
        click.echo(f"  {s['status']:9} {s['path']}")
    for w in result["warnings"]:
        click.echo(f"warning:  {w}")


@click.command()
@click.argument("target")
@click.option("--yes", is_flag=True, help="Do not ask first.")
@json_option
@click.pass_obj
@handle_errors
def forget(app: AppContext, target: str, yes: bool, as_json: bool):
    """Remove a chat (its source id, s_…) or everything an imported export brought (its path),
    from the store and the search index. It stays gone on `sync`; importing the export again
    on purpose brings it back."""
    from ..forget import forget as forget_target
    from ..forget import plan_forget

    store = app.store(write=True)
    plan = plan_forget(store, app.seat(), target)
    what = (f"the chat {plan['name']} with its {plan['messages']:,} messages"
            if plan["kind"] == "chat" else f"everything imported from {plan['name']}")
    if not yes:
        if not sys.stdin.isatty():
            raise click.UsageError(f"this would forget {what}; add --yes to do it without asking")
        click.confirm(f"Forget {what}?", abort=True, err=True)
    result = forget_target(store, app.seat(), target)
    emit(result, as_json, text=f"forgot {result['messages']:,} messages and {result['calls']:,} calls "
                                f"in {result['chats']:,} chat(s)")
