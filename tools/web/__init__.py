"""The web face: `chatmem web`, a local page to browse, search and picture the archive.

It calls the same tool functions as the CLI and the MCP server (never SQL of its own), as the
seat whose token opened it, and imports neither of the other faces.
"""
