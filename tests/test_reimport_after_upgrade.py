"""A store written by an earlier version of a reader, re-imported by this one: where the only
difference is the blank an earlier SMS reader kept after each element's raw text, the re-import
says nothing changed (no message or call counted as updated, nothing indexed again) and the
store ends as a first import by this version leaves it."""

from __future__ import annotations

import sqlite3

from android_sms_builders import build_full
from resume_helpers import import_path, later, store_rows

from chatmem.importers import android_sms


def test_sms_raw_text_with_the_old_trailing_blank_is_not_an_update(tmp_path, monkeypatch):
    sms, calls = build_full(tmp_path / "backup")
    home = tmp_path / "home"
    current = android_sms._serialized
    monkeypatch.setattr(android_sms, "_serialized", lambda e: current(e) + "\n  ")  # as it was
    import_path(home, sms)
    import_path(home, calls)
    monkeypatch.setattr(android_sms, "_serialized", current)
    db = sqlite3.connect(home / "chatmem.db")
    seq = dict(db.execute("SELECT id, seq FROM messages"))
    assert all(r.endswith("\n  ") for r, in db.execute("SELECT raw FROM messages"))
    for path in (sms, calls):
        later(path)
        report = import_path(home, path, force=True)
        assert report["messages"]["updated"] == 0 and report["calls"]["updated"] == 0
    assert report["calls"]["unchanged"] == 8
    assert dict(db.execute("SELECT id, seq FROM messages")) == seq  # nothing to index again
    reference = tmp_path / "fresh"
    import_path(reference, sms)
    import_path(reference, calls)
    assert store_rows(home) == store_rows(reference)


def test_a_real_change_beside_the_old_blank_is_still_an_update(tmp_path, monkeypatch):
    sms, _ = build_full(tmp_path / "backup")
    home = tmp_path / "home"
    current = android_sms._serialized
    monkeypatch.setattr(android_sms, "_serialized", lambda e: current(e) + "\n  ")
    import_path(home, sms)
    monkeypatch.setattr(android_sms, "_serialized", current)
    lines = sms.read_text().splitlines(keepends=True)
    sms.write_text("".join(x.replace('read="1"', 'read="0"') if "Draft I never sent" in x else x
                           for x in lines))
    later(sms)
    report = import_path(home, sms, force=True)
    assert report["messages"]["updated"] == 1
    assert any('read="0"' in r[10] for r in store_rows(home)["messages"])
