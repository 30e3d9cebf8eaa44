"""`python -m chatmem`: the same as the `chatmem` command."""

from chatmem.tools.cli import main

main()
