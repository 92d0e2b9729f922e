"""The tree as an SVG figure without Qt: what a notebook shows for a model, and what
:func:`plot` returns.

It draws as the canvas does (the same headlines, the lines of :mod:`engine.export.node_labels`,
the class colours and the distribution bar, the tidy layout of
:mod:`engine.export.tidy_tree`, the legend), but measures text by estimate: the engine has no
fonts to ask, so widths come from a table of DejaVu Sans's advance widths by character class
(within 8% of the font's on labels). A big tree is drawn to a depth, with a note saying what is left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from engine.errors import ArborError
from engine.export import colours
from engine.export.graph import to_digraph
from engine.export.labels import attribute_name, branch_condition, predicted
from engine.export.node_labels import NodeLabels, node_lines
from engine.export.tidy_tree import tidy_layout
from engine.tree import Tree

FAMILY = "'DejaVu Sans', Verdana, Arial, Helvetica, sans-serif"
TITLE_PX, BODY_PX, EDGE_PX, LEGEND_PX = 13, 12, 12, 12
PAD_X, PAD_Y, BAR_H, SWATCH, MARGIN = 10.0, 6.0, 7.0, 12.0, 12.0
LINE = 1.25  # a line of text is this many times its pixel size high
#: A notebook shows at most about this many nodes before it draws the tree to a depth.
NOTEBOOK_NODES = 40

# DejaVu Sans advance widths, in ems, by kind of character (bold is about 10% wider).
_NARROW = set("ijl.,:;!|'`Iі ")
_SEMI = set('frt()[]{}/\\-"*')
_WIDE = set("mwMW@%")
_SYMBOLS = set("=<>+~^±×÷≤≥")


def text_width(text: str, px: float, bold: bool = False) -> float:
    """About how wide ``text`` is in DejaVu Sans at ``px`` pixels (estimated: within 8% of the
    font's advances on labels; tests/engine/export/test_svg_tree.py keeps Qt's figures).

    >>> round(text_width("outlook", 13, bold=True)), round(text_width("n = 14", 12))
    (53, 40)
    """
    ems = 0.0
    for ch in text:
        if ch in _NARROW:
            ems += 0.3
        elif ch in _SEMI:
            ems += 0.42
        elif ch in _WIDE:
            ems += 0.95
        elif ch in _SYMBOLS:
            ems += 0.84
        elif ch.isupper() or ch.isdigit() or not ch.isascii():
            ems += 0.7 if ch.isupper() or not ch.isascii() else 0.64
        else:
            ems += 0.6
    return ems * px * (1.1 if bold else 1.0)


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _text(value: str) -> str:
    """Character data: escaped, and what XML cannot hold at all shown as U+FFFD."""
    return escape(_NOT_XML.sub("\ufffd", str(value)))


def _attr(value: str) -> str:
    return quoteattr(_NOT_XML.sub("\ufffd", str(value)))


@dataclass(frozen=True)
class TreeFigure:
    """An SVG picture of a tree: shown by Jupyter, saved with :meth:`save`.

    ``shown`` and ``total`` count nodes drawn and in the tree; ``note`` says what a depth
    limit left out ("" when the whole tree is drawn).
    """

    svg: str
    width: float
    height: float
    shown: int
    total: int
    note: str = ""

    def _repr_svg_(self) -> str:
        return self.svg

    def __repr__(self) -> str:
        return (
            f"<TreeFigure: {self.shown} of {self.total} nodes, {self.width:.0f}x{self.height:.0f}>"
        )

    def save(self, path) -> Path:
        """Write the SVG to ``path`` (a ``.svg`` file) atomically; returns the path."""
        from engine.atomic import write_text_atomic

        path = Path(path)
        if path.suffix.lower() != ".svg":
            raise ArborError(
                f"a figure is saved as SVG: name a .svg file, not {path.name!r} "
                "(train --image draws PNG and PDF with the window's painter)"
            )
        write_text_atomic(path, self.svg)
        return path


def auto_depth(tree: Tree, most: int = NOTEBOOK_NODES) -> int | None:
    """The deepest level to draw so that at most about ``most`` nodes show (at least one
    level below the root); None when the whole tree fits."""
    per_level: dict[int, int] = {}
    for node in tree.nodes():
        per_level[node.depth - tree.root.depth] = per_level.get(node.depth - tree.root.depth, 0) + 1
    if sum(per_level.values()) <= most:
        return None
    total, depth = 0, 0
    while depth in per_level and total + per_level[depth] <= most:
        total += per_level[depth]
        depth += 1
    return max(depth - 1, 1)


def tree_svg(
    tree: Tree,
    max_depth: int | None = None,
    labels: NodeLabels | str = "n,bar",
    orientation: str = "top-down",
    width: float | None = None,
) -> TreeFigure:
    """The figure of ``tree`` drawn down to ``max_depth`` (None: all of it); ``labels`` what
    nodes say under their headline (as ``train --labels``: ``"n,bar"``); ``width`` scales
    the picture to that many pixels (None: its natural size)."""
    if isinstance(labels, str):
        labels = NodeLabels.parse(labels)
    if labels.plots:
        raise ArborError("node plots are drawn by the window's painter: use train --image")
    if orientation not in ("top-down", "left-to-right"):
        raise ArborError(f"orientation is top-down or left-to-right, not {orientation!r}")
    if max_depth is not None and max_depth < 0:
        raise ArborError("max_depth is a number of levels below the root, 0 or more")
    base = tree.root.depth
    nodes = {n.id: n for n in tree.nodes()}
    collapsed = {
        i
        for i, n in nodes.items()
        if max_depth is not None and not n.is_leaf and n.depth - base >= max_depth
    }
    graph = to_digraph(tree, collapsed)
    parents = {child: nodes[parent] for parent, child in graph.edges}
    hidden = {i: sum(1 for _ in nodes[i].walk()) - 1 for i in collapsed if i in graph}

    texts, sizes, plates = {}, {}, {}
    for i in graph.nodes:
        node, parent = nodes[i], parents.get(i)
        head = predicted(tree, node, parent) if node.is_leaf else attribute_name(tree, node)
        lines = node_lines(tree, node, labels, hidden.get(i, 0))
        w = max(72.0, text_width(head, TITLE_PX, True), *(text_width(s, BODY_PX) for s in lines))
        h = TITLE_PX * LINE + len(lines) * BODY_PX * LINE + 2 * PAD_Y
        if labels.bar:
            h += BAR_H + 4
        texts[i], sizes[i] = (head, lines), (w + 2 * PAD_X, h)
        graph.nodes[i]["width"], graph.nodes[i]["height"] = sizes[i]
    conditions = {c: branch_condition(tree, nodes[p], o) for p, c, o in graph.edges(data="order")}
    for child, text in conditions.items():
        plates[child] = text_width(text, EDGE_PX) + 8
    level_gap = 46.0
    if orientation == "top-down":
        for child, plate in plates.items():
            graph.nodes[child]["width"] = max(graph.nodes[child]["width"], plate)
    else:
        level_gap = max(70.0, 2 * (min(max(plates.values(), default=0.0), 200.0) + 6))
    positions = tidy_layout(graph, orientation=orientation, level_gap=level_gap)

    boxes = {
        i: (x - sizes[i][0] / 2, y - sizes[i][1] / 2, x + sizes[i][0] / 2, y + sizes[i][1] / 2)
        for i, (x, y) in positions.items()
    }
    x0 = min(b[0] for b in boxes.values())
    y0 = min(b[1] for b in boxes.values())
    x1 = max(b[2] for b in boxes.values())
    y1 = max(b[3] for b in boxes.values())

    legend, legend_w, legend_h = _legend(tree, labels, any(_dashed(n) for n in nodes.values()))
    note = ""
    if collapsed & set(graph.nodes):
        note = (
            f"Drawn to depth {max_depth}: {len(graph)} of {len(nodes)} nodes "
            f"(the tree is {tree.depth} deep). engine.plot(model, max_depth=None) draws all of it."
        )
    note_h = BODY_PX * LINE + 6 if note else 0.0
    dx = MARGIN + legend_w - x0
    dy = MARGIN - y0
    width_px = dx + x1 + MARGIN
    height_px = max(y1 - y0, legend_h) + 2 * MARGIN + note_h
    if note:
        width_px = max(width_px, text_width(note, BODY_PX) + 2 * MARGIN)

    out = []
    path = []
    labels_svg = []
    for parent, child in graph.edges:
        pa, ch = boxes[parent], boxes[child]
        if orientation == "top-down":
            sx, sy, ex, ey = (pa[0] + pa[2]) / 2, pa[3] - 3, (ch[0] + ch[2]) / 2, ch[1] + 3
            mid = (sy + ey) / 2
            path.append(
                f"M{sx + dx:.1f},{sy + dy:.1f}C{sx + dx:.1f},{mid + dy:.1f} "
                f"{ex + dx:.1f},{mid + dy:.1f} {ex + dx:.1f},{ey + dy:.1f}"
            )
            ax, ay = ex, mid + (ey - mid) * 0.45
        else:
            sx, sy, ex, ey = pa[2] - 3, (pa[1] + pa[3]) / 2, ch[0] + 3, (ch[1] + ch[3]) / 2
            mid = (sx + ex) / 2
            path.append(
                f"M{sx + dx:.1f},{sy + dy:.1f}C{mid + dx:.1f},{sy + dy:.1f} "
                f"{mid + dx:.1f},{ey + dy:.1f} {ex + dx:.1f},{ey + dy:.1f}"
            )
            ax, ay = mid + (ex - mid) * 0.5, ey - 9
        w, h = plates[child], EDGE_PX * LINE + 2
        labels_svg.append(
            f'<rect x="{ax - w / 2 + dx:.1f}" y="{ay - h / 2 + dy:.1f}" width="{w:.1f}" '
            f'height="{h:.1f}" rx="3" fill="#FFFFFF" fill-opacity="0.92"/>'
            f'<text x="{ax + dx:.1f}" y="{ay + dy:.1f}" class="e">{_text(conditions[child])}</text>'
        )
    out.append(
        f'<path d="{" ".join(path)}" fill="none" stroke="{colours.EDGE}" stroke-width="1.3"/>'
    )
    out += labels_svg
    for i in positions:
        out.append(_node(tree, nodes[i], boxes[i], texts[i], labels, dx, dy))
    out.append(legend)
    if note:
        out.append(
            f'<text x="{MARGIN:.1f}" y="{height_px - MARGIN / 2 - BODY_PX * LINE / 2:.1f}" '
            f'class="n">{_text(note)}</text>'
        )
    shown_w = width_px if width is None else float(width)
    shown_h = height_px * shown_w / width_px
    style = (
        f"text{{font-family:{FAMILY};fill:{colours.TEXT};dominant-baseline:central;"
        f"text-anchor:middle}}"
        f".h{{font-size:{TITLE_PX}px;font-weight:bold}}"
        f".b{{font-size:{BODY_PX}px;fill:{colours.MUTED}}}"
        f".e{{font-size:{EDGE_PX}px;fill:{colours.MUTED}}}"
        f".l{{font-size:{LEGEND_PX}px;text-anchor:start}}"
        f".n{{font-size:{BODY_PX}px;fill:{colours.MUTED};text-anchor:start}}"
    )
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{shown_w:.0f}" height="{shown_h:.0f}" '
        f'viewBox="0 0 {width_px:.1f} {height_px:.1f}" role="img">'
        f"<title>{_text('Decision tree: ' + tree.schema.target)}</title>"
        f"<style>{style}</style>"
        f'<rect width="100%" height="100%" fill="#FFFFFF"/>' + "".join(out) + "</svg>"
    )
    return TreeFigure(svg, shown_w, shown_h, len(positions), len(nodes), note)


def _dashed(node) -> bool:
    return bool(node.stats.get("pruned") or node.stats.get("raised"))


def _node(tree, node, box, texts, labels, dx, dy) -> str:
    x0, y0, x1, y1 = box[0] + dx, box[1] + dy, box[2] + dx, box[3] + dy
    head, lines = texts
    dash = ' stroke-dasharray="5 3"' if _dashed(node) else ""
    cx = (x0 + x1) / 2
    parts = [
        f"<g><title>{_text(f'node {node.id}: {head}')}</title>"
        f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{x1 - x0:.1f}" height="{y1 - y0:.1f}" rx="6" '
        f'fill="{colours.NODE_FILL}" stroke="{colours.NODE_BORDER}" stroke-width="1.2"{dash}/>',
        f'<text x="{cx:.1f}" y="{y0 + PAD_Y + TITLE_PX * LINE / 2:.1f}" class="h">{_text(head)}</text>',
    ]
    top = y0 + PAD_Y + TITLE_PX * LINE
    for k, line in enumerate(lines):
        y = top + (k + 0.5) * BODY_PX * LINE
        parts.append(f'<text x="{cx:.1f}" y="{y:.1f}" class="b">{_text(line)}</text>')
    if labels.bar:
        bx, by, bw = x0 + PAD_X, y1 - PAD_Y - BAR_H, x1 - x0 - 2 * PAD_X
        dist = [] if tree.is_regression else node.distribution.tolist()
        total = sum(dist)
        if total <= 0:
            fill = colours.REGRESSION if tree.is_regression else colours.EMPTY_BAR
            parts.append(
                f'<rect x="{bx:.1f}" y="{by:.1f}" width="{bw:.1f}" height="{BAR_H}" fill="{fill}"/>'
            )
        else:
            at = bx
            for k, value in enumerate(dist):
                if value <= 0:
                    continue
                w = bw * value / total
                parts.append(
                    f'<rect x="{at:.2f}" y="{by:.1f}" width="{w:.2f}" height="{BAR_H}" '
                    f'fill="{colours.class_hex(k)}"/>'
                )
                at += w
    parts.append("</g>")
    return "".join(parts)


def _legend(tree: Tree, labels: NodeLabels, dashed: bool) -> tuple[str, float, float]:
    """The legend's SVG (at the top left), its width and its height (0, 0: none)."""
    entries: list[tuple[str, str]] = []
    if not tree.is_regression and labels.bar:
        entries = [(name, colours.class_hex(k)) for k, name in enumerate(tree.classes)]
    if dashed:
        entries.append(("pruned here", "dashed"))
    if not entries:
        return "", 0.0, 0.0
    title = tree.schema.target if not tree.is_regression and labels.bar else ""
    line = max(LEGEND_PX * LINE, SWATCH) + 6
    parts = [f'<text x="0" y="{line / 2:.1f}" class="l" font-weight="bold">{_text(title)}</text>']
    for k, (name, mark) in enumerate(entries):
        middle = line * (k + 1) + line / 2
        if mark == "dashed":
            parts.append(
                f'<rect x="0.6" y="{middle - SWATCH / 2:.1f}" width="{SWATCH - 1.2}" '
                f'height="{SWATCH - 1.2}" fill="none" stroke="{colours.NODE_BORDER}" '
                f'stroke-width="1.2" stroke-dasharray="3 2"/>'
            )
        else:
            parts.append(
                f'<rect x="0" y="{middle - SWATCH / 2:.1f}" width="{SWATCH}" height="{SWATCH}" '
                f'fill="{_attr(mark)[1:-1]}"/>'
            )
        parts.append(f'<text x="{SWATCH + 8}" y="{middle:.1f}" class="l">{_text(name)}</text>')
    width = SWATCH + 26 + max(text_width(t, LEGEND_PX) for t in [title, *(e[0] for e in entries)])
    return (
        f'<g transform="translate({MARGIN},{MARGIN})">' + "".join(parts) + "</g>",
        width,
        line * (len(entries) + 1),
    )


def plot(
    model,
    max_depth: int | str | None = "auto",
    labels: NodeLabels | str = "n,bar",
    orientation: str = "top-down",
    width: float | None = None,
) -> TreeFigure:
    """The figure of a trained model's tree (a ``DecisionTree``, an ``engine.sklearn``
    estimator, or a ``Tree``), as a notebook shows it.

    ``max_depth``: levels below the root to draw ("auto": all of a small tree, a big one to
    the depth that keeps about 40 nodes; None: everything). ``labels``: what nodes say under
    their headline, as the image export's ``--labels`` (``"n,weka,counts,percent,bar"``).

    >>> from engine import DecisionTree, load_sample
    >>> plot(DecisionTree(algorithm="id3").fit(load_sample("weather")))
    <TreeFigure: 8 of 8 nodes, 511x279>
    """
    tree = model if isinstance(model, Tree) else getattr(model, "tree_", None)
    if tree is None:
        raise ArborError("the model is not trained yet: call fit first")
    if max_depth == "auto":
        max_depth = auto_depth(tree)
    elif isinstance(max_depth, str):
        raise ArborError(f"max_depth is a number, None or 'auto', not {max_depth!r}")
    return tree_svg(tree, max_depth, labels, orientation, width)
