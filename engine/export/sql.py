"""The tree as one SQL query that scores the rows of a table where they are stored.

The query keeps every column of the table and adds, for a classification tree, one column
``P(<class>)`` per class and a ``predicted <target>`` column; for a regression tree, the
``predicted <target>`` column alone. It reads SQLite, PostgreSQL and DuckDB.

Missing values are routed as :mod:`engine.predict` routes them: a NULL at a split (or a
category no branch of the split holds) sends the row down every branch, its weight times
the branch's share of the training weight. So each probability is a sum over the leaves,
each leaf's probability times the weight with which the row reaches it: the product of one
``CASE`` per split on the leaf's path, which is 1 on the branch the value chooses, 0 on the
others and the branch's share when the value is missing. The terms are added in the order
:func:`engine.predict.predict_proba` adds them, with the same numbers (every number is
written as a double), so the database computes the same floating-point sums (past
:data:`FOLD_TERMS` leaves, in halves, which only rounding tells apart).

The class is chosen from the probabilities by :func:`engine.predict.class_codes`'s rule
for the tree's algorithm. Names from the data enter only as quoted identifiers (double
quotes doubled) and categories only as string literals (single quotes doubled); comments
show names in :func:`engine.export.labels.shown`'s escaped form, which holds no line break.
"""

from __future__ import annotations

import math

import numpy as np

from engine.errors import ArborError
from engine.export.labels import shown
from engine.export.surrogate_check import refuse_surrogates
from engine.learn.tolerances import WEKA_EPS
from engine.predict import node_output
from engine.tree import THRESHOLD, Node, Tree

#: The dialects the query is written for.
DIALECTS = ("sqlite", "postgres", "duckdb")

#: A sum of up to this many leaves is added left to right, in predict's order and so to the
#: same bits; a longer one in halves: a chain of a thousand additions is deeper than SQLite and
#: DuckDB parse (their limit is 1000), and the halves differ from predict only in rounding,
#: for rows that reach several leaves (a row with no missing value reaches one).
FOLD_TERMS = 256
#: Deeper trees are refused: each level adds one factor to a leaf's product.
MAX_DEPTH = 500

#: Up to this many classes the query picks the class by J48's rule exactly (a nested CASE
#: with 2^(classes-1) outcomes); with more, by the nearest rule of quadratic size.
EXACT_RULE_CLASSES = 10


def quoted(name: str) -> str:
    """``name`` as a quoted SQL identifier.

    >>> quoted('a "b" c')
    '"a ""b"" c"'
    """
    _refuse_nul(name)
    return '"' + name.replace('"', '""') + '"'


def text_literal(value: str) -> str:
    """``value`` as an SQL string literal (standard: only the single quote is special).

    >>> text_literal("it's \\\\ fine")
    "'it''s \\\\ fine'"
    """
    _refuse_nul(value)
    return "'" + value.replace("'", "''") + "'"


def _refuse_nul(text: str) -> None:
    if "\x00" in text:
        raise ArborError(
            f"SQL cannot hold the character U+0000 in {shown(text.replace(chr(0), '?'))}"
        )


def number_literal(value: float, dialect: str) -> str:
    """``value`` as a double-precision literal of ``dialect``, the same double when read back.

    SQLite reads ``0.5`` as a double, DuckDB only a number with an exponent (``0.5`` is a
    DECIMAL there) and PostgreSQL neither, so each gets the form that stays a double: the
    sums then round as numpy's do.

    >>> [number_literal(0.5, d) for d in DIALECTS]
    ['0.5', "CAST('0.5' AS DOUBLE PRECISION)", '0.5e0']
    """
    if math.isnan(value):
        return "NULL"
    if math.isinf(value):
        raise ArborError("SQL has no infinite number; the tree holds one")
    text = repr(float(value))
    if dialect == "postgres":
        return f"CAST('{text}' AS DOUBLE PRECISION)"
    if dialect == "duckdb" and "e" not in text:
        return text + "e0"
    return text


class _Writer:
    def __init__(self, tree: Tree, dialect: str):
        if dialect not in DIALECTS:
            raise ArborError(f"unknown SQL dialect {dialect!r}; use one of {', '.join(DIALECTS)}")
        if tree.depth > MAX_DEPTH:
            raise ArborError(
                f"the tree is {tree.depth} levels deep; SQL databases parse expressions up to "
                f"about {MAX_DEPTH} levels (prune the tree, or limit its depth)"
            )
        self.tree, self.dialect = tree, dialect
        self.one, self.zero = self.number(1.0), self.number(0.0)

    def number(self, value: float) -> str:
        return number_literal(value, self.dialect)

    def factor(self, node: Node, branch: int) -> str:
        """A row's weight factor at ``node`` towards ``branch``: 1, 0, or the branch's share."""
        split = node.split
        attribute = self.tree.schema.attributes[split.attribute]
        column = quoted(attribute.name)
        share = self.number(float(split.fractions[branch]))
        if split.kind == THRESHOLD:
            cut = self.number(float(split.threshold))
            here, there = (f"{column} <= {cut}", f"{column} > {cut}")
            if branch == 1:
                here, there = there, here
            return (
                f"CASE WHEN {here} THEN {self.one} WHEN {there} THEN {self.zero} ELSE {share} END"
            )
        mine = [attribute.categories[c] for c in split.groups[branch]]
        others = [
            attribute.categories[c] for b, g in enumerate(split.groups) if b != branch for c in g
        ]
        whens = []
        if mine:
            whens.append(f"WHEN {column} IN ({self.texts(mine)}) THEN {self.one}")
        if others:
            whens.append(f"WHEN {column} IN ({self.texts(others)}) THEN {self.zero}")
        if not whens:
            return share
        return f"CASE {' '.join(whens)} ELSE {share} END"

    @staticmethod
    def texts(values: list[str]) -> str:
        return ", ".join(text_literal(v) for v in values)

    def leaves(self) -> list[tuple[list[str], object]]:
        """(weight factors on the path, output) of every leaf, in the order predict visits them."""
        # predict's walk pops a stack onto which children were pushed first to last: it reaches
        # the last child first, and a row's probabilities are summed in that order.
        out = []
        stack: list[tuple[Node, list[str], object]] = [(self.tree.root, [], None)]
        while stack:
            node, factors, fallback = stack.pop()
            if node.is_leaf:
                out.append((factors, node_output(self.tree, node, fallback)))
                continue
            here = node_output(self.tree, node, fallback)
            for b, child in enumerate(node.children):
                stack.append((child, [*factors, self.factor(node, b)], here))
        return out

    def weighted_sum(self, terms: list[tuple[list[str], float]], indent: str) -> str:
        """Sum of weight times output over the leaves; leaves whose output is 0 add nothing."""
        parts = []
        for factors, value in terms:
            if value == 0:
                continue
            parts.append(" * ".join([*factors, self.number(float(value))]))
        if not parts:
            return self.zero
        if len(parts) <= FOLD_TERMS:
            return f"\n{indent}+ ".join(parts)
        return _balanced(parts, indent)


def _balanced(parts: list[str], indent: str) -> str:
    """``parts`` added in halves, so the expression is as deep as log2 of their number."""
    if len(parts) == 1:
        return parts[0]
    middle = len(parts) // 2
    left, right = _balanced(parts[:middle], indent), _balanced(parts[middle:], indent)
    return f"({left})\n{indent}+ ({right})"


def _class_rule(
    probabilities: list[str], labels: list[str], algorithm: str | None, eps: str = repr(WEKA_EPS)
) -> str:
    """The CASE that picks the class from the probability columns as class_codes does
    (``eps``: J48's 1e-6 as a literal of the dialect)."""
    k = len(labels)
    if k == 1:
        return labels[0]
    if algorithm == "cart":  # the first most probable class
        whens = [
            f"WHEN {' AND '.join(f'{probabilities[i]} >= {probabilities[j]}' for j in range(i + 1, k))} "
            f"THEN {labels[i]}"
            for i in range(k - 1)
        ]
        return f"CASE {' '.join(whens)} ELSE {labels[-1]} END"
    if k <= EXACT_RULE_CLASSES:
        # J48's scan: class j replaces the class kept so far (m) when more than 1e-6 higher.
        def scan(kept: int, j: int) -> str:
            if j == k:
                return labels[kept]
            return (
                f"CASE WHEN {probabilities[j]} - {probabilities[kept]} > {eps} "
                f"THEN {scan(j, j + 1)} ELSE {scan(kept, j + 1)} END"
            )

        return scan(0, 1)
    # The first class that no other beats by more than 1e-6: J48's choice unless three or
    # more classes lie within 2e-6 of each other, which would take 2^classes outcomes.
    whens = [
        f"WHEN {' AND '.join(f'{probabilities[j]} - {probabilities[i]} <= {eps}' for j in range(k) if j != i)} "
        f"THEN {labels[i]}"
        for i in range(k - 1)
    ]
    return f"CASE {' '.join(whens)} ELSE {labels[-1]} END"


def _cost_rule(probabilities: list[str], labels: list[str], costs, number) -> str:
    """The CASE that picks the class of least expected cost (the first on a tie), as
    class_codes does with a cost matrix: predicting j costs sum_k P(k) C[k][j]."""
    k = len(labels)
    if k == 1:
        return labels[0]
    expected = []
    for j in range(k):
        terms = [
            f"{probabilities[i]} * {number(float(costs[i][j]))}" for i in range(k) if costs[i][j]
        ]
        expected.append(f"({' + '.join(terms)})" if terms else number(0.0))
    whens = [
        f"WHEN {' AND '.join(f'{expected[i]} <= {expected[j]}' for j in range(i + 1, k))} "
        f"THEN {labels[i]}"
        for i in range(k - 1)
    ]
    return f"CASE {' '.join(whens)} ELSE {labels[-1]} END"


def to_sql(
    tree: Tree, dialect: str = "sqlite", table: str = "data", algorithm: str | None = None
) -> str:
    """A SELECT scoring every row of ``table`` with ``tree`` in ``dialect``.

    ``algorithm`` (the tree's) picks the class rule of :func:`engine.predict.class_codes`.

    >>> import sqlite3
    >>> from engine.data.samples import load_sample
    >>> from engine.estimator import DecisionTree
    >>> data = load_sample("weather")
    >>> query = to_sql(DecisionTree(algorithm="id3").fit(data).tree_)
    >>> db = sqlite3.connect(":memory:")
    >>> _ = db.execute('CREATE TABLE data (outlook TEXT, temperature TEXT, humidity TEXT, windy TEXT)')
    >>> _ = db.execute("INSERT INTO data VALUES ('sunny', 'hot', 'high', 'FALSE'), (NULL, 'hot', 'high', 'FALSE')")
    >>> rows = db.execute(query)
    >>> [d[0] for d in rows.description][4:]
    ['P(yes)', 'P(no)', 'predicted play']
    >>> [tuple(round(v, 3) if isinstance(v, float) else v for v in row[4:]) for row in rows]
    [(0.0, 1.0, 'no'), (0.643, 0.357, 'yes')]
    """
    refuse_surrogates(tree, "SQL")
    writer = _Writer(tree, dialect)
    target = tree.schema.target
    predicted = quoted(f"predicted {target}")
    source = quoted(table)
    algorithm_name = {"id3": "ID3", "c45": "C4.5", "cart": "CART"}.get(algorithm or "", "")
    header = (
        f"-- Arbor {algorithm_name + ' ' if algorithm_name else ''}decision tree for "
        f"{shown(target)} ({tree.n_leaves} leaves), as a {dialect} query.\n"
        f"-- It reads the table {shown(table)}, which needs the columns "
        f"{', '.join(shown(a.name) for a in _used(tree)) or '(none)'}.\n"
        "-- A NULL (or a category the split never saw) goes down every branch, weighted\n"
        "-- by the branch's share of the training rows, as Arbor predicts.\n"
    )
    leaves = writer.leaves()
    if tree.is_regression:
        value = writer.weighted_sum([(f, float(v)) for f, v in leaves], "    ")
        return f"{header}SELECT *,\n    {value}\n    AS {predicted}\nFROM {source};\n"
    names = [quoted(f"P({label})") for label in tree.classes]
    columns = []
    for k, name in enumerate(names):
        terms = [(f, float(np.asarray(v)[k])) for f, v in leaves]
        columns.append(f"    {writer.weighted_sum(terms, '      ')}\n    AS {name}")
    labels = [text_literal(c) for c in tree.classes]
    if tree.costs:
        rule = _cost_rule(names, labels, tree.costs, writer.number)
    else:
        rule = _class_rule(names, labels, algorithm, writer.number(WEKA_EPS))
    return (
        f"{header}SELECT *,\n  {rule}\n  AS {predicted}\nFROM (\n  SELECT *,\n"
        + ",\n".join(columns)
        + f"\n  FROM {source}\n) AS arbor_probabilities;\n"
    )


def _used(tree: Tree):
    seen = sorted({n.split.attribute for n in tree.nodes() if n.split is not None})
    return [tree.schema.attributes[i] for i in seen]
