"""The store: SQLAlchemy models, the ingest pipeline, the Whoosh index kept in sync.

`Store` and `Report` are loaded on first use, so that a light module of the store (`quick`,
`report`, `permissions`) can be imported without SQLAlchemy and Whoosh."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .report import Report
    from .store import Store

__all__ = ["Report", "Store"]


def __getattr__(name: str) -> Any:
    if name == "Store":
        from .store import Store

        return Store
    if name == "Report":
        from .report import Report

        return Report
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
