"""CART's cost-complexity pruning, seen: leaves, training and CV error against alpha, with a
slider that prunes the tree on the canvas live."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import QLabel, QPushButton, QSlider, QVBoxLayout, QWidget

from engine.prune.cost_complexity import cost_complexity_path, prune_to_step


class _Plot(pg.PlotWidget):
    """A plot that asks for little room: in a scrolling dock the panel's height follows its parts'
    size hints (the wrapped label makes it height-for-width), and pyqtgraph asks for 480 px."""

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(300, 200)


class PruningPanel(QWidget):
    """The pruning path of the shown (unpruned) CART tree.

    Signals
    -------
    pruned(object, float) : the tree pruned at the slider's alpha, and that alpha.
    cv_requested() : the user asked for the cross-validated error per alpha.
    """

    pruned = Signal(object, float)
    cv_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.full = None
        self.path = None
        self.alphas = np.zeros(0)
        self.steps = np.zeros(0, dtype=int)  # per alpha: the path's last step taken at it
        self.plot = _Plot(background="w")
        self.plot.setLabel("bottom", "alpha (effective)")
        self.plot.setLabel("left", "error rate / share")
        self.plot.addLegend(offset=(-10, 10))
        self.leaves_axis = pg.ViewBox()
        self.plot.showAxis("right")
        self.plot.getAxis("right").setLabel("leaves")
        self.plot.scene().addItem(self.leaves_axis)
        self.plot.getAxis("right").linkToView(self.leaves_axis)
        self.leaves_axis.setXLink(self.plot)
        self.plot.getViewBox().sigResized.connect(
            lambda: self.leaves_axis.setGeometry(self.plot.getViewBox().sceneBoundingRect()))
        self.marker = pg.InfiniteLine(angle=90, pen=pg.mkPen("#D55E00", width=2))
        self.plot.addItem(self.marker)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setToolTip("Prune at the k-th alpha of the path: the canvas follows")
        self.slider.valueChanged.connect(self._on_slider_value_changed)
        self.cv_button = QPushButton("Cross-validate alpha")
        self.cv_button.setToolTip("K-fold CV error per alpha, with the one-standard-error band")
        self.cv_button.clicked.connect(self.cv_requested.emit)
        self.info = QLabel("Train a CART tree to see its pruning path.")
        self.info.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.slider)
        layout.addWidget(self.cv_button)
        layout.addWidget(self.info)
        self.setEnabled(False)

    def bind(self, controller) -> None:
        """Show each CART training's path; the slider and CV alpha put their tree on screen."""
        from gui.controller import CV_ALPHA, PRUNED

        origin = [PRUNED]

        def on_result(result) -> None:
            if result is None:
                self.set_tree(None)
                return
            self.set_tree(result.full_tree, result.path)
            settings = result.model.settings_
            if result.full_tree is not None and settings.prune == "cost-complexity":
                self.select_alpha(settings.alpha or 0.0, emit=False)  # the trained tree is on screen

        def on_alpha_chosen(choice) -> None:
            origin[0] = CV_ALPHA
            try:
                self.show_cv(choice)
            finally:
                origin[0] = PRUNED

        controller.result_changed.connect(on_result)
        controller.alpha_chosen.connect(on_alpha_chosen)
        self.pruned.connect(lambda tree, _alpha: controller.show_tree(tree, origin=origin[0]))
        self.cv_requested.connect(controller.cross_validate_alpha)

    def set_tree(self, full_tree, path=None) -> None:
        """``full_tree``: the unpruned tree whose path to show (None clears); ``path`` its
        cost-complexity path when already worked out (a big tree's takes a moment)."""
        self.full = full_tree
        self.plot.clear()
        self.leaves_axis.clear()
        self.plot.addItem(self.marker)
        if full_tree is None:
            self.setEnabled(False)
            self.info.setText("Train a CART tree to see its pruning path.")
            return
        self.setEnabled(True)
        self.path = path if path is not None else cost_complexity_path(full_tree)
        self.alphas, first = np.unique(self.path.alphas, return_index=True)
        # The tree pruned at an alpha has taken every step with that alpha: the last one counts.
        self.steps = len(self.path.alphas) - 1 - np.unique(self.path.alphas[::-1], return_index=True)[1]
        leaves = self.path.n_leaves[first]
        impurity = self.path.impurities[first]
        self.plot.plot(self.alphas, impurity, pen=pg.mkPen("#0072B2", width=2), symbol="o", symbolSize=5,
                       name="total leaf impurity (training)")
        if not full_tree.is_regression:
            errors = self.path.errors[self.steps]
            self.plot.plot(self.alphas, errors, pen=pg.mkPen("#E69F00", width=2), symbol="s", symbolSize=5,
                           name="training error")
        self.leaves_axis.addItem(pg.PlotCurveItem(self.alphas, leaves, pen=pg.mkPen("#999999", width=1.5,
                                                                                   style=Qt.PenStyle.DashLine)))
        self.slider.blockSignals(True)
        self.slider.setRange(0, len(self.alphas) - 1)
        self.slider.setValue(0)
        self.slider.blockSignals(False)
        self.marker.setValue(0.0)
        self.info.setText(f"{len(self.alphas)} subtrees from {leaves[0]} leaves down to 1. "
                          "Drag the slider to prune.")

    def show_cv(self, choice) -> None:
        """Draw the CV error per alpha with its one-standard-error band and mark the choice."""
        a, err, se = choice.alphas, choice.cv_error, choice.cv_se
        self.plot.plot(a, err, pen=pg.mkPen("#009E73", width=2), symbol="t", symbolSize=6,
                       name="cross-validated error")
        upper = pg.PlotCurveItem(a, err + se, pen=pg.mkPen(None))
        lower = pg.PlotCurveItem(a, err - se, pen=pg.mkPen(None))
        self.plot.addItem(pg.FillBetweenItem(upper, lower, brush=pg.mkBrush(0, 158, 115, 50)))
        best = err.min() + se[int(np.argmin(err))]
        self.plot.addItem(pg.InfiniteLine(pos=best, angle=0, pen=pg.mkPen("#009E73", style=Qt.PenStyle.DotLine)))
        self.plot.addItem(pg.InfiniteLine(pos=choice.chosen_alpha, angle=90,
                                          pen=pg.mkPen("#CC79A7", width=2, style=Qt.PenStyle.DashLine)))
        self.select_alpha(choice.chosen_alpha)
        self.info.setText(f"Minimum CV error at alpha = {choice.min_alpha:.4g}; one-standard-error "
                          f"rule: alpha = {choice.one_se_alpha:.4g} (chosen: {choice.chosen_alpha:.4g}).")

    def select_alpha(self, alpha: float, emit: bool = True) -> None:
        """Move the slider to ``alpha``; without ``emit`` the tree on screen stays as it is."""
        k = int(np.searchsorted(self.alphas, alpha + 1e-15, side="right") - 1)
        self.slider.blockSignals(not emit)
        self.slider.setValue(max(0, k))
        self.slider.blockSignals(False)
        if not emit and self.full is not None and len(self.alphas):
            self.marker.setValue(float(self.alphas[max(0, k)]))

    def _on_slider_value_changed(self, k: int) -> None:
        if self.full is None or not len(self.alphas):
            return
        alpha = float(self.alphas[k])
        self.marker.setValue(alpha)
        tree = prune_to_step(self.full, self.path, int(self.steps[k]))
        self.info.setText(f"alpha = {alpha:.4g}: {tree.n_leaves} leaves, {tree.n_nodes} nodes.")
        self.pruned.emit(tree, alpha)
