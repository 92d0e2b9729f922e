"""What-if: type an instance and see its path through the tree and its prediction, live."""

from __future__ import annotations

from html import escape

import numpy as np
import pandas as pd
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from engine.data.encoding import encode_columns
from engine.errors import ArborError
from engine.predict import class_codes, leaf_weights, predict_proba, predict_value
from gui.plain_text import plain_label


class WhatIfPanel(QWidget):
    """One editable instance; emits the nodes on its path whenever a value changes.

    Signals
    -------
    path_changed(set) : ids of the nodes the instance passes through.
    """

    path_changed = Signal(set)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.tree = None
        self.algorithm = lambda: None  # the tree's algorithm: its rule for near-tied classes
        self._on_screen = False
        self._stale = False  # a prediction waits for the panel to show
        self.inputs: dict[str, QWidget] = {}
        self.body = QWidget()  # the form's rows; a new one per schema (see set_tree)
        self.form = _form(self.body)
        self.result = QLabel("Train a tree to try instances on it.")
        self.result.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.body)
        layout.addWidget(self.result)
        layout.addStretch(1)

    def bind(self, controller) -> None:
        """Follow the tree on screen; a new table's first row fills the form."""
        self.algorithm = lambda: (
            controller.settings.algorithm if controller.settings is not None else None
        )

        def on_tree(tree, _select) -> None:
            same_form = (
                tree is not None
                and self.tree is not None
                and tree.schema.attributes == self.tree.schema.attributes
            )
            if same_form:
                self.tree = tree
                self._predict_when_shown()
            else:
                doc = controller.doc
                self.set_tree(tree, doc.frame.iloc[0] if tree is not None and doc.n_rows else None)

        controller.tree_changed.connect(on_tree)

    def set_tree(self, tree, example: pd.Series | None = None) -> None:
        self.tree = tree
        # The rows go into a new form, not yet shown, which then replaces the old one: rows
        # added to a form on screen cost Qt time in proportion to the rows already there
        # (5,000 attributes froze the window for minutes; built aside, well under a second).
        body = QWidget()
        self.form = _form(body)
        self.layout().replaceWidget(self.body, body)
        self.body.deleteLater()
        self.body = body
        self.inputs = {}
        if tree is None:
            self.result.setText("Train a tree to try instances on it.")
            return
        for attr in tree.schema.attributes:
            if attr.is_nominal:
                box = QComboBox()
                box.addItems(["?", *attr.categories])
                if example is not None and not pd.isna(example.get(attr.name)):
                    box.setCurrentText(str(example[attr.name]))
                box.currentTextChanged.connect(self.update_prediction)
                widget = box
            else:
                edit = QLineEdit(placeholderText="? (missing)")
                if example is not None and not pd.isna(example.get(attr.name)):
                    edit.setText(f"{example[attr.name]:g}")
                edit.textChanged.connect(self.update_prediction)
                widget = edit
            self.inputs[attr.name] = widget
            self.form.addRow(plain_label(attr.name), widget)  # a name, never markup
        self._predict_when_shown()

    def _predict_when_shown(self) -> None:
        """Predict the form's instance now if the panel is shown, else when it shows: every
        new tree asked for it, and a hidden panel's prediction (an encoding of the row, a walk
        down the tree) is read by nobody. (A dock tabbed behind another counts as shown.)"""
        self._stale = not self.isVisible()
        if not self._stale:
            self.update_prediction()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        if self._stale:
            self.update_prediction()
        super().showEvent(event)

    def instance(self) -> pd.DataFrame:
        row = {}
        for name, widget in self.inputs.items():
            text = widget.currentText() if isinstance(widget, QComboBox) else widget.text().strip()
            row[name] = np.nan if text in ("", "?") else text
        return pd.DataFrame([row])

    def set_value(self, name: str, value: str) -> None:
        widget = self.inputs[name]
        if isinstance(widget, QComboBox):
            widget.setCurrentText(value)
        else:
            widget.setText(value)

    def update_prediction(self, *_) -> None:
        self._stale = False
        if self.tree is None:
            return
        try:
            X = encode_columns(self.instance(), self.tree.schema.attributes)
        except ArborError as err:
            self.result.setText(f"<span style='color:#B42318'>{escape(str(err))}</span>")
            return
        nodes = set()
        for leaf in leaf_weights(self.tree, X):
            nodes.update(n.id for n, _ in self.tree.path_to(leaf))
        if self.tree.is_regression:
            text = f"Predicted {escape(self.tree.schema.target)}: <b>{predict_value(self.tree, X)[0]:.4g}</b>"
        else:
            probs = predict_proba(self.tree, X)
            best = int(class_codes(probs, self.algorithm())[0])
            probs = probs[0]
            shares = ", ".join(
                f"{escape(c)} {p:.2f}" for c, p in zip(self.tree.classes, probs, strict=True)
            )
            text = (
                f"Predicted {escape(self.tree.schema.target)}: <b>{escape(self.tree.classes[best])}</b> "
                f"({shares})"
            )
            if self.tree.pseudocounts:  # seed 004's term, so a student finds it in the notes
                added = ", ".join(f"{p:.3g}" for p in self.tree.pseudocounts)
                text += f"<br>Probabilities with pseudocounts ({added}) added to each leaf"
        self.result.setText(text)
        self._path = nodes
        if self._on_screen:  # a lit path nobody asked for explains nothing
            self.path_changed.emit(nodes)

    def set_on_screen(self, shown: bool) -> None:
        """The form came into view (its dock's tab raised) or went out of it: the instance's
        path is lit only meanwhile. (A dock tabbed behind another still counts as visible to
        Qt, so show and hide events do not say this.)"""
        self._on_screen = shown
        self.path_changed.emit(getattr(self, "_path", set()) if shown else set())


def _form(body: QWidget) -> QFormLayout:
    """The form's layout on ``body``, flush with the panel as when it was the panel's own."""
    form = QFormLayout(body)
    form.setContentsMargins(0, 0, 0, 0)
    return form
