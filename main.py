"""Arbor: with no arguments (or just a data file) the window; with a sub-command the CLI."""

from __future__ import annotations

import sys

SUBCOMMANDS = {"train", "evaluate", "predict", "explain", "path", "baseline", "compile"}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and (argv[0] in SUBCOMMANDS or argv[0].startswith("-")):
        from cli.main import main as cli_main

        return cli_main(argv)
    from gui.display_check import display_problem

    problem = display_problem()
    if problem:
        print(f"arbor: cannot open the window: {problem}. The command line works without one: "
              "python main.py --help", file=sys.stderr)
        return 2
    try:
        from gui.app import run
    except ImportError as err:
        print(f"arbor: cannot open the window: {err}\n(the command line works without it: "
              "arbor --help)", file=sys.stderr)
        return 2
    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
