from poemetric.cli import main

main()
