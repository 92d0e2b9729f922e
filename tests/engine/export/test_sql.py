"""The SQL export scores every row in SQLite and DuckDB exactly as engine.predict does, with
and without missing values (C4.5's fractional routing in SQL)."""

from __future__ import annotations

import re
import sqlite3

import numpy as np
import pandas as pd
import pytest

from engine.data.samples import load_sample
from engine.errors import ArborError
from engine.estimator import DecisionTree
from engine.export.sql import DIALECTS, EXACT_RULE_CLASSES, _class_rule, quoted, to_sql
from engine.predict import class_codes, prediction_frame

duckdb = pytest.importorskip("duckdb")

CASES = [
    ("weather", "id3"),
    ("weather", "c45"),
    ("weather-numeric", "c45"),
    ("weather-numeric", "cart"),
    ("restaurant", "id3"),
    ("restaurant", "cart"),
    ("toys", "c45"),
    ("contact-lenses", "c45"),
    ("iris", "c45"),
    ("iris", "cart"),
]


def rows_for_sql(table, attributes, holes: float, seed: int = 0) -> pd.DataFrame:
    """The table's attribute columns as a database holds them (text and doubles, None for a
    missing value), with a share ``holes`` of the cells made missing."""
    frame = table.frame[list(attributes)].astype(object)
    frame = frame.where(frame.notna(), None)
    if holes:
        rng = np.random.default_rng(seed)
        frame = frame.mask(rng.random(frame.shape) < holes, None)
    return frame


def sqlite_rows(query: str, frame: pd.DataFrame, kinds) -> tuple[list[str], list[tuple]]:
    db = sqlite3.connect(":memory:")
    columns = ", ".join(
        f"{quoted(c)} {'TEXT' if kinds[c] == 'nominal' else 'REAL'}" for c in frame.columns
    )
    db.execute(f"CREATE TABLE data ({columns})")
    marks = ", ".join("?" * frame.shape[1])
    db.executemany(f"INSERT INTO data VALUES ({marks})", frame.itertuples(index=False))
    cursor = db.execute(query)
    return [d[0] for d in cursor.description], cursor.fetchall()


def duckdb_rows(query: str, frame: pd.DataFrame, kinds) -> tuple[list[str], list[tuple]]:
    typed = pd.DataFrame(
        {c: frame[c].astype(object if kinds[c] == "nominal" else float) for c in frame.columns}
    )
    db = duckdb.connect()
    db.register("rows", typed)
    db.execute("CREATE TABLE data AS SELECT * FROM rows")
    cursor = db.execute(query)
    return [d[0] for d in cursor.description], cursor.fetchall()


RUNNERS = {"sqlite": sqlite_rows, "duckdb": duckdb_rows}


def check_scores(model, table, frame, dialect):
    """Run the query over ``frame`` and compare every column with prediction_frame's."""
    tree, algorithm = model.tree_, model.settings_.algorithm
    kinds = table.kinds
    names, rows = RUNNERS[dialect](to_sql(tree, dialect, algorithm=algorithm), frame, kinds)
    got = pd.DataFrame(rows, columns=names)
    expected = prediction_frame(tree, frame.astype(object), True, algorithm)
    predicted = f"predicted {tree.schema.target}"
    probabilities = [] if tree.is_regression else [f"P({c})" for c in tree.classes]
    assert names == [*frame.columns, *probabilities, predicted]
    if not tree.is_regression:
        for label in tree.classes:
            # The same doubles, summed in the same order: equal, not merely close.
            np.testing.assert_array_equal(
                got[f"P({label})"].to_numpy(float), expected[f"P({label})"].to_numpy(float)
            )
    if tree.is_regression:
        np.testing.assert_array_equal(
            got[predicted].to_numpy(float), expected[predicted].to_numpy(float)
        )
    else:
        assert got[predicted].tolist() == expected[predicted].tolist()


@pytest.mark.parametrize("dialect", sorted(RUNNERS))
@pytest.mark.parametrize(("name", "algorithm"), CASES)
def test_every_row_scores_as_predict(name, algorithm, dialect):
    table = load_sample(name)
    model = DecisionTree(algorithm=algorithm).fit(table)
    for holes in (0.0, 0.3):
        frame = rows_for_sql(table, [*table.attributes, table.target], holes)
        check_scores(model, table, frame, dialect)


@pytest.mark.parametrize("dialect", sorted(RUNNERS))
def test_regression_tree_scores_as_predict(dialect):
    table = load_sample("iris").with_target("petalwidth")
    model = DecisionTree(algorithm="cart", task="regression", prune="none", max_depth=4).fit(table)
    assert model.tree_.is_regression and model.tree_.n_leaves > 3
    frame = rows_for_sql(table, table.attributes, 0.25, seed=1)
    check_scores(model, table, frame, dialect)


def test_a_category_no_branch_holds_is_routed_as_missing():
    table = load_sample("weather")
    model = DecisionTree(algorithm="c45").fit(table)
    frame = rows_for_sql(table, table.attributes, 0.0).head(4).copy()
    frame["outlook"] = ["foggy", "sunny", "it's", 'say "hi"']
    for dialect in RUNNERS:
        check_scores(model, table, frame, dialect)


@pytest.mark.parametrize("classes", [2, 3, 5, EXACT_RULE_CLASSES + 2])
@pytest.mark.parametrize("algorithm", ["c45", "cart"])
def test_class_rule_is_class_codes(classes, algorithm):
    """Near-ties (a few 1e-7 apart, exact ties, 1e-16 apart) pick the class class_codes picks."""
    rng = np.random.default_rng(classes)
    base = rng.choice([0.2, 0.25, 1 / 3], size=(400, 1))
    proba = base + rng.choice([0.0, 1e-16, 4e-7, 9e-7, 1.1e-6, 0.1], size=(400, classes))
    if classes > EXACT_RULE_CLASSES:  # the quadratic rule: no three classes within 2e-6
        proba = base + rng.choice([0.0, 1e-16, 0.1, 0.2], size=(400, classes))
    names = [quoted(f"p{k}") for k in range(classes)]
    rule = _class_rule(names, [str(k) for k in range(classes)], algorithm)
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE TABLE t ({', '.join(n + ' REAL' for n in names)})")
    db.executemany(f"INSERT INTO t VALUES ({', '.join('?' * classes)})", proba.tolist())
    got = [row[0] for row in db.execute(f"SELECT {rule} FROM t")]
    assert got == class_codes(proba, algorithm).tolist()


def test_postgres_text_has_only_double_literals_and_quoted_names():
    table = load_sample("weather-numeric")
    model = DecisionTree(algorithm="c45").fit(table)
    text = to_sql(model.tree_, "postgres", table="my table", algorithm="c45")
    body = "\n".join(line for line in text.splitlines() if not line.startswith("--"))
    assert 'FROM "my table"' in body
    # PostgreSQL reads 0.5 and 5e-1 as exact NUMERIC: every number must be a cast double.
    bare = re.sub(r"CAST\('[-+0-9.e]+' AS DOUBLE PRECISION\)", "", body)
    bare = re.sub(r'"[^"]*"|\'[^\']*\'', "", bare)
    assert not re.search(r"\d", bare)
    assert "\"humidity\" <= CAST('75.0' AS DOUBLE PRECISION)" in body
    assert "\"outlook\" IN ('sunny')" in body


def test_dialects_and_nul_are_refused():
    tree = DecisionTree(algorithm="id3").fit(load_sample("weather")).tree_
    with pytest.raises(ArborError, match="dialect"):
        to_sql(tree, "oracle")
    assert set(DIALECTS) == {"sqlite", "postgres", "duckdb"}
    frame = pd.DataFrame({"a": ["x\x00y", "b"] * 4, "y": ["p", "q"] * 4})
    with pytest.raises(ArborError, match="U\\+0000"):
        to_sql(DecisionTree(algorithm="id3").fit(frame).tree_)


def test_long_sums_are_added_in_halves(monkeypatch):
    """Past FOLD_TERMS leaves the sum is balanced (SQLite and DuckDB parse at most 1000 levels):
    the same probabilities up to rounding."""
    import engine.export.sql as sql

    monkeypatch.setattr(sql, "FOLD_TERMS", 1)
    table = load_sample("iris")
    tree = DecisionTree(algorithm="cart").fit(table).tree_
    frame = rows_for_sql(table, table.attributes, 0.4)
    query = to_sql(tree, "sqlite", algorithm="cart")
    assert "(CASE WHEN" in query
    names, rows = sqlite_rows(query, frame, table.kinds)
    expected = prediction_frame(tree, frame.astype(object), True, "cart")
    got = np.array([row[4:-1] for row in rows], dtype=float)
    np.testing.assert_allclose(got, expected[names[4:-1]].to_numpy(float), rtol=0, atol=1e-15)
    monkeypatch.setattr(sql, "MAX_DEPTH", 1)
    with pytest.raises(ArborError, match="levels deep"):
        to_sql(tree)
