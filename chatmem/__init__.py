"""chatmem: chat archives (iMessage, WhatsApp, Signal) as one local, searchable memory."""

from __future__ import annotations

__version__ = "0.1.0"
