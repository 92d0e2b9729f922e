"""Which numbers belong to which tree, and whether they still describe the table and the options.

Qt-free bookkeeping for the controller: figures are kept per tree object (as long as
something, the undo history say, keeps the tree), the baselines per encoded table, and
:func:`stale_reasons` says why a tree's figures are out of date.
"""

from __future__ import annotations

import weakref

from engine.evaluate.figures import Baselines, Figures, training_figures


class FigureBook:
    """Figures of trees (kept while the tree lives, or by the options that make it) and the
    training baselines of one table."""

    def __init__(self):
        self._figures: dict[int, tuple[weakref.ref, Figures]] = {}
        self._by_recipe: dict[
            object, Figures
        ] = {}  # the same options on the same rows: the same tree
        self._baselines: tuple[weakref.ref, Baselines] | None = None

    def get(self, tree, recipe=None) -> Figures | None:
        kept = self._figures.get(id(tree))
        if kept is not None and kept[0]() is tree:
            return kept[1]
        return self._by_recipe.get(recipe) if recipe is not None else None

    def put(self, tree, figures: Figures, recipe=None) -> None:
        self._figures = {k: v for k, v in self._figures.items() if v[0]() is not None}
        self._figures[id(tree)] = (weakref.ref(tree), figures)
        if recipe is not None:
            self._by_recipe[recipe] = figures

    def figures_of(self, tree, data, recipe=None) -> Figures:
        """The figures kept for ``tree`` (or its recipe), or its training figures on ``data`` now."""
        figures = self.get(tree, recipe)
        if figures is None:
            figures = training_figures(tree, data, self._baselines_of(data))
        self.put(tree, figures, recipe)
        return figures

    def remember_baselines(self, data, figures: Figures) -> None:
        """The baselines of a training's figures serve every tree made from the same rows."""
        t = figures.training
        self._baselines = (
            weakref.ref(data),
            Baselines(t.zero_r, t.one_r, figures.zero_r_says, figures.one_r_says),
        )

    def _baselines_of(self, data) -> Baselines | None:
        if self._baselines is not None and self._baselines[0]() is data:
            return self._baselines[1]
        return None

    def clear(self) -> None:
        """Forget everything (new rows: a training, a table, a project)."""
        self._figures.clear()
        self._by_recipe.clear()
        self._baselines = None


def stale_reasons(
    *, table_changed: bool, options_changed: bool, evaluation_changed: bool
) -> tuple[str, ...]:
    """Why the figures on screen are out of date, in words (empty: they are current)."""
    reasons = []
    if table_changed:
        reasons.append("the table was edited after this tree was made")
    if options_changed:
        reasons.append("the options changed after training")
    if evaluation_changed:
        reasons.append("the cross-validation folds or seed changed after training")
    return tuple(reasons)
