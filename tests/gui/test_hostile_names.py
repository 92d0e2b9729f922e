"""Issue 31: names and values from a data file are shown as text, never as HTML (item 7), and
the window saves them to .xlsx as text, never as formulas (item 1)."""

import zipfile

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QTextDocument
from PySide6.QtGui import Qt as GuiQt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QGraphicsView,
    QHeaderView,
    QLabel,
    QWidget,
)

from engine.data.io import read_table
from gui.plain_text import plain_tip
from tests.gui.conftest import train_and_wait

IMG_COLUMN = "<img src=x onerror=alert(1)>"
BOLD_COLUMN = "<b>temp</b>"
TARGET = "<u>play</u>"
#: What would show as markup if it were taken as HTML.
MARKUP = (IMG_COLUMN, BOLD_COLUMN, TARGET, "<b>sunny</b>", "<img src=y>", "<i>yes</i>")


def hostile_csv(tmp_path):
    rows = [
        ("<b>sunny</b>", 85, "no"),
        ("<b>sunny</b>", 80, "no"),
        ("<img src=y>", 83, "<i>yes</i>"),
        ("rain&co", 70, "<i>yes</i>"),
        ("rain&co", 68, "<i>yes</i>"),
        ("rain&co", 65, "no"),
        ("<img src=y>", 64, "<i>yes</i>"),
        ("<b>sunny</b>", 72, "no"),
        ("<b>sunny</b>", 69, "<i>yes</i>"),
        ("rain&co", 75, "<i>yes</i>"),
        ("<b>sunny</b>", 75, "<i>yes</i>"),
        ("<img src=y>", 72, "<i>yes</i>"),
    ]
    path = tmp_path / "hostile.csv"
    lines = [f'"{IMG_COLUMN}",{BOLD_COLUMN},{TARGET}'] + [f"{a},{t},{c}" for a, t, c in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def rich(text: str, text_format=Qt.TextFormat.AutoText) -> bool:
    """Whether Qt would lay ``text`` out as HTML in a label (or a tooltip: AutoText)."""
    if text_format == Qt.TextFormat.RichText:
        return True
    return text_format == Qt.TextFormat.AutoText and GuiQt.mightBeRichText(text)


def markup_shown(text: str, text_format=Qt.TextFormat.AutoText) -> bool:
    """Hostile markup taken as HTML: present as it is (not escaped) in text laid out as HTML."""
    return bool(text) and rich(text, text_format) and any(m in text for m in MARKUP)


def item_view_tips(view: QAbstractItemView, limit: int = 200):
    model = view.model()
    if model is None:
        return
    for row in range(min(model.rowCount(), limit)):
        for col in range(min(model.columnCount(), 50)):
            yield str(model.data(model.index(row, col), Qt.ItemDataRole.ToolTipRole) or "")
    for orientation, count in (
        (Qt.Orientation.Horizontal, model.columnCount()),
        (Qt.Orientation.Vertical, model.rowCount()),
    ):
        for section in range(min(count, 50)):
            yield str(model.headerData(section, orientation, Qt.ItemDataRole.ToolTipRole) or "")


def offenders(win) -> list[str]:
    """Every place in the window and its docks that would show hostile markup as HTML."""
    found = []
    widgets = [win, *win.findChildren(QWidget)]
    for widget in widgets:
        name = f"{type(widget).__name__} {widget.objectName()!r}"
        if isinstance(widget, QLabel) and markup_shown(widget.text(), widget.textFormat()):
            found.append(f"label {name}: {widget.text()!r}")
        if markup_shown(widget.toolTip()):
            found.append(f"tooltip of {name}: {widget.toolTip()!r}")
        if isinstance(widget, QComboBox):
            for k in range(widget.count()):
                tip = str(widget.itemData(k, Qt.ItemDataRole.ToolTipRole) or "")
                if markup_shown(tip):
                    found.append(f"item tooltip of {name}: {tip!r}")
        if isinstance(widget, QAbstractItemView) and not isinstance(
            widget, QHeaderView
        ):  # its view's
            found += [
                f"item tooltip in {name}: {t!r}" for t in item_view_tips(widget) if markup_shown(t)
            ]
        if isinstance(widget, QGraphicsView) and widget.scene() is not None:
            found += [
                f"canvas tooltip: {i.toolTip()!r}"
                for i in widget.scene().items()
                if markup_shown(i.toolTip())
            ]
    for action in win.findChildren(QAction):
        if markup_shown(action.toolTip()):
            found.append(f"action tooltip: {action.toolTip()!r}")
    return found


def shown_as(tip: str) -> str:
    """The text a tooltip shows."""
    if not GuiQt.mightBeRichText(tip):
        return tip
    document = QTextDocument()
    document.setHtml(tip)
    return document.toPlainText()


def test_plain_tip_shows_the_text_as_it_is(qtbot):
    for text in (
        IMG_COLUMN,
        f"rule: {BOLD_COLUMN} = a & b",
        "two\nlines <i>x</i>",
        "plain",
        "&lt;b&gt;",
    ):
        assert shown_as(plain_tip(text)) == text
    assert plain_tip("no markup here") == "no markup here"


def test_the_checks_find_markup(qtbot):
    label = QLabel(BOLD_COLUMN)
    assert markup_shown(label.text(), label.textFormat())
    label.setTextFormat(Qt.TextFormat.PlainText)
    assert not markup_shown(label.text(), label.textFormat())
    assert not markup_shown("<b>Run 1</b>: &lt;b&gt;temp&lt;/b&gt;")


def test_hostile_names_and_values_are_text_everywhere(qtbot, window, tmp_path):
    assert window.files.open_path(str(hostile_csv(tmp_path)), confirmed=True), window.dialogs.errors
    assert window.doc.target == TARGET
    train_and_wait(qtbot, window)
    tree = window.controller.tree
    assert tree is not None and tree.n_nodes > 1
    for dock in window.docks.values():
        dock.raise_()
    window.what_if.set_value(IMG_COLUMN, "<img src=y>")
    for node in tree.nodes():
        window.canvas.select_node(node.id)
        qtbot.wait(10)
        assert offenders(window) == [], "\n".join(offenders(window))
    window.growth.start_over()
    while window.growth.step():
        assert offenders(window) == [], "\n".join(offenders(window))
    assert window.growth.log.rowCount() > 0, window.growth.status.text()
    window.table.view.selectRow(0)
    qtbot.wait(50)
    assert offenders(window) == [], "\n".join(offenders(window))
    window.model.setData(window.model.index(0, 1), "90")  # "Undo Edit <b>temp</b>" as a tooltip
    assert shown_as(window.act["undo"].toolTip()) == f"Undo Edit {BOLD_COLUMN}"
    assert offenders(window) == [], "\n".join(offenders(window))
    panel = window.pruning  # C4.5's pessimistic pruning, walked decision by decision
    for position in range(len(panel.walk) + 1):
        panel.walk_to(position)
        assert offenders(window) == [], "\n".join(offenders(window))
    window.config.set_params({"algorithm": "id3"})  # refused: the message names the numeric column
    assert BOLD_COLUMN in window.config.message.text()
    assert offenders(window) == [], "\n".join(offenders(window))
    window.config.set_params({"algorithm": "cart"})
    train_and_wait(qtbot, window)
    numbers = [run.number for run in window.controller.runs]
    window.compare_runs(numbers[0], numbers[-1])
    qtbot.wait(50)
    assert offenders(window) == [], "\n".join(offenders(window))
    assert offenders(window.compare_window) == [], "\n".join(offenders(window.compare_window))
    # The What-if form's row labels are the column names, as text.
    labels = [window.what_if.form.labelForField(w) for w in window.what_if.inputs.values()]
    assert sorted(label.text() for label in labels) == sorted([IMG_COLUMN, BOLD_COLUMN])
    assert all(label.textFormat() == Qt.TextFormat.PlainText for label in labels)


def test_save_table_as_xlsx_keeps_formula_like_values_as_text(qtbot, window, tmp_path):
    path = tmp_path / "f.csv"
    path.write_text(
        '"=cmd|\' /C calc\'!A0",play\n=1+1,yes\n@SUM(A1),no\n#N/A,yes\n"=x",no\n', encoding="utf-8"
    )
    assert window.files.open_path(str(path), confirmed=True), window.dialogs.errors
    before = window.doc.snapshot()
    target = tmp_path / "saved.xlsx"
    window.dialogs.replies["save_path"].append(str(target))
    assert window.files.save_as(), window.dialogs.errors
    with zipfile.ZipFile(target) as book:
        sheets = "".join(
            book.read(n).decode() for n in book.namelist() if n.startswith("xl/worksheets/")
        )
    assert "<f>" not in sheets and "<f " not in sheets
    back = read_table(target)
    assert not back.notes, back.notes
    assert list(back.frame.columns) == list(before.frame.columns)
    for name in before.frame.columns:
        assert back.frame[name].astype(str).tolist() == before.frame[name].astype(str).tolist()


def test_messages_show_names_as_text(qtbot, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from gui.dialogs import Dialogs

    shown = []

    def exec_(box):
        shown.append((box.text(), box.textFormat()))
        box.done(0)
        return 0

    monkeypatch.setattr(QMessageBox, "exec", exec_)
    dialogs = Dialogs(None)
    message = f"column {BOLD_COLUMN!r} is numeric"
    dialogs.error(message)
    dialogs.info(message)
    assert dialogs.ask_yes_no(f"Replace {IMG_COLUMN}?") is False
    assert [text for text, _ in shown] == [message, message, f"Replace {IMG_COLUMN}?"]
    assert all(fmt == Qt.TextFormat.PlainText for _, fmt in shown)
