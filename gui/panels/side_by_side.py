"""ID3, C4.5, CART and the optimal tree side by side: a canvas per algorithm at one zoom, each framed at its root;
pointing at a node (hover or click) lights the path standing where it does in the others, and
Jump selects the first node where two of them part, with every criterion's ranking there and
what each pruning removed written below. The engine does the comparing
(:mod:`engine.evaluate.side_by_side`); this view only shows it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from engine.evaluate.side_by_side import GROWN, MEASURES, PRUNED, SideBySide, as_text
from engine.evaluate.tree_match import attribute_ranges, corresponding, rule_to
from gui.canvas.hovering import NodeHover
from gui.canvas.tree_canvas import TreeCanvas
from gui.plain_text import plain_tip

#: The smallest common zoom the columns are framed at (below it headlines are unreadable).
LEAST_SCALE = 0.8
STAGES = ((GROWN, "As grown"), (PRUNED, "Pruned"))


class _Column(QWidget):
    """One algorithm: its name and sizes over its canvas (or why it has no tree)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setWordWrap(True)
        self.canvas = TreeCanvas()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.title)
        layout.addWidget(self.canvas, 1)
        self.algorithm = ""


class SideBySideView(QWidget):
    """The comparison's trees in columns, the pair and stage to follow, and the words below."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.result: SideBySide | None = None
        self._slack = ()
        self._syncing = False
        self._selected = (0, -1)  # the column and node last selected
        self.stage = QComboBox()
        for value, text in STAGES:
            self.stage.addItem(text, value)
        self.stage.setToolTip(
            "Show the trees as grown (where the criteria part) or after each algorithm's pruning"
        )
        self.pair = QComboBox()
        self.pair.setToolTip("The two algorithms whose first divergence Jump selects")
        self.jump_button = QPushButton("&Jump to first divergence")
        self.jump_button.setToolTip(
            "Select the first node where the two trees part, in both, and say why there (Ctrl+J)"
        )
        QShortcut(QKeySequence("Ctrl+J"), self, activated=self.jump)
        self.jump_button.clicked.connect(self.jump)
        self.stage.currentIndexChanged.connect(lambda *_: self._show_stage())
        self.pair.currentIndexChanged.connect(lambda *_: self._explain())
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Trees:"))
        bar.addWidget(self.stage)
        bar.addWidget(QLabel("Pair:"))
        bar.addWidget(self.pair)
        bar.addWidget(self.jump_button)
        bar.addStretch(1)
        self.note = QLabel()  # the algorithms that cannot grow on this table, and why
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        self.note.hide()
        self.columns: list[_Column] = []
        self.row = QSplitter(Qt.Orientation.Horizontal)
        self.words = QPlainTextEdit()
        self.words.setReadOnly(True)
        self.words.setToolTip(
            "Where the pair first parts, each criterion's ranking of the attributes there "
            "(* the one split on), and what each pruning removed"
        )
        font = self.words.font()
        font.setFamily("monospace")
        self.words.setFont(font)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.row)
        split.addWidget(self.words)
        split.setSizes([4000, 1000])  # the trees first; the words scroll
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.note)
        layout.addWidget(split, 1)

    # ------------------------------------------------------------------ showing
    def show_result(self, result: SideBySide) -> None:
        """Show ``result`` (from :func:`engine.evaluate.side_by_side.compare`)."""
        self.result = result
        self._selected = (0, -1)
        self._slack = attribute_ranges(result.data) * result.tolerance
        while len(self.columns) < len(result.algorithms):
            self._add_column()
        for column, grown in zip(self.columns, result.algorithms, strict=False):
            column.algorithm = grown.algorithm
        for extra in self.columns[len(result.algorithms) :]:
            extra.hide()
        self.pair.blockSignals(True)
        self.pair.clear()
        ready = [g for g in result.algorithms if g.reason is None]
        for k, a in enumerate(ready):
            for b in ready[k + 1 :]:
                self.pair.addItem(f"{a.label} and {b.label}", (a.algorithm, b.algorithm))
        self.pair.blockSignals(False)
        self._show_stage()

    def _add_column(self) -> None:
        column = _Column()
        k = len(self.columns)
        self.columns.append(column)
        self.row.addWidget(column)
        column.canvas.node_selected.connect(lambda node_id, k=k: self._pointed(k, node_id))
        hover = NodeHover(column.canvas)
        hover.node_hovered.connect(lambda node_id, k=k: self._pointed(k, node_id, hovered=True))
        column.canvas.zoom_changed.connect(lambda scale, k=k: self._zoomed(k, scale))

    def _stage(self) -> str:
        return self.stage.currentData() or GROWN

    def _show_stage(self) -> None:
        if self.result is None:
            return
        stage = self._stage()
        missing = []
        for column, grown in zip(self.columns, self.result.algorithms, strict=False):
            tree = grown.tree(stage)
            column.setVisible(tree is not None)  # its reason goes above: the room to the others
            ghosts = stage == PRUNED  # what pruning cut, faint below its leaves (with a record)
            if column.canvas.ghosts() != ghosts:
                column.canvas.set_ghosts(ghosts)
            column.canvas.set_tree(tree, keep_view=False)
            if tree is None:
                column.title.setText(f"{grown.label}: not grown — {grown.reason}")
                missing.append(column.title.text())
            else:
                prune = "no pruning" if grown.settings.prune == "none" else grown.settings.prune
                measure = MEASURES.get(grown.settings.criterion, grown.settings.criterion)
                column.title.setText(
                    f"{grown.label} ({measure}, {prune}): "
                    f"{tree.n_nodes} nodes, {tree.n_leaves} leaves"
                    + (f"; {grown.note}" if grown.note else "")
                )
            column.title.setToolTip(plain_tip(column.title.text()))
        self.note.setText("; ".join(missing))
        self.note.setVisible(bool(missing))
        self.align()
        self._explain()

    def align(self) -> None:
        """Every tree at one zoom, framed at its root: the smallest scale that fits each whole
        (no smaller than :data:`LEAST_SCALE`)."""
        shown = [c.canvas for c in self.columns if c.isVisible() and c.canvas.tree() is not None]
        if not shown:
            return
        scales = []
        for canvas in shown:
            canvas.fit_to_window()
            scales.append(canvas.scale_factor())
        scale = max(min(scales), LEAST_SCALE)
        self._syncing = True
        try:
            for canvas in shown:
                _frame_top(canvas, scale)
                canvas.zoom_changed.emit(scale)
        finally:
            self._syncing = False

    def _zoomed(self, k: int, scale: float) -> None:
        """One canvas zoomed: the others to the same scale, each about its own centre."""
        if self._syncing:
            return
        self._syncing = True
        try:
            for j, column in enumerate(self.columns):
                if j != k and column.canvas.tree() is not None:
                    canvas = column.canvas
                    centre = canvas.mapToScene(canvas.viewport().rect().center())
                    canvas.resetTransform()
                    canvas.scale(scale, scale)
                    canvas.centerOn(centre)
                    canvas.zoom_changed.emit(scale)
        finally:
            self._syncing = False

    # ------------------------------------------------------------------ following a node
    def _pointed(self, k: int, node_id: int, hovered: bool = False) -> None:
        """A node pointed at in column ``k``: its path lit there and the corresponding path in
        the others (as far as their splits agree); off every node, the selection's again."""
        if self.result is None:
            return
        if hovered and node_id < 0:  # off the nodes: the last selection's paths again
            k, node_id = self._selected
        elif not hovered:
            self._selected = (k, node_id)
        source = self.columns[k].canvas.tree()
        for column in self.columns:
            tree = column.canvas.tree()
            if tree is None or source is None or node_id < 0:
                column.canvas.highlight_nodes(())
                continue
            ids, _whole = corresponding(source, node_id, tree, self._slack)
            column.canvas.highlight_nodes(ids)

    def highlighted(self, k: int) -> list[int]:
        """The ids lit in column ``k`` (for tests and the status line)."""
        scene = self.columns[k].canvas.tree_scene()
        return sorted(i for i, item in scene.items_by_id.items() if item.highlighted)

    def jump(self) -> None:
        """Select, in both trees of the chosen pair, the first node where they part."""
        if self.result is None or self.pair.currentData() is None:
            return
        first, second = self.pair.currentData()
        d = self.result.divergence(first, second, self._stage())
        self._explain()
        if d is None or d.parting is None:
            return
        for column in self.columns:
            if column.algorithm == first:
                column.canvas.select_node(d.parting.first, center=True)
            elif column.algorithm == second:
                column.canvas.select_node(d.parting.second, center=True)
        k = next(i for i, c in enumerate(self.columns) if c.algorithm == first)
        self._pointed(k, d.parting.first)

    def _explain(self) -> None:
        """The chosen pair's divergence and rankings first, then the rest, in the text below."""
        if self.result is None:
            self.words.setPlainText("")
            return
        stage = self._stage()
        head = ""
        pair = self.pair.currentData()
        if pair is not None:
            d = self.result.divergence(*pair, stage)
            a, b = (self.result.by_name(n) for n in pair)
            if d is None or d.parting is None:
                head = f"{a.label} and {b.label} grow the same tree ({stage}).\n\n"
            else:
                where = " AND ".join(rule_to(a.tree(stage), d.parting.first)) or "the root"
                head = (
                    f"{a.label} and {b.label} ({stage}) first part at {where}: "
                    f"{d.splits[pair[0]]} against {d.splits[pair[1]]}. Jump (Ctrl+J) selects it.\n\n"
                )
        self.words.setPlainText(head + as_text(self.result, stage))


def _frame_top(canvas: TreeCanvas, scale: float) -> None:
    """``canvas`` at ``scale`` with its tree's top in view: centred across when it fits the
    width, else framed at its root (its root end in view)."""
    rect = canvas.tree_scene().content_rect()
    port = canvas.viewport().rect()
    if rect.width() * scale > port.width() - 20:
        canvas._frame_root(rect, scale)
        return
    canvas.resetTransform()
    canvas.scale(scale, scale)
    canvas.centerOn(rect.center().x(), rect.top() - 20 + port.height() / 2 / scale)
