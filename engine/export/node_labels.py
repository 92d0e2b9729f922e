"""What a node's box says under its headline, as lines of text.

Drawing-free, so the canvas, the image export and the tests read the same words:
``n = 16``; Weka's ``(16.0/1.0)`` (the node's weight / the training errors it makes as a
leaf; ``(4.0)`` with none); class counts ``yes 15 · no 1``; percentages
``yes 94% · no 6%``; or counts and percentages together ``yes 15 (94%)``; and with test rows
on the tree (issue 32) the node's training and test rows and errors, ``train 9 · 2 wrong``
over ``test 5 · 1 wrong`` (cross-validation's held-out rows: ``CV held-out 14 · 3 wrong``,
the rows reaching the node whose out-of-fold prediction was wrong).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.errors import ArborError
from engine.evaluate.per_node import SIDE_CV, SIDE_TEST, HeldOut, known_node_rows
from engine.export.labels import number, shown
from engine.predict import node_output
from engine.tree import Node, Tree

#: Class entries per line, and lines of them before "+k more".
PER_LINE, MAX_LINES = 3, 2


@dataclass(frozen=True)
class NodeLabels:
    """Which lines a node shows; ``bar`` is the class distribution drawn as a coloured bar,
    ``plots`` a small plot of the node's rows (issue 32: drawn by :mod:`gui.drawing.node_plots`)."""

    n: bool = True
    weka: bool = False
    counts: bool = False
    percent: bool = False
    bar: bool = True
    plots: bool = False
    test: bool = False
    #: The test rows ``test`` counts: each tree's figures once worked out (the labels never
    #: wait for them: :func:`engine.evaluate.per_node.known_node_rows`).
    held: HeldOut | None = field(default=None, compare=False)

    #: Names for the command line and settings, in the order of the View menu.
    NAMES = ("n", "weka", "counts", "percent", "bar", "plots", "test")

    @classmethod
    def parse(cls, text: str) -> NodeLabels:
        """From a comma-separated list of names, e.g. ``"counts,bar"`` (empty: just the headline)."""
        chosen = {part.strip() for part in text.split(",") if part.strip()}
        unknown = chosen - set(cls.NAMES)
        if unknown:
            raise ArborError(
                f"unknown node label {sorted(unknown)[0]!r}; use any of "
                f"{', '.join(cls.NAMES)} (comma-separated)"
            )
        if "test" in chosen:
            raise ArborError(
                "node label 'test' needs test rows on the tree: the window shows them once a "
                "tree is evaluated on a test file or cross-validated; evaluate --per-node "
                "prints them"
            )
        return cls(**{name: name in chosen for name in cls.NAMES})

    def names(self) -> str:
        return ",".join(name for name in self.NAMES if getattr(self, name))


def node_lines(tree: Tree, node: Node, labels: NodeLabels, hidden: int = 0) -> list[str]:
    """The lines under a node's headline (``hidden``: nodes folded away below it)."""
    lines = []
    if labels.n:
        lines.append(f"n = {number(round(node.weight, 1))}")
    if labels.weka and not tree.is_regression:
        lines.append(weka_counts(node))
    if (labels.counts or labels.percent) and not tree.is_regression:
        lines += _class_lines(tree, node, labels)
    if labels.test:
        lines += test_lines(tree, node, known_node_rows(tree, labels.held))
    if hidden:
        note = f"+{hidden} hidden"
        if lines and labels.n:
            lines[0] = f"{lines[0]}   {note}"
        else:
            lines.append(note)
    return lines


def test_lines(tree: Tree, node: Node, figures) -> list[str]:
    """The node's training and test rows and errors (``figures``: the tree's
    :class:`engine.evaluate.per_node.NodeRows`; None: no test rows counted, no lines)."""
    k = None if figures is None else figures.row_of(node)
    if k is None:
        return []
    out = []
    held_out = SIDE_CV if figures.out_of_fold else SIDE_TEST
    for side, n, errors in (
        ("train", figures.train_n[k], figures.train_errors[k]),
        (held_out, figures.test_n[k], figures.test_errors[k]),
    ):
        rows = number(round(float(n), 1))
        if tree.is_regression:
            said = f"RMSE {float(errors / n) ** 0.5:.3g}" if n > 0 else ""
        else:
            said = f"{number(round(float(errors), 1))} wrong" if n > 0 else ""
        out.append(f"{side} {rows} · {said}" if said else f"{side} {rows}")
    return out


def weka_counts(node: Node) -> str:
    """Weka's leaf numbers: ``(weight/errors)``, or ``(weight)`` when it makes no error."""
    dist = node.distribution
    wrong = float(dist.sum() - dist.max()) if dist.sum() > 0 else 0.0
    weight = f"{node.weight:.1f}"
    return f"({weight})" if wrong <= 0 else f"({weight}/{wrong:.1f})"


def _class_lines(tree: Tree, node: Node, labels: NodeLabels) -> list[str]:
    dist = node.distribution
    total = float(dist.sum())
    # With pseudocounts (--laplace, --m-estimate) a percentage is what predict gives, the
    # class probability, not the count's share: figure, page and predictions agree.
    shares = node_output(tree, node) if tree.pseudocounts else dist / (total or 1.0)
    entries = []
    for name, value, p in zip(tree.classes, dist.tolist(), shares.tolist(), strict=True):
        if value <= 0:
            continue
        share = f"{100 * p:.0f}%" if total > 0 else ""
        if labels.counts and labels.percent:
            entries.append(f"{shown(name)} {number(round(value, 1))} ({share})")
        elif labels.counts:
            entries.append(f"{shown(name)} {number(round(value, 1))}")
        else:
            entries.append(f"{shown(name)} {share}")
    if not entries:
        return ["no rows"]
    lines = [" · ".join(entries[i : i + PER_LINE]) for i in range(0, len(entries), PER_LINE)]
    if len(lines) > MAX_LINES:
        rest = len(entries) - PER_LINE * MAX_LINES
        lines = lines[:MAX_LINES]
        lines[-1] += f" · +{rest} more"
    return lines
