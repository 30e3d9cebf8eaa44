"""The store: SQLAlchemy models, the ingest pipeline, the Whoosh index kept in sync."""

from __future__ import annotations

from .ingest import Report
from .store import Store

__all__ = ["Report", "Store"]
