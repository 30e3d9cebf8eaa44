"""iMessage / SMS / RCS history from chat.db, sms.db, an iOS backup folder, and call history.

Modules: `typedstream` (our attributedBody reader), `summary_info` (edits and unsends),
`chatdb` (the Messages database), `backup` (iOS backup folders), `calls` (CallHistory).
"""

from __future__ import annotations

from .importer import IMessageImporter

__all__ = ["IMessageImporter"]
