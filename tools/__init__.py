"""The read and write tools as plain functions returning JSON-able dicts, and the two thin
interfaces over them: the click CLI (`cli.py`) and the MCP server (`server.py`)."""
