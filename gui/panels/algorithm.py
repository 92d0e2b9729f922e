"""The algorithm panel: every learner option, with the seeds' one-line explanations."""

from __future__ import annotations

from contextlib import contextmanager

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from engine.data.table import NUMERIC
from engine.errors import ArborError
from engine.export.labels import number
from engine.fast.threads import n_threads
from engine.settings import DEFAULTS, OPTIONS, resolve, why_nots
from gui.panels.cost_matrix_editor import CostsField
from gui.plain_text import plain_label

#: Tooltips: the options table's, plus the panel's own cross-validation folds.
TIPS = {o.name: o.help for o in OPTIONS if o.name != "max_bins"} | {
    "cv_folds": "Evaluate by stratified k-fold cross-validation after training (0 = skip)",
    "weka_folds": "Deal the folds exactly as Weka's -x K -s SEED does, so the accuracy can be set "
    "beside J48's fold for fold (otherwise Arbor deals its own stratified folds)",
}

#: Optional options whose "no limit" is a check box of their own (the spin box starts at
#: the option's real minimum): the option's name, the check box's attribute.
NO_LIMIT_BOXES = {"max_depth": "no_depth_limit", "max_leaves": "no_leaf_limit"}

#: Shorter item texts for the options table's longest labels, so that the combo boxes show
#: them whole in the dock of a 1024x700 window; the item's tooltip keeps the full label.
SHORT_LABELS = {
    "Entropy (information gain)": "Entropy",
    "Pessimistic (C4.5)": "Pessimistic",
    "Cost-complexity (CART)": "Cost-complexity",
    "Normal approximation (J48)": "Normal (J48)",
    "Histogram (binned)": "Histogram",
    "Fractional (C4.5)": "Fractional",
    "Majority branch": "Majority",
    "Surrogate splits (rpart)": "Surrogates",
}


class Choice(QComboBox):
    """A combo box that shows the options table's labels ("C4.5"), shortened where long
    (:data:`SHORT_LABELS`, the full label in the item's tooltip), and hands back its values ("c45")."""

    def __init__(self, name: str):
        super().__init__()
        option = next(o for o in OPTIONS if o.name == name)
        for choice in option.choices:
            self.addItem(SHORT_LABELS.get(choice.label, choice.label), choice.value)
            tip = choice.help
            if choice.label in SHORT_LABELS:
                tip = f"{choice.label}: {choice.help}" if choice.help else choice.label
            if tip:
                self.setItemData(self.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(
            6
        )  # a narrow dock elides the label instead of scrolling sideways

    def value(self) -> str:
        return self.currentData()

    def set_value(self, value) -> None:
        index = self.findData(value)
        if index >= 0:
            self.setCurrentIndex(index)


class CountBox(QDoubleSpinBox):
    """A count of rows: whole counts read "2", not "2.0"; a weighted one keeps its fraction
    (rows with missing values reach a node as fractions)."""

    def textFromValue(self, value: float) -> str:  # noqa: N802 - Qt override
        return number(round(value, self.decimals()))


class AlgorithmPanel(QWidget):
    """Learner options; :meth:`bind` keeps the controller's options equal to the form's.

    Signals
    -------
    params_changed() : any option changed.
    switch_requested(str) : the user accepted a suggested algorithm (e.g. C4.5 for numeric data).
    """

    params_changed = Signal()
    switch_requested = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._kinds: dict[str, str] = {}
        self._target: str | None = None
        self._holding = 0  # inside _changes_at_once: one reaction when it ends
        self.algorithm = Choice("algorithm")
        self.task = Choice("task")
        self.criterion = Choice("criterion")
        self.missing = Choice("missing")
        # 0 is a real depth (a single leaf, to build the tree by hand); "no limit" is a box of
        # its own, not the step below 0 that a slip of the arrow key reached (issue 30).
        # (5 waits greyed while there is no limit, a depth to start from when the box is unticked.)
        self.max_depth = QSpinBox(minimum=0, maximum=10_000, value=5)
        self.no_depth_limit = QCheckBox("No depth limit")
        self.no_depth_limit.setChecked(True)
        self.no_depth_limit.setToolTip(
            "Grow as deep as the data allows (the command line's default; "
            "--max-depth N sets a limit, 0 a single leaf)"
        )
        self.max_depth.setEnabled(False)
        # A depth typed or set is meant as a limit: the box ticks itself off.
        self.max_depth.valueChanged.connect(lambda *_: self.no_depth_limit.setChecked(False))
        self.min_samples_split = CountBox(maximum=1e9, decimals=1, value=2)
        self.min_samples_leaf = CountBox(maximum=1e9, decimals=1, value=2)
        self.min_gain = QDoubleSpinBox(maximum=100, decimals=4, singleStep=0.01)
        # Likewise max leaves: its box starts at the engine's minimum, 2 (a "limit" of 1 would
        # not train), and "no limit" is a box of its own, not the 0 two steps below it (issue 30).
        self.max_leaves = QSpinBox(minimum=2, maximum=1_000_000, value=8)
        self.no_leaf_limit = QCheckBox("No leaf limit")
        self.no_leaf_limit.setChecked(True)
        self.no_leaf_limit.setToolTip(
            "Grow as many leaves as the data allows (the command line's default; "
            "--max-leaves N sets a limit of at least 2)"
        )
        self.max_leaves.setEnabled(False)
        self.max_leaves.valueChanged.connect(lambda *_: self.no_leaf_limit.setChecked(False))
        self.growth = Choice("growth")
        self.priority = Choice("priority")
        # Seed 004's word for each, so a student can find it in the notes.
        self.priority_note = plain_label("ΔI: the gain of a leaf's best split (seed 004)")
        self.priority_note.setWordWrap(True)
        self.laplace = QCheckBox("Laplace correction")
        # 0 is "off" (the engine's None), the step below the smallest real M.
        self.m_estimate = QDoubleSpinBox(maximum=1e6, decimals=2, singleStep=1.0)
        self.m_estimate.setSpecialValueText("off")
        self.pseudocount_note = plain_label(
            "Pseudocounts (seed 004): rows added from prior knowledge before a leaf's class "
            "shares become probabilities"
        )
        self.pseudocount_note.setWordWrap(True)
        self.splitter = Choice("splitter")
        # A line each, read when the edit is finished (not per keystroke, which would regrow).
        self.class_weight = QLineEdit(placeholderText="none: balanced or NAME=W,...")
        self.priors = QLineEdit(placeholderText="none: NAME=P,... adding up to 1")
        self._doc = None  # the table's document, once bound: the cost editor's classes
        self.costs = CostsField(self._table_classes)
        # Optimal trees: 0 (shown as "none") searches to the end, as the command line's default.
        self.time_limit = QDoubleSpinBox(minimum=0, decimals=1, singleStep=1.0)
        self.time_limit.setSpecialValueText("none")
        cores = n_threads(0)
        self.threads = QSpinBox(minimum=0, maximum=256, value=0)
        self.threads.setSpecialValueText(f"every core ({cores})")
        self.prune = Choice("prune")
        self.confidence = QDoubleSpinBox(
            minimum=0.001, maximum=0.5, decimals=3, singleStep=0.05, value=0.25
        )
        self.subtree_raising = QCheckBox("Subtree raising")
        self.subtree_raising.setChecked(True)
        self.error_estimate = Choice("error_estimate")
        self.alpha = QDoubleSpinBox(maximum=1e6, decimals=5, singleStep=0.001)
        self.ccp_measure = Choice("ccp_measure")
        self.cv_alpha = QSpinBox(maximum=100, specialValueText="off")
        self.one_se = QCheckBox("One-standard-error rule")
        self.holdout = QDoubleSpinBox(
            minimum=0.05, maximum=0.9, decimals=2, singleStep=0.05, value=0.33
        )
        self.cv_folds = QSpinBox(maximum=100, value=10, specialValueText="off")
        self.seed = QSpinBox(maximum=2**31 - 1, value=1)
        self.weka_folds = QCheckBox("Weka's folds")
        self.message = plain_label()  # a problem may name a column
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #B42318;")
        self.switch_button = QPushButton("Switch to C4.5")
        self.switch_button.hide()
        self.switch_button.clicked.connect(lambda: self.switch_requested.emit("c45"))
        self.switch_requested.connect(self.algorithm.set_value)

        groups = [
            (
                "Algorithm",
                [
                    ("Algorithm", self.algorithm),
                    ("Task", self.task),
                    ("Criterion", self.criterion),
                    ("", self.laplace),
                    ("m-estimate", self.m_estimate),
                    ("", self.pseudocount_note),
                    ("Class weights", self.class_weight),
                    ("Priors", self.priors),
                    ("Costs", self.costs),
                    ("Missing values", self.missing),
                ],
            ),
            # "No depth limit" on a row of its own: beside the depth it widened the dock at 1024 px.
            (
                "Growth",
                [
                    ("Max depth", self.max_depth),
                    ("", self.no_depth_limit),
                    ("Min samples to split", self.min_samples_split),
                    ("Min samples per leaf", self.min_samples_leaf),
                    ("Min gain (tau)", self.min_gain),
                    ("Max leaves", self.max_leaves),
                    ("", self.no_leaf_limit),
                    ("Order", self.growth),
                    ("Queue key", self.priority),
                    ("", self.priority_note),
                    ("Numeric search", self.splitter),
                    ("Time limit (s)", self.time_limit),
                    ("Threads", self.threads),
                ],
            ),
            (
                "Pruning",
                [
                    ("Method", self.prune),
                    ("Confidence", self.confidence),
                    ("", self.subtree_raising),
                    ("Error bound", self.error_estimate),
                    ("Alpha", self.alpha),
                    ("Alpha measure", self.ccp_measure),
                    ("CV folds for alpha", self.cv_alpha),
                    ("", self.one_se),
                    ("Holdout share", self.holdout),
                ],
            ),
            (
                "Evaluation",
                [
                    ("Cross-validation folds", self.cv_folds),
                    ("Seed", self.seed),
                    ("", self.weka_folds),
                ],
            ),
        ]
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        for title, rows in groups:
            box = QGroupBox(title)
            form = QFormLayout(box)
            for label, widget in rows:
                form.addRow(label, widget) if label else form.addRow(widget)
            layout.addWidget(box)
        layout.addWidget(self.message)
        layout.addWidget(self.switch_button)
        layout.addStretch(1)
        for name, tip in TIPS.items():
            getattr(self, name).setToolTip(tip)
        self.priority_note.setToolTip("Seed 004, Algorithm 3: the priority queue of leaves")
        self.pseudocount_note.setToolTip(
            "Seed 004: add data based on prior knowledge to avoid over-fitting; Laplace adds "
            "one row per class, an m-estimate M rows spread as the classes are"
        )
        self._fit_ranges_to_the_table()
        self.algorithm.currentTextChanged.connect(self._on_algorithm_changed)
        self.task.currentTextChanged.connect(self._on_algorithm_changed)
        for widget in self._widgets():
            signal = (
                getattr(widget, "currentTextChanged", None)
                or getattr(widget, "valueChanged", None)
                or getattr(widget, "editingFinished", None)
                or widget.toggled
            )
            signal.connect(self._on_changed)
        self._apply_defaults()

    def bind(self, controller) -> None:
        """Tell ``controller`` every change of options; show a project's options and the table's kinds."""
        from dataclasses import asdict

        doc = self._doc = controller.doc

        def tell() -> None:
            controller.set_options(self.params(), *self.cv_settings())

        def kinds() -> None:
            self.set_table_kinds(doc.kinds, doc.target)

        self.params_changed.connect(tell)
        controller.options_loaded.connect(lambda settings: self.set_params(asdict(settings)))
        doc.reset.connect(kinds)
        doc.columns_changed.connect(kinds)
        tell()

    def _table_classes(self) -> tuple[str, ...]:
        """The table's target classes (empty: no table, or a numeric target)."""
        if self._doc is None or not self._doc.target:
            return ()
        from engine.data.summary import class_codes

        try:
            return class_codes(self._doc.snapshot())[0] or ()
        except (ArborError, KeyError, ValueError):
            return ()

    def _fit_ranges_to_the_table(self) -> None:
        """Spin boxes offer what the options table allows (optional options keep their
        "no limit"/"off" value below the range, but for those with a box of their own)."""
        for option in OPTIONS:
            widget = getattr(self, option.name, None)
            if not isinstance(widget, QSpinBox | QDoubleSpinBox):
                continue
            if isinstance(widget, QDoubleSpinBox):
                widget.setDecimals(option.decimals)
                widget.setSingleStep(option.step)
            top = option.high if option.high is not None else option.widget_high
            if top is not None:
                widget.setMaximum(top)
            if option.low is not None and (not option.optional or option.name in NO_LIMIT_BOXES):
                widget.setMinimum(option.low + (10.0**-option.decimals if option.low_open else 0))

    def _widgets(self):
        return [
            self.algorithm,
            self.task,
            self.criterion,
            self.class_weight,
            self.priors,
            self.costs,
            self.max_depth,
            self.no_depth_limit,
            self.min_samples_split,
            self.min_samples_leaf,
            self.min_gain,
            self.max_leaves,
            self.no_leaf_limit,
            self.growth,
            self.priority,
            self.laplace,
            self.m_estimate,
            self.missing,
            self.splitter,
            self.time_limit,
            self.threads,
            self.prune,
            self.confidence,
            self.subtree_raising,
            self.error_estimate,
            self.alpha,
            self.ccp_measure,
            self.cv_alpha,
            self.one_se,
            self.holdout,
            self.cv_folds,
            self.seed,
            self.weka_folds,
        ]

    # ------------------------------------------------------------------ values
    def params(self) -> dict:
        return {
            "algorithm": self.algorithm.value(),
            "task": self.task.value(),
            "criterion": self.criterion.value(),
            "max_depth": None if self.no_depth_limit.isChecked() else self.max_depth.value(),
            "min_samples_split": self.min_samples_split.value(),
            "min_samples_leaf": self.min_samples_leaf.value(),
            "min_gain": self.min_gain.value(),
            "max_leaves": None if self.no_leaf_limit.isChecked() else self.max_leaves.value(),
            "growth": self.growth.value(),
            "priority": self.priority.value(),
            "laplace": self.laplace.isChecked(),
            "m_estimate": self.m_estimate.value() or None,
            "class_weight": self.class_weight.text().strip() or None,
            "priors": self.priors.text().strip() or None,
            "costs": self.costs.value(),
            "missing": self.missing.value(),
            "splitter": self.splitter.value(),
            "time_limit": self.time_limit.value() or None,
            "threads": self.threads.value(),
            "prune": self.prune.value(),
            "confidence": self.confidence.value(),
            "subtree_raising": self.subtree_raising.isChecked(),
            "error_estimate": self.error_estimate.value(),
            # With folds to choose it, alpha is theirs to choose: the box's value is not used.
            "alpha": None if self.cv_alpha.value() else self.alpha.value(),
            "ccp_measure": self.ccp_measure.value(),
            "cv_alpha": self.cv_alpha.value() or None,
            "one_se": self.one_se.isChecked(),
            "holdout": self._shown_default(self.holdout, "holdout"),
            "seed": self.seed.value(),
        }

    def _shown_default(self, box: QDoubleSpinBox, name: str) -> float:
        """The box's value, or the option's default where the box shows it rounded (1/3
        shows as 0.33): the window then prunes as the command line does by default."""
        value, exact = box.value(), DEFAULTS[self.algorithm.value()][name]
        return exact if round(exact, box.decimals()) == value else value

    def set_params(self, params: dict) -> None:
        with self._changes_at_once():
            self.blockSignals(True)
            if "max_depth" in params:  # None is "no limit", said by its own box
                self.no_depth_limit.setChecked(params["max_depth"] is None)
            if "max_leaves" in params:
                self.no_leaf_limit.setChecked(params["max_leaves"] is None)
            if "m_estimate" in params and params["m_estimate"] is None:
                self.m_estimate.setValue(0)  # "off"
            for name, value in params.items():
                widget = getattr(self, name, None)
                if isinstance(widget, CostsField):  # None: no costs
                    widget.setValue(value)
                    continue
                if isinstance(widget, QLineEdit):  # None: the line is empty
                    widget.setText("" if value is None else str(value))
                    continue
                if widget is None or value is None:
                    continue
                if isinstance(widget, Choice):
                    widget.set_value(str(value))
                elif isinstance(widget, QLineEdit):
                    widget.setText(str(value))
                elif isinstance(widget, QCheckBox):
                    widget.setChecked(bool(value))
                else:
                    widget.setValue(value)
            self.blockSignals(False)

    def cv_settings(self) -> tuple[int, int, bool]:
        """(cross-validation folds, seed, Weka's folds) for the evaluation after training."""
        return self.cv_folds.value(), self.seed.value(), self.weka_folds.isChecked()

    def set_table_kinds(self, kinds: dict[str, str], target: str | None) -> None:
        self._kinds, self._target = dict(kinds), target
        self._on_changed()

    # ------------------------------------------------------------------ reactions
    def _apply_defaults(self) -> None:
        with self._changes_at_once():
            defaults = DEFAULTS[self.algorithm.value()]
            self.criterion.set_value(
                defaults["criterion"] if self.task.value() == "classification" else "squared_error"
            )
            self.min_samples_leaf.setValue(defaults["min_samples_leaf"])
            if self.algorithm.value() != "cart":  # whole-row routing is CART's (binary splits)
                self.missing.set_value(defaults["missing"])
            self.prune.set_value(defaults["prune"])
            # CART: alpha by 10-fold CV, one-SE rule
            self.cv_alpha.setValue(defaults["cv_alpha"] or 0)
            self.one_se.setChecked(bool(defaults["one_se"]))
            if defaults["max_depth"] is not None:  # optimal trees: a depth of their own, 3
                self.max_depth.setValue(defaults["max_depth"])
                self.no_depth_limit.setChecked(False)

    def _on_algorithm_changed(self, _text: str) -> None:
        self._apply_defaults()

    def problem(self) -> str | None:
        """Why the current options cannot train, or None."""
        try:
            resolve(**self.params())
        except ArborError as err:
            return str(err)
        if self.algorithm.value() == "id3":
            numeric = [n for n, k in self._kinds.items() if k == NUMERIC and n != self._target]
            if numeric:
                return (
                    f"ID3 handles nominal attributes only, and {numeric[0]!r} is numeric: switch to "
                    "C4.5 or CART, or make the column nominal"
                )
        return None

    @contextmanager
    def _changes_at_once(self):
        """Set several options, then react once: a reaction works out every option's state
        (and tells the controller), and a new algorithm's defaults made seven of them."""
        self._holding += 1
        try:
            yield
        finally:
            self._holding -= 1
        if not self._holding:
            self._on_changed()

    def _on_changed(self, *_) -> None:
        if self._holding:
            return
        algorithm = self.algorithm.value()
        reasons = why_nots(self.params())  # the table says where each option applies
        for name, reason in reasons.items():
            widget = getattr(self, name, None)
            if widget is not None and name != "algorithm":
                self._enable(widget, reason is None, reason)
        self._enable(self.weka_folds, self.cv_folds.value() > 0, "cross-validation is off")
        self.no_depth_limit.setEnabled(self.max_depth.isEnabled() and algorithm != "optimal")
        if algorithm == "optimal":
            self._enable(self.no_depth_limit, False, "optimal trees search a depth of at most 4")
            if self.no_depth_limit.isChecked():
                self.no_depth_limit.setChecked(False)
        if self.no_depth_limit.isChecked() and self.max_depth.isEnabled():
            self._enable(self.max_depth, False, "No depth limit is ticked")
        self.no_leaf_limit.setEnabled(self.max_leaves.isEnabled())
        if self.no_leaf_limit.isChecked() and self.max_leaves.isEnabled():
            self._enable(self.max_leaves, False, "No leaf limit is ticked")
        problem = self.problem()
        self.message.setText(problem or "")
        self.switch_button.setVisible(
            bool(problem) and "numeric" in (problem or "") and algorithm == "id3"
        )
        self.params_changed.emit()

    @staticmethod
    def _enable(widget, on: bool, reason: str) -> None:
        widget.setEnabled(on)
        base = widget.toolTip().split("\n(disabled")[0]
        widget.setToolTip(base if on else f"{base}\n(disabled: {reason})")

    # ------------------------------------------------------------------ persistence
    def save(self, settings: QSettings) -> None:
        for name, value in self.params().items():
            settings.setValue(f"learner/{name}", "" if value is None else value)
        settings.setValue("learner/cv_folds", self.cv_folds.value())
        settings.setValue("learner/weka_folds", self.weka_folds.isChecked())

    def restore(self, settings: QSettings) -> None:
        params = {}
        for name in [*self.params(), "cv_folds", "weka_folds"]:
            value = settings.value(f"learner/{name}")
            if value == "" and name in NO_LIMIT_BOXES:
                params[name] = None  # saved as "no limit": its box ticked
                continue
            if value in (None, ""):
                continue
            widget = getattr(self, name)
            if isinstance(widget, QCheckBox):
                value = value in (True, "true", "1", 1)
            elif isinstance(widget, QSpinBox):
                value = int(float(value))
            elif isinstance(widget, QDoubleSpinBox):
                value = float(value)
            params[name] = value
        with self._changes_at_once():  # the algorithm's defaults, then the options kept
            if params.get("algorithm"):
                self.algorithm.set_value(params["algorithm"])
            self.set_params(params)
