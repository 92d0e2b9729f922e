"""Bias and variance on screen (issue 37): the Evaluation panel's learning curve and its
bias-variance view. The numbers are the engine's (:mod:`engine.evaluate.learning_curve`,
:mod:`engine.evaluate.bias_variance`), computed by a job (:mod:`gui.session.curve_jobs`);
these views ask for them, follow the job's progress (with Cancel) and draw the result."""

from __future__ import annotations

from html import escape

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from gui.panels.lazy_plot import LazyPlot
from gui.wheel_guard import PlotInPanel

LEARNING, BIAS_VARIANCE = "learning", "bias-variance"
GREY = "#6B7280"
TRAIN_COLOUR, TEST_COLOUR = "#0072B2", "#D55E00"
#: Error, bias, variance and noise: black and three of Okabe and Ito's colours.
PART_COLOURS = {"error": "#222222", "bias": "#0072B2", "variance": "#D55E00", "noise": "#009E73"}

SEED = "Seed 004 (“Decision Trees and Training Strategies”)"
LEARNING_NOTE = (
    f"{SEED}: the gap between the curves is <b>variance</b>, error due to lack of data; the "
    "level they approach is <b>bias</b> and <b>noise</b>."
)
BIAS_VARIANCE_NOTE = (
    f"{SEED}: <b>bias</b> (representation bias: too simple a model; <b>search bias</b>: not "
    "enough search), <b>variance</b> (error due to lack of data), <b>noise</b>, and the "
    "bias-variance trade-off."
)


class _Plot(PlotInPanel, pg.PlotWidget):
    """A plot in the Evaluation panel: the wheel zooms it only once it is clicked."""


def _spin(low: int, high: int, value: int, tip: str) -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setValue(value)
    box.setToolTip(tip)
    return box


def _grey(text: str) -> str:
    return f"<span style='color:{GREY}'>{text}</span>"


def _swatch(colour: str) -> str:
    return f"<span style='color:{colour}'>&#9632;</span>&nbsp;"


class CurveView(QWidget):
    """What both views share: their options, Compute and Cancel, the job's progress, the
    plot, the legend under it and the seed's note.

    Signals
    -------
    requested(dict) : Compute was pressed; the options to compute with.
    """

    requested = Signal(dict)
    WHAT = ""
    NOTE = ""
    SHORTCUT = ""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.options_row = QHBoxLayout()
        self.compute = QPushButton("Compute")
        self.compute.setToolTip(
            f"Compute the {self.WHAT} of the selected run's options on its table, in the "
            f"background ({self.SHORTCUT})"
        )
        self.compute.clicked.connect(self.request)
        self.stop = QPushButton("Cancel")
        self.stop.setToolTip("Stop computing (Esc)")
        self.stop.clicked.connect(self.cancel)
        self.stop.hide()
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setToolTip("How far the computation has got")
        self.progress.hide()
        self.figure = LazyPlot(self._set_up, make=lambda: _Plot(background="w"))
        self.legend = QLabel()
        self.legend.setWordWrap(True)
        self.legend.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.note = QLabel(_grey(self.NOTE))
        self.note.setWordWrap(True)
        self.note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.note.setToolTip("The lecture notes' words for what this view shows (seed 004)")
        row = QHBoxLayout()
        row.addLayout(self.options_row)
        row.addStretch(1)
        row.addWidget(self.compute)
        row.addWidget(self.stop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.progress)
        layout.addWidget(self.figure, 1)
        layout.addWidget(self.legend)
        layout.addWidget(self.note)
        self.job = None
        self.result = None
        self.lines: dict[str, object] = {}

    @property
    def plot(self) -> pg.PlotWidget:
        return self.figure.plot

    @staticmethod
    def _set_up(plot: pg.PlotWidget) -> None:
        plot.setMenuEnabled(False)
        plot.showGrid(x=True, y=True, alpha=0.15)
        plot.getAxis("bottom").enableAutoSIPrefix(False)
        plot.getAxis("left").enableAutoSIPrefix(False)

    def _label(self, option: str, text: str) -> None:
        """``text`` before the input ``option``; its mnemonic (Alt+letter) picks the input:
        no letter of the menu bar's (File, Edit, View, Model, Help)."""
        label = QLabel(text)
        label.setBuddy(getattr(self, option))
        self.options_row.addWidget(label)
        self.options_row.addWidget(getattr(self, option))

    # ------------------------------------------------------------------ the job
    def options(self) -> dict:
        raise NotImplementedError

    def request(self) -> None:
        self.requested.emit(self.options())

    def follow(self, job) -> None:
        """Show ``job``'s progress until it ends; Cancel stops it."""
        self.job = job
        self.compute.setEnabled(False)
        self.stop.show()
        self.progress.setValue(0)
        self.progress.setFormat(f"{job.name}…".replace("%", "%%"))
        self.progress.show()
        job.progress_changed.connect(
            lambda fraction, message, j=job: self._on_progress(j, fraction, message)
        )
        for hook in (job.finished, job.failed, job.cancelled):
            hook.connect(lambda *_, j=job: self._on_ended(j))

    def _on_progress(self, job, fraction: float, message: str) -> None:
        if job is self.job:
            self.progress.setValue(int(1000 * fraction))
            self.progress.setFormat(f"{message} (%p%)" if message else "%p%")

    def _on_ended(self, job) -> None:
        if job is not self.job:
            return
        self.job = None
        self.compute.setEnabled(True)
        self.stop.hide()
        self.progress.hide()

    def cancel(self) -> None:
        if self.job is not None:
            self.job.cancel()

    @property
    def running(self) -> bool:
        return self.job is not None

    # ------------------------------------------------------------------ drawing
    def show_result(self, result, caption: str = "") -> None:
        """Draw ``result`` (None: clear, with ``caption`` saying what to do)."""
        self.result = result
        self.lines = {}
        if result is None:
            if self.figure.built:
                self.plot.clear()
            self.legend.setText(_grey(escape(caption)))
            return
        self.plot.clear()
        self._draw(result, caption)
        self.plot.getViewBox().autoRange(padding=0.05)

    def _draw(self, result, caption: str) -> None:
        raise NotImplementedError

    def _line(self, name: str, x, y, colour: str, symbol: str = "o"):
        self.lines[name] = self.plot.plot(
            x, y, pen=pg.mkPen(colour, width=2), symbol=symbol, symbolSize=6, symbolBrush=colour
        )


class LearningCurveView(CurveView):
    """Training and cross-validated error against the rows trained on, ± one standard
    deviation over the folds."""

    WHAT = "learning curve"
    NOTE = LEARNING_NOTE
    SHORTCUT = "Ctrl+Alt+L"

    def __init__(self, parent=None):
        super().__init__(parent)
        self.folds = _spin(2, 20, 5, "Stratified folds: each holds its rows out once")
        self.steps = _spin(2, 20, 8, "Training sizes, spread evenly up to a fold's training part")
        self._label("folds", "Fo&lds")
        self._label("steps", "Si&zes")

    def options(self) -> dict:
        return {"folds": self.folds.value(), "steps": self.steps.value()}

    def _draw(self, curve, caption: str) -> None:
        plot, x = self.plot, curve.sizes.astype(float)
        plot.setLabel("bottom", "training rows")
        plot.setLabel("left", escape(curve.measure))
        for name, mean, std, colour, symbol in (
            ("training", curve.training_mean, curve.training_std, TRAIN_COLOUR, "o"),
            ("cross-validated", curve.validation_mean, curve.validation_std, TEST_COLOUR, "s"),
        ):
            plot.addItem(
                pg.ErrorBarItem(x=x, y=mean, height=2 * std, beam=0.0, pen=pg.mkPen(colour))
            )
            self._line(name, x, mean, colour, symbol)

        def figure(v: float, digits: int = 4) -> str:
            return f"{v:.{digits}g}" if curve.measure == "RMSE" else f"{100 * v:.1f}%"

        last = len(x) - 1
        self.legend.setText(
            f"{_swatch(TRAIN_COLOUR)}training {figure(curve.training_mean[last])} ± "
            f"{figure(curve.training_std[last], 2)} &nbsp; {_swatch(TEST_COLOUR)}cross-validated "
            f"{figure(curve.validation_mean[last])} ± {figure(curve.validation_std[last], 2)} "
            f"at {int(x[last]):,} rows<br>"
            + _grey(
                f"{escape(caption)}: {curve.folds} folds (seed {curve.seed}); bars: ± one "
                "standard deviation over the folds"
            )
        )


class BiasVarianceView(CurveView):
    """Error, bias, variance and noise against max depth or max leaves, the chosen tree's
    place dashed."""

    WHAT = "bias and variance"
    NOTE = BIAS_VARIANCE_NOTE
    SHORTCUT = "Ctrl+Alt+B"

    def __init__(self, parent=None):
        super().__init__(parent)
        self.vary = QComboBox()
        self.vary.addItem("Max depth", "depth")
        self.vary.addItem("Max leaves", "leaves")
        self.vary.setToolTip("The size the trees are grown to, from small to the unpruned tree's")
        self.resampling = QComboBox()
        self.resampling.addItem("Bootstrap", "bootstrap")
        self.resampling.addItem("Folds", "folds")
        self.resampling.setToolTip(
            "Training sets: bootstrap samples of the training rows, or the training parts "
            "of folds (they overlap more, so their variance is smaller)"
        )
        self.resamples = _spin(2, 200, 20, "How many training sets to train each size on")
        self._label("vary", "Var&y")
        self._label("resampling", "&By")
        self._label("resamples", "Set&s")
        self.keep_pruning = QCheckBox("Keep prunin&g")
        self.keep_pruning.setToolTip(
            "Prune each size's trees as the run's options say. Off: grow them unpruned, so "
            "the size swept is the trees' real complexity (pruning can cut several sizes "
            "back to the same tree)"
        )
        self.options_row.addWidget(self.keep_pruning)

    def options(self) -> dict:
        return {
            "parameter": self.vary.currentData(),
            "resampling": self.resampling.currentData(),
            "resamples": self.resamples.value(),
            "keep_pruning": self.keep_pruning.isChecked(),
        }

    def _draw(self, bv, caption: str) -> None:
        plot = self.plot
        x = np.array(bv.values, dtype=float)
        zero_one = bv.loss == "0-1 loss"
        plot.setLabel("bottom", escape(f"max {bv.parameter}"))
        plot.setLabel("left", escape(bv.loss))
        # Sizes are whole numbers: a tick at each (while they fit), none at 1.5.
        ticks = [[(float(v), str(v)) for v in bv.values]] if len(bv.values) <= 15 else None
        plot.getAxis("bottom").setTicks(ticks)
        names = {
            "error": "error",
            "bias": "bias" if zero_one else "bias²",
            "variance": "net variance" if zero_one else "variance",
            "noise": "c1 × noise" if zero_one else "noise",
        }
        columns = {
            "error": bv.column("error"),
            "bias": bv.column("bias"),
            "variance": bv.column("variance"),
            "noise": bv.column("noise_term"),
        }
        for key, values in columns.items():
            self._line(key, x, values, PART_COLOURS[key], "s" if key == "error" else "o")
        plot.addItem(
            pg.InfiniteLine(
                pos=float(bv.chosen),
                angle=90,
                pen=pg.mkPen(GREY, width=1.5, style=Qt.PenStyle.DashLine),
            )
        )
        k = int(np.argmin(np.abs(x - bv.chosen)))
        figures = " &nbsp; ".join(
            f"{_swatch(PART_COLOURS[key])}{names[key]} {columns[key][k]:.4f}" for key in columns
        )
        how = "bootstrap samples" if bv.resampling == "bootstrap" else "fold training parts"
        noise = (
            f"noise from the {bv.noise_rows:,} test rows that share their values with another"
            if bv.noise_rows
            else "no test row repeats another's values: the noise is counted in the bias"
        )
        nearest = "" if bv.values[k] == bv.chosen else f" (the nearest to the chosen {bv.chosen})"
        domingos = "; Domingos: net variance = unbiased − biased" if zero_one else ""
        pruned = (
            "each size's trees pruned as your options say"
            if bv.keep_pruning
            else "each size's trees grown unpruned"
        )
        self.legend.setText(
            f"{figures} at max {escape(bv.parameter)} {bv.values[k]}{nearest}<br>"
            + _grey(
                f"{escape(caption)}: dashed, the chosen tree (your options: depth "
                f"{bv.chosen_depth}, {bv.chosen_leaves} leaves); {bv.resamples} {how} of "
                f"{bv.train_rows:,} rows, tested on {bv.test_rows:,}; {pruned}; {noise}{domingos}"
            )
        )
