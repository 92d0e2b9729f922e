"""A worksheet (:func:`engine.export.worksheet.worksheet`) on A4 paper as a PDF: the table
and the questions with room to answer on the first pages, the answer key from a new page.
No widgets: the window's File > Worksheet and the command line's ``worksheet`` share it."""

from __future__ import annotations

from html import escape
from pathlib import Path

from PySide6.QtCore import QBuffer, QIODevice, QMarginsF
from PySide6.QtGui import QPageLayout, QPageSize, QPdfWriter, QTextDocument

from engine.atomic import write_atomic
from engine.errors import ArborError, printable
from engine.export.worksheet import NAMES, Worksheet
from gui.drawing.picture import gui_app

#: Text sizes in points: body and the tables of numbers.
BODY_PT, TABLE_PT = 11, 9.5
#: Room left to answer under each question, in pixels at 96 dpi.
ANSWER_ROOM_PX = 30
HEADERS = ("attribute", "split", "branches: entropy", "mean info", "gain", "split info", "ratio")


def _table_html(ws: Worksheet) -> str:
    columns = ws.table.frame.columns
    head = "".join(f"<th>{escape(str(c))}</th>" for c in ["#", *columns])
    body = "".join(
        f"<tr><td>{k}</td>" + "".join(f"<td>{escape(_cell(v))}</td>" for v in row) + "</tr>"
        for k, row in enumerate(ws.table.frame.itertuples(index=False), start=1)
    )
    return f"<table border=1 cellspacing=0 cellpadding=4><tr>{head}</tr>{body}</table>"


def _cell(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _node_html(node: dict, algorithm: str) -> str:
    counts = ", ".join(f"{escape(c)} {v:g}" for c, v in node["class_counts"].items())
    headers = [*HEADERS, "Gini gain"] if algorithm == "cart" else HEADERS
    head = "".join(f"<th>{h}</th>" for h in headers)
    rows = []
    for a in node["attributes"]:
        branches = "<br>".join(
            f"{escape(b['branch'])} ({b['n']:g}): {b['entropy']:.3f}" for b in a["branches"]
        )
        gain, ratio = f"{a['info_gain']:.3f}", f"{a['gain_ratio']:.3f}"
        if "mdl_gain" in a:  # the penalised figures the algorithm ranks by, after the plain ones
            gain += f"<br>({a['mdl_gain']:.3f} after MDL)"
            ratio += f"<br>({a['mdl_gain_ratio']:.3f})"
        cells = [
            escape(a["name"]) + (" ✔" if a["chosen"] else ""),
            escape(a["split_text"] or "–"),
            branches or "–",
            f"{a['mean_info']:.3f}",
            gain,
            f"{a['split_info']:.3f}",
            ratio,
        ]
        if algorithm == "cart":
            cells.append(f"{a['gini_gain']:.3f}")
        style = " style='background:#FFF2C4'" if a["chosen"] else ""
        rows.append(f"<tr{style}>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    pure = (
        node["leaf_reason"] is not None
        and node["chosen"] is None
        and max(node["counts"]) == node["n"]
    )
    notes = "".join(
        f"<br><i>{escape(a['name'])}: {escape(a['reason_text'])}</i>"
        for a in node["attributes"]
        if a["reason_text"] and not pure  # a pure node's reasons say nothing new
    )
    verdict = (
        f"splits on <b>{escape(node['chosen'])}</b>"
        if node["chosen"] is not None
        else f"makes it a leaf ({escape(node['leaf_reason'] or '')})"
    )
    table = (
        f"<table border=1 cellspacing=0 cellpadding=3 style='font-size:{TABLE_PT}pt'>"
        f"<tr>{head}</tr>{''.join(rows)}</table>"
        if not pure
        else ""
    )
    return (
        f"<h3>Node {node['node']}: {escape(node['rule'])}</h3>"
        f"<p>{node['n']:g} rows ({counts}); entropy {node['entropy']:.3f}, "
        f"Gini {node['gini']:.3f}. {NAMES[algorithm]} {verdict}.{notes}</p>{table}"
    )


def worksheet_html(ws: Worksheet) -> str:
    """The worksheet as the rich text the PDF is printed from (every value escaped)."""
    name = NAMES[ws.algorithm]
    rows = len(ws.table.frame)
    questions = "".join(
        # Room to answer below each question, as a margin: a blank paragraph after the last
        # one could fall onto a page of its own.
        f"<p style='margin-bottom:{ANSWER_ROOM_PX}px'><b>{q['number']}.</b> {escape(q['text'])}</p>"
        for q in ws.questions
    )
    answers = "".join(f"<p><b>{q['number']}.</b> {escape(q['answer'])}</p>" for q in ws.questions)
    nodes = "".join(_node_html(n, ws.algorithm) for n in (ws.root, *ws.next_level))
    title = f"Decision-tree worksheet: {name} (seed {ws.seed})"
    return (
        f"<html><body style='font-size:{BODY_PT}pt'>"
        f"<h2>{escape(title)}</h2>"
        f"<p>Name: ____________________________ &nbsp; Date: ______________</p>"
        f"<p>The table has {rows} rows. Predict <b>{escape(ws.table.target)}</b> from the other "
        f"columns, growing the tree as {name} does. Use entropy in bits (log base 2) and give "
        "answers to three decimals.</p>"
        f"{_table_html(ws)}<h3>Questions</h3>{questions}"
        f"<h2 style='page-break-before: always'>Answer key: {escape(name)}, seed {ws.seed}</h2>"
        f"{answers}<h3>Every number, as Arbor's explain computes it</h3>{nodes}"
        f"<p><small>Made by Arbor: python main.py worksheet --seed {ws.seed} --rows {rows} "
        f"--algorithm {ws.algorithm} makes this sheet again.</small></p>"
        "</body></html>"
    )


def worksheet_pdf(ws: Worksheet) -> tuple[bytes, int]:
    """The worksheet as PDF bytes on A4, and its number of pages."""
    gui_app()
    document = QTextDocument()
    document.setHtml(worksheet_html(ws))
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setTitle(f"Worksheet {NAMES[ws.algorithm]} seed {ws.seed}")
    writer.setCreator("Arbor")
    # At the screen's 96 dpi the document's points come out as points on paper (at the
    # writer's default 1200 dpi, QTextDocument lays out in device pixels: unreadably small).
    writer.setResolution(96)
    writer.setPageLayout(
        QPageLayout(
            QPageSize(QPageSize.PageSizeId.A4),
            QPageLayout.Orientation.Portrait,
            QMarginsF(18, 18, 18, 18),
            QPageLayout.Unit.Millimeter,
        )
    )
    document.setPageSize(writer.pageLayout().paintRectPixels(writer.resolution()).size().toSizeF())
    pages = document.pageCount()
    document.print_(writer)
    del writer  # the document is complete in the buffer once its writer is gone
    return bytes(buffer.data()), pages


def save_worksheet(ws: Worksheet, path: str | Path) -> int:
    """Write the worksheet to ``path`` (.pdf); returns its number of pages."""
    path = Path(path)
    if path.suffix.lower() != ".pdf":
        raise ArborError(
            f"a worksheet is written as .pdf, not {printable(path.suffix or path.name)}"
        )
    data, pages = worksheet_pdf(ws)
    if not data.startswith(b"%PDF"):
        raise ArborError(f"could not draw {printable(str(path))} as a PDF document")
    write_atomic(path, lambda target: Path(target).write_bytes(data))
    return pages
