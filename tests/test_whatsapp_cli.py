"""WhatsApp exports through `chatmem import`: idempotent, overlapping exports, deletions."""

from __future__ import annotations

from whatsapp_helpers import FIXTURES


def _totals(reports: list[dict]) -> dict[str, int]:
    out = {"new": 0, "updated": 0, "unchanged": 0, "unparsed": 0, "calls_new": 0}
    for r in reports:
        for key in ("new", "updated", "unchanged"):
            out[key] += r["messages"][key]
        out["unparsed"] += r["unparsed"]
        out["calls_new"] += r["calls"]["new"]
    return out


def test_importing_the_fixtures_twice_adds_nothing(cli) -> None:
    first = cli.json("import", FIXTURES)
    assert len(first) == len(list(FIXTURES.iterdir()))
    assert {r["platform"] for r in first} == {"whatsapp"}
    totals = _totals(first)
    assert totals["new"] > 150 and totals["unparsed"] == 0 and totals["calls_new"] == 3
    again = _totals(cli.json("import", FIXTURES, "--force"))
    assert (again["new"], again["updated"], again["calls_new"]) == (0, 0, 0)
    assert again["unchanged"] == totals["new"]


def _export(tmp_path, folder: str, lines: list[str]):
    path = tmp_path / folder / "WhatsApp Chat with Anna Berg.txt"
    path.parent.mkdir()
    path.write_text("".join(lines), encoding="utf-8")
    return path


def test_a_newer_overlapping_export_adds_only_what_is_new(cli, tmp_path) -> None:
    lines = (FIXTURES / "WhatsApp Chat with Anna Berg.txt").read_text(encoding="utf-8").splitlines(True)
    older = _export(tmp_path, "older", lines[:15])  # up to the null media
    newer = _export(tmp_path, "newer", lines[9:])  # from the media placeholder on
    (first,) = cli.json("import", older)
    (second,) = cli.json("import", newer)
    assert first["messages"]["new"] == 10
    assert second["messages"] == {"new": 5, "unchanged": 6, "updated": 0}


def test_a_message_deleted_in_a_later_export_keeps_its_text(cli, tmp_path) -> None:
    before = _export(tmp_path, "before", ["14/02/2024, 09:20 - Anna Berg: meet at the north entrance\n",
                                          "14/02/2024, 09:21 - Sam Rivera: thanks\n"])
    after = _export(tmp_path, "after", ["14/02/2024, 09:20 - Anna Berg: This message was deleted\n",
                                        "14/02/2024, 09:21 - Sam Rivera: thanks\n",
                                        "14/02/2024, 09:30 - Anna Berg: see you\n"])
    cli.json("import", before)
    (report,) = cli.json("import", after)
    assert report["messages"] == {"new": 1, "unchanged": 1, "updated": 1}
    (hit,) = cli.json("search", "entrance")["results"]
    assert (hit["sender"], hit["deleted"]) == ("Anna Berg", True)
    assert "meet at the north entrance" in hit["content"]
