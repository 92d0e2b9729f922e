"""The node inspector: the seeds' hand computation for the selected node, the pruning
decisions made there, and pinned nodes stacked for comparison. The numbers come from the
engine; this widget only formats."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import QLabel, QPushButton, QScrollArea, QVBoxLayout, QWidget

from engine.export.labels import candidate_split, condition, number, surrogate_condition
from engine.learn.criteria import entropy, gini
from engine.learn.explain import (
    RANKED_BY,
    REASONS,
    attribute_table,
    competitors,
    node_rows,
    used_on_path,
)
from engine.learn.significance import BONFERRONI_RULE
from gui.mime import NODE_MIME
from gui.panels.cards import Card
from gui.panels.node_plot import NodePlot
from gui.panels.pruning_text import node_pruning_html
from gui.panels.split_curve import SplitCurveView
from gui.panels.splits_table import TEST_COLUMNS, SplitsTable, tests_cell
from gui.panels.test_rows_text import test_rows_html
from gui.session.jobs import start_on_pool

#: A node with at least this much training weight has its candidate splits scored on a worker
#: thread (a million rows take about a second), the rest of its card shown at once.
BACKGROUND_WEIGHT = 50_000
#: Where the lecture notes and Arbor differ in the third decimal, and why.
ROUNDING_NOTE = (
    "Figures are exact values rounded once to three places. The lecture notes "
    "truncate each intermediate product, so they can differ in the last digit: for "
    "the weather root they print mean info 0.693 (outlook) and 0.787 (humidity), "
    "exactly 0.6935 and 0.7885."
)
MUTED = "#8A94A3"
#: In place of the candidate splits of the node an exam question is about.
SEALED = (
    f"<p style='color:{MUTED}'><i>Exam mode: this node's candidate splits show once your "
    "pick is checked (Growth panel).</i></p>"
)


def node_html(tree, node_id: int, data, settings) -> str:
    """The inspector's text for one node, as HTML."""
    return summary_html(tree, node_id, settings) + splits_html(tree, node_id, data, settings)


def summary_html(tree, node_id: int, settings=None) -> str:
    """Rule, class counts, impurities and pruning decisions: read off the tree, so quick."""
    path = tree.path_to(node_id)
    node = path[-1][0]
    rule = " AND ".join(condition(tree, a, b) for a, b in path[:-1]) or "every instance (root)"
    parts = [f"<h3 style='margin:2px'>Node {node_id}</h3><p><b>Rule:</b> {escape(rule)}</p>"]
    if tree.is_regression:
        # Seed 004's term, so a student finds it in the notes.
        median = settings is not None and settings.criterion == "absolute_error"
        parts.append(
            f"<p>{number(node.weight)} instances, {'median' if median else 'mean'} "
            f"{number(node.value)} (the point estimate), "
            f"{'absolute' if median else 'squared'} error {node.impurity:.3f}</p>"
        )
        return "".join(parts) + node_pruning_html(tree, node_id, compact=True)
    total = node.distribution.sum()
    rows = "".join(
        f"<tr><td>{escape(c)}</td><td align=right>{number(round(v, 3))}</td>"
        f"<td align=right>{(v / total if total else 0):.3f}</td></tr>"
        for c, v in zip(tree.classes, node.distribution, strict=True)
    )
    parts.append(
        f"<table cellspacing=3><tr><th align=left>class</th><th>count</th><th>share</th></tr>"
        f"{rows}</table>"
    )
    parts.append(
        f"<p><b>Entropy</b> {entropy(node.distribution):.3f} &nbsp; "
        f"<b>Gini</b> {gini(node.distribution):.3f} &nbsp; n = {number(round(total, 3))}</p>"
    )
    parts.append(surrogates_html(tree, node))
    recorded = node_pruning_html(tree, node_id, compact=True)
    if recorded:
        parts.append(recorded)
        return "".join(parts)
    bounds = [
        (k, node.stats[k])
        for k in ("error_as_leaf", "error_as_subtree", "error_as_branch")
        if k in node.stats
    ]
    if bounds:  # no record (an opened or edited tree): the estimates kept on the node
        verdict = (
            "pruned to a leaf"
            if node.stats.get("pruned")
            else ("replaced by its largest branch" if node.stats.get("raised") else "kept")
        )
        names = {
            "error_as_leaf": "as a leaf",
            "error_as_subtree": "as the subtree",
            "error_as_branch": "largest branch raised",
        }
        parts.append(
            "<p><b>Pessimistic error estimates</b> ("
            + verdict
            + "):<br>"
            + "<br>".join(f"&nbsp;&nbsp;{names[k]}: {v:.3f}" for k, v in bounds)
            + "</p>"
        )
    return "".join(parts)


def surrogates_html(tree, node) -> str:
    """The split's surrogates (``--missing surrogate``), best first, with their agreement."""
    if node.split is None or not node.split.surrogates:
        return ""
    rows = "".join(
        f"<tr><td>{escape(surrogate_condition(tree, node, s))}</td>"
        f"<td align=right>{s.agreement:.3f}</td><td align=right>{s.adjusted:.3f}</td></tr>"
        for s in node.split.surrogates
    )
    return (
        "<p><b>Surrogate splits</b> (for rows missing the split's attribute; then the "
        "majority branch)</p><table cellspacing=3><tr><th align=left>surrogate</th>"
        f"<th>agreement</th><th>adjusted</th></tr>{rows}</table>"
    )


def competitors_html(table, settings) -> str:
    """The next best splits here, ranked by the algorithm's criterion (rpart's competitors)."""
    ranked = competitors(table, settings.criterion)
    if not ranked:
        return ""
    score = RANKED_BY.get(settings.criterion, "gini_gain").replace("_", " ")
    items = "".join(
        f"<li>{escape(r.name)} {escape(candidate_split(r, '≤'))}: {score} {v:.3f}</li>"
        for r, v in ranked
    )
    return f"<p><b>Competitors</b> (the next best splits, by {score})</p><ol>{items}</ol>"


HEADERS = (
    "attribute",
    "split",
    "entropy",
    "mean<br>info",
    "info<br>gain",
    "split<br>info",
    "gain<br>ratio",
    "gini<br>gain",
)
#: The on-screen table's columns after the attribute names (which sit in its row header, so
#: they stay put while the columns scroll): the four seed figures first, then the rest.
#: Each is (field, short two-line header, full name for the header's tooltip).
COLUMNS = (
    ("info_gain", "info\ngain", "information gain: entropy before − mean info"),
    ("split_info", "split\ninfo", "split info: entropy of the branch sizes"),
    ("gain_ratio", "gain\nratio", "gain ratio: info gain ÷ split info"),
    ("gini_gain", "Gini\ngain", "Gini gain: Gini before − weighted Gini after"),
    ("entropy_before", "entropy\nbefore", "entropy of the class counts at this node"),
    ("mean_info", "mean\ninfo", "mean info: weighted entropy of the branches"),
    ("split", "split", "how the attribute would split here"),
)
CHOSEN = "#FFE08A"


def candidate_rows(tree, node_id: int, data, settings):
    """The attribute table at a node (the slow part), or None where there is nothing to score."""
    if data is None or settings is None or tree.is_regression:
        return None
    node = tree.node(node_id)
    rows_at, weights = node_rows(tree, data, node_id, settings)
    if weights.sum() <= 0:
        return None
    chosen = node.split.attribute if node.split is not None else -1
    return attribute_table(data, settings, rows_at, weights, chosen, used_on_path(tree, node_id))


def reasons_html(table) -> str:
    notes = "<br>".join(
        f"– {escape(r.name)}: {escape(REASONS[r.reason])}" for r in table if r.reason is not None
    )
    return (
        f"<p style='color:{MUTED}'>Cannot split here:<br>{notes}</p>" if notes else ""
    ) + f"<p style='color:{MUTED}'><small>{escape(ROUNDING_NOTE)}</small></p>"


def splits_html(tree, node_id: int, data, settings) -> str:
    """The candidate splits at a node: its training rows scored on every attribute (the slow part).

    Attributes that cannot split here are greyed, with the reason below the table."""
    table = candidate_rows(tree, node_id, data, settings)
    return "" if table is None else table_html(table) + competitors_html(table, settings)


def table_html(table) -> str:
    """The candidate splits as an HTML table (pinned cards, copying, the inspector's text)."""
    # The significance tests (issue 33) after the seed figures, as on screen; their headers
    # are plain text there, so escaped here.
    tests = [escape(h).replace("\n", "<br>") for _, h, _ in TEST_COLUMNS]
    head = (
        "<tr>"
        + "".join(
            f"<th{' align=left' if k < 2 else ''}>{h}</th>"
            for k, h in enumerate((*HEADERS, *tests))
        )
        + "</tr>"
    )
    body = []
    for r in table:
        style = (
            f" style='background:{CHOSEN}'"
            if r.chosen
            else (f" style='color:{MUTED}'" if r.reason is not None else "")
        )
        mark = " –" if r.reason is not None else ""
        cells = (
            f"{r.entropy_before:.3f}",
            f"{r.mean_info:.3f}",
            f"{r.info_gain:.3f}",
            f"{r.split_info:.3f}",
            f"{r.gain_ratio:.3f}",
            f"{r.gini_gain:.3f}",
            *(escape(tests_cell(r, field)) for field, _, _ in TEST_COLUMNS),
        )
        body.append(
            f"<tr{style}><td>{escape(r.name)}{mark}</td><td>{escape(candidate_split(r, '≤'))}</td>"
            + "".join(f"<td align=right>{c}</td>" for c in cells)
            + "</tr>"
        )
    return (
        f"<p><b>Candidate splits here</b></p><table cellspacing=4>{head}{''.join(body)}</table>"
        + f"<p style='color:{MUTED}'><small>{escape(BONFERRONI_RULE)}.</small></p>"
        + reasons_html(table)
    )


def scored(tree, node_id: int, data, settings):
    """(HTML, attribute rows) for a node's candidate splits; rows None where nothing is scored."""
    table = candidate_rows(tree, node_id, data, settings)
    if table is None:
        return "", None
    return table_html(table) + competitors_html(table, settings), table


def cell_text(r, field: str) -> str:
    return candidate_split(r, "≤") if field == "split" else f"{getattr(r, field):.3f}"


class _Relay(QObject):
    ready = Signal(object, object)  # the task, the splits (HTML, rows) (None: skipped)


class _SplitsTask:
    """Scores one node's candidate splits off the GUI thread; skipped if no longer wanted."""

    def __init__(self, inspector: Inspector, key, args):
        self.inspector, self.key, self.args = inspector, key, args

    def run(self) -> None:
        if self.inspector.waiting_for() != self.key:
            html = None  # another node was clicked meanwhile
        else:
            try:
                html = scored(*self.args)
            except Exception as err:  # noqa: BLE001 - shown in the card rather than lost in a thread
                html = (
                    f"<p>The candidate splits could not be worked out: {escape(str(err))}</p>",
                    None,
                )
        self.inspector.relay.ready.emit(self, html)


class Inspector(QWidget):
    """The selected node's numbers, plus pinned nodes (drag a node here, or press P)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setAcceptDrops(True)
        self._context = None  # (tree, data, settings)
        self._controller = None  # for the test rows on the tree (issue 32)
        self._sealed = -1  # exam mode: the node whose candidate splits stay hidden (issue 35)
        self._splits: dict[tuple[int, int], tuple] = {}  # (HTML, rows) worked out, per (tree, node)
        self._waiting: tuple[tuple[int, int], str] | None = None  # the key and its summary
        self._tasks: set[_SplitsTask] = set()
        self.relay = _Relay(self)
        self.relay.ready.connect(self._on_splits_ready)
        self.current = Card("Click a node to see its numbers.")
        self._text = self.current.text()  # the card and the splits table, as HTML
        self.splits = SplitsTable(COLUMNS, CHOSEN, MUTED)
        self.node_plot = NodePlot()  # the rows behind the node (issue 32)
        self.curve = SplitCurveView()  # every cut of an attribute scored (issue 32)
        self.curve.follow(self.splits.table)
        self._pinned: list[int] = []
        self._pins = QVBoxLayout()  # stacked: a card is as wide as the inspector
        self._pins.setAlignment(Qt.AlignmentFlag.AlignTop)
        clear = QPushButton("Clear pinned")
        clear.clicked.connect(self.clear_pins)
        row = QWidget()
        row.setLayout(self._pins)
        inner = QWidget()
        layout = QVBoxLayout(inner)
        layout.setContentsMargins(4, 4, 4, 4)  # every pixel for the splits table's columns
        layout.addWidget(self.current)
        # View > Tree stability's figures for the selected node (gui.stability_marks).
        self.stability = QLabel()
        self.stability.setTextFormat(Qt.TextFormat.PlainText)  # attribute names from the file
        self.stability.setWordWrap(True)
        self.stability.hide()
        layout.addWidget(self.stability)
        layout.addWidget(self.node_plot)
        layout.addWidget(self.splits)
        layout.addWidget(self.curve)
        pinned = QLabel("<b>Pinned</b> (press P, or Alt-drag nodes here, to compare)")
        pinned.setWordWrap(
            True
        )  # a narrow dock (1024 px screens) wraps it instead of scrolling sideways
        layout.addWidget(pinned)
        layout.addWidget(row)
        layout.addWidget(clear)
        layout.addStretch(1)
        scroll = self.scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(inner)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        scroll.viewport().installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt override
        """Keep the splits table within the visible width even when a wide card widens the page,
        so its names and seed figures are in view with the inspector scrolled to the left."""
        if watched is self.scroll.viewport() and event.type() == QEvent.Type.Resize:
            margins = self.scroll.widget().layout().contentsMargins()
            self.splits.table.setMaximumWidth(
                max(0, event.size().width() - margins.left() - margins.right())
            )
        return super().eventFilter(watched, event)

    def bind(self, controller) -> None:
        """Show the selected node of the controller's tree, with the rows and options it was made from."""
        controller.tree_changed.connect(
            lambda tree, _select: self.set_context(tree, controller.data, controller.settings)
        )
        controller.node_selected.connect(
            lambda node_id: (
                self.show_node(controller.tree, node_id, controller.data, controller.settings)
                if controller.tree is not None
                else self.clear()
            )
        )
        self._controller = controller

        def refresh(*_) -> None:  # test rows came, went, or were counted on this tree
            tree, node_id = controller.tree, controller.selected
            if tree is not None and node_id >= 0 and self._waiting is None:
                self._show(
                    self._summary(tree, node_id), self._splits.get((id(tree), node_id), ("", None))
                )

        controller.held_out_changed.connect(refresh)
        controller.test_counted.connect(lambda tree: refresh() if tree is controller.tree else None)

    def _summary(self, tree, node_id: int) -> str:
        """The card's text: the node's figures, and its test rows beside its training rows."""
        c = self._controller
        summary = summary_html(tree, node_id, getattr(c, "settings", None))
        figures = c.test_figures(tree) if c is not None else None
        if figures is None:
            return summary
        return summary + test_rows_html(tree, node_id, figures, c.held_out.label)

    def set_context(self, tree, data, settings) -> None:
        self._context = (tree, data, settings)
        self._splits.clear()
        self.clear_pins()
        self.clear()

    def clear(self) -> None:
        self._waiting = None
        self.node_plot.clear()
        self.curve.clear()
        self._show("Click a node to see its numbers.")

    def _show(self, summary: str, splits=("", None)) -> None:
        """The summary in the card, the candidate splits in their table (or the card, if no rows)."""
        html, rows = splits
        self._text = summary + html
        if rows is None:
            self.current.setText(summary + html)
            self.splits.clear()
        else:
            self.current.setText(summary)
            self.splits.show_rows(rows, cell_text, reasons_html(rows))
        self.scroll.horizontalScrollBar().setValue(0)

    def seal(self, node_id: int) -> None:
        """Hide ``node_id``'s candidate splits until exam mode's pick is checked (-1: none
        hidden); the selected node is shown again either way."""
        self._sealed = node_id
        c = self._controller
        if c is not None and c.tree is not None and c.selected >= 0:
            self.show_node(c.tree, c.selected, c.data, c.settings)

    def show_node(self, tree, node_id: int, data=None, settings=None) -> None:
        if node_id < 0:
            self.clear()
            return
        if node_id == self._sealed:
            self._waiting = None
            self.node_plot.clear()
            self.curve.clear()
            self._show(self._summary(tree, node_id) + SEALED)
            return
        self.node_plot.show_node(tree, node_id, data, settings)
        self.curve.show_node(tree, node_id, data, settings)
        summary, key = self._summary(tree, node_id), (id(tree), node_id)
        if key not in self._splits:
            weight = tree.node(node_id).weight
            if data is None or weight < BACKGROUND_WEIGHT:
                self._splits[key] = scored(tree, node_id, data, settings)
            else:
                self._waiting = (key, summary)
                self._show(
                    summary + f"<p><i>Scoring the candidate splits over "
                    f"{number(weight)} rows…</i></p>"
                )
                task = _SplitsTask(self, key, (tree, node_id, data, settings))
                self._tasks.add(task)
                start_on_pool(task.run)  # held by the pool until run, and here until ready
                return
        self._waiting = None
        self._show(summary, self._splits[key])

    def show_stability(self, text: str) -> None:
        """The selected node's recurrence in the folds' trees and its near-ties ("": none)."""
        self.stability.setText(text)
        self.stability.setVisible(bool(text))

    def waiting_for(self):
        waiting = self._waiting
        return waiting[0] if waiting is not None else None

    def _on_splits_ready(self, task: _SplitsTask, html: str | None) -> None:
        self._tasks.discard(task)
        key = task.key
        current_tree = self._context[0] if self._context is not None else None
        if html is not None and task.args[0] is current_tree:  # not a tree replaced meanwhile
            self._splits[key] = html
        if html is None or self._waiting is None or self._waiting[0] != key:
            return  # skipped, or done for a node no longer shown (kept for when it is)
        self._show(self._waiting[1], html)
        self._waiting = None

    def text(self) -> str:
        return self._text

    def pin_node(self, node_id: int) -> None:
        if self._context is None or node_id in self._pinned:
            return
        tree, data, settings = self._context
        self._pinned.append(node_id)
        splits = self._splits.get((id(tree), node_id))
        if node_id == self._sealed:  # exam mode: no way round the question by pinning
            html = self._summary(tree, node_id) + SEALED
        elif splits is None:
            html = self._summary(tree, node_id) + splits_html(tree, node_id, data, settings)
        else:
            html = self._summary(tree, node_id) + splits[0]
        self._pins.addWidget(Card(html))

    def pinned(self) -> list[int]:
        return list(self._pinned)

    def clear_pins(self) -> None:
        self._pinned.clear()
        while self._pins.count():
            self._pins.takeAt(0).widget().deleteLater()

    def dragEnterEvent(self, event) -> None:  # noqa: N802 - Qt override
        if event.mimeData().hasFormat(NODE_MIME):
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802 - Qt override
        node_id = int(bytes(event.mimeData().data(NODE_MIME)).decode())
        self.pin_node(node_id)
        event.acceptProposedAction()
