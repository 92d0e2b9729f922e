"""Exporting the tree on screen: images (file or clipboard), rules, code, PMML, DOT, the
interactive HTML page, SQL, ONNX and JSON; and a printable worksheet for a class."""

from __future__ import annotations

from pathlib import Path

from engine.errors import ArborError
from gui.dialogs import suggested_name
from gui.drawing import palette

EXPORT_FILTERS = {
    "rules": "Text (*.txt);;Markdown (*.md)",
    "python": "Python (*.py)",
    "pmml": "PMML (*.pmml *.xml)",
    "dot": "Graphviz (*.dot *.gv)",
    "html": "Web page (*.html *.htm)",
    "sql": "SQL (*.sql)",
    "onnx": "ONNX model (*.onnx)",
}
#: The SQL dialects offered, as the dialect chooser shows them, and their names in the engine.
SQL_DIALECTS = {"SQLite": "sqlite", "PostgreSQL": "postgres", "DuckDB": "duckdb"}
#: The name an export suggests after the data's: (what ends the stem, suffix).
EXPORT_NAMES = {
    "rules": ("-rules", ".txt"),
    "python": ("_tree", ".py"),
    "pmml": ("", ".pmml"),
    "dot": ("", ".dot"),
    "html": ("-tree", ".html"),
    "sql": ("-tree", ".sql"),
    "onnx": ("", ".onnx"),
    "model": ("-model", ".json"),
    "image": ("", ".png"),
    "slide": ("-slide", ".png"),
}
IMAGE_SCALES = (1.0, 2.0, 3.0, 4.0)


class Exports:
    """The File menu's exports of ``controller.tree``.

    ``image_options()`` returns (scale, transparent, orientation, style, ghosts) as the window
    and canvas are set, so a picture is drawn as the canvas shows the tree.
    """

    def __init__(self, controller, dialogs, image_options):
        self.controller = controller
        self.dialogs = dialogs
        self.image_options = image_options
        #: The palette pictures are drawn in (the window's theme says: light unless asked).
        self.colours = lambda: palette.LIGHT
        #: Asks (seed, rows, algorithm) for a worksheet, None when cancelled (tests replace it).
        self.ask_worksheet = self._ask_worksheet
        self._worksheet_seed = 1

    def _suggested(self, kind: str) -> str:
        tail, suffix = EXPORT_NAMES[kind]
        return suggested_name(self.controller.doc, suffix, tail)

    def _tree(self, what: str):
        tree = self.controller.tree
        if tree is None:
            self.dialogs.error(f"Train a tree first: there is nothing to {what} yet.")
        return tree

    def export_image(self) -> None:
        tree = self._tree("export")
        if tree is None:
            return
        self._save_image(tree, "Export tree image", slide=False)

    def export_slide(self) -> None:
        """The whole tree on a 16:9 slide page, type sized to read across a room."""
        tree = self._tree("export")
        if tree is not None:
            self._save_image(tree, "Export tree image for a slide", slide=True)

    def _save_image(self, tree, title: str, slide: bool) -> None:
        path = self.dialogs.save_path(
            title,
            "PNG (*.png);;SVG (*.svg);;PDF (*.pdf)",
            self._suggested("slide" if slide else "image"),
        )
        if not path:
            return
        from gui.drawing.image import save_image

        scale, transparent, orientation, style, ghosts = self.image_options()
        try:
            with palette.using(self.colours()):
                note = save_image(
                    tree,
                    path,
                    scale=scale,
                    orientation=orientation,
                    transparent=transparent,
                    style=style,
                    slide=slide,
                    ghosts=ghosts,
                    plots=self._plots(tree, style),
                )
        except ArborError as err:
            self.dialogs.error(str(err))
            return
        self.controller.say(f"Wrote {path}" + (f": {note}" if note else ""))

    def copy_image(self) -> None:
        tree = self._tree("copy")
        if tree is None:
            return
        from PySide6.QtGui import QGuiApplication

        from gui.drawing.image import tree_image

        scale, transparent, orientation, style, ghosts = self.image_options()
        try:
            with palette.using(self.colours()):
                image = tree_image(
                    tree,
                    scale,
                    transparent,
                    orientation,
                    style,
                    ghosts=ghosts,
                    plots=self._plots(tree, style),
                )
        except ArborError as err:
            self.dialogs.error(str(err))
            return
        QGuiApplication.clipboard().setImage(image)
        self.controller.say("Copied the tree as an image")

    def _plots(self, tree, style) -> dict | None:
        """Every node's plot data, when the canvas draws plots and the rows are at hand."""
        data = self.controller.data
        if not style.labels.plots or data is None:
            return None
        from engine.export.node_data import nodes_data
        from gui.drawing.node_plots import THUMB_POINTS

        try:
            return nodes_data(tree, data, max_points=THUMB_POINTS)
        except (ArborError, ValueError, IndexError):
            return None  # rows that no longer fit the tree: its nodes say so

    def export_file(self, kind: str, **options) -> None:
        """Rules, Python, PMML, DOT, the interactive page, SQL or ONNX of the tree on the
        canvas; ``options``: the format's own (``dialect`` for SQL)."""
        tree = self._tree("export")
        if tree is None:
            return
        path = self.dialogs.save_path(f"Export {kind}", EXPORT_FILTERS[kind], self._suggested(kind))
        if not path:
            return
        from types import SimpleNamespace

        from engine.export.files import export

        model = SimpleNamespace(tree_=tree, settings_=self.controller.settings)
        try:
            export(kind, model, self.controller.doc.snapshot(), Path(path), **options)
        except ArborError as err:
            self.dialogs.error(str(err))
            return
        self.controller.say(f"Wrote {path}")
        if kind == "onnx":
            from engine.export.onnx_model import MISSING_NOTE

            # It changes what the file predicts, so it is said where it cannot be missed.
            self.dialogs.info(f"Wrote {path}.\n\nNote: {MISSING_NOTE}.")

    def export_page(self) -> None:
        """The interactive page, its nodes saying what the canvas's say."""
        style = self.image_options()[3]
        self.export_file("html", labels=style.labels)

    def export_sql(self) -> None:
        """The tree as one SQL query, in the dialect asked for (the last one offered first)."""
        if self._tree("export") is None:
            return
        names = list(SQL_DIALECTS)
        current = names.index(getattr(self, "_sql_dialect", names[0]))
        chosen = self.dialogs.ask_choice(
            "Export SQL query", "The database the query is for:", names, current
        )
        if chosen is None:
            return
        self._sql_dialect = chosen
        self.export_file("sql", dialect=SQL_DIALECTS[chosen])

    def export_model(self) -> None:
        tree = self._tree("export")
        if tree is None:
            return
        path = self.dialogs.save_path(
            "Export model", "Arbor model (*.json)", self._suggested("model")
        )
        if path:
            from engine.export.model_json import save_model

            try:
                save_model(tree, self.controller.settings, path)
            except ArborError as err:
                self.dialogs.error(str(err))
                return
            self.controller.say(f"Wrote {path}")

    def _ask_worksheet(self):
        from gui.session.worksheet_options import ask_worksheet

        settings = self.controller.settings
        algorithm = settings.algorithm if settings is not None else "id3"
        return ask_worksheet(getattr(self.dialogs, "parent", None), self._worksheet_seed, algorithm)

    def export_worksheet(self) -> None:
        """File > Worksheet: a random table, its questions and answer key, as PDF or JSON."""
        chosen = self.ask_worksheet()
        if chosen is None:
            return
        seed, rows, algorithm = chosen
        path = self.dialogs.save_path(
            "Save worksheet", "PDF (*.pdf);;JSON (*.json)", f"worksheet-{algorithm}-{seed}.pdf"
        )
        if not path:
            return
        if not Path(path).suffix:  # a name typed without one: the PDF the dialog offered
            path += ".pdf"
        import json

        from engine.atomic import write_text_atomic
        from engine.export.worksheet import worksheet
        from gui.drawing.worksheet_pdf import save_worksheet

        try:
            sheet = worksheet(seed, rows, algorithm)
            if Path(path).suffix.lower() == ".json":
                write_text_atomic(path, json.dumps(sheet.as_dict(), indent=1) + "\n")
                said = f"Wrote {path}"
            else:
                pages = save_worksheet(sheet, path)
                said = f"Wrote {path}: {pages} pages, the questions then the answer key"
        except ArborError as err:
            self.dialogs.error(str(err))
            return
        self._worksheet_seed = seed + 1  # the next sheet offered is a fresh table
        self.controller.say(said)
