"""A wide table (6 rows x 5,000 columns, the documented limit) reads and trains to the tree
its one informative column makes (issue 31, item 12: it took most of a minute), and kinds
inferred for many columns at once are exactly those inferred a column at a time.

Timings are in benchmarks/bench_table.py (``--wide``), never asserted here.
"""

import json
import random
import re
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO

import numpy as np
import pandas as pd
import pytest

from cli.main import main
from engine.data.encoding import encode
from engine.data.io import MAX_COLUMNS
from engine.data.table import make_table
from engine.errors import ArborError
from engine.estimator import DecisionTree
from engine.export.model_json import tree_to_dict


def wide_frame(width: int = MAX_COLUMNS - 1, nominal_only: bool = False) -> pd.DataFrame:
    """``width`` attributes and a class over 6 rows. Rows 2k and 2k+1 agree on every
    attribute but ``key`` and differ in class, so ``key`` is the only one with any gain."""
    pair = np.arange(6) // 2
    columns = {}
    for j in range(width - 1):
        if j % 2 and not nominal_only:
            columns[f"n{j}"] = [f"{(p * 7 + j) % 11 / 4:g}" for p in pair]
        else:
            columns[f"s{j}"] = [("red", "green", "blue")[(p + j) % 3] for p in pair]
    frame = pd.DataFrame(columns)
    frame.insert(width // 2, "key", ["p", "q"] * 3)
    frame["class"] = ["yes", "no"] * 3
    return frame


@pytest.fixture(scope="module")
def wide_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("wide") / "wide.csv"
    wide_frame().to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def wide_nominal():
    """The nominal table at the column limit, made and encoded once for both algorithms. It
    is made from the frame, not read from a CSV of it (the same encoded table, schema and
    arrays, for half the CPU): reading a file at the limit is the reading test's, and the
    command line reads and trains one in the CART test."""
    return encode(make_table(wide_frame(nominal_only=True)))


@pytest.fixture(scope="module")
def cart_run(wide_csv):
    """``train --algorithm cart --json`` of the table at the column limit, run once: its exit
    status, output and error, and the table the command line read with ``read_table`` (with
    no kinds or target given, as ``read_table(wide_csv)`` reads it), recorded on the way for
    the reading test: reading the file a second time cost 0.8 s of CPU."""
    from engine.data import io

    tables = []
    read = io.read_table

    def recording(*args, **kwargs):
        tables.append(read(*args, **kwargs))
        return tables[-1]

    out, err = StringIO(), StringIO()
    with pytest.MonkeyPatch.context() as patch, redirect_stdout(out), redirect_stderr(err):
        patch.setattr(io, "read_table", recording)
        code = main(["train", str(wide_csv), "--algorithm", "cart", "--json"])
    return code, out.getvalue(), err.getvalue(), tables


def test_a_table_at_the_column_limit_reads_with_its_kinds(cart_run):
    *_, tables = cart_run
    assert len(tables) == 1  # the command line's read_table(wide_csv)
    table = tables[0]
    assert table.frame.shape == (6, MAX_COLUMNS)
    kinds = pd.Series(dict(table.kinds)).value_counts().to_dict()
    assert kinds == {"nominal": 2501, "numeric": 2499}
    assert list(table.frame["key"].cat.categories) == ["p", "q"]
    assert table.frame["n1"].tolist() == [0.25, 0.25, 2.0, 2.0, 1.0, 1.0]
    assert list(table.frame["s0"].cat.categories) == ["red", "green", "blue"]


def split_attribute(tree: dict) -> str:
    """The name of the attribute the root of a tree's JSON splits on."""
    return tree["attributes"][tree["nodes"][0]["split"]["attribute"]]["name"]


def test_cart_on_a_table_at_the_column_limit_splits_on_its_one_informative_column(cart_run):
    code, out, err, _ = cart_run
    assert code == 0, err
    result = json.loads(out)
    assert (result["n_nodes"], result["n_leaves"], result["depth"]) == (3, 2, 1)
    assert result["train_accuracy"] == 1.0
    assert split_attribute(result["tree"]) == "key"


@pytest.mark.parametrize("algorithm", ["id3", "c45"])
def test_id3_and_c45_on_a_nominal_table_at_the_column_limit(wide_nominal, algorithm):
    # (Numeric columns of two rows each per value make J48 keep one leaf here, and C4.5 too.)
    model = DecisionTree(algorithm=algorithm, prune="none").fit(wide_nominal)
    tree = model.tree_
    assert (tree.n_nodes, tree.n_leaves, tree.depth) == (3, 2, 1)
    assert (model.predict(wide_nominal) == model.classes_[wide_nominal.y]).all()
    assert split_attribute(tree_to_dict(tree, model.settings_)) == "key"


# Cells that every kind of column holds: numbers of each spelling, text, missing tokens,
# blanks Python and Arrow strip differently, digits of other scripts, infinity and NaN.
CELLS = [
    "1",
    "2",
    "3.5",
    "-4",
    "+1",
    "1e5",
    "1.",
    ".5",
    " 7 ",
    "x",
    "y",
    " y",
    "z ",
    "NA",
    "?",
    "",
    " ",
    "nan",
    "NaN",
    "inf",
    "-Inf",
    "1,5",
    "\u0663",
    "true",
    "TRUE",
    "None",
    "0x10",
    "1_000",
    "a b",
    "\u00a0x",
    "x\u2003",
    "\x1cNA",
    "00",
    "0.0",
    "1.0",
    "10",
    "9" * 30,
    "\u00e9",
    "nan(1)",
]
MOSTLY_NUMBERS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "x", "?"]


def tricky_frame(rng: random.Random, rows: int, width: int) -> pd.DataFrame:
    pools = [
        CELLS,
        ["1", "2", "3.25", "-1e3", "", "?"],
        ["a", "b", " a", "c", "", "NA"],
        MOSTLY_NUMBERS,
    ]
    frame = pd.DataFrame(
        {
            f"c{j}": [rng.choice(pool) for _ in range(rows)]
            for j, pool in enumerate(rng.choice(pools) for _ in range(width))
        }
    )
    if rng.random() < 0.5:
        frame = frame.astype(object)
    elif rows:
        frame.iloc[rng.randrange(rows), 0] = np.nan
    return frame


@pytest.mark.parametrize("seed", range(6))
def test_kinds_inferred_at_once_are_those_of_one_column_at_a_time(seed):
    rng = random.Random(seed)
    for _ in range(12):
        frame = tricky_frame(rng, rng.choice([0, 1, 3, 6, 11, 40]), rng.choice([2, 5, 30]))
        alone = {}  # each column alone: the column-at-a-time functions
        for name in frame.columns:
            try:
                alone[name] = make_table(frame[[name]])
            except ArborError as err:  # infinity: the first such column is named, as alone
                with pytest.raises(ArborError, match=re.escape(str(err))):
                    make_table(frame)
                break
        else:
            check_same_columns(make_table(frame), alone)


def check_same_columns(table, alone: dict) -> None:
    for name, one in alone.items():
        assert table.kinds[name] == one.kinds[name], name
        pd.testing.assert_series_equal(table.frame[name], one.frame[name], check_exact=True)
        said = [n for n in table.notes if n.startswith(f"column {name!r} ")]
        assert said == list(one.notes), name


def test_a_table_made_again_from_its_frame_is_the_same():
    """What the window does before every training (``TableDocument.snapshot``)."""
    table = read_table_like(wide_frame(width=300))
    again = make_table(table.frame, target=table.target, kinds=dict(table.kinds))
    pd.testing.assert_frame_equal(again.frame, table.frame, check_exact=True)
    assert dict(again.kinds) == dict(table.kinds)


def read_table_like(frame: pd.DataFrame):
    return make_table(frame.astype("str"))
