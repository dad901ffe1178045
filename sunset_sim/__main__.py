"""``python -m sunset_sim``: the ``sunset-sim`` command line."""

from sunset_sim.console import main

if __name__ == "__main__":
    main()
