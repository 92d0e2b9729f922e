"""Every command of the window in one table: text, shortcut, tip, handler and when it is enabled.

A handler is a function of the window (``lambda w: w.files.open_dialog()``), and so is the
condition that enables an action; :class:`Window` says what they may reach, so a reader (or an
editor's "go to definition") follows each one to the method it calls. The menus and the
toolbar list action names; :func:`build_actions` makes the ``QAction`` objects and
:func:`update_enabled` switches them on and off as the controller's state changes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from PySide6.QtGui import QAction, QKeySequence

if TYPE_CHECKING:
    from gui.canvas.find_bar import FindBar
    from gui.canvas.tree_canvas import TreeCanvas
    from gui.controller import Controller
    from gui.panels.data import TablePanel
    from gui.panels.growth import GrowthPanel
    from gui.panels.runs import RunsPanel
    from gui.presenting import Presenter
    from gui.session.evaluating import Evaluating
    from gui.session.exports import Exports
    from gui.session.files import FileActions
    from gui.session.large_data import LargeData
    from gui.session.regrow import RegrowOnEdit
    from gui.side_bar import SideBar
    from gui.side_by_side import SideBySide
    from gui.stability_marks import StabilityMarks
    from gui.table.document import DataDocument
    from gui.table.table_edits import TableEdits
    from gui.theme import Theme
    from gui.workspaces import Workspaces

K = QKeySequence.StandardKey


class Window(Protocol):
    """What the actions reach on the main window: its parts, and its own commands."""

    controller: Controller
    doc: DataDocument
    canvas: TreeCanvas
    table: TablePanel
    runs: RunsPanel
    growth: GrowthPanel
    docks: dict
    find_bar: FindBar
    files: FileActions
    exports: Exports
    large: LargeData
    side_by_side: SideBySide
    side_bar: SideBar
    stability_marks: StabilityMarks
    regrow: RegrowOnEdit
    evaluating: Evaluating
    table_edits: TableEdits
    workspaces: Workspaces
    presenter: Presenter
    theme: Theme
    act: dict[str, QAction]

    def close(self) -> bool: ...
    def train(self) -> None: ...
    def find_in_tree(self) -> None: ...
    def expand_all(self) -> None: ...
    def toggle_orientation(self) -> None: ...
    def set_node_labels(self) -> None: ...
    def toggle_ghosts(self) -> None: ...
    def pin_selected(self) -> None: ...
    def evaluate_split(self) -> None: ...
    def compute_curve(self, kind: str) -> None: ...
    def draw_split(self) -> None: ...
    def train_split(self) -> None: ...
    def compare_runs(self) -> None: ...
    def set_train_at_start(self) -> None: ...
    def show_shortcuts(self) -> None: ...
    def open_guide(self) -> bool: ...
    def about(self) -> None: ...


#: A handler or a condition: a function of the window.
OnWindow = Callable[[Window], object]


@dataclass(frozen=True)
class Spec:
    """One action: ``handler`` runs it (None: a checkable option read where it is used);
    ``enabled_when`` says when it may (None: always)."""

    name: str
    text: str
    handler: OnWindow | None
    shortcuts: tuple = ()
    tip: str = ""
    enabled_when: OnWindow | None = None
    checkable: bool = False


# When an action is enabled, read off the window.
def tree_shown(w: Window) -> bool:
    return w.controller.tree is not None


def cancellable(w: Window) -> bool:
    return w.controller.busy or w.stability_marks.busy


def cancel(w: Window) -> None:
    """Esc: the window's job, or else the tree's stability worked out beside it."""
    if w.controller.busy:
        w.controller.cancel()
    else:
        w.stability_marks.cancel()


def queued(w: Window) -> bool:
    return bool(w.controller.queued)


def run_selected(w: Window) -> bool:
    return w.controller.selected_run >= 0


def two_runs(w: Window) -> bool:
    return len(w.controller.runs) >= 2


def presenting(w: Window) -> bool:
    return w.presenter.active


def exam_mode(w: Window) -> None:
    """Exam mode on or off, as its check says; on, the Growth panel comes to the front (over
    the tree when the panels are collapsed to the side bar, as any command's panel does)."""
    on = w.act["exam_mode"].isChecked()
    w.growth.set_exam(on)
    if on and "Growth" in w.docks:
        w.side_bar.bring("Growth")


def can_undo(w: Window) -> bool:
    return w.controller.doc.undo_stack.canUndo()


def can_redo(w: Window) -> bool:
    return w.controller.doc.undo_stack.canRedo()


ACTIONS = (
    Spec("new", "&New table", lambda w: w.files.new_table(), (K.New,), "Start an empty table"),
    Spec(
        "open",
        "&Open…",
        lambda w: w.files.open_dialog(),
        (K.Open,),
        "Open a data file (CSV, TSV, ARFF, Excel, Parquet)",
    ),
    Spec(
        "open_large",
        "Open &large dataset…",
        lambda w: w.large.open_dialog(),
        ("Ctrl+Shift+L",),
        "Open a Parquet file too large to load: preview its first rows and train on all of "
        "them through Dask",
    ),
    Spec(
        "open_large_folder",
        "Open large dataset fol&der…",
        lambda w: w.large.open_folder_dialog(),
        (),
        "Open a folder of Parquet files as one dataset: preview it and train through Dask",
    ),
    Spec("save", "&Save", lambda w: w.files.save(), (K.Save,), "Save the table"),
    Spec(
        "save_as",
        "Save &as…",
        lambda w: w.files.save_as(),
        ("Ctrl+Shift+S",),
        "Save the table under another name",
    ),
    Spec(
        "open_project",
        "Open &project…",
        lambda w: w.files.open_project_dialog(),
        (),
        "Open a saved session: table, settings, tree and layout",
    ),
    Spec(
        "save_project",
        "Save p&roject…",
        lambda w: w.files.save_project_dialog(),
        ("Ctrl+Shift+P",),
        "Save the table, settings, tree and layout in one file",
    ),
    Spec(
        "export_image",
        "Export &image…",
        lambda w: w.exports.export_image(),
        ("Ctrl+E",),
        "Save the whole tree as PNG, SVG or PDF, drawn as on the canvas",
        tree_shown,
    ),
    Spec(
        "export_slide",
        "Export image for a s&lide…",
        lambda w: w.exports.export_slide(),
        ("Ctrl+Alt+E",),
        "Save the whole tree on a 16:9 page 10 inches wide, with type large enough for a slide",
        tree_shown,
    ),
    Spec(
        "copy_image",
        "Copy image",
        lambda w: w.exports.copy_image(),
        ("Ctrl+Shift+C",),
        "Copy the whole tree as a picture",
        tree_shown,
    ),
    Spec(
        "transparent",
        "Transparent background",
        None,
        (),
        "Exported and copied images get no background",
        checkable=True,
    ),
    Spec(
        "export_dark",
        "Export in the dark theme",
        lambda w: w.theme.set_export_dark(w.act["export_dark"].isChecked()),
        (),
        "Exported and copied images are drawn in the dark theme while it is on (off: always "
        "light, for a white page)",
        checkable=True,
    ),
    Spec(
        "export_rules",
        "Export &rules…",
        lambda w: w.exports.export_file("rules"),
        (),
        "Save the tree as IF-THEN rules",
        tree_shown,
    ),
    Spec(
        "export_python",
        "Export P&ython function…",
        lambda w: w.exports.export_file("python"),
        (),
        "Save the tree as a Python function",
        tree_shown,
    ),
    Spec(
        "export_pmml",
        "Export PM&ML…",
        lambda w: w.exports.export_file("pmml"),
        (),
        "Save the tree as PMML",
        tree_shown,
    ),
    Spec(
        "export_dot",
        "Export &DOT…",
        lambda w: w.exports.export_file("dot"),
        (),
        "Save the tree for Graphviz",
        tree_shown,
    ),
    Spec(
        "export_html",
        "Export &interactive page…",
        lambda w: w.exports.export_page(),
        ("Ctrl+Alt+H",),
        "Save the tree as one self-contained HTML page that works offline: collapse and expand "
        "subtrees, search, hover a node for its counts and rule, and type a row to light its "
        "path and see the class probabilities",
        tree_shown,
    ),
    Spec(
        "export_sql",
        "Export SQL q&uery…",
        lambda w: w.exports.export_sql(),
        (),
        "Save the tree as one SQL SELECT (SQLite, PostgreSQL or DuckDB) that adds the class "
        "probabilities and the predicted class to every row of a table named data; NULLs are "
        "routed as Arbor routes missing values",
        tree_shown,
    ),
    Spec(
        "export_onnx",
        "Export ONN&X model…",
        lambda w: w.exports.export_file("onnx"),
        (),
        "Save the tree as an ONNX model (a tree ensemble of one tree) for ONNX Runtime and "
        "serving tools; it sends a missing value down the branch most training rows took",
        tree_shown,
    ),
    Spec(
        "export_model",
        "Export &model (JSON)…",
        lambda w: w.exports.export_model(),
        (),
        "Save the tree and its settings as JSON (python main.py predict reads it)",
        tree_shown,
    ),
    Spec(
        "worksheet",
        "&Worksheet…",
        lambda w: w.exports.export_worksheet(),
        (),
        "Save a printable worksheet (PDF) for a class: a small random table, questions on its "
        "entropies, gains and splits, and the answer key with every number Arbor computes",
    ),
    Spec("quit", "&Quit", lambda w: w.close(), (K.Quit,), "Close Arbor"),
    Spec("undo", "&Undo", lambda w: w.doc.undo_stack.undo(), (K.Undo,), "Undo", can_undo),
    Spec("redo", "&Redo", lambda w: w.doc.undo_stack.redo(), (K.Redo,), "Redo", can_redo),
    Spec(
        "copy",
        "&Copy cells",
        lambda w: w.table.copy_selection(),
        (K.Copy,),
        "Copy the selected cells",
    ),
    Spec(
        "paste",
        "&Paste cells",
        lambda w: w.table.paste(),
        (K.Paste,),
        "Paste cells at the current one",
    ),
    Spec(
        "missing",
        "Set &missing",
        lambda w: w.table.set_selection_missing(),
        ("Del",),
        "Make the selected cells missing",
    ),
    Spec(
        "insert_row",
        "Insert row",
        lambda w: w.table_edits.insert_row(),
        ("Ctrl+I",),
        "Insert a row below the current one",
    ),
    Spec(
        "delete_rows",
        "Delete rows",
        lambda w: w.table_edits.delete_selected_rows(),
        ("Ctrl+Shift+Del",),
        "Delete the selected rows",
    ),
    Spec(
        "duplicate_rows",
        "Duplicate rows",
        lambda w: w.table_edits.duplicate_selected_rows(),
        ("Ctrl+D",),
        "Duplicate the selected rows",
    ),
    Spec(
        "find",
        "&Find in tree…",
        lambda w: w.find_in_tree(),
        (K.Find,),
        "Find nodes by attribute, value or class in the whole tree (a bar above the canvas)",
        tree_shown,
    ),
    Spec(
        "find_next",
        "Find next",
        lambda w: w.find_bar.next(),
        (K.FindNext,),
        "Open and show the next match",
        tree_shown,
    ),
    Spec(
        "find_previous",
        "Find previous",
        lambda w: w.find_bar.previous(),
        (K.FindPrevious,),
        "Open and show the previous match",
        tree_shown,
    ),
    Spec("zoom_in", "Zoom &in", lambda w: w.canvas.zoom_in(), (K.ZoomIn,), "Zoom in"),
    Spec("zoom_out", "Zoom &out", lambda w: w.canvas.zoom_out(), (K.ZoomOut,), "Zoom out"),
    Spec(
        "fit",
        "&Fit tree",
        lambda w: w.canvas.fit_to_window(),
        ("Ctrl+0",),
        "Fit the tree to the window",
    ),
    Spec(
        "reset_layout",
        "&Reset layout",
        lambda w: w.canvas.reset_layout(),
        (),
        "Put dragged nodes back",
        tree_shown,
    ),
    Spec(
        "expand_all",
        "&Expand all",
        lambda w: w.expand_all(),
        ("Ctrl+Shift+E",),
        "Show every node of the tree (a big tree opens with its top levels)",
        tree_shown,
    ),
    Spec(
        "orientation",
        "Left to right",
        lambda w: w.toggle_orientation(),
        (),
        "Draw the tree from left to right",
        checkable=True,
    ),
    Spec(
        "label_n",
        "&Rows (n = 16)",
        lambda w: w.set_node_labels(),
        (),
        "Nodes show how many rows reach them",
        checkable=True,
    ),
    Spec(
        "label_weka",
        "Rows/&errors, as Weka: (16.0/1.0)",
        lambda w: w.set_node_labels(),
        (),
        "Nodes show their weight and the training errors they make as a leaf",
        checkable=True,
    ),
    Spec(
        "label_counts",
        "Class &counts",
        lambda w: w.set_node_labels(),
        (),
        "Nodes show the rows of each class",
        checkable=True,
    ),
    Spec(
        "label_percent",
        "Class &percentages",
        lambda w: w.set_node_labels(),
        (),
        "Nodes show the share of each class",
        checkable=True,
    ),
    Spec(
        "label_bar",
        "Class distribution &bar",
        lambda w: w.set_node_labels(),
        (),
        "Nodes show their classes as a coloured bar",
        checkable=True,
    ),
    Spec(
        "label_plots",
        "Node p&lots",
        lambda w: w.set_node_labels(),
        ("Ctrl+Shift+H",),
        "Nodes show a small plot of their rows: the split attribute's histogram by class with "
        "the cut, bars per category, the target against the attribute, or a leaf's classes",
        checkable=True,
    ),
    Spec(
        "label_test",
        "&Test rows (train 9 · 2 wrong | test 5 · 1 wrong)",
        lambda w: w.set_node_labels(),
        ("Ctrl+Shift+T",),
        "Nodes show their training and test rows and the errors they make on each as a leaf, "
        "once a tree is evaluated on a test file (Model > Evaluate on a test file); or "
        "cross-validation's held-out rows (Results: Show the held-out rows on the tree), "
        "each scored by its out-of-fold prediction",
        checkable=True,
    ),
    Spec(
        "ghosts",
        "Show what pruning &cut",
        lambda w: w.toggle_ghosts(),
        ("Ctrl+G",),
        "Draw the subtrees pruning removed, faintly, below the leaves it left (C4.5 and "
        "reduced-error pruning)",
        tree_shown,
        checkable=True,
    ),
    Spec(
        "workspace_learn",
        "&Learn",
        lambda w: w.workspaces.switch("Learn"),
        ("Ctrl+1",),
        "Learn workspace: the data, growing step by step, the inspector and the pruning "
        "walk-through (each workspace keeps its own panel arrangement)",
        checkable=True,
    ),
    Spec(
        "workspace_analyse",
        "&Analyse",
        lambda w: w.workspaces.switch("Analyse"),
        ("Ctrl+2",),
        "Analyse workspace: the algorithm's options, results, runs and evaluation (each "
        "workspace keeps its own panel arrangement)",
        checkable=True,
    ),
    Spec(
        "workspace_present",
        "Pr&esent",
        lambda w: w.workspaces.switch("Present"),
        ("Ctrl+3",),
        "Present workspace: the canvas alone (View > Present full screen, F11, presents it)",
        checkable=True,
    ),
    Spec(
        "reset_workspace",
        "Reset &panels",
        lambda w: w.workspaces.reset(),
        ("Ctrl+Shift+0",),
        "Put this workspace's panels back where they start, forgetting how they were moved",
    ),
    Spec(
        "collapse_panels",
        "&Collapse panels to a side bar",
        lambda w: w.side_bar.set_collapsed(w.act["collapse_panels"].isChecked()),
        ("Ctrl+Shift+B",),
        "Panels as buttons on the window's right edge, each shown over the tree when clicked "
        "(Alt+1, Alt+2, ... in the bar's order), so the tree keeps the room (on by itself on a "
        "small window)",
        checkable=True,
    ),
    Spec(
        "present",
        "&Present full screen",
        lambda w: w.presenter.toggle(),
        ("F11",),
        "The tree alone, full screen, with type and colours for a projector; Page Down and "
        "Page Up step growth and pruning (a remote clicker's keys), Space plays; F11 again leaves",
        checkable=True,
    ),
    Spec(
        "present_next",
        "Next step",
        lambda w: w.presenter.next(),
        ("PgDown", "Right"),
        "Presenting: grow one split; once grown, the next pruning decision",
        presenting,
    ),
    Spec(
        "present_back",
        "Step back",
        lambda w: w.presenter.back(),
        ("PgUp", "Left"),
        "Presenting: one growth step or pruning decision back",
        presenting,
    ),
    Spec(
        "present_play",
        "Play or pause growth",
        lambda w: w.presenter.play(),
        ("Space",),
        "Presenting: keep growing at the Growth panel's speed, or pause",
        presenting,
    ),
    Spec(
        "theme_system",
        "As the &system",
        lambda w: w.theme.choose("system"),
        (),
        "Light or dark as the desktop is (the canvas and plots follow it; exports stay light)",
        checkable=True,
    ),
    Spec(
        "theme_light",
        "&Light",
        lambda w: w.theme.choose("light"),
        (),
        "The light theme, whatever the desktop's",
        checkable=True,
    ),
    Spec(
        "theme_dark",
        "&Dark",
        lambda w: w.theme.choose("dark"),
        (),
        "The dark theme, whatever the desktop's (exports stay light unless File > Export in "
        "the dark theme is on)",
        checkable=True,
    ),
    Spec(
        "pin",
        "&Pin node in inspector",
        lambda w: w.pin_selected(),
        ("P",),
        "Keep the selected node's numbers in view",
        tree_shown,
    ),
    Spec(
        "train",
        "&Train",
        lambda w: w.train(),
        ("F5", "Ctrl+R"),
        "Grow the tree with the current options (F5)",
    ),
    Spec(
        "train_at_start",
        "Train a file opened at &start",
        lambda w: w.set_train_at_start(),
        (),
        "A file given on the command line (python main.py data.csv) trains as soon as it is "
        "open; off, it only loads and waits for Train",
        checkable=True,
    ),
    Spec(
        "draw_split",
        "&Draw a split on the plane",
        lambda w: w.draw_split(),
        ("Ctrl+Shift+D",),
        "In the Regions dock, drag inside a leaf's box along an axis to split that leaf there "
        "(undoable, as a split from the node's menu)",
        tree_shown,
        checkable=True,
    ),
    Spec(
        "exam_mode",
        "E&xam mode",
        exam_mode,
        ("Ctrl+Shift+X",),
        "Practise choosing splits: each Step in the Growth panel asks you for the attribute "
        "(and a numeric one's cut) before Arbor shows its own, with hints and a running score",
        checkable=True,
    ),
    Spec(
        "cancel",
        "&Cancel",
        cancel,
        ("Esc",),
        "Stop the running job (queued trainings then start; Clear queue drops them), or else "
        "the tree's stability being worked out",
        cancellable,
    ),
    Spec(
        "clear_queue",
        "C&lear queued trainings",
        lambda w: w.controller.clear_queue(),
        ("Shift+Esc",),
        "Drop the trainings queued behind the running one (the status bar lists them)",
        queued,
    ),
    Spec(
        "test_file",
        "Evaluate on a &test file…",
        lambda w: w.evaluating.test_file(),
        ("Ctrl+T",),
        "Score the selected run's tree on the rows of another data file",
        run_selected,
    ),
    Spec(
        "split",
        "Evaluate on a percentage &split",
        lambda w: w.evaluate_split(),
        (),
        "Train the selected run's settings on a share of the rows (the Runs panel's percentage) "
        "and test on the rest",
        run_selected,
    ),
    Spec(
        "split_on_tree",
        "Train on a split, test rows on the &tree",
        lambda w: w.train_split(),
        ("Shift+F5",),
        "Train with the current options on the Runs panel's percentage of the rows and keep "
        "the rest on the tree: every node counts them, and the pruning and growth plots draw "
        "their error beside the training error",
    ),
    Spec(
        "learning_curve",
        "&Learning curve",
        lambda w: w.compute_curve("learning"),
        ("Ctrl+Alt+L",),
        "Training and cross-validated error of the selected run's options against the rows "
        "trained on (Evaluation panel)",
        run_selected,
    ),
    Spec(
        "bias_variance",
        "&Bias and variance",
        lambda w: w.compute_curve("bias-variance"),
        ("Ctrl+Alt+B",),
        "The selected run's error split into bias, variance and noise at a range of tree "
        "sizes, the chosen tree's marked (Evaluation panel)",
        run_selected,
    ),
    Spec(
        "importance",
        "Variable &importance",
        lambda w: w.compute_curve("importance"),
        ("Ctrl+Alt+I",),
        "Which attributes the selected run's tree leans on: impurity decrease, or the score "
        "lost on held-out rows when each is shuffled (Evaluation panel)",
        run_selected,
    ),
    Spec(
        "predict_file",
        "&Predict a file…",
        lambda w: w.evaluating.predict_file(),
        (),
        "Predict every row of a data file with the tree on screen and save the predictions",
        tree_shown,
    ),
    Spec(
        "show_run",
        "S&how the run's tree",
        lambda w: w.runs.show_selected(),
        (),
        "Put the selected run's tree on the canvas",
        run_selected,
    ),
    Spec(
        "compare",
        "C&ompare two runs",
        lambda w: w.compare_runs(),
        ("Ctrl+Shift+K",),
        "Compare the two runs selected in the Runs list side by side",
        two_runs,
    ),
    Spec(
        "side_by_side",
        "&Algorithms side by side",
        lambda w: w.side_by_side.start(),
        ("Ctrl+Alt+D",),
        "Grow ID3, C4.5, CART and the optimal tree (depth 3, or your max depth up to 4) on "
        "the open table (the current options where they apply) and show them side by side, aligned from the root; Ctrl+J there jumps to the first "
        "node where two of them part and says why",
    ),
    Spec(
        "stability",
        "Tree &stability",
        lambda w: w.stability_marks.set_on(w.act["stability"].isChecked()),
        ("Ctrl+Alt+S",),
        "How often each split recurs in the trees of the cross-validation folds (the "
        "Evaluation options' folds and seed), worked out in the background; splits with a "
        "near-tie get a badge, and the inspector lists the selected node's",
        checkable=True,
    ),
    Spec(
        "regrow_on_edit",
        "&Regrow on edit",
        lambda w: w.regrow.set_on(w.act["regrow_on_edit"].isChecked()),
        ("Ctrl+Alt+R",),
        "With a tree trained, editing a cell trains again after a pause and says in the "
        "status bar which splits were added, removed or changed (undo regrows it back)",
        checkable=True,
    ),
    Spec(
        "compare_optimal",
        "Greedy against o&ptimal",
        lambda w: w.controller.greedy_against_optimal(),
        ("Ctrl+Shift+O",),
        "Train CART's greedy tree (unpruned) and the optimal tree of the same depth (max "
        "depth, 3 when unset, at most 4), then compare them side by side: training errors, "
        "cross-validated accuracy and sizes",
    ),
    Spec(
        "shortcuts",
        "&Keyboard shortcuts",
        lambda w: w.show_shortcuts(),
        (),
        "Every command that has a shortcut, with its keys and what it does",
    ),
    Spec(
        "guide",
        "&User guide",
        lambda w: w.open_guide(),
        ("F1",),
        "Open the user guide (docs/window.md) in the desktop's viewer",
    ),
    Spec("about", "&About Arbor", lambda w: w.about(), (), "What Arbor is"),
)

#: Menus by title: action names, None for a separator, "@name" for a submenu the window makes.
MENUS = {
    "&File": [
        "new",
        "open",
        "@recent",
        "@samples",
        "open_large",
        "open_large_folder",
        None,
        "save",
        "save_as",
        None,
        "open_project",
        "save_project",
        None,
        "export_image",
        "export_slide",
        "@scale",
        "copy_image",
        "transparent",
        "export_dark",
        "export_rules",
        "export_python",
        "export_pmml",
        "export_dot",
        "export_html",
        "export_sql",
        "export_onnx",
        "export_model",
        None,
        "worksheet",
        None,
        "quit",
    ],
    "&Edit": [
        "undo",
        "redo",
        None,
        "copy",
        "paste",
        "missing",
        None,
        "insert_row",
        "delete_rows",
        "duplicate_rows",
        None,
        "find",
        "find_next",
        "find_previous",
    ],
    "&View": [
        "zoom_in",
        "zoom_out",
        "fit",
        "reset_layout",
        "expand_all",
        "orientation",
        "@labels",
        "ghosts",
        None,
        "pin",
        None,
        "present",
        "@workspaces",
        "collapse_panels",
        "@theme",
        None,
        "@docks",
    ],
    "&Model": [
        "train",
        "cancel",
        "clear_queue",
        "train_at_start",
        None,
        "draw_split",
        "exam_mode",
        None,
        "show_run",
        "compare",
        "side_by_side",
        None,
        "stability",
        "regrow_on_edit",
        "compare_optimal",
        None,
        "test_file",
        "split",
        "split_on_tree",
        "predict_file",
        None,
        "learning_curve",
        "bias_variance",
        "importance",
    ],
    "&Help": ["guide", "shortcuts", None, "about"],
}

TOOLBAR = (
    "open",
    "save",
    None,
    "undo",
    "redo",
    None,
    "train",
    "cancel",
    None,
    "zoom_in",
    "zoom_out",
    "fit",
    None,
    "workspace_learn",
    "workspace_analyse",
    "workspace_present",
)


def build_actions(window: Window) -> dict[str, QAction]:
    """A ``QAction`` per row of ``ACTIONS``, parented to (and shortcuts live in) ``window``."""
    actions = {}
    for spec in ACTIONS:
        action = QAction(spec.text, window)
        action.setShortcuts([QKeySequence(s) for s in spec.shortcuts])
        action.setToolTip(spec.tip or spec.text.replace("&", "").replace("…", ""))
        action.setStatusTip(action.toolTip())
        action.setCheckable(spec.checkable)
        if spec.handler is not None:
            action.triggered.connect(lambda *_, handler=spec.handler: handler(window))
        window.addAction(action)
        actions[spec.name] = action
    return actions


def update_enabled(window: Window, actions: dict[str, QAction]) -> None:
    for spec in ACTIONS:
        if spec.enabled_when is not None:
            actions[spec.name].setEnabled(bool(spec.enabled_when(window)))
