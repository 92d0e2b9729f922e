"""A worksheet for practising a tree by hand, for a teacher to hand out: a small random
table (seeded, so the same seed makes it again), the questions (the root's entropy, each
attribute's gain and gain ratio, the split the algorithm chooses, the level below) and the
answer key. Every number in the key is explain's
(:func:`engine.learn.explain.attribute_table`) on the split growth takes; the branches'
entropies are :func:`engine.learn.criteria.entropy` of their class counts.

The result is plain data (:meth:`Worksheet.as_dict`); ``gui.drawing.worksheet_pdf`` lays it
out on paper for the window and the command line.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from engine.data.encoding import Encoded, encode
from engine.data.table import Table, make_table
from engine.errors import ArborError
from engine.export.labels import branch_condition, candidate_split, condition
from engine.growth import grow
from engine.learn.criteria import entropy, gini
from engine.learn.exam import CRITERIA
from engine.learn.explain import REASONS, AttributeRow, attribute_table, node_rows, used_on_path
from engine.learn.split_curves import split_curve
from engine.settings import resolve
from engine.tree import Tree

MIN_ROWS, MAX_ROWS = 8, 14
ALGORITHMS = ("id3", "c45", "cart")
OUTLOOKS = ("sunny", "overcast", "rainy")
WINDS = ("weak", "strong")
TARGET = "play"
#: Full names, as the questions use them.
NAMES = {"id3": "ID3", "c45": "C4.5", "cart": "CART"}


@dataclass(frozen=True)
class Worksheet:
    """A worksheet's table, questions and answer key (see :func:`worksheet`)."""

    seed: int
    algorithm: str
    table: Table
    questions: tuple[dict, ...]
    root: dict
    next_level: tuple[dict, ...]

    def as_dict(self) -> dict:
        frame = self.table.frame
        return {
            "seed": self.seed,
            "algorithm": self.algorithm,
            "rows": len(frame),
            "columns": list(frame.columns),
            "kinds": dict(self.table.kinds),
            "table": [[_cell(v) for v in row] for row in frame.itertuples(index=False)],
            "questions": list(self.questions),
            "root": self.root,
            "next_level": list(self.next_level),
        }


def _cell(value):
    return float(value) if isinstance(value, float | np.floating) else str(value)


def random_table(seed: int = 1, rows: int = 10) -> Table:
    """A small weather-like table: outlook and wind (nominal), temperature (numeric), and
    whether to play; both classes occur at least three times, and the class leans on every
    attribute (with noise), so each one gains something worth computing.

    Examples
    --------
    >>> t = random_table(seed=3, rows=8)
    >>> list(t.frame.columns), len(t.frame), t.kinds["temperature"]
    (['outlook', 'wind', 'temperature', 'play'], 8, 'numeric')
    >>> random_table(seed=3, rows=8).frame.equals(t.frame)
    True
    """
    if not MIN_ROWS <= rows <= MAX_ROWS:
        raise ArborError(f"a worksheet's table has {MIN_ROWS} to {MAX_ROWS} rows, not {rows}")
    if seed < 0:
        raise ArborError(f"a worksheet's seed is a whole number from 0 up, not {seed}")
    rng = np.random.default_rng(seed)
    while True:  # redrawn (from the same stream, so still one table per seed) until it teaches
        outlook = rng.integers(0, len(OUTLOOKS), rows)
        wind = rng.integers(0, len(WINDS), rows)
        temperature = rng.integers(12, 34, rows)
        lean = (
            0.9
            + np.array([-0.6, 1.2, 0.3])[outlook]
            - 0.9 * wind
            - np.abs(temperature - 22) / 8
            + rng.normal(0, 0.6, rows)
        )
        play = np.where(lean > 0, "yes", "no")
        if min((play == "yes").sum(), (play == "no").sum()) >= 3 and len(set(outlook)) > 1:
            break
    frame = pd.DataFrame(
        {
            "outlook": [OUTLOOKS[k] for k in outlook],
            "wind": [WINDS[k] for k in wind],
            "temperature": temperature.astype(float),
            TARGET: play,
        }
    )
    return make_table(
        frame,
        TARGET,
        categories={"outlook": OUTLOOKS, "wind": WINDS, TARGET: ("yes", "no")},
        source=f"worksheet seed {seed}",
    )


def worksheet(seed: int = 1, rows: int = 10, algorithm: str = "id3") -> Worksheet:
    """The worksheet of ``seed``: its table, questions and answer key.

    Examples
    --------
    >>> ws = worksheet(seed=2, rows=10, algorithm="c45")
    >>> ws.root["chosen"] in ("outlook", "wind", "temperature", None)
    True
    >>> round(ws.root["entropy"], 3) == round(float(entropy(ws.root["counts"])), 3)
    True
    """
    if algorithm not in ALGORITHMS:
        raise ArborError(f"a worksheet is for {', '.join(ALGORITHMS)}, not {algorithm!r}")
    table = random_table(seed, rows)
    settings = resolve(algorithm=algorithm, prune="none", max_depth=2)
    data = encode(table)
    tree = Tree(grow(data, settings, compiled=False), data.schema)
    root = _node(tree, data, settings, 0)
    below = tuple(_node(tree, data, settings, c.id) for c in tree.root.children)
    return Worksheet(seed, algorithm, table, _questions(algorithm, root, below), root, below)


def _node(tree: Tree, data: Encoded, settings, node_id: int) -> dict:
    """One node's answers: its class counts and impurities, explain's row per attribute with
    each branch's class counts and entropy, and the split growth takes (None: a leaf)."""
    node = tree.node(node_id)
    rows, weights = node_rows(tree, data, node_id, settings)
    counts = np.bincount(data.y[rows], weights=weights, minlength=len(data.schema.classes))
    chosen = node.split.attribute if node.split is not None else -1
    path = tree.path_to(node_id)
    out = {
        "node": node_id,
        "rule": " AND ".join(condition(tree, a, b) for a, b in path[:-1]) or "every row (the root)",
        "n": float(weights.sum()),
        "counts": [float(c) for c in counts],
        "class_counts": dict(zip(data.schema.classes, (float(c) for c in counts), strict=True)),
        "entropy": float(entropy(counts)),
        "gini": float(gini(counts)),
        "chosen": data.schema.attributes[chosen].name if chosen >= 0 else None,
        "split": None,
        "leaf_reason": None,
        "attributes": [],
    }
    if float(counts.max()) == float(counts.sum()):
        out["leaf_reason"] = "pure: every row has one class"
    table = attribute_table(data, settings, rows, weights, chosen, used_on_path(tree, node_id))
    for j, row in enumerate(table):
        out["attributes"].append(_attribute(data, settings, rows, weights, j, row))
    if node.split is not None:
        out["split"] = {
            "attribute": out["chosen"],
            "branches": [
                branch_condition(tree, node, b).strip() for b in range(len(node.children))
            ],
        }
    elif out["leaf_reason"] is None:
        out["leaf_reason"] = (
            "no attribute's split gains enough here (or its branches are too small)"
        )
    return out


def _attribute(data: Encoded, settings, rows, weights, j: int, row: AttributeRow) -> dict:
    out = row.as_dict()
    out["split_text"] = candidate_split(row)
    out["reason_text"] = REASONS[row.reason] if row.reason is not None else None
    attr = data.schema.attributes[j]
    x = data.X[rows, j]
    y = data.y[rows]
    known = ~np.isnan(x)
    # Each branch's rows, as the scored split sends them (no cell of a worksheet is missing).
    if row.threshold is not None:
        sides = [x <= row.threshold, x > row.threshold]
        labels = [f"<= {row.threshold:g}", f"> {row.threshold:g}"]
    elif row.groups is not None:
        codes = [[attr.categories.index(c) for c in g] for g in row.groups]
        sides = [np.isin(x, g) for g in codes]
        labels = ["in {" + ", ".join(g) + "}" for g in row.groups]
    elif attr.is_nominal and row.reason is None:
        present = [c for c in range(len(attr.categories)) if np.any(x == c)]
        sides = [x == c for c in present]
        labels = [f"= {attr.categories[c]}" for c in present]
    else:
        sides, labels = [], []
    branches = []
    for side, label in zip(sides, labels, strict=True):
        c = np.bincount(
            y[side & known], weights=weights[side & known], minlength=len(data.schema.classes)
        )
        branches.append(
            {
                "branch": label,
                "n": float(c.sum()),
                "counts": [float(v) for v in c],
                "entropy": float(entropy(c)),
            }
        )
    out["branches"] = branches
    if row.threshold is not None:
        curve = split_curve(data, settings, j, rows, weights)
        out["cuts"] = [float(t) for t in curve.thresholds]
        if "mdl_gain" in curve.values and curve.best is not None:
            # ID3 and C4.5 charge a numeric attribute log2(cuts)/n for choosing its cut.
            out["mdl_gain"] = float(curve.values["mdl_gain"][curve.best])
            out["mdl_gain_ratio"] = float(curve.values["mdl_gain_ratio"][curve.best])
    return out


def _questions(algorithm: str, root: dict, below: tuple[dict, ...]) -> tuple[dict, ...]:
    """The questions with their short answers (the key's tables hold the rest)."""
    name = NAMES[algorithm]
    words, _ = CRITERIA[algorithm]
    questions = [
        {
            "number": "1",
            "text": "What is the entropy of the whole table (the root), in bits?",
            "answer": f"{root['entropy']:.3f}",
        }
    ]
    for k, a in enumerate(root["attributes"], start=2):
        how = a["split_text"]
        if a["threshold"] is not None:
            text = (
                f"Split on {a['name']} at <= {a['threshold']:g}: what are the entropies of its "
                "branches, the information gain and the gain ratio?"
            )
            if "mdl_gain" in a:
                text += (
                    f" ({name} then subtracts log2(cuts)/n from a numeric attribute's gain: "
                    f"{len(a.get('cuts', []))} cuts here.)"
                )
        elif a["groups"] is not None:
            text = (
                f"Split on {a['name']} as {how}: what are the entropies of its branches, "
                "the information gain and the gain ratio?"
            )
        else:
            text = (
                f"Split on {a['name']}, one branch per value: what are the entropies of its "
                "branches, the information gain and the gain ratio?"
            )
        if algorithm == "cart":
            text += " And its Gini gain?"
        if not a["branches"]:
            answer = f"{a['name']} cannot split here: {a['reason_text']}"
        else:
            answer = (
                "branches "
                + ", ".join(f"{b['branch']}: {b['entropy']:.3f}" for b in a["branches"])
                + f"; gain {a['info_gain']:.3f}, gain ratio {a['gain_ratio']:.3f}"
                + (f", Gini gain {a['gini_gain']:.3f}" if algorithm == "cart" else "")
                + (
                    f" (after the penalty: gain {a['mdl_gain']:.3f}, ratio {a['mdl_gain_ratio']:.3f})"
                    if "mdl_gain" in a
                    else ""
                )
                + (f"; {name} cannot split on it: {a['reason_text']}" if a["reason"] else "")
            )
        questions.append({"number": str(k), "text": text, "answer": answer})
    k = len(questions) + 1
    chosen = root["chosen"]
    questions.append(
        {
            "number": str(k),
            "text": f"Which attribute does {name} split the root on, and why?",
            "answer": (
                f"{chosen}: the best {words}"
                if chosen is not None
                else f"none: the root stays a leaf ({root['leaf_reason']})"
            ),
        }
    )
    if below:
        branches = root["split"]["branches"]
        parts = []
        for branch, child in zip(branches, below, strict=True):
            if child["chosen"] is not None:
                parts.append(f"{chosen} {branch}: split on {child['chosen']}")
            else:
                parts.append(f"{chosen} {branch}: a leaf ({child['leaf_reason']})")
        questions.append(
            {
                "number": str(k + 1),
                "text": f"The next level: for each branch of the root's split, does {name} "
                "split it further, and on which attribute?",
                "answer": "; ".join(parts),
            }
        )
    return tuple(questions)
