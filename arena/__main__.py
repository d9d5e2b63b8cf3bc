"""`python -m arena`: the same command line as the `arena` script."""

from arena.cli import main

if __name__ == "__main__":
    main()
