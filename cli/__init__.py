"""Arbor's command line (``python main.py SUBCOMMAND`` / ``arbor SUBCOMMAND``).

:data:`COMMANDS` names the sub-commands :func:`cli.main.build_parser` builds (a test keeps
the two in step), so that ``main.py`` can tell a sub-command from a file to open in the
window without importing more than this.
"""

COMMANDS = (
    "train",
    "evaluate",
    "predict",
    "explain",
    "summary",
    "path",
    "baseline",
    "curve",
    "diff",
    "importance",
    "worksheet",
    "compile",
)
