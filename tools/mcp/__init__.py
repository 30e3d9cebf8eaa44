"""The MCP face: the tool functions served to AI assistants over stdio and streamable HTTP."""
