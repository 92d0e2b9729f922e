"""Building the tree by hand: the node context menu and its undoable edits.

Every edit calls a pure engine function (engine.learn.editing) that returns a new
tree, and is pushed on the document's undo stack next to the table edits.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand
from PySide6.QtWidgets import QMenu

from engine.errors import ArborError
from engine.export.labels import number
from engine.growth import grow_below
from engine.learn.editing import make_leaf, ranked_splits, split_leaf
from gui.controller import EDITED


class TreeEditCommand(QUndoCommand):
    """Replace the tree on screen (and put the one before back on undo, as it came)."""

    def __init__(self, controller, text: str, before, after, select: int = -1):
        super().__init__(text)
        self.controller, self.before, self.after, self.select = controller, before, after, select
        self.before_origin, self.before_recipe = controller.origin, controller.recipe

    def redo(self) -> None:
        self.controller.show_tree(self.after, select=self.select, origin=EDITED)

    def undo(self) -> None:
        self.controller.show_tree(
            self.before, select=self.select, origin=self.before_origin, recipe=self.before_recipe
        )


class Modelling(QObject):
    """Hand edits of the controller's tree, and the node context menu that offers them.

    Signals
    -------
    rows_requested(int) : show the table rows that reach this node.
    pin_requested(int) : pin this node in the inspector.
    collapse_requested(int) : collapse or expand this node on the canvas.
    """

    rows_requested = Signal(int)
    pin_requested = Signal(int)
    collapse_requested = Signal(int)

    #: Why the node exam mode asks about is not split or grown by hand: the ranked candidates
    #: (or the algorithm's own split) would give the answer away.
    SEALED = "exam mode asks how it splits: check your pick first (Ctrl+Return)"

    def __init__(self, controller, dialogs, parent_widget=None):
        super().__init__(parent_widget)
        self.controller, self.dialogs, self.parent_widget = controller, dialogs, parent_widget
        self.sealed = -1  # the node of exam mode's open question (-1: none)

    def seal(self, node_id: int) -> None:
        """Keep ``node_id``'s candidates and growth out of the menu until the exam question on
        it is checked (-1: none sealed)."""
        self.sealed = node_id

    def _refused(self, node_id: int) -> bool:
        if node_id != self.sealed:
            return False
        self.controller.say(f"Node {node_id}: {self.SEALED}")
        return True

    @property
    def tree(self):
        return self.controller.tree

    def _context(self):
        c = self.controller
        if c.tree is None or c.data is None:
            raise ArborError("train a tree first (F5); then edit it by hand")
        return c.tree, c.data, c.settings

    def _apply(self, text: str, make, select: int) -> None:
        try:
            tree, data, settings = self._context()
            new = make(tree, data, settings)
        except ArborError as err:
            self.dialogs.error(str(err))
            return
        self.controller.doc.undo_stack.push(
            TreeEditCommand(self.controller, text, tree, new, select)
        )

    def split(self, node_id: int, attribute: int, threshold: float | None = None) -> None:
        if self._refused(node_id):
            return
        name = self.tree.schema.attributes[attribute].name
        self._apply(
            f"Split node {node_id} on {name}",
            lambda t, d, s: split_leaf(t, d, s, node_id, attribute, threshold),
            node_id,
        )

    def split_at_typed_threshold(self, node_id: int, attribute: int) -> None:
        name = self.tree.schema.attributes[attribute].name
        text = self.dialogs.ask_text("Split at a threshold", f"{name} <= ")
        if text is None:
            return
        try:
            value = float(text)
        except ValueError:
            self.dialogs.error(f"{text!r} is not a number")
            return
        self.split(node_id, attribute, value)

    def split_with_typed_groups(self, node_id: int, attribute: int) -> None:
        """CART: the user names the values of the left branch; the others go right."""
        attr = self.tree.schema.attributes[attribute]
        text = self.dialogs.ask_text(
            "Split into two groups",
            f"Values of {attr.name} for the left branch "
            f"(comma-separated; the rest go right).\nValues: {', '.join(attr.categories)}",
        )
        if text is None:
            return
        chosen = [v.strip() for v in text.split(",") if v.strip()]
        unknown = [v for v in chosen if v not in attr.categories]
        if unknown or not chosen:
            self.dialogs.error(
                f"{attr.name} has no value {unknown[0]!r}"
                if unknown
                else "name at least one value for the left branch"
            )
            return
        left = tuple(attr.categories.index(v) for v in chosen)
        right = tuple(i for i in range(len(attr.categories)) if i not in left)
        self._apply(
            f"Split node {node_id} on {attr.name}",
            lambda t, d, s: split_leaf(t, d, s, node_id, attribute, groups=[left, right]),
            node_id,
        )

    def grow(self, node_id: int, levels: int | None = None) -> None:
        if self._refused(node_id):
            return
        what = "Grow one level" if levels == 1 else "Grow subtree"
        self._apply(
            f"{what} at node {node_id}",
            lambda t, d, s: grow_below(t, d, s, node_id, levels),
            node_id,
        )

    def make_leaf(self, node_id: int) -> None:
        self._apply(f"Make node {node_id} a leaf", lambda t, d, s: make_leaf(t, node_id), node_id)

    def menu(self, node_id: int) -> QMenu:
        """The context menu of a node: split on any attribute, grow, prune by hand, pin."""
        tree, data, settings = self._context()
        node = tree.node(node_id)
        menu = QMenu(self.parent_widget)
        sealed = node_id == self.sealed
        split_menu = menu.addMenu(f"Split on… ({self.SEALED})" if sealed else "Split on…")
        split_menu.setEnabled(node.is_leaf and not sealed)
        if node.is_leaf and not sealed:
            measure = (
                "gain ratio"
                if settings.criterion == "gain_ratio"
                else (
                    "information gain"
                    if settings.impurity == "entropy"
                    else f"{settings.impurity} gain"
                )
            )
            ranked = ranked_splits(tree, data, settings, node_id)
            if not ranked:
                split_menu.addAction("(no admissible split here)").setEnabled(False)
            for cand in ranked:
                attr = tree.schema.attributes[cand.attribute]
                score = cand.gain_ratio if settings.criterion == "gain_ratio" else cand.gain
                label = f"{attr.name}   ({measure} {score:.3f})"
                if cand.split.threshold is not None:
                    label += f"  at <= {number(cand.split.threshold)}"
                split_menu.addAction(label).triggered.connect(
                    lambda *_, a=cand.attribute: self.split(node_id, a)
                )
            if settings.binary:
                nominal = [j for j, a in enumerate(tree.schema.attributes) if a.is_nominal]
                if nominal:
                    split_menu.addSeparator()
                for j in nominal:
                    split_menu.addAction(
                        f"{tree.schema.attributes[j].name} with the values I choose…"
                    ).triggered.connect(lambda *_, a=j: self.split_with_typed_groups(node_id, a))
            numeric = [j for j, a in enumerate(tree.schema.attributes) if not a.is_nominal]
            if numeric:
                split_menu.addSeparator()
                for j in numeric:
                    split_menu.addAction(
                        f"{tree.schema.attributes[j].name} at a threshold I type…"
                    ).triggered.connect(lambda *_, a=j: self.split_at_typed_threshold(node_id, a))
        for text, levels in (("Grow subtree here", None), ("Grow one level", 1)):
            action = menu.addAction(text)
            action.setEnabled(not sealed)  # it would split the node as the algorithm does
            action.triggered.connect(lambda *_, n=levels: self.grow(node_id, n))
        leaf = menu.addAction(
            "Make this a leaf" if not node.is_leaf else "Make this a leaf (it is one)"
        )
        leaf.setEnabled(not node.is_leaf)
        leaf.triggered.connect(lambda: self.make_leaf(node_id))
        menu.addSeparator()
        menu.addAction("Show the rows that reach this node").triggered.connect(
            lambda: self.rows_requested.emit(node_id)
        )
        menu.addAction("Pin in inspector").triggered.connect(
            lambda: self.pin_requested.emit(node_id)
        )
        menu.addAction("Collapse / expand").triggered.connect(
            lambda: self.collapse_requested.emit(node_id)
        )
        return menu
