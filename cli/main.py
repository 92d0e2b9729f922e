"""``python main.py SUBCOMMAND`` / ``arbor SUBCOMMAND``: the engine without a window.

Every sub-command prints human text, or one JSON object with ``--json``.
Problems with the input are one line on stderr and exit status 2.

Only what the parser needs is imported here (``engine.settings``: no numpy, no pandas),
so that ``--help`` and a mistyped command answer at once; the sub-commands
(:mod:`cli.commands`) import the engine when one runs.
"""

from __future__ import annotations

import argparse
import difflib
import functools
import json
import math
import os
import sys

from engine import settings
from engine.errors import ArborError, Cancelled, printable

EXIT_BAD_INPUT = 2
#: The result could not be written: stdout is closed, or writing to it failed (a full disk).
EXIT_NO_OUTPUT = 1

DESCRIPTION = """Arbor: decision trees (ID3, C4.5, CART) from the command line.
Run without a sub-command to open the window."""


def _data_arguments(p: argparse.ArgumentParser, positional: bool = True) -> None:
    if positional:
        p.add_argument(
            "data",
            nargs="?",
            metavar="DATA",
            help="data file: .csv, .tsv, .arff, .xlsx or .parquet (or use --sample)",
        )
    p.add_argument(
        "--sample",
        metavar="NAME",
        help="use a bundled dataset instead of a file (weather, weather-numeric, "
        "restaurant, toys, contact-lenses, iris)",
    )
    p.add_argument("--target", metavar="NAME", help="the column to predict (default: the last one)")
    p.add_argument("--nominal", metavar="A,B", default="", help="treat these columns as nominal")
    p.add_argument("--numeric", metavar="C,D", default="", help="treat these columns as numeric")
    p.add_argument("--ignore", metavar="E,F", default="", help="leave these columns out")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")


def _scale_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("training over partitions (tables larger than memory)")
    g.add_argument(
        "--engine",
        choices=("memory", "dask"),
        default="memory",
        help="memory: load DATA whole (default); dask: read a Parquet file, a folder "
        "or a glob of Parquet or CSV files in partitions and work on a Dask "
        "cluster, the rows staying on its workers",
    )
    g.add_argument(
        "--scheduler",
        metavar="tcp://HOST:PORT",
        help="with --engine dask: the Dask scheduler to use (default: "
        "$ARBOR_DASK_SCHEDULER, else a local cluster of one worker per core)",
    )


def _learner_arguments(p: argparse.ArgumentParser) -> None:
    """One argument per learner option, from the options table (engine/settings.py)."""
    g = p.add_argument_group("learner options (defaults depend on the algorithm)")
    for option in settings.OPTIONS:
        kwargs = {"dest": option.name, "default": None, "help": _help(option)}
        if option.kind == "bool":
            kwargs["action"] = (
                "store_false" if option.cli_flag.startswith("--no-") else "store_true"
            )
        elif option.kind == "choice":
            kwargs["choices"] = option.values
        elif option.kind == "text":  # checked by the option's own parser (engine/settings.py)
            kwargs["metavar"] = option.metavar or "TEXT"
        else:
            kwargs["type"] = int if option.kind == "int" else float
            kwargs["metavar"] = option.metavar or "N"
        g.add_argument(option.cli_flag, **kwargs)


def _help(option: settings.Option) -> str:
    """The option's help, with its default(s) as the command line spells them."""
    text = option.help
    if option.kind == "bool":
        return (
            f"turn off {option.label.lower()}: {text}"
            if option.cli_flag.startswith("--no-")
            else text
        )
    if option.per_algorithm or option.per_task:
        spelled = [
            f"{a}: {_spell(settings.default(option.name, a), option)}" for a in settings.ALGORITHMS
        ]
        spelled += [f"{t}: {_spell(v, option)}" for t, v in option.per_task.items()]
        return f"{text} (default {'; '.join(spelled)})"
    return f"{text} (default {_spell(option.default, option)})"


def _spell(value, option: settings.Option) -> str:
    if value is None:
        return option.unset or "none"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arbor", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("train", help="fit a tree and print it (and export it)")
    _data_arguments(p)
    _learner_arguments(p)
    p.add_argument("--save", metavar="MODEL.json", help="save the model as JSON (for predict)")
    p.add_argument("--rules", metavar="FILE", help="write IF-THEN rules (.txt or .md)")
    p.add_argument("--image", metavar="FILE", help="draw the tree to .png, .svg or .pdf")
    p.add_argument(
        "--image-scale",
        type=float,
        default=2.0,
        metavar="S",
        help="PNG pixels per point (2 = 192 dpi; default 2)",
    )
    p.add_argument("--transparent", action="store_true", help="images without a background")
    p.add_argument(
        "--labels",
        default="n,bar",
        metavar="LIST",
        help="what nodes show under their headline in the image and the page, "
        "comma-separated: n (n = 16), "
        "weka ((16.0/1.0): weight/errors), counts (class counts), percent, bar "
        "(the class distribution), plots (a small plot of each node's rows: the split "
        "attribute by class with the cut, or a leaf's classes; images only); default n,bar",
    )
    p.add_argument(
        "--slide",
        action="store_true",
        help="draw the image for a slide: a 16:9 page 10 inches wide (PNG 1920 pixels) "
        "with large type",
    )
    p.add_argument("--dot", metavar="FILE", help="write Graphviz DOT")
    p.add_argument("--pmml", metavar="FILE", help="write PMML 4.4")
    p.add_argument(
        "--python", metavar="FILE", help="write a standalone Python predict(row) function"
    )
    p.add_argument(
        "--html",
        metavar="FILE",
        help="write an interactive page: one self-contained HTML file that draws the tree, "
        "collapses subtrees, searches, and routes a row typed into its form",
    )
    p.add_argument(
        "--sql",
        metavar="FILE",
        help="write one SQL SELECT that scores the rows of a table named data (NULLs routed "
        "as Arbor does)",
    )
    p.add_argument(
        "--dialect",
        choices=("sqlite", "postgres", "duckdb"),
        default="sqlite",
        help="the SQL dialect of --sql (default sqlite)",
    )
    p.add_argument(
        "--onnx",
        metavar="FILE",
        help="write an ONNX model (ai.onnx.ml tree ensemble; needs the onnx package)",
    )
    _scale_arguments(p)

    p = sub.add_parser("evaluate", help="cross-validate, or test on a separate file")
    _data_arguments(p)
    _learner_arguments(p)
    p.add_argument(
        "--folds", type=int, default=10, metavar="K", help="stratified folds (default 10)"
    )
    p.add_argument(
        "--weka-folds",
        action="store_true",
        help="deal the folds exactly as Weka's -x K -s SEED does, so the result can "
        "be set beside J48's fold for fold",
    )
    p.add_argument(
        "--test", metavar="FILE", help="evaluate on this file instead of cross-validating"
    )
    p.add_argument(
        "--positive",
        metavar="CLASS",
        help="two classes: the class whose probability the cost-optimal threshold is on "
        "(default the second class)",
    )
    p.add_argument(
        "--cost-fp",
        type=float,
        default=1.0,
        metavar="C",
        help="two classes: the cost of predicting the positive class for a row of the other "
        "(default 1)",
    )
    p.add_argument(
        "--cost-fn",
        type=float,
        default=1.0,
        metavar="C",
        help="two classes: the cost of missing a row of the positive class (default 1)",
    )
    p.add_argument(
        "--split",
        type=float,
        metavar="PCT",
        help="train on PCT percent, test on the rest (instead of cross-validation)",
    )
    p.add_argument(
        "--per-node",
        action="store_true",
        help="every node's training and test rows and errors, side by side (the test rows "
        "routed down the tree as prediction routes them); without --test or --split the "
        "test rows are cross-validation's held-out rows: every row once, scored by its "
        "out-of-fold prediction (the tree of the fold that held it out), placed on the "
        "nodes of the tree trained on all the rows",
    )
    _scale_arguments(p)

    p = sub.add_parser(
        "importance",
        help="which attributes the tree leans on: impurity decrease, and permutation",
        description="Fits the tree and gives each attribute's share of its weighted impurity "
        "decrease (scikit-learn's feature_importances_). --permutation adds the drop in "
        "held-out accuracy (RMSE's rise for regression) when the attribute's values are "
        "shuffled, averaged over --repeats seeded shuffles with their spread: on the held-out "
        "rows of --folds cross-validation folds, or on a --test file.",
    )
    _data_arguments(p)
    _learner_arguments(p)
    p.add_argument(
        "--permutation",
        action="store_true",
        help="add permutation importance on held-out rows (cross-validation's, or --test's)",
    )
    p.add_argument(
        "--repeats",
        type=int,
        default=None,
        metavar="N",
        help="shuffles per attribute for --permutation (default 5; --seed seeds them)",
    )
    p.add_argument(
        "--folds", type=int, default=10, metavar="K", help="stratified folds (default 10)"
    )
    p.add_argument(
        "--test", metavar="FILE", help="permute the rows of this file instead of the folds'"
    )

    p = sub.add_parser("predict", help="predict every row of DATA with a saved model")
    p.add_argument("model", metavar="MODEL", help="a model saved by 'train --save'")
    _data_arguments(p)
    p.add_argument(
        "--output",
        metavar="FILE.csv",
        help="write the rows with a prediction column (--engine dask: a folder of "
        "Parquet partitions)",
    )
    p.add_argument(
        "--no-formula-guard",
        dest="formula_guard",
        action="store_false",
        help="write text cells of a .csv or .tsv --output as they are; by default one "
        "that begins with = + - @, a tab or a carriage return gets a leading ' "
        "so that a spreadsheet shows it as text instead of running it as a "
        "formula (numbers are never changed; .xlsx always stores text as text)",
    )
    _scale_arguments(p)

    p = sub.add_parser("explain", help="the attribute table the seeds compute by hand")
    _data_arguments(p)
    _learner_arguments(p)
    p.add_argument(
        "--node",
        type=int,
        metavar="ID",
        help="explain this node of the grown tree (ids in pre-order; default: the root)",
    )
    p.add_argument(
        "--curve",
        metavar="ATTR",
        help="the split curve of this attribute at the node: information gain, gain "
        "ratio and Gini gain (C4.5: also after its MDL penalty) at every "
        "candidate cut point, or for each grouping of a nominal attribute, with "
        "the best cut and the node's own",
    )

    p = sub.add_parser(
        "diff",
        help="ID3, C4.5, CART and the optimal tree on one table: where each pair first parts, "
        "and why",
        description="Grows ID3, C4.5, CART and the optimal tree (each with the options given "
        "where they apply, its own defaults otherwise; the optimal tree at depth 3, or "
        "--max-depth capped at 4, and not on a table too big to search beside the others) "
        "and gives, for each pair, the first node where their trees "
        "part, with every attribute's score there by each one's criterion (C4.5's average-gain "
        "rule marked), before and after pruning, and what each pruning removed.",
    )
    _data_arguments(p)
    _learner_arguments(p)
    p.set_defaults(algorithm=None)  # the person's algorithm keeps all of their options
    p.add_argument(
        "--tolerance",
        type=float,
        default=0.05,
        metavar="SHARE",
        help="thresholds this share of the attribute's range apart count as the same cut "
        "(default 0.05)",
    )
    p.add_argument(
        "--pruned",
        action="store_true",
        help="in the text, the pruned trees' first divergences with their rankings "
        "(default: as grown); --json always has both",
    )

    p = sub.add_parser("path", help="CART cost-complexity pruning path")
    _data_arguments(p)
    _learner_arguments(p)
    p.set_defaults(algorithm=None)  # CART's path: another algorithm given is refused, not run

    p = sub.add_parser(
        "curve",
        help="a learning curve, or bias and variance against tree size",
        description="--learning: training and cross-validated error against the number of "
        "rows trained on, over stratified folds. --bias-variance: trees trained on resamples "
        "of two thirds of the rows at a range of depths or leaf counts, their error on the "
        "other third split into noise, bias and variance (squared error; Domingos' terms for "
        "0-1 loss). The learner options are the tree's; --seed deals the folds and samples.",
    )
    _data_arguments(p)
    _learner_arguments(p)
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--learning", action="store_true", help="the learning curve")
    which.add_argument(
        "--bias-variance",
        action="store_true",
        help="bias, variance and noise against max depth or max leaves",
    )
    g = p.add_argument_group("learning curve")
    g.add_argument("--folds", type=int, metavar="K", help="stratified folds (default 5)")
    g.add_argument("--steps", type=int, metavar="N", help="training sizes (default 8)")
    g = p.add_argument_group("bias and variance")
    g.add_argument(
        "--vary",
        choices=("depth", "leaves"),
        help="the size to vary: max depth (default) or max leaves",
    )
    g.add_argument(
        "--values",
        metavar="LIST",
        help="its values, comma-separated (default: up to 12 from 1 level or 2 leaves to "
        "the unpruned tree's)",
    )
    g.add_argument(
        "--resampling",
        choices=("bootstrap", "folds"),
        help="training sets drawn as bootstrap samples (default) or the training parts of folds",
    )
    g.add_argument("--resamples", type=int, metavar="B", help="how many training sets (default 20)")
    g.add_argument(
        "--keep-pruning",
        action="store_true",
        default=None,
        help="prune each size's trees as the learner options say (default: grow them "
        "unpruned, so the size swept is the trees' complexity)",
    )

    p = sub.add_parser("baseline", help="0-R and 1-R")
    _data_arguments(p)

    p = sub.add_parser(
        "worksheet",
        help="a printable worksheet: a small random table, questions and the answer key",
        description="Makes a small random table (seeded: the same seed makes it again), the "
        "questions a student answers about it (the root's entropy, each attribute's gain and "
        "gain ratio, the split chosen, the next level) and the answer key, every number as "
        "explain computes it, and writes them as a PDF (questions first, the key from a new "
        "page). --json prints the table, questions and answers.",
    )
    p.add_argument(
        "out", nargs="?", metavar="OUT.pdf", help="the PDF to write (optional with --json)"
    )
    p.add_argument("--seed", type=int, default=1, help="which random table (default 1)")
    p.add_argument("--rows", type=int, default=10, help="rows in the table, 8 to 14 (default 10)")
    p.add_argument(
        "--algorithm",
        choices=("id3", "c45", "cart"),
        default="id3",
        help="the algorithm the questions follow (default id3)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")

    p = sub.add_parser(
        "summary",
        help="every column's kind, missing and distinct values, range and distribution by class",
    )
    _data_arguments(p)

    p = sub.add_parser(
        "compile",
        help="compile the fast split search for this machine now",
        description="Compile the fast (numba) split search once for this machine, "
        "in the foreground. Otherwise the window does it in the "
        "background at launch, and a fit too big to run uncompiled "
        "does it and waits for it (small fits run the uncompiled "
        "search, the same trees). Clones and venvs of the same "
        "version share it.",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    return parser


@functools.cache
def _parser() -> argparse.ArgumentParser:
    """:func:`build_parser`'s parser, built once a process: parsing leaves it as it was, and
    building it (350 arguments, their help from the options table) takes 4 ms, which the
    tests' 200-odd commands run in one process paid each time."""
    return build_parser()


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and not argv[0].startswith("-"):
        _refuse_unknown_command(parser, argv[0])
    elif argv:
        _refuse_leading_option(parser, argv)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    from cli import commands  # the engine, numpy and pandas: only once a command runs
    from engine.compiling import lifecycle as kernels

    unsubscribe = kernels.subscribe(_say(args.command))
    try:
        result, text = commands.run(args)
    except ArborError as err:  # one line, whatever a file name or value in it holds
        print(f"arbor {args.command}: error: {printable(str(err))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Cancelled:
        print(f"arbor {args.command}: cancelled", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        print(f"arbor {args.command}: interrupted", file=sys.stderr)
        return 130
    finally:
        unsubscribe()
    if sys.stdout is None:  # started with stdout closed (``>&-``): Python gives None
        print(
            f"arbor {args.command}: error: there is no standard output to write the result to "
            "(it is closed)",
            file=sys.stderr,
        )
        return EXIT_NO_OUTPUT
    try:
        if args.json:
            json.dump(_finite(result), sys.stdout, indent=1, allow_nan=False)
            sys.stdout.write("\n")
        else:
            sys.stdout.write(text if text.endswith("\n") else text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader stopped early (``| head -1``) and has what it wanted. Python would report
        # the failed flush again at exit, so stdout is pointed at nothing first.
        _silence_stdout()
    except OSError as err:  # a full disk (``> /dev/full``), a file too big, an I/O error
        _silence_stdout()
        reason = err.strerror or str(err)
        print(
            f"arbor {args.command}: error: cannot write the result to standard output: "
            f"{printable(reason)}",
            file=sys.stderr,
        )
        return EXIT_NO_OUTPUT
    return 0


def _silence_stdout() -> None:
    """Point stdout at nothing, so that Python's flush at exit does not fail (and report it)
    again with what is still buffered."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor to replace: drop the buffer instead
        sys.stdout = None


def command_names(parser: argparse.ArgumentParser) -> tuple[str, ...]:
    """The sub-commands ``parser`` (:func:`build_parser`'s) knows, in its order."""
    return tuple(
        next(
            action.choices
            for action in parser._actions
            if isinstance(action, argparse._SubParsersAction)
        )
    )


def _refuse_unknown_command(parser: argparse.ArgumentParser, word: str) -> None:
    """argparse's "invalid choice" (usage, one line, exit status 2) for a word that is no
    sub-command, with the command it most resembles."""
    names = command_names(parser)
    if word in names:
        return
    close = difflib.get_close_matches(word, names, n=1, cutoff=0.6)
    if close:
        hint = f"; did you mean '{close[0]}'?"
    elif os.path.splitext(word)[1] or os.sep in word or "/" in word:  # a file meant for the window
        hint = "; nor is there such a file to open in the window"
    else:
        hint = ""
    parser.error(
        f"argument COMMAND: invalid choice: '{printable(word)}' "
        f"(choose from {', '.join(names)}){hint}"
    )


def _refuse_leading_option(parser: argparse.ArgumentParser, argv: list[str]) -> None:
    """A command's option given before any command (``--sample iris``): argparse took its
    value for the command and answered "invalid choice: 'iris'". Say where it goes instead."""
    option = argv[0].split("=", 1)[0]
    if option in parser._option_string_actions:  # arbor's own (--help)
        return
    commands = next(
        action.choices
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
    )
    users = [name for name, sub in commands.items() if option in sub._option_string_actions]
    if not users:
        return  # argparse's own refusal of an option nobody has
    example = "train" if "train" in users else users[0]
    rest = " ".join(printable(word) for word in argv)
    window = " (the window opens the samples from File > Samples)" if option == "--sample" else ""
    parser.error(
        f"{printable(option)} is an option of a command ({', '.join(users)}), not of arbor "
        f"itself: put the command first, e.g. 'python main.py {example} {rest}'{window}"
    )


#: Seconds between two lines on how far the compilation has got.
PROGRESS_EVERY = 15.0


def _say(command: str):
    """Tell the compilation's news on stderr: each kind once, and how far it has got at
    most every :data:`PROGRESS_EVERY` seconds."""
    import time

    told: dict[str, float] = {}

    def say(notice) -> None:
        if command == "compile" and notice.state == "ready":
            return
        last = told.get(notice.state)
        if last is None or (notice.done and time.monotonic() - last >= PROGRESS_EVERY):
            told[notice.state] = time.monotonic()
            print(f"arbor {command}: {notice.message}", file=sys.stderr, flush=True)

    return say


def _finite(value):
    """``value`` as strict JSON holds it: numpy scalars and arrays as Python values, and a
    number that is not finite (an undefined spread, say) as null rather than NaN."""
    import numpy as np

    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [_finite(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
