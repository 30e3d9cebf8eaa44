"""README.md under test: every shell command and config snippet it shows is run against the
bundled fixtures, as a user would type it.

The README's fenced blocks are parsed, so a command added to the README is tested without a
change here. Only the README's example values are replaced (`Demo._examples`: a path on the
author's Mac, an id from someone else's store) by the fixture file or id of the same kind, and a
WhatsApp text export named with `--date-format` is written in that format; a command with an
example path this test does not know fails, naming it. `chatmem` is the
installed entry point (the `chatmem` next to this Python), never `python -m`; nothing is
pip-installed here. The stdio MCP config is started with exactly its `command` (the path
replaced by ours) and `args`, and its `env` pointing at the fixture store; the HTTP config is
used with exactly its URL path and header, against `chatmem serve --http` on a free port with
the README's own seat config. Both complete a handshake and tool calls through the MCP SDK's
own client.
"""

from __future__ import annotations

import json
import os
import pty
import re
import shlex
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
import yaml
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
FIXTURES = ROOT / "fixtures"
CHATMEM = Path(sys.executable).parent / "chatmem"
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
ID = re.compile(r"^([msap])_[0-9a-f]{16}$")
LONG_RUNNING = {"serve", "web"}  # servers: started, checked and stopped, not waited for

pytestmark = [pytest.mark.slow,  # about 40 chatmem processes: ~30 s of CPU
              pytest.mark.skipif(not CHATMEM.exists(), reason="the chatmem entry point is not installed")]


def blocks(lang: str) -> list[tuple[int, str]]:
    """(line number, text) of every fenced block in `lang`."""
    text = README.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start()) + 1, m.group(2)) for m in BLOCK.finditer(text) if m.group(1) == lang]


def shell_commands() -> list[tuple[int, list[str]]]:
    """Every command of every `sh` block, split into words (comments dropped), `&&` chains
    split into their commands, in README order."""
    out = []
    for line_no, text in blocks("sh"):
        for offset, line in enumerate(text.splitlines()):
            words = shlex.split(line, comments=True)
            command: list[str] = []
            for word in [*words, "&&"]:
                if word == "&&":
                    if command:
                        out.append((line_no + 1 + offset, command))
                    command = []
                else:
                    command.append(word)
    return out


def extra_of_line() -> dict[int, str]:
    """Line number -> the extra its block installs first (`pip install 'chatmem[semantic]'`)."""
    out = {}
    for line_no, text in blocks("sh"):
        m = re.search(r"pip install 'chatmem\[(\w+)\]'", text)
        if m:
            for offset in range(len(text.splitlines())):
                out[line_no + 1 + offset] = m.group(1)
    return out


def extra_installed(extra: str) -> bool:
    """Whether every package the extra names (pyproject.toml) can be imported here."""
    import importlib.util

    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    m = re.search(rf"^{extra} = \[(.*?)\]", pyproject, re.M | re.S)
    assert m, f"no extra {extra!r} in pyproject.toml"
    names = [re.split(r"[<>=!~\[ ;]", req.strip().strip('"'))[0] for req in m.group(1).split(",") if req.strip()]
    names = [n for n in names if n and not n.startswith("#")]
    return all(importlib.util.find_spec(n.replace("-", "_").lower()) is not None for n in names)


def chatmem_commands() -> list[tuple[int, list[str]]]:
    return [(n, words) for n, words in shell_commands() if words[0] == "chatmem"]


# ---------------------------------------------------------------------- the fixture store


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run(args: list[str], env: dict[str, str], cwd: Path, timeout: float = 120,
        typed: str | None = None) -> subprocess.CompletedProcess:
    """Run a command; with `typed`, its input is a terminal on which a person types `typed`
    (a command that asks first, like `forget`, asks only a terminal)."""
    if typed is None:
        return subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    controller, terminal = pty.openpty()
    try:
        os.write(controller, typed.encode())
        return subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                              stdin=terminal)
    finally:
        os.close(terminal)
        os.close(controller)


def write_addressbook(path: Path) -> Path:
    """A small macOS Contacts database (the AddressBook-v22.abcddb tables chatmem reads)."""
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE ZABCDRECORD (Z_PK INTEGER PRIMARY KEY, ZFIRSTNAME TEXT, ZLASTNAME TEXT, ZORGANIZATION TEXT);
        CREATE TABLE ZABCDPHONENUMBER (Z_PK INTEGER PRIMARY KEY, ZOWNER INTEGER, ZFULLNUMBER TEXT);
        CREATE TABLE ZABCDEMAILADDRESS (Z_PK INTEGER PRIMARY KEY, ZOWNER INTEGER, ZADDRESS TEXT);
        INSERT INTO ZABCDRECORD VALUES (1, 'Anna', 'Berg', NULL);
        INSERT INTO ZABCDPHONENUMBER VALUES (1, 1, '+1 (555) 010-0001');
    """)
    conn.commit()
    conn.close()
    return path


class Demo:
    """A working folder (with `fixtures` in it, as in a checkout) and a store imported from
    the fixtures, used by every README command in turn."""

    def __init__(self, folder: Path):
        self.folder = folder
        (folder / "fixtures").symlink_to(FIXTURES, target_is_directory=True)
        self.home = folder / "store"
        self.config = FIXTURES / "config.yaml"
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("CHATMEM_")}
        self.env.update(CHATMEM_HOME=str(self.home), CHATMEM_CONFIG=str(self.config), HOME=str(folder),
                        PATH=f"{CHATMEM.parent}{os.pathsep}{os.environ.get('PATH', '')}")
        self.chatmem("import", "fixtures")
        self.examples = self._examples()

    def chatmem(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        result = run([str(CHATMEM), *args], self.env, self.folder, timeout)
        assert result.returncode == 0, f"chatmem {' '.join(args)}: {result.stderr}"
        assert "Traceback" not in result.stderr
        return result

    def json(self, *args: str) -> Any:
        return json.loads(self.chatmem(*args, "--json").stdout)

    def _examples(self) -> dict[str, str]:
        """The README's example values -> what stands for them in the fixtures."""
        db = sqlite3.connect(self.home / "chatmem.db")
        # a present PDF: its message has an attachment, `--page` has pages to turn
        # a present PDF outside WhatsApp (the README forgets a WhatsApp export before it reads
        # attachments): its message has an attachment, `--page` has pages to turn
        attachment, message, chat = db.execute(
            "SELECT a.id, m.id, m.chat_id FROM attachments a JOIN messages m ON m.id = a.message_id "
            "WHERE a.present AND a.mime_type = 'application/pdf' AND m.platform != 'whatsapp' "
            "ORDER BY a.id LIMIT 1").fetchone()
        # what `forget` may remove: the smallest other chat
        forgettable = db.execute("SELECT id FROM chats WHERE id != ? AND platform != 'agent' "
                                 "ORDER BY message_count, id LIMIT 1", (chat,)).fetchone()[0]
        db.close()
        people = {p["name"]: p for p in self.json("people")["people"]}
        other = next(p for p in people.values() if p["person"] != "me" and p["name"] != "Anna Berg"
                     and any(h["kind"] == "phone" for h in p["handles"]))
        other_phone = next(h["value"] for h in other["handles"] if h["kind"] == "phone")
        return {
            "m_": message, "s_": chat, "a_": attachment, "p_": people["Anna Berg"]["person"],
            "forget s_": forgettable,
            "~/exports/WhatsApp Chat with Anna Berg.txt": str(FIXTURES / "whatsapp" / "WhatsApp Chat with Anna Berg.txt"),
            "~/Library/Messages/chat.db": str(FIXTURES / "imessage" / "chat.db"),
            "WhatsApp Chat with Anna Berg.zip": str(FIXTURES / "whatsapp" / "WhatsApp Chat - Ben Ortiz.zip"),
            "~/exports": str(FIXTURES),
            "notes.jsonl": str(FIXTURES / "jsonl" / "notes-from-telegram.jsonl"),
            "contacts.vcf": str(FIXTURES / "contacts" / "friends.vcf"),
            "~/Library/Application Support/AddressBook/AddressBook-v22.abcddb":
                str(write_addressbook(self.folder / "AddressBook-v22.abcddb")),
            # people: merge someone else's number into Anna, then split it off again
            "+49 151 2345678": other_phone,
            "anna@work.example": other_phone,
        }

    def substitute(self, words: list[str], line: int = 0) -> list[str]:
        out: list[str] = []
        for word in words:
            m = ID.match(word)
            if out and out[-1] in OUTPUT_OPTIONS:  # a file the command writes: used as it is
                pass
            elif m:
                word = self.examples.get(f"{words[0]} {m.group(1)}_") or self.examples[m.group(1) + "_"]
            elif word in self.examples:
                word = self.examples[word]
            elif word.endswith(".txt") and "--date-format" in words:
                # a WhatsApp text export whose header is the one the command describes
                fmt = words[words.index("--date-format") + 1]
                word = str(whatsapp_export(self.folder / f"line-{line}" / word, fmt))
            elif PATH_LIKE.search(word) and not (self.folder / word).exists():
                pytest.fail(f"README line {line} shows {word!r}: say in Demo._examples which "
                            "fixture stands for it")
            out.append(word)
        return out


OUTPUT_OPTIONS = {"--out"}
PATH_LIKE = re.compile(r"^[~/]|\.[a-z]{2,6}$")
STAMP = re.compile(r"yyyy|yy|y|dd|d|mm|m|HH|H|MM|SS|ss")
STAMP_VALUES = {"yyyy": "2024", "yy": "24", "y": "24", "dd": "03", "d": "3", "mm": "05", "m": "5",
                "HH": "18", "H": "18", "MM": "02", "SS": "11", "ss": "11"}


def whatsapp_export(path: Path, date_format: str) -> Path:
    """Two messages whose header is written in `date_format` (a README example's), or, for an
    order like MDY, in the usual Android layout with day and month both 12 or less."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if date_format.isalpha() and date_format.isupper() and len(date_format) == 3:
        stamps = ["05/03/24, 18:02 - ", "05/03/24, 18:03 - "]
    else:
        first = STAMP.sub(lambda m: STAMP_VALUES[m.group()], date_format)
        stamps = [first if first.endswith((" ", "]")) else first + " - ",
                  first.replace("02", "03", 1) if first.endswith((" ", "]")) else first.replace("02", "03", 1) + " - "]
        stamps = [st if st.endswith(" ") else st + " " for st in stamps]
    path.write_text(f"{stamps[0]}Anna Berg: Dobro jutro\n{stamps[1]}Sam Rivera: Good morning\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Demo:
    return Demo(tmp_path_factory.mktemp("readme"))


@pytest.fixture(scope="module")
def untouched(tmp_path_factory) -> Demo:
    """A store the README's commands (merges, forget) have not changed: for the MCP configs."""
    return Demo(tmp_path_factory.mktemp("readme-mcp"))


# ---------------------------------------------------------------------- the shell commands


def test_the_readme_has_what_this_test_reads():
    # a sanity check on the parser, so a changed fence style cannot empty the test
    words = [w for _, c in chatmem_commands() for w in c[1:2]]
    for command in ("import", "search", "chats", "context", "conversation", "history", "raw", "memory",
                    "stats", "people", "serve"):
        assert command in words or any(command in c for _, c in shell_commands()), command
    assert blocks("json") and blocks("yaml") and blocks("cron")


def test_quick_start_in_a_fresh_folder(tmp_path):
    """The quick start, from a checkout's folder: its chatmem commands as typed (installing is
    the setup this test runs in)."""
    (tmp_path / "fixtures").symlink_to(FIXTURES, target_is_directory=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHATMEM_")}
    first_line = blocks("sh")[0][0]
    chain = [words for n, words in shell_commands() if n == first_line + 1]
    assert chain[0][:3] == ["python3", "-m", "venv"] and chain[2][:2] == ["pip", "install"]
    outputs = []
    for words in chain:
        if words[0] != "chatmem":
            continue
        result = run([str(CHATMEM), *words[1:]], env, tmp_path)
        assert result.returncode == 0, f"{' '.join(words)}: {result.stderr}"
        outputs.append(result.stdout)
    assert (tmp_path / "demo-store").is_dir()
    assert "coffee" in outputs[-1].lower() and "Traceback" not in outputs[-1]


@pytest.mark.parametrize("line, words", [c for c in shell_commands() if c[1][0] != "chatmem"],
                         ids=lambda v: str(v) if isinstance(v, int) else " ".join(v)[:40])
def test_setup_commands_name_what_exists(line, words):
    """venv, activate, pip and the test command: what they name must exist (they are how this
    very environment was set up, so they are not run again)."""
    if words[0] == "pip":
        spec = words[-1]
        extras = re.findall(r"\[([\w,]+)\]", spec)
        pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
        for extra in ",".join(extras).split(",") if extras else []:
            assert re.search(rf"^{extra} = \[", pyproject, re.M), f"README line {line}: no extra {extra!r}"
        assert spec.startswith((".", "-e", "'.", "chatmem")) or spec.startswith("'chatmem"), spec
    elif words[0] == ".":
        assert words[1] == ".venv/bin/activate"
    elif words[0] in ("python3", "python"):
        assert words[1:] in (["-m", "venv", ".venv"], ["-m", "pytest"])
    else:
        pytest.fail(f"README line {line} runs {words[0]!r}: teach this test how to check it")


READ_WORDS = {"chats", "search", "context", "conversation", "history", "raw", "memory", "stats", "people",
              "attachment"}


@pytest.mark.parametrize("line, words", [c for c in chatmem_commands() if blocks("sh")[0][0] + 1 != c[0]],
                         ids=lambda v: str(v) if isinstance(v, int) else " ".join(v)[:60])
def test_every_chatmem_command(demo, line, words):
    extra = extra_of_line().get(line)
    if extra and not extra_installed(extra):
        pytest.skip(f"README line {line} needs the {extra} extra, not installed here")
    args = demo.substitute(words[1:], line)
    command = next((w for w in args if not w.startswith("-") and w not in ("assistant",)), "")
    if command in LONG_RUNNING:
        _check_server(demo, args)
        return
    # typed at a terminal: a command that asks first (forget) gets the person's "y"
    result = run([str(CHATMEM), *args], demo.env, demo.folder, typed="y\n")
    assert result.returncode == 0, f"README line {line}: chatmem {' '.join(args)}\n{result.stderr}"
    assert "Traceback" not in result.stderr
    if "--json" in args:
        json.loads(result.stdout)
    if command in READ_WORDS or command == "import":
        assert (result.stdout + result.stderr).strip(), f"README line {line}: printed nothing"


def _check_server(demo: Demo, args: list[str]) -> None:
    """`chatmem serve --http` / `chatmem web`: it starts, says where it listens, and stops."""
    port = str(free_port())
    proc = subprocess.Popen([str(CHATMEM), *args, "--port", port], env=demo.env, cwd=demo.folder,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        _wait_listening(proc, int(port))
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    assert "Traceback" not in err, err
    assert f"127.0.0.1:{port}" in out + err


def _wait_listening(proc: subprocess.Popen, port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"exited {proc.returncode}: {proc.stderr.read() if proc.stderr else ''}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listened on {port} within {timeout}s")


def test_the_cron_line(demo):
    (line_no, text), = blocks("cron")
    fields = text.split()
    schedule, command = fields[:5], " ".join(fields[5:])
    assert all(re.fullmatch(r"[\d*/,-]+", f) for f in schedule), schedule
    program = command.split()[0]
    assert program.endswith("/bin/chatmem"), f"README line {line_no}: the cron line runs {program}"
    result = subprocess.run(["bash", "-c", command.replace(program, shlex.quote(str(CHATMEM)), 1)],
                            env=demo.env, cwd=demo.folder, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    log = Path(demo.env["HOME"]) / "chatmem-sync.log"
    reports = json.loads(log.read_text(encoding="utf-8"))
    assert reports and {r["status"] for r in reports} <= {"unchanged", "ok", "missing"}


# ---------------------------------------------------------------------- config snippets


def test_every_yaml_config_loads(tmp_path):
    from chatmem.config import load_config

    for line_no, text in blocks("yaml"):
        path = tmp_path / f"config-{line_no}.yaml"
        path.write_text(text, encoding="utf-8")
        config = load_config(path)
        for name in (yaml.safe_load(text).get("seats") or {}):
            assert config.seat(name).name == name, f"README line {line_no}"


def test_the_json_lines_sample_imports(tmp_path):
    samples = [(n, t) for n, t in blocks("json") if "mcpServers" not in t]
    assert samples
    for line_no, text in samples:
        lines = [json.loads(x) for x in text.splitlines() if x.strip()]
        path = tmp_path / f"sample-{line_no}.jsonl"
        path.write_text(text, encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.startswith("CHATMEM_")}
        result = run([str(CHATMEM), "--home", str(tmp_path / f"home-{line_no}"), "import", str(path),
                      "--platform", "jsonl", "--json"], env, tmp_path)
        assert result.returncode == 0, result.stderr
        report = json.loads(result.stdout)[0]
        expected = sum(1 for x in lines if x.get("type", "message") == "message")
        assert report["messages"]["new"] == expected and report["unparsed"] == 0, report
        assert report["calls"]["new"] == sum(1 for x in lines if x.get("type") == "call")


def mcp_configs() -> dict[str, dict[str, Any]]:
    out = {}
    for line_no, text in blocks("json"):
        if "mcpServers" in text:
            server = json.loads(text)["mcpServers"]["chatmem"]
            out["http" if server.get("type") == "http" else "stdio"] = {**server, "line": line_no}
    return out


async def _use(session: ClientSession) -> dict[str, Any]:
    init = await session.initialize()
    assert init.server_info.name == "chatmem"
    tools = {t.name for t in (await session.list_tools()).tools}
    assert {"search_memory", "list_chats", "get_context"} <= tools
    found = await session.call_tool("search_memory", {"query": "coffee"})
    assert not found.is_error, found.content
    hit = found.structured_content["results"][0]
    around = await session.call_tool("get_context", {"memory_id": hit["id"], "before": 1, "after": 1})
    assert not around.is_error and any(m["hit"] for m in around.structured_content["messages"])
    return {"tools": tools, "found": found.structured_content}


def test_the_stdio_config_as_shown(untouched):
    demo = untouched
    config = mcp_configs()["stdio"]
    assert Path(config["command"]).name == "chatmem"
    assert set(config["env"]) == {"CHATMEM_HOME", "CHATMEM_CONFIG"}, "the test points these at the fixtures"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHATMEM_")}
    env.update(CHATMEM_HOME=str(demo.home), CHATMEM_CONFIG=str(demo.config))
    params = StdioServerParameters(command=str(CHATMEM), args=config["args"], env=env, cwd=str(demo.folder))

    async def main() -> dict[str, Any]:
        with (demo.folder / "stdio-server.log").open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    return await _use(session)

    used = anyio.run(main)
    seat = config["args"][config["args"].index("--seat") + 1] if "--seat" in config["args"] else None
    if seat is not None:  # the seat shown is the one serving: a read-only seat gets no write tools
        writes = {"start_conversation", "log_conversation_turn", "save_memory"}
        may_write = (yaml.safe_load(demo.config.read_text())["seats"][seat]).get("write", False)
        assert bool(used["tools"] & writes) == bool(may_write)


@contextmanager
def http_server(demo: Demo, config_path: Path, port: int):
    words = next(w for _, w in chatmem_commands() if w[1:3] == ["serve", "--http"])
    proc = subprocess.Popen([str(CHATMEM), "--config", str(config_path), *words[1:], "--port", str(port)],
                            env={**demo.env, "CHATMEM_CONFIG": str(config_path)}, cwd=demo.folder,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    try:
        _wait_listening(proc, port)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def use_http_config(demo: Demo, tmp_path: Path) -> tuple[dict[str, Any], str]:
    """Start the server with the README's seat config, call it with the README's client
    config; (what the calls gave, the seat's YAML)."""
    config = mcp_configs()["http"]
    header = config["headers"]["Authorization"]
    token = header.removeprefix("Bearer ")
    # the README's seat config must hold the token its client config sends
    seat_yaml = next((text for _, text in blocks("yaml") if token in text), None)
    assert seat_yaml is not None, f"no YAML block in the README gives a seat the token {token!r}"
    config_path = tmp_path / "config.yaml"
    shutil.copy(demo.config, config_path)
    merged = yaml.safe_load(demo.config.read_text())
    merged["seats"] = {**merged.get("seats", {}), **yaml.safe_load(seat_yaml)["seats"]}
    config_path.write_text(yaml.safe_dump(merged), encoding="utf-8")
    port = free_port()
    url = re.sub(r"//127\.0\.0\.1:\d+/", f"//127.0.0.1:{port}/", config["url"])
    assert url != config["url"] and url.endswith("/mcp")

    async def main() -> dict[str, Any]:
        async with httpx2.AsyncClient(headers=config["headers"], timeout=30) as http:
            async with streamable_http_client(url, http_client=http) as (read, write, *_):
                async with ClientSession(read, write) as session:
                    return await _use(session)

    with http_server(demo, config_path, port):
        return anyio.run(main), seat_yaml


def test_the_http_config_as_shown(untouched, tmp_path):
    used, _ = use_http_config(untouched, tmp_path)
    # the seat shown may not write
    assert not used["tools"] & {"start_conversation", "log_conversation_turn", "save_memory"}


def test_the_http_seat_shown_sees_only_its_platforms(untouched, tmp_path):
    used, seat_yaml = use_http_config(untouched, tmp_path)
    platforms = set(yaml.safe_load(seat_yaml)["seats"]["assistant"]["platforms"])
    assert {r["platform"] for r in used["found"]["results"]} <= platforms
