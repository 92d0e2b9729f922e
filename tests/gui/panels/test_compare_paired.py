"""Compare's corrected paired t-test (issue 33, item 4): two runs cross-validated on the same
folds get the test's sentence; runs on different folds are refused with the reason."""

from __future__ import annotations

from types import SimpleNamespace

from PySide6.QtCore import QObject, Signal

from engine.data.encoding import encode
from engine.data.samples import load_sample
from engine.evaluate.evaluation import cross_validate, evaluate_tree
from engine.evaluate.paired_test import same_folds_test
from engine.fitting import fit_tree
from engine.runs import RunLog
from engine.settings import resolve
from gui.panels.compare import CompareView


class _Controller(QObject):
    runs_changed = Signal()

    def __init__(self):
        super().__init__()
        self.runs = RunLog()
        self.doc = SimpleNamespace(target="class")


def _add(log, data, settings, folds, seed):
    tree = fit_tree(data, settings)
    log.add(
        when="now", data_name="iris", n_rows=data.n_rows, data_key="k", settings=settings,
        n_nodes=tree.n_nodes, n_leaves=tree.n_leaves, depth=tree.depth, tree=None,
        evaluations=(evaluate_tree(tree, data, "training set"),
                     cross_validate(data, settings, folds, seed)),
    )  # fmt: skip


def test_paired_sentence_and_refusal(qtbot):
    data = encode(load_sample("iris"))
    controller = _Controller()
    stump = resolve(algorithm="cart", prune="none", max_depth=1)
    deeper = resolve(algorithm="cart", prune="none", max_depth=3)
    _add(controller.runs, data, stump, 5, 1)
    _add(controller.runs, data, deeper, 5, 1)
    _add(controller.runs, data, deeper, 5, 2)
    view = CompareView(controller)
    qtbot.addWidget(view)
    view.compare(1, 2)
    a, b = (controller.runs[n].evaluations[1] for n in (1, 2))
    test = same_folds_test(a, b, "k", "k", 150)
    assert view.paired.text() == test.sentence("Run 1", "Run 2")
    assert view.paired.text().startswith("Run 2 beats Run 1 by")
    assert f"p = {test.p:.3g}" in view.paired.text() and "Nadeau" in view.paired.toolTip()
    assert view.paired.text() in view.figures_text()
    view.compare(2, 3)
    assert view.paired.text() == (
        "No paired test: the folds were dealt from different seeds (1 and 2)."
    )
    view.method_a.setCurrentText("training set")
    assert "training set has no folds" in view.paired.text()
