"""The results panel: the tree's size and scores beside the 0-R and 1-R baselines."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from gui.jobs import TrainResult


class ResultsPanel(QWidget):
    """Numbers of the last training run."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.summary = QLabel("Train a tree (F5) to see its results.")
        self.summary.setWordWrap(True)
        self.summary.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.summary.setTextFormat(self.summary.textFormat().RichText)
        self.confusion = QTableWidget()
        self.confusion.setToolTip("Cross-validated confusion matrix: rows are actual classes, "
                                  "columns predicted")
        self.confusion.hide()
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.confusion, 1)

    def bind(self, controller) -> None:
        """Show each training's numbers, and a tree changed since with its own training score."""

        def on_result(result) -> None:
            self.show_result(result) if result is not None else self.clear()

        def on_tree(tree, _select) -> None:
            if tree is not None and tree is not controller.trained_tree and controller.data is not None:
                self.show_edited(tree, controller.data)

        controller.result_changed.connect(on_result)
        controller.tree_changed.connect(on_tree)

    def clear(self) -> None:
        self.summary.setText("Train a tree (F5) to see its results.")
        self.confusion.hide()

    def show_result(self, result: TrainResult) -> None:
        tree = result.model.tree_
        rows = [("Leaves", f"{tree.n_leaves}"), ("Size (nodes)", f"{tree.n_nodes}"), ("Depth", f"{tree.depth}")]
        if tree.is_regression:
            rows.append(("Training RMSE", f"{result.train_score:.4f}"))
        else:
            rows.append(("Training accuracy", f"{100 * result.train_score:.2f}%"))
        ev = result.evaluation
        if ev is not None:
            if ev.classes is None:
                rows += [("CV RMSE", f"{ev.rmse:.4f}"), ("CV R²", f"{ev.r2:.4f}")]
            else:
                rows += [("CV accuracy", f"{100 * ev.accuracy:.2f}% ± {100 * ev.accuracy_std:.2f}"),
                         ("Kappa", f"{ev.kappa:.3f}")]
        b = result.baselines
        if b is not None:
            rows += [("0-R", f"predict {b.zero_r_class}: {b.zero_r_errors:g}/{b.n:g} errors "
                             f"({100 * (1 - b.zero_r_errors / b.n):.1f}% right)"),
                     ("1-R", f"on {b.one_r_attribute}: {b.one_r_errors:g}/{b.n:g} errors "
                             f"({100 * (1 - b.one_r_errors / b.n):.1f}% right)")]
        html = "<table cellspacing=4>" + "".join(
            f"<tr><td><b>{k}</b></td><td>{escape(v)}</td></tr>" for k, v in rows) + "</table>"
        if result.notes:
            html += "".join(f"<p style='color:#6B7280'>{escape(n)}</p>" for n in result.notes)
        self.summary.setText(html)
        self._show_confusion(ev)

    def show_edited(self, tree, data) -> None:
        """Numbers of a tree changed by hand (no cross-validation: it is not a learner's tree)."""
        import numpy as np

        from engine.predict import predict_proba, predict_value

        if tree.is_regression:
            score = f"Training RMSE {np.sqrt(np.mean((predict_value(tree, data.X) - data.y) ** 2)):.4f}"
        else:
            acc = np.mean(np.argmax(predict_proba(tree, data.X), axis=1) == data.y)
            score = f"Training accuracy {100 * acc:.2f}%"
        self.summary.setText(f"<p><b>Edited tree</b>: {tree.n_leaves} leaves, {tree.n_nodes} nodes, depth "
                             f"{tree.depth}; {score}</p>" + self.summary.text().split("<p><b>Edited")[0])

    def _show_confusion(self, ev) -> None:
        if ev is None or ev.classes is None:
            self.confusion.hide()
            return
        k = len(ev.classes)
        self.confusion.setRowCount(k)
        self.confusion.setColumnCount(k)
        self.confusion.setHorizontalHeaderLabels([f"→ {c}" for c in ev.classes])
        self.confusion.setVerticalHeaderLabels(list(ev.classes))
        for i in range(k):
            for j in range(k):
                self.confusion.setItem(i, j, QTableWidgetItem(f"{ev.confusion[i, j]:g}"))
        self.confusion.resizeColumnsToContents()
        self.confusion.show()

    def text(self) -> str:
        return self.summary.text()
