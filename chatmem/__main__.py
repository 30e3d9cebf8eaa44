from chatmem.tools.cli import main

main()
