"""Shared test fixtures: a real store (SQLite file + Whoosh index) in a temporary folder,
the CLI through click's CliRunner, and paths to our fixtures and the shared corpus."""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner

from chatmem.config import Config, load_config
from chatmem.store import Store

# helper modules that tests import by name: let pytest rewrite their asserts too
pytest.register_assert_rewrite("tool_helpers", "server_helpers", "imessage_builders", "signal_builders",
                                "mutation")

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
CORPUS = ROOT.parent / "shared" / "corpus"
FIXTURE_CONFIG = FIXTURES / "config.yaml"

# Keyword search unless a test asks for a mode: the suite's search tests pin keyword behaviour
# whether or not the semantic extra is installed (tests/test_semantic.py tests the others). Set
# for the whole process, so servers that module-scoped fixtures start inherit it too.
os.environ["CHATMEM_SEARCH_MODE"] = "keyword"


def pytest_terminal_summary(terminalreporter) -> None:
    """Print the figures tests reported (tests/figures.py), e.g. fuzz mutants and masking rates."""
    from figures import FIGURES

    if FIGURES:
        terminalreporter.section("chatmem figures")
        for line in FIGURES:
            terminalreporter.write_line(line)


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch, tmp_path):
    """Never read or write the real per-user folders from a test."""
    monkeypatch.delenv("CHATMEM_HOME", raising=False)
    monkeypatch.delenv("CHATMEM_SEAT", raising=False)
    monkeypatch.delenv("CHATMEM_DATABASE_URL", raising=False)
    monkeypatch.setenv("CHATMEM_SEARCH_MODE", "keyword")
    monkeypatch.setenv("CHATMEM_CONFIG", str(FIXTURE_CONFIG))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES


@pytest.fixture
def corpus_dir() -> Path:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present")
    return CORPUS


@pytest.fixture
def config() -> Config:
    return load_config(FIXTURE_CONFIG)


PG_URL = os.environ.get("CHATMEM_TEST_PG_URL")


@pytest.fixture
def database_url() -> str | None:
    """None: SQLite in the home folder. Tests using `any_backend` also run on PostgreSQL."""
    return os.environ.get("CHATMEM_DATABASE_URL") or None


@contextmanager
def pg_database():
    """A fresh, empty PostgreSQL database on the test server; yields its URL."""
    import uuid

    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"chatmem_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def skip_without_pg() -> None:
    if not PG_URL:
        pytest.skip("PostgreSQL tests need CHATMEM_TEST_PG_URL (bash .ci/run sets it)")


@pytest.fixture(params=["sqlite", "postgresql"])
def any_backend(request, monkeypatch):
    """Runs the test once on SQLite and once on a fresh PostgreSQL database (when
    CHATMEM_TEST_PG_URL points at a server; skipped otherwise). The CLI and Store.open
    pick the database up from CHATMEM_DATABASE_URL."""
    if request.param == "sqlite":
        yield "sqlite"
        return
    skip_without_pg()
    with pg_database() as url:
        monkeypatch.setenv("CHATMEM_DATABASE_URL", url)
        yield "postgresql"


@pytest.fixture
def home(tmp_path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def store(home, config, database_url):
    s = Store.open(home, config, url=database_url)
    yield s
    s.close()


class Cli:
    """Runs `chatmem --home HOME ...` in-process and returns (exit code, output)."""

    def __init__(self, home: Path):
        self.home = home
        self.runner = CliRunner()

    def __call__(self, *args: str, expect: int | None = 0):
        from chatmem.tools.cli import cli

        result = self.runner.invoke(cli, ["--home", str(self.home), *map(str, args)])
        if expect is not None and result.exit_code != expect:
            raise AssertionError(f"exit {result.exit_code} (wanted {expect}) for {args}:\n"
                                 f"{result.output}\n{result.exception!r}")
        return result

    def json(self, *args: str):
        return json.loads(self(*args, "--json").stdout)


@pytest.fixture
def cli(home) -> Cli:
    return Cli(home)
