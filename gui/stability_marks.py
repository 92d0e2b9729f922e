"""View > Tree stability: for the tree on screen, each split's recurrence in the trees grown on
the cross-validation folds (the folds the Evaluation options deal for their seed) and its
near-ties, worked out on a worker of its own; near-ties get a badge on the canvas (with a
legend entry) and the selected node's figures go in the inspector."""

from __future__ import annotations

from PySide6.QtCore import QObject

from engine.evaluate.stability import NEAR_TIE_MARGIN
from gui.canvas.marks import NEAR_TIE_COLOUR, NEAR_TIE_SIGN, NodeMarks
from gui.session.jobs import Job, JobRunner

LEGEND = (
    f"<span style='color:{NEAR_TIE_COLOUR.name()}'>&#9679;</span>&nbsp;{NEAR_TIE_SIGN} near-tie: "
    f"another attribute scores within {100 * NEAR_TIE_MARGIN:g}%"
)


class StabilityMarks(QObject):
    """Works the stability out when asked (and again for each new tree while on)."""

    def __init__(self, controller, canvas, inspector, parent=None):
        super().__init__(parent)
        self.controller, self.canvas, self.inspector = controller, canvas, inspector
        self.on = False
        self.result = None  # (tree, engine.evaluate.stability.Stability)
        # Its own runner: stability never cancels a training or an evaluation, nor they it.
        self.runner = JobRunner(self)
        self.marks = NodeMarks(canvas)
        controller.tree_changed.connect(lambda *_: self._tree_changed())
        controller.node_selected.connect(self._show_node)

    def set_on(self, on: bool) -> None:
        self.on = on
        if on:
            self.compute()
        else:
            self.runner.cancel()
            self._clear()

    def _clear(self) -> None:
        self.result = None
        self.marks.clear()
        self.canvas.set_legend_extra(())
        self.inspector.show_stability("")

    def _tree_changed(self) -> None:
        self.runner.cancel()
        self._clear()
        if self.on and self.controller.tree is not None:  # no tree: nothing to say until one
            self.compute()

    def compute(self) -> Job | None:
        c = self.controller
        tree, data, settings = c.tree, c.data, c.settings
        if tree is None or data is None or settings is None:
            c.say("Tree stability: train a tree first (F5)")
            return None
        if tree.is_regression:
            c.say("Tree stability is worked out for classification trees")
            return None
        folds = min(c.options.cv_folds or 10, data.n_rows)
        seed, weka = c.options.seed, c.options.weka_folds
        if folds < 2:
            c.say("Tree stability needs at least 2 rows to deal folds from")
            return None

        def call(monitor):
            from engine.evaluate.stability import stability

            return stability(tree, data, settings, folds, seed, monitor=monitor, weka_folds=weka)

        job = Job("Tree stability", call)
        job.finished.connect(lambda result, t=tree, j=job: self._done(t, result, j))
        job.failed.connect(lambda message, *_: c.say(f"Tree stability failed: {message}"))
        self.runner.start(job)
        c.say(f"Working out the tree's stability over {folds} folds (seed {seed})…")
        return job

    def _done(self, tree, result, job) -> None:
        if not self.runner.is_current(job) or tree is not self.controller.tree or not self.on:
            return
        from engine.evaluate.stability import stability_summary

        self.result = (tree, result)
        tips = {k: stability_summary(s, result) for k, s in result.nodes.items() if s.near_ties}
        self.marks.set(tips)
        self.canvas.set_legend_extra((LEGEND,) if tips else ())
        self._show_node(self.controller.selected)
        shaky = sum(1 for s in result.nodes.values() if s.share < 0.5)
        self.controller.say(
            f"Tree stability: {len(tips)} near-tie(s) marked {NEAR_TIE_SIGN}; {shaky} of "
            f"{len(result.nodes)} splits recur in fewer than half the folds"
        )

    def _show_node(self, node_id: int) -> None:
        if self.result is None or self.result[0] is not self.controller.tree:
            self.inspector.show_stability("")
            return
        from engine.evaluate.stability import stability_summary

        s = self.result[1].nodes.get(node_id)
        self.inspector.show_stability("" if s is None else stability_summary(s, self.result[1]))
