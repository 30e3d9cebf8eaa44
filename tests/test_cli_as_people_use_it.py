"""The command line as people use it: reads that never create a store or wait for an import,
`--no-wait` that never waits, interrupts that say what is true, the same file being the same
source however it is reached, and one rule for exit statuses."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from chatmem.tools.cli import cli as chatmem_cli

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
CONFIG = FIXTURES / "config.yaml"
JSONL = FIXTURES / "jsonl" / "notes-from-telegram.jsonl"
ANNA = FIXTURES / "whatsapp" / "WhatsApp Chat with Anna Berg.txt"


def run(home: Path, *args: str, cwd: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "chatmem", "--home", str(home), "--config", str(CONFIG),
                           *args], capture_output=True, text=True, timeout=timeout,
                          cwd=str(cwd or ROOT))


def invoke(home: Path, *args: str):
    return CliRunner().invoke(chatmem_cli, ["--home", str(home), "--config", str(CONFIG), *args])


@pytest.mark.parametrize("command", [["chats"], ["stats"], ["search", "coffee"], ["people"],
                                     ["raw", "m_0000000000000000"]])
def test_a_read_never_creates_a_store(tmp_path, command):
    home = tmp_path / "nowhere"
    r = invoke(home, *command)
    assert r.exit_code == 1
    assert f"no chatmem store at {home}" in r.output and "import" in r.output
    assert not home.exists()


def test_reads_answer_and_no_wait_stops_while_another_import_writes(tmp_path):
    home = tmp_path / "home"
    assert run(home, "import", str(JSONL)).returncode == 0
    release = tmp_path / "release"
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sqlite3, time, fcntl, os, pathlib
        home = pathlib.Path({str(home)!r})
        locks = [os.open(home / name, os.O_RDWR | os.O_CREAT) for name in ("import.lock", "index.lock")]
        for fd in locks:
            fcntl.flock(fd, fcntl.LOCK_EX)
        db = sqlite3.connect(home / "chatmem.db", isolation_level=None)
        db.execute("BEGIN IMMEDIATE")       # an import's write transaction, mid-way
        db.execute("UPDATE meta SET value = value WHERE key = 'seq'")
        print("holding", flush=True)
        while not pathlib.Path({str(release)!r}).exists():
            time.sleep(0.05)
        db.execute("ROLLBACK")
    """)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        # would sit until the holder lets go (the test's timeout) if a read waited for it
        search = run(home, "search", "Zugspitze", "--json", timeout=25)
        assert search.returncode == 0 and '"total"' in search.stdout
        chats = run(home, "chats", timeout=25)
        assert chats.returncode == 0 and "Hiking club" in chats.stdout
        busy = run(home, "import", "--no-wait", str(ANNA), timeout=25)
        assert busy.returncode == 3
        assert "another chatmem import is running" in busy.stderr
    finally:
        release.touch()
        holder.wait(timeout=20)


def test_an_interrupt_in_the_index_phase_says_the_messages_are_saved(tmp_path, monkeypatch):
    from chatmem.store.index import FullTextIndex

    home = tmp_path / "home"

    def interrupted(self, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(FullTextIndex, "write", interrupted)
    r = invoke(home, "import", str(JSONL))
    assert r.exit_code == 130
    assert "every message is saved" in r.output and "nothing of" not in r.output
    monkeypatch.undo()
    # the next read catches the index up and finds what the interrupted import saved
    found = invoke(home, "search", "Zugspitze", "--json")
    assert found.exit_code == 0 and '"total": 0' not in found.output


def test_an_interrupt_while_reading_a_source_says_nothing_of_it_was_written(tmp_path, monkeypatch):
    from chatmem.store import ingest

    def interrupted(self, records):
        raise KeyboardInterrupt

    monkeypatch.setattr(ingest.Ingest, "feed", interrupted)
    r = invoke(tmp_path / "home", "import", str(JSONL))
    assert r.exit_code == 130 and "nothing of the source being imported was written" in r.output


def test_the_same_file_is_the_same_source_however_it_is_reached(tmp_path):
    home = tmp_path / "home"
    export = tmp_path / "exports" / ANNA.name
    export.parent.mkdir()
    export.write_bytes(ANNA.read_bytes())
    link = tmp_path / "elsewhere"
    link.symlink_to(export.parent)
    assert run(home, "import", str(export)).returncode == 0
    relative = run(home, "import", os.path.join("exports", ANNA.name), cwd=tmp_path)
    via_link = run(home, "import", str(link / ANNA.name))
    for r in (relative, via_link):
        assert r.returncode == 0 and "unchanged" in r.stdout, r.stdout + r.stderr
    sync = run(home, "sync")
    assert sync.returncode == 0 and "unchanged" in sync.stdout


@pytest.mark.parametrize("args", [["import", "--timezone", "Mars/Olympus", str(JSONL)],
                                  ["import", "--date-format", "XYZ", str(ANNA)],
                                  ["search", "coffee", "--limit", "many"]])
def test_a_wrong_option_value_is_a_usage_error(tmp_path, args):
    r = invoke(tmp_path / "home", *args)
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output


# ---------------------------------------------------------------- output and words


@pytest.fixture(scope="module")
def fixture_home(tmp_path_factory):
    home = tmp_path_factory.mktemp("cli") / "home"
    for path in (JSONL, ANNA, FIXTURES / "signal" / "signal-desktop.sqlite"):
        assert invoke(home, "import", str(path)).exit_code == 0
    return home


def test_search_pages_through_every_match(fixture_home):
    import json

    everything = json.loads(invoke(fixture_home, "search", "--person", "Anna Berg", "--json",
                                   "--limit", "50").output)
    ids = [r["id"] for r in everything["results"]]
    dates = [r["timestamp"] for r in everything["results"]]
    assert dates == sorted(dates, reverse=True)  # no words: newest first
    pages = []
    for offset in range(0, len(ids), 3):
        page = json.loads(invoke(fixture_home, "search", "--person", "Anna Berg", "--json",
                                 "--limit", "3", "--offset", str(offset)).output)
        pages += [r["id"] for r in page["results"]]
    assert pages == ids
    text = invoke(fixture_home, "search", "--person", "Anna Berg", "--limit", "3").output
    assert f"1-3 of {everything['total']} matches; next page: --offset 3" in text
    oldest = json.loads(invoke(fixture_home, "search", "--person", "Anna Berg", "--sort", "oldest",
                               "--json").output)["results"]
    assert [r["timestamp"] for r in oldest] == sorted(r["timestamp"] for r in oldest)


def test_a_word_with_a_dash_leaves_it_out(fixture_home):
    import json

    both = json.loads(invoke(fixture_home, "search", "Zugspitze", "--json").output)["total"]
    without = invoke(fixture_home, "search", "Zugspitze", "-trail", "--json")
    assert without.exit_code == 0, without.output
    assert json.loads(without.output)["total"] < both
    after_dashes = invoke(fixture_home, "search", "--json", "--", "Zugspitze", "-trail")
    assert json.loads(after_dashes.output)["total"] == json.loads(without.output)["total"]
    typo = invoke(fixture_home, "search", "coffee", "--limt", "3")
    assert typo.exit_code == 2 and "No such option '--limt'" in typo.output


def test_piped_output_is_plain_and_whole(fixture_home):
    r = invoke(fixture_home, "search", "coffee")  # CliRunner's stdout is not a terminal
    assert "**" not in r.output and "\x1b[" not in r.output and "…" not in r.output



@pytest.mark.parametrize("args, status, said", [
    (["--source", "s_nope"], 1, ["--source", "no chat has the source id 's_nope'", "`chatmem chats`"]),
    (["coffee", "--source", "s_0000000000000000"], 1, ["--source", "s_0000000000000000"]),
    (["--platform", "telegrm", "coffee"], 2, ["--platform", "did you mean 'telegram'?"]),
    (["--sender", "Nobody"], 2, ["--sender", "nobody called 'Nobody'"]),
    (["--person", "Nobody"], 2, ["--person", "nobody called 'Nobody'"]),
    (["coffee", "in:nonesuch"], 2, ["in:nonesuch", "no chat's name holds 'nonesuch'"]),
    (["with:Nobody"], 2, ["with:Nobody", "no chat has 'Nobody' in it"]),
    (["--platform", "whatsapp"], 2, ["WORDS", "--person, --sender, --source or --type"]),
])
def test_an_unknown_filter_value_is_an_error_not_zero_matches(fixture_home, args, status, said):
    r = invoke(fixture_home, "search", *args)
    assert r.exit_code == status, r.output
    assert "matches" not in r.output and "Traceback" not in r.output
    for words in said:
        assert words in r.output, r.output
    assert "search_memory" not in r.output and "list_chats" not in r.output and "--query" not in r.output


def test_a_mistyped_source_id_names_the_closest_and_the_case_of_a_platform_does_not_matter(fixture_home):
    import json

    chats = json.loads(invoke(fixture_home, "chats", "--json").output)["chats"]
    real = next(c["source"] for c in chats if c["chat"] == "Anna Berg")
    typo = real[:-1] + ("0" if real[-1] != "0" else "1")
    r = invoke(fixture_home, "search", "--source", typo)
    assert r.exit_code == 1 and f"the closest: {real}" in r.output, r.output
    listed = json.loads(invoke(fixture_home, "search", "--source", real, "--json").output)
    assert listed["total"] > 0 and {h["source"] for h in listed["results"]} == {real}
    def total(platform: str) -> int:
        return json.loads(invoke(fixture_home, "search", "--person", "Anna Berg", "--platform", platform,
                                 "--json").output)["total"]

    assert total("WhatsApp") == total("whatsapp") > 0


def test_a_chat_hidden_from_a_seat_is_as_unknown_as_one_that_never_was(fixture_home):
    import json

    chats = json.loads(invoke(fixture_home, "chats", "--json").output)["chats"]
    hidden = next(c["source"] for c in chats if c["chat"] == "Dentist reminders")
    as_owner = json.loads(invoke(fixture_home, "search", "--source", hidden, "--json").output)
    assert as_owner["total"] > 0
    seen = invoke(fixture_home, "--seat", "assistant", "search", "--source", hidden)
    never = invoke(fixture_home, "--seat", "assistant", "search", "--source", "s_0000000000000000")
    assert seen.exit_code == never.exit_code == 1
    assert seen.output.replace(hidden, "ID") == never.output.replace("s_0000000000000000", "ID")
    named = invoke(fixture_home, "--seat", "assistant", "search", "in:Dentist")
    assert named.exit_code == 2 and "in:Dentist" in named.output and "matches" not in named.output


def test_unknown_ids_are_errors_everywhere_in_the_cli_own_words(fixture_home):
    for args in (["history", "s_0000000000000000"], ["context", "m_0000000000000000"],
                 ["conversation", "s_0000000000000000"]):
        r = invoke(fixture_home, *args)
        assert r.exit_code == 1, (args, r.output)
        assert "no " in r.output and "search_memory" not in r.output and "list_chats" not in r.output
    budget = invoke(fixture_home, "conversation", "s_0000000000000000", "--budget", "10")
    assert budget.exit_code == 2 and "--budget must be" in budget.output
    assert "token_budget" not in budget.output


def test_doctor_says_where_things_are_and_what_sync_would_read(fixture_home, tmp_path):
    import json
    import shutil

    home = tmp_path / "home"
    shutil.copytree(fixture_home, home)
    r = json.loads(invoke(home, "doctor", "--json").output)
    assert r["home"] == str(home) and r["config"] == str(CONFIG) and r["config_found"]
    assert r["counts"]["messages"] > 0 and r["counts"]["sources"] == 3
    assert r["index"]["behind"] == 0 and r["sizes"]["database"] > 0
    assert {s["status"] for s in r["sync"]} == {"unchanged"}
    os.chmod(home, 0o755)
    text = invoke(home, "doctor").output
    assert "other users on this machine can read the store" in text
    assert "all unchanged" in text


def test_doctor_lists_a_changed_source(tmp_path):
    import json

    home = tmp_path / "home"
    export = tmp_path / ANNA.name
    export.write_bytes(ANNA.read_bytes())
    invoke(home, "import", str(export))
    with export.open("a", encoding="utf-8") as f:
        f.write("01/03/2024, 10:00 - Anna Berg: one more\n")
    r = json.loads(invoke(home, "doctor", "--json").output)
    assert [s["status"] for s in r["sync"]] == ["changed"]


def test_shell_completion_knows_the_commands(tmp_path):
    env = {**os.environ, "COMP_WORDS": "chatmem sea", "COMP_CWORD": "1",
           "_CHATMEM_COMPLETE": "bash_complete"}
    r = subprocess.run([sys.executable, "-m", "chatmem"], env=env, capture_output=True, text=True)
    assert "search" in r.stdout
    script = subprocess.run([sys.executable, "-m", "chatmem"], capture_output=True, text=True,
                            env={**os.environ, "_CHATMEM_COMPLETE": "bash_source"})
    assert "complete" in script.stdout and "_chatmem_completion" in script.stdout


# ---------------------------------------------------------------- forget


def _chat(home: Path, name: str) -> dict:
    import json

    chats = json.loads(invoke(home, "chats", "--json").output)["chats"]
    return next(c for c in chats if c["chat"] == name)


def test_forget_a_chat_stays_gone_on_sync_until_imported_on_purpose(tmp_path):
    import json

    home = tmp_path / "home"
    assert invoke(home, "import", str(JSONL)).exit_code == 0
    club = _chat(home, "Hiking club")
    asked = invoke(home, "forget", club["source"])  # not a terminal: asks for --yes instead
    assert asked.exit_code == 2 and "--yes" in asked.output
    r = invoke(home, "forget", club["source"], "--yes")
    assert r.exit_code == 0, r.output
    assert f"forgot {club['messages']:,} messages" in r.output
    assert json.loads(invoke(home, "search", "Zugspitze", "--json").output)["total"] == 0
    assert "Hiking club" not in invoke(home, "chats").output
    assert invoke(home, "sync").exit_code == 0  # reads the source again, leaves the chat out
    assert "Hiking club" not in invoke(home, "chats").output
    assert json.loads(invoke(home, "search", "Zugspitze", "--json").output)["total"] == 0
    assert invoke(home, "import", str(JSONL)).exit_code == 0  # on purpose: it comes back
    assert _chat(home, "Hiking club")["messages"] == club["messages"]
    assert json.loads(invoke(home, "search", "Zugspitze", "--json").output)["total"] > 0
    assert invoke(home, "sync").exit_code == 0
    assert _chat(home, "Hiking club")["messages"] == club["messages"]


def test_forget_a_source_removes_what_it_brought(tmp_path):
    import json

    home = tmp_path / "home"
    for path in (JSONL, ANNA):
        assert invoke(home, "import", str(path)).exit_code == 0
    before = json.loads(invoke(home, "stats", "--json").output)["messages"]
    anna = _chat(home, "Anna Berg")
    r = invoke(home, "forget", str(ANNA), "--yes", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["messages"] == anna["messages"]
    assert json.loads(invoke(home, "stats", "--json").output)["messages"] == before - anna["messages"]
    assert str(ANNA) not in invoke(home, "doctor").output
    assert invoke(home, "sync").exit_code == 0
    assert "Anna Berg" not in [c["chat"] for c in json.loads(invoke(home, "chats", "--json").output)["chats"]
                               if c["platform"] == "whatsapp"]
    assert invoke(home, "--seat", "assistant", "forget", str(JSONL), "--yes").exit_code == 1
    unknown = invoke(home, "forget", "s_0000000000000000", "--yes")
    assert unknown.exit_code == 1 and "no chat with id" in unknown.output


def test_the_apps_own_notices_make_no_person(tmp_path):
    import json

    home = tmp_path / "home"
    assert invoke(home, "import", str(FIXTURES / "signal" / "signal-desktop.sqlite")).exit_code == 0
    people = json.loads(invoke(home, "people", "--json").output)
    names = [p["name"] for p in (people["people"] if isinstance(people, dict) else people)]
    assert "Signal" not in names and "Anna Berg" in names


def test_a_folder_import_lists_the_files_it_skipped(tmp_path):
    folder = tmp_path / "exports"
    folder.mkdir()
    (folder / ANNA.name).write_bytes(ANNA.read_bytes())
    (folder / "holiday.jpg").write_bytes(b"\xff\xd8\xff not a chat")
    (folder / "notes.md").write_text("shopping list", encoding="utf-8")
    r = invoke(tmp_path / "home", "import", str(folder))
    assert r.exit_code == 0, r.output
    assert f"{folder / 'holiday.jpg'}: skipped" in r.output
    assert f"{folder / 'notes.md'}: skipped" in r.output
    assert "not a chat export chatmem recognises" in r.output


def test_a_folder_full_of_other_files_is_one_line(tmp_path):
    folder = tmp_path / "exports"
    (folder / "photos").mkdir(parents=True)
    (folder / ANNA.name).write_bytes(ANNA.read_bytes())
    for i in range(40):
        (folder / "photos" / f"IMG_{i:04d}.jpg").write_bytes(b"\xff\xd8\xff")
    r = invoke(tmp_path / "home", "import", str(folder))
    assert r.exit_code == 0 and "40 files not recognised as chat exports" in r.output
    assert r.output.count("IMG_") == 3


# ---------------------------------------------------------------- masked secrets, cut to fit

ANSI = re.compile(r"\x1b\[[0-9;]*m")
HALF_MASK = re.compile(r"\[(?:m|ma|mas|mask|maske|masked)(?:…|$)")


@pytest.fixture(scope="module")
def secrets_home(tmp_path_factory):
    """Messages with a code the assistant seat sees masked, at every distance from where a
    terminal line (the `coffee` ones) or a snippet (the `tea` ones, 160 characters) is cut."""
    import json

    folder = tmp_path_factory.mktemp("secrets")
    export = folder / "codes.jsonl"
    lines = []
    for i in range(40):
        lines.append({"platform": "signal", "chat": "Codes", "sender": "Anna Berg",
                      "timestamp": f"2024-05-03T18:{i:02d}:00+02:00",
                      "text": f"coffee {'x' * i} Your code is 482913 and the rest of the line"})
        lines.append({"platform": "signal", "chat": "Codes", "sender": "Anna Berg",
                      "timestamp": f"2024-05-04T18:{i:02d}:00+02:00",
                      "text": f"tea {'w ' * (60 + i // 2)}{'v' * (i % 2)} Your code is 482913 " + "z " * 40})
    export.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    home = folder / "home"
    assert invoke(home, "import", str(export)).exit_code == 0
    return home


def _on_a_terminal(home: Path, *args: str, columns: int = 120) -> str:
    """What `chatmem` prints to a terminal `columns` wide (a pseudo-terminal, as a shell has)."""
    import pty

    leader, follower = pty.openpty()
    env = {**os.environ, "COLUMNS": str(columns), "LINES": "50", "TERM": "xterm"}
    proc = subprocess.Popen([sys.executable, "-m", "chatmem", "--home", str(home), "--config", str(CONFIG),
                             *args], stdin=follower, stdout=follower, stderr=follower, env=env, cwd=str(ROOT))
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the command ended
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    assert proc.wait(timeout=120) == 0, out.decode(errors="replace")
    return out.decode("utf-8").replace("\r\n", "\n")


@pytest.mark.parametrize("columns", [100, 131])
def test_a_terminal_line_cut_to_fit_never_halves_a_masked_secret(secrets_home, columns):
    shown = _on_a_terminal(secrets_home, "--seat", "assistant", "search", "coffee", "--limit", "50",
                           columns=columns)
    assert "\x1b[" in shown  # a terminal: hits in bold
    lines = ANSI.sub("", shown).splitlines()
    assert "\x1b" not in "\n".join(lines)  # no escape code cut in half
    hits = [line for line in lines if "coffee" in line]
    assert len(hits) == 40 and "482913" not in shown
    assert any(line.endswith("…") for line in hits) and any("[masked]" in line for line in hits)
    assert all(len(line) <= columns for line in lines)
    halves = [line for line in hits if HALF_MASK.search(line)]
    assert not halves, halves


def test_a_piped_snippet_never_halves_a_masked_secret(secrets_home):
    import json

    r = invoke(secrets_home, "--seat", "assistant", "search", "tea", "--limit", "50")
    assert r.exit_code == 0 and "\x1b[" not in r.output and "482913" not in r.output
    hits = [line for line in r.output.splitlines() if "tea" in line]
    assert len(hits) == 40 and any("[masked]" in line for line in hits)
    assert any(line.endswith("…") for line in hits)  # the snippet itself is cut
    halves = [line for line in hits if HALF_MASK.search(line)]
    assert not halves, halves
    snippets = [h["snippet"] for h in json.loads(invoke(secrets_home, "--seat", "assistant", "search",
                                                        "tea", "--limit", "50", "--json").output)["results"]]
    assert not [s for s in snippets if HALF_MASK.search(s)]


def test_an_attachment_found_through_a_relative_path_is_the_same_file_from_anywhere(tmp_path):
    import json

    home = tmp_path / "home"
    exports = tmp_path / "exports"
    exports.mkdir()
    (exports / ANNA.name).write_bytes(ANNA.read_bytes())
    (exports / "IMG-20240215-WA0007.jpg").write_bytes(b"\xff\xd8\xff\xe0 not much of a photo")
    first = run(home, "import", "--json", os.path.join("exports", ANNA.name), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    again = run(home, "import", "--json", "--force", str(exports / ANNA.name), cwd=ROOT)
    report = json.loads(again.stdout)[0]
    assert report["status"] == "ok" and report["messages"]["updated"] == 0, report
    photo = json.loads(run(home, "search", "--source", report["chats"][0]["source"], "--type", "image",
                           "--json", cwd=ROOT).stdout)["results"][0]
    raw = json.loads(run(home, "raw", photo["id"], "--json", cwd=ROOT).stdout)
    assert str(exports / "IMG-20240215-WA0007.jpg") in raw["content"]  # where it is, not as typed
    shown = run(home, "attachment", raw["relations"]["attachments"][0], cwd=ROOT)
    assert shown.returncode == 0 and "missing" not in shown.stdout.lower(), shown.stdout + shown.stderr


def test_the_quick_start_store_is_ignored_by_git():
    ignored = subprocess.run(["git", "check-ignore", "-q", "demo-store/chatmem.db"], cwd=ROOT)
    assert ignored.returncode == 0


def test_a_snippet_shows_the_words_where_they_are(tmp_path):
    import json

    export = tmp_path / "long.jsonl"
    text = ("We talked about the weekend for a long while, the weather, the trains, the bags, the "
            "food and who would bring what, and then at the very end: meet at the cable car at nine.")
    export.write_text(json.dumps({"platform": "signal", "chat": "Weekend", "sender": "Anna Berg",
                                  "timestamp": "2024-05-03T18:00:00+02:00", "text": text}) + "\n")
    home = tmp_path / "home"
    assert invoke(home, "import", str(export)).exit_code == 0
    hit = json.loads(invoke(home, "search", '"cable car"', "--json").output)["results"][0]
    assert "**cable** **car**" in hit["snippet"] or "**cable car**" in hit["snippet"]
    piped = invoke(home, "search", '"cable car"').output
    assert "cable car at nine" in piped


def test_conversation_lines_say_what_each_item_is(fixture_home):
    import json

    chats = json.loads(invoke(fixture_home, "chats", "--json").output)["chats"]
    anna = next(c["source"] for c in chats if c["chat"] == "Anna Berg" and c["platform"] == "whatsapp")
    out = invoke(fixture_home, "conversation", anna, "--budget", "5000").output
    rows = [line for line in out.splitlines()[2:] if line.startswith("20")]
    assert rows
    for line in rows:
        cells = re.split(r"\s{2,}", line.strip())  # time, id, from, text
        assert len(cells) == 4 and all(cells), line  # never an empty "Anna Berg:" line
        sender, text = cells[2], cells[3]
        assert "None" not in sender and not text.startswith(":"), line
    texts = "\n".join(rows)
    assert "(deleted)" in texts  # deleted for everyone, said so
    assert "system" in texts and "end-to-end encrypted" in texts  # WhatsApp's own notice
    assert "[media]" in texts or "IMG-20240215-WA0007.jpg" in texts  # a photo, said so


# ---------------------------------------------------------------- progress, on a terminal only


@pytest.fixture(scope="module")
def many_messages(tmp_path_factory) -> Path:
    import json

    path = tmp_path_factory.mktemp("many") / "many.jsonl"
    with path.open("w", encoding="utf-8") as f:
        for i in range(3000):
            f.write(json.dumps({"platform": "signal", "chat": f"Team {i % 8}", "sender": f"Person {i % 13}",
                                "timestamp": f"2022-{1 + i % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:00Z",
                                "text": f"status update {i} about the quarterly garden plans"}) + "\n")
    return path


def test_an_import_shows_its_index_phase_on_a_terminal_and_nothing_when_piped(tmp_path, many_messages):
    shown = _on_a_terminal(tmp_path / "tty", "import", str(many_messages))
    assert "updating the search index" in shown and "3,000 new" in shown
    piped = run(tmp_path / "piped", "import", str(many_messages))
    assert piped.returncode == 0 and "3,000 new" in piped.stdout
    assert "\r" not in piped.stderr and "search index" not in piped.stderr


def test_a_read_that_catches_the_index_up_shows_it_then_clears_the_line(tmp_path, many_messages):
    import shutil

    home = tmp_path / "home"
    assert run(home, "import", str(many_messages)).returncode == 0
    shutil.rmtree(home / "index")  # e.g. an import interrupted in its index phase
    shown = _on_a_terminal(home, "search", "garden", "--limit", "2")
    assert "chatmem: updating the search index" in shown
    before_table = shown[:shown.index("date ")]
    assert before_table.rstrip(" ").endswith("\r"), repr(before_table[-200:])  # the line cleared first
    shutil.rmtree(home / "index")
    piped = run(home, "search", "garden", "--limit", "2")
    assert piped.returncode == 0 and "garden" in piped.stdout
    assert "\r" not in piped.stderr and "search index" not in piped.stderr
