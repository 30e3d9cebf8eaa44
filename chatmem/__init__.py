"""chatmem: chat archives (iMessage, WhatsApp, Signal) as one local, searchable memory."""

from __future__ import annotations

from pathlib import Path

__version__ = "0.1.0"

# In the source tree, `chatmem.importers`, `chatmem.store` and `chatmem.tools` live beside
# this folder (pyproject.toml maps them there when installing). When Python picks up this
# folder rather than the installed package (`python -m chatmem` run from the repository
# root), look for the subpackages beside it too, so the checkout works as installed.
_root = Path(__file__).resolve().parent.parent
if (_root / "pyproject.toml").is_file() and (_root / "tools" / "__init__.py").is_file():
    __path__.append(str(_root))  # noqa: F821
