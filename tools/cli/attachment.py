"""`chatmem attachment`: an attachment's content, or its original file with --out."""

from __future__ import annotations

from pathlib import Path

import click

from chatmem.errors import ChatmemError

from ..app import AppContext, handle_errors, json_option
from .output import emit


@click.command()
@click.argument("attachment_id")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the original file here (decrypted where the source encrypts it).")
@click.option("--page", default=1, show_default=True, type=int,
              help="Which page of a text document or PDF.")
@click.option("--max-bytes", default=400_000, show_default=True, type=int,
              help="Bound on what is shown: an image is scaled to fit, a text page is cut.")
@json_option
@click.pass_obj
@handle_errors
def attachment(app: AppContext, attachment_id: str, out: Path | None, page: int, max_bytes: int,
               as_json: bool):
    """One attachment (an a_… id: `chatmem search --json` and `chatmem raw` list them): its
    text, what is known of it, or with --out its original file. Images show their size here;
    --out writes the picture."""
    from chatmem.store.permissions import open_private

    from ..attachments import attachment_bytes, read_attachment

    store, seat = app.store(), app.seat()
    if out is not None:
        info, data = attachment_bytes(store, seat, attachment_id)
        tmp = out.with_name(out.name + ".partial")
        try:
            with open_private(tmp, "wb") as f:
                f.write(data)
            tmp.replace(out)
        except OSError as e:
            tmp.unlink(missing_ok=True)
            raise ChatmemError(f"cannot write {out}: {e.strerror}") from e
        click.echo(f"wrote {info.name or attachment_id} ({len(data):,} bytes) to {out}", err=True)
        return
    result = read_attachment(store, seat, attachment_id, max_bytes=max_bytes, page=page)
    if isinstance(result.get("image"), dict):
        result["image"].pop("data", None)  # a terminal shows no picture: --out writes it
    if as_json:
        emit(result, True)
        return
    if not result["ok"]:
        raise ChatmemError(result.get("error", "no such attachment"))
    size = f"{result['size']:,} bytes" if result.get("size") is not None else "size unknown"
    click.echo(f"{result.get('name') or attachment_id} ({result.get('mime_type') or 'unknown type'}, "
               f"{size}) in message {result.get('message')}")
    image = result.get("image")
    if image:
        click.echo(f"image {image['original_width']}×{image['original_height']}; "
                   "`--out FILE` writes it")
    if result.get("text"):
        click.echo(result["text"])
    if result.get("pages"):
        click.echo(f"[page {result['page']} of {result['pages']}]", err=True)
    if result.get("note"):
        click.echo(result["note"], err=True)
