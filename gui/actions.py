"""Every command of the window in one table: text, shortcut, tip, handler and when it is enabled.

A handler is a dotted path from the window (``"files.open_dialog"`` calls
``window.files.open_dialog()``); arguments, when any, are given with it. The menus
and the toolbar list action names; :func:`build_actions` makes the ``QAction`` objects
and :func:`update_enabled` switches them on and off as the controller's state changes.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QAction, QKeySequence

K = QKeySequence.StandardKey


@dataclass(frozen=True)
class Spec:
    """One action: ``enabled_when`` names a condition in ``CONDITIONS`` (None: always)."""

    name: str
    text: str
    handler: str  # "" for a checkable option read where it is used
    shortcuts: tuple = ()
    tip: str = ""
    enabled_when: str | None = None
    args: tuple = ()
    checkable: bool = False


ACTIONS = (
    Spec("new", "&New table", "files.new_table", (K.New,), "Start an empty table"),
    Spec("open", "&Open…", "files.open_dialog", (K.Open,), "Open a data file (CSV, TSV, ARFF, Excel, Parquet)"),
    Spec("open_large", "Open &large dataset…", "large.open_dialog", ("Ctrl+Shift+L",),
         "Open a Parquet file too large to load: preview its first rows and train on all of "
         "them through Dask"),
    Spec("open_large_folder", "Open large dataset fol&der…", "large.open_folder_dialog", (),
         "Open a folder of Parquet files as one dataset: preview it and train through Dask"),
    Spec("save", "&Save", "files.save", (K.Save,), "Save the table"),
    Spec("save_as", "Save &as…", "files.save_as", ("Ctrl+Shift+S",), "Save the table under another name"),
    Spec("open_project", "Open &project…", "files.open_project_dialog", (),
         "Open a saved session: table, settings, tree and layout"),
    Spec("save_project", "Save p&roject…", "files.save_project_dialog", ("Ctrl+Shift+P",),
         "Save the table, settings, tree and layout in one file"),
    Spec("export_image", "Export &image…", "exports.export_image", ("Ctrl+E",),
         "Save the whole tree as PNG, SVG or PDF, drawn as on the canvas", "tree"),
    Spec("export_slide", "Export image for a s&lide…", "exports.export_slide", ("Ctrl+Alt+E",),
         "Save the whole tree on a 16:9 page 10 inches wide, with type large enough for a slide",
         "tree"),
    Spec("copy_image", "Copy image", "exports.copy_image", ("Ctrl+Shift+C",),
         "Copy the whole tree as a picture", "tree"),
    Spec("transparent", "Transparent background", "", (),
         "Exported and copied images get no background", checkable=True),
    Spec("export_rules", "Export &rules…", "exports.export_file", (), "Save the tree as IF-THEN rules",
         "tree", ("rules",)),
    Spec("export_python", "Export P&ython function…", "exports.export_file", (),
         "Save the tree as a Python function", "tree", ("python",)),
    Spec("export_pmml", "Export PM&ML…", "exports.export_file", (), "Save the tree as PMML", "tree", ("pmml",)),
    Spec("export_dot", "Export &DOT…", "exports.export_file", (), "Save the tree for Graphviz", "tree", ("dot",)),
    Spec("export_model", "Export &model (JSON)…", "exports.export_model", (),
         "Save the tree and its settings as JSON (python main.py predict reads it)", "tree"),
    Spec("quit", "&Quit", "close", (K.Quit,), "Close Arbor"),
    Spec("undo", "&Undo", "doc.undo_stack.undo", (K.Undo,), "Undo", "can_undo"),
    Spec("redo", "&Redo", "doc.undo_stack.redo", (K.Redo,), "Redo", "can_redo"),
    Spec("copy", "&Copy cells", "table.copy_selection", (K.Copy,), "Copy the selected cells"),
    Spec("paste", "&Paste cells", "table.paste", (K.Paste,), "Paste cells at the current one"),
    Spec("missing", "Set &missing", "table.set_selection_missing", ("Del",), "Make the selected cells missing"),
    Spec("insert_row", "Insert row", "table_edits.insert_row", ("Ctrl+I",), "Insert a row below the current one"),
    Spec("delete_rows", "Delete rows", "table_edits.delete_selected_rows", ("Ctrl+Shift+Del",),
         "Delete the selected rows"),
    Spec("duplicate_rows", "Duplicate rows", "table_edits.duplicate_selected_rows", ("Ctrl+D",),
         "Duplicate the selected rows"),
    Spec("find", "&Find in tree…", "find_in_tree", (K.Find,),
         "Find nodes by attribute, value or class in the whole tree (a bar above the canvas)", "tree"),
    Spec("find_next", "Find next", "find_bar.next", (K.FindNext,), "Open and show the next match", "tree"),
    Spec("find_previous", "Find previous", "find_bar.previous", (K.FindPrevious,),
         "Open and show the previous match", "tree"),
    Spec("zoom_in", "Zoom &in", "canvas.zoom_in", (K.ZoomIn,), "Zoom in"),
    Spec("zoom_out", "Zoom &out", "canvas.zoom_out", (K.ZoomOut,), "Zoom out"),
    Spec("fit", "&Fit tree", "canvas.fit_to_window", ("Ctrl+0",), "Fit the tree to the window"),
    Spec("reset_layout", "&Reset layout", "canvas.reset_layout", (), "Put dragged nodes back", "tree"),
    Spec("expand_all", "&Expand all", "expand_all", ("Ctrl+Shift+E",),
         "Show every node of the tree (a big tree opens with its top levels)", "tree"),
    Spec("orientation", "Left to right", "toggle_orientation", (), "Draw the tree from left to right",
         checkable=True),
    Spec("label_n", "&Rows (n = 16)", "set_node_labels", (), "Nodes show how many rows reach them",
         checkable=True),
    Spec("label_weka", "Rows/&errors, as Weka: (16.0/1.0)", "set_node_labels", (),
         "Nodes show their weight and the training errors they make as a leaf", checkable=True),
    Spec("label_counts", "Class &counts", "set_node_labels", (), "Nodes show the rows of each class",
         checkable=True),
    Spec("label_percent", "Class &percentages", "set_node_labels", (),
         "Nodes show the share of each class", checkable=True),
    Spec("label_bar", "Class distribution &bar", "set_node_labels", (),
         "Nodes show their classes as a coloured bar", checkable=True),
    Spec("ghosts", "Show what pruning &cut", "toggle_ghosts", ("Ctrl+G",),
         "Draw the subtrees pruning removed, faintly, below the leaves it left (C4.5 and "
         "reduced-error pruning)", "tree", checkable=True),
    Spec("pin", "&Pin node in inspector", "pin_selected", ("P",), "Keep the selected node's numbers in view",
         "tree"),
    Spec("train", "&Train", "train", ("F5", "Ctrl+R"), "Grow the tree with the current options (F5)"),
    Spec("cancel", "&Cancel", "controller.cancel", ("Esc",),
         "Stop the running job (queued trainings then start; Clear queue drops them)", "busy"),
    Spec("clear_queue", "C&lear queued trainings", "controller.clear_queue", ("Shift+Esc",),
         "Drop the trainings queued behind the running one (the status bar lists them)", "queued"),
    Spec("test_file", "Evaluate on a &test file…", "evaluating.test_file", ("Ctrl+T",),
         "Score the selected run's tree on the rows of another data file", "run"),
    Spec("split", "Evaluate on a percentage &split", "evaluate_split", (),
         "Train the selected run's settings on a share of the rows (the Runs panel's percentage) "
         "and test on the rest", "run"),
    Spec("predict_file", "&Predict a file…", "evaluating.predict_file", (),
         "Predict every row of a data file with the tree on screen and save the predictions", "tree"),
    Spec("show_run", "S&how the run's tree", "runs.show_selected", (),
         "Put the selected run's tree on the canvas", "run"),
    Spec("compare", "C&ompare two runs", "compare_runs", ("Ctrl+Shift+K",),
         "Compare the two runs selected in the Runs list side by side", "two_runs"),
    Spec("shortcuts", "&Keyboard shortcuts", "show_shortcuts", (),
         "Every command that has a shortcut, with its keys and what it does"),
    Spec("guide", "&User guide", "open_guide", ("F1",),
         "Open the user guide (docs/window.md) in the desktop's viewer"),
    Spec("about", "&About Arbor", "about", (), "What Arbor is"),
)

#: When an action is enabled, read off the window.
CONDITIONS = {
    "tree": lambda w: w.controller.tree is not None,
    "busy": lambda w: w.controller.busy,
    "queued": lambda w: bool(w.controller.queued),
    "run": lambda w: w.controller.selected_run >= 0,
    "two_runs": lambda w: len(w.controller.runs) >= 2,
    "can_undo": lambda w: w.controller.doc.undo_stack.canUndo(),
    "can_redo": lambda w: w.controller.doc.undo_stack.canRedo(),
}

#: Menus by title: action names, None for a separator, "@name" for a submenu the window makes.
MENUS = {
    "&File": ["new", "open", "@recent", "@samples", "open_large", "open_large_folder", None, "save", "save_as", None, "open_project",
              "save_project", None, "export_image", "export_slide", "@scale", "copy_image", "transparent", "export_rules",
              "export_python", "export_pmml", "export_dot", "export_model", None, "quit"],
    "&Edit": ["undo", "redo", None, "copy", "paste", "missing", None, "insert_row", "delete_rows",
              "duplicate_rows", None, "find", "find_next", "find_previous"],
    "&View": ["zoom_in", "zoom_out", "fit", "reset_layout", "expand_all", "orientation", "@labels",
              "ghosts", None, "pin", None, "@docks"],
    "&Model": ["train", "cancel", "clear_queue", None, "show_run", "compare", None, "test_file", "split", "predict_file"],
    "&Help": ["guide", "shortcuts", None, "about"],
}

TOOLBAR = ("open", "save", None, "undo", "redo", None, "train", "cancel", None, "zoom_in", "zoom_out", "fit")


def _resolve(window, path: str):
    target = window
    for part in path.split("."):
        target = getattr(target, part)
    return target


def build_actions(window) -> dict[str, QAction]:
    """A ``QAction`` per row of ``ACTIONS``, parented to (and shortcuts live in) ``window``."""
    actions = {}
    for spec in ACTIONS:
        action = QAction(spec.text, window)
        action.setShortcuts([QKeySequence(s) for s in spec.shortcuts])
        action.setToolTip(spec.tip or spec.text.replace("&", "").replace("…", ""))
        action.setStatusTip(action.toolTip())
        action.setCheckable(spec.checkable)
        if spec.handler:
            action.triggered.connect(lambda *_, s=spec: _resolve(window, s.handler)(*s.args))
        window.addAction(action)
        actions[spec.name] = action
    return actions


def update_enabled(window, actions: dict[str, QAction]) -> None:
    for spec in ACTIONS:
        if spec.enabled_when is not None:
            actions[spec.name].setEnabled(bool(CONDITIONS[spec.enabled_when](window)))
