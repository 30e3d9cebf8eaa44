"""The house rules, by folder, read from the source: who may import whom.

Every `import` and `from ... import` counts, at the top of a module or inside a function (a lazy
import is still an import), with relative imports resolved to the package they name.

- the record contract (`chatmem/records.py`) imports nothing of importers, store or tools;
- importers import the record contract and the errors, never the store, the tools or the config;
- the store never imports the importers' room (it takes what `find_sources` found) nor the tools;
- tool functions (`tools/*.py`) import no face and no database or index library: they ask the
  store (full-text queries too: `chatmem.store.search`);
- faces (`tools/cli/`, `tools/mcp/`, `tools/web/`) do not import each other; what they share
  is in `tools/app.py`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# repository folder -> the package it installs as (pyproject.toml `package-dir`)
ROOMS = {"chatmem": "chatmem", "importers": "chatmem.importers", "store": "chatmem.store",
         "tools": "chatmem.tools"}
FACES = ("chatmem.tools.cli", "chatmem.tools.mcp", "chatmem.tools.web")
STORAGE_LIBRARIES = ("sqlalchemy", "whoosh", "sqlite3")
# the tool modules allowed to build full-text queries themselves: none since the index's own
# query API (issue 14, `chatmem.store.search`) took them over; never grow this set
ALLOWED_INDEX_QUERIES: set[str] = set()


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT)
    parts = [ROOMS[rel.parts[0]], *rel.parts[1:]]
    parts[-1] = parts[-1].removesuffix(".py")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(".".join(parts).split("."))


def library_modules() -> dict[str, Path]:
    out = {}
    for room in ROOMS:
        for path in sorted((ROOT / room).rglob("*.py")):
            if "__pycache__" not in path.parts:
                out[module_name(path)] = path
    return out


MODULES = library_modules()


def imports_of(name: str) -> set[str]:
    """Every module `name` imports (for `from x import y`, both x and x.y when x.y is ours)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")
                base_parts = base_parts[:len(base_parts) - (node.level - 1)]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            found.add(base)
            for alias in node.names:
                if f"{base}.{alias.name}" in MODULES:
                    found.add(f"{base}.{alias.name}")
    return found


def within(module: str, *packages: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def offending(name: str, *forbidden: str) -> list[str]:
    return sorted(m for m in imports_of(name) if within(m, *forbidden))


def test_the_graph_covers_every_room():
    # a sanity check on the reader itself: it sees the modules the rules are about
    for expected in ("chatmem.records", "chatmem.importers", "chatmem.store.reads", "chatmem.tools.search",
                     "chatmem.tools.cli", "chatmem.tools.mcp.server", "chatmem.tools.app"):
        assert expected in MODULES
    assert "chatmem.store.scope" in imports_of("chatmem.store.reads")
    assert "sqlalchemy" in imports_of("chatmem.store.reads")
    assert "chatmem.tools.app" in imports_of("chatmem.tools.cli")  # `from ..app import` resolved


def test_the_record_contract_imports_no_room():
    assert offending("chatmem.records", "chatmem.importers", "chatmem.store", "chatmem.tools") == []


@pytest.mark.parametrize("name", [n for n in MODULES if within(n, "chatmem.importers")])
def test_importers_know_nothing_of_storage_tools_or_config(name):
    assert offending(name, "chatmem.store", "chatmem.tools", "chatmem.config", "sqlalchemy", "whoosh") == []


@pytest.mark.parametrize("name", [n for n in MODULES if within(n, "chatmem.store")])
def test_the_store_does_not_import_the_importers_or_the_tools(name):
    assert offending(name, "chatmem.importers", "chatmem.tools") == []


TOOL_FUNCTIONS = [n for n in MODULES if within(n, "chatmem.tools") and not within(n, *FACES, "chatmem.tools.app")]


@pytest.mark.parametrize("name", TOOL_FUNCTIONS)
def test_tool_functions_import_no_face(name):
    assert offending(name, *FACES, "chatmem.tools.app", "click", "mcp") == []


@pytest.mark.parametrize("name", TOOL_FUNCTIONS)
def test_tool_functions_ask_the_store_instead_of_writing_queries(name):
    if name in ALLOWED_INDEX_QUERIES:
        assert offending(name, "sqlite3") == []
        return
    assert offending(name, *STORAGE_LIBRARIES, "chatmem.store.models", "chatmem.store.db") == []


def test_the_allowance_is_still_needed():
    # when a module on the allowance stops importing the libraries, take it off the list
    for name in ALLOWED_INDEX_QUERIES:
        assert offending(name, "sqlalchemy", "whoosh"), f"{name} no longer needs its allowance"


@pytest.mark.parametrize("face", FACES)
def test_faces_do_not_import_each_other(face):
    others = [f for f in FACES if f != face]
    for name in MODULES:
        if within(name, face):
            assert offending(name, *others) == [], name
