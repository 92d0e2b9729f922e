"""The canvas's corners: the legend and the overview of a big tree, each in a corner of the
view where no node is under it, else somewhere free along an edge of the view, or hidden
while there is no such place (they come back as soon as the view leaves one free). Nodes
are never covered: the selected node and Find's matches are nodes like the others."""

from __future__ import annotations

from html import escape

import numpy as np
from PySide6.QtCore import QRect, QSize

from gui.drawing import palette

#: Distance from the view's edges, and the room kept free around an overlay.
GAP, CLEARANCE = 10, 4
#: Corners in the order each overlay prefers them (top/bottom, left/right), then the edges
#: it slides along when no corner is free (from their right or bottom end).
LEGEND_CORNERS = ("top right", "top left", "bottom left", "bottom right")
LEGEND_EDGES = ("top", "bottom", "right", "left")
OVERVIEW_CORNERS = ("bottom right", "bottom left", "top right", "top left")
OVERVIEW_EDGES = ("bottom", "top", "right", "left")


def corner_rect(corner: str, size: QSize, port: QSize) -> QRect:
    """An overlay of ``size`` in ``corner`` of a viewport of ``port`` size."""
    x = port.width() - size.width() - GAP if corner.endswith("right") else GAP
    y = port.height() - size.height() - GAP if corner.startswith("bottom") else GAP
    return QRect(x, y, size.width(), size.height())


def covers(rect: QRect, boxes: np.ndarray) -> bool:
    """Whether ``rect`` (grown by ``CLEARANCE``) meets any of ``boxes`` (left, top, right, bottom)."""
    left, top = rect.left() - CLEARANCE, rect.top() - CLEARANCE
    right, bottom = rect.left() + rect.width() + CLEARANCE, rect.top() + rect.height() + CLEARANCE
    return bool(
        np.any(
            (boxes[:, 0] < right)
            & (boxes[:, 2] > left)
            & (boxes[:, 1] < bottom)
            & (boxes[:, 3] > top)
        )
    )


def free_stretch(
    lows: np.ndarray, highs: np.ndarray, length: float, start: float, stop: float
) -> float | None:
    """The last position ``p`` in ``[start, stop - length]`` where ``[p, p + length]`` meets
    none of the intervals ``[lows, highs]`` (None: there is none)."""
    order = np.argsort(lows)
    end = stop
    for low, high in zip(lows[order][::-1], np.maximum.accumulate(highs[order])[::-1], strict=True):
        # Intervals from the right: the free stretch right of this one ends at ``end``.
        if end - max(high, start) >= length:
            return end - length
        end = min(end, low)
        if end - start < length:
            return None
    return end - length if end - start >= length else None


def along_edge(edge: str, size: QSize, port: QSize, boxes: np.ndarray) -> QRect | None:
    """A place for an overlay of ``size`` along ``edge`` of the viewport where it meets none
    of ``boxes`` (the end nearest the right or bottom first), or None."""
    w, h, c = size.width(), size.height(), CLEARANCE
    if edge in ("top", "bottom"):
        y = GAP if edge == "top" else port.height() - h - GAP
        near = boxes[(boxes[:, 1] < y + h + c) & (boxes[:, 3] > y - c)]
        x = free_stretch(near[:, 0] - c, near[:, 2] + c, w, GAP, port.width() - GAP)
        return None if x is None or y < 0 else QRect(int(np.ceil(x)) if x > GAP else GAP, y, w, h)
    x = GAP if edge == "left" else port.width() - w - GAP
    near = boxes[(boxes[:, 0] < x + w + c) & (boxes[:, 2] > x - c)]
    y = free_stretch(near[:, 1] - c, near[:, 3] + c, h, GAP, port.height() - GAP)
    return None if y is None or x < 0 else QRect(x, int(np.ceil(y)) if y > GAP else GAP, w, h)


class CornersMixin:
    """The legend and overview of a :class:`gui.canvas.tree_canvas.TreeCanvas`."""

    #: Legend rows (rich text, names escaped) of marks another part of the window draws, such
    #: as the near-tie badges (gui.stability_marks); set with set_legend_extra.
    legend_extra: tuple[str, ...] = ()

    def set_legend_extra(self, rows: tuple[str, ...]) -> None:
        self.legend_extra = tuple(rows)
        self._update_legend()

    def _update_legend(self) -> None:
        """Class colours (when bars show them) and every mark drawn: as the exported legend."""
        tree = self._scene.tree
        rows = []
        labels = self._scene.style.labels
        if tree is not None and not tree.is_regression and (labels.bar or labels.plots):
            rows.append(f"<b>{escape(tree.schema.target)}</b>")
            rows += [
                f"<span style='color:{palette.class_colour(k).name()}'>&#9632;</span>&nbsp;{escape(c)}"
                for k, c in enumerate(tree.classes)
            ]
        if any(item.is_dashed() for item in self._scene.items_by_id.values()):
            rows.append(
                f"<span style='color:{palette.NODE_BORDER.name()}'>&#9633;</span>&nbsp;pruned here "
                "(dashed)"
            )
        if self._scene.ghosts_item is not None:
            rows.append(
                f"<span style='color:{palette.current().faint}'>&#9633;</span>&nbsp;cut by pruning (faint)"
            )
        rows += self.legend_extra
        self._legend_wanted = bool(rows)
        self._legend.setFont(self._scene.style.legend_font)  # a presentation's is bigger
        # Two forms: a column, and the same entries in lines across the view, for a view whose
        # corners and edges leave no room for the column.
        self._legend_forms = ("<br>".join(rows), "&emsp; ".join(rows))
        self._place_corners()

    def _legend_form(self, wide: bool) -> None:
        """Lay the legend out as a column, or as lines as wide as the view allows."""
        label = self._legend
        key = (self._legend_forms[wide], self.viewport().width() if wide else 0)
        if self._legend_laid_out == key:
            return  # as it is: every scroll step asks
        self._legend_laid_out = key
        label.setWordWrap(wide)
        label.setText(self._legend_forms[wide])
        if wide:
            label.setMinimumSize(0, 0)
            width = min(label.sizeHint().width(), self.viewport().width() - 2 * GAP)
            label.resize(width, label.heightForWidth(width))
        else:
            label.adjustSize()

    def _place_legend(self) -> None:
        """The view moved or changed size: place the legend and overview again."""
        self._place_corners()

    def _node_boxes_in_view(self) -> np.ndarray:
        """(left, top, right, bottom) of every node shown, in viewport pixels, of those in view."""
        if self._scene.tree is None:
            return np.zeros((0, 4))
        box = self._scene.node_boxes()
        t = self.viewportTransform()
        box = box * (t.m11(), t.m22(), t.m11(), t.m22()) + (t.dx(), t.dy(), t.dx(), t.dy())
        port = self.viewport().size()
        seen = (
            (box[:, 2] > 0)
            & (box[:, 0] < port.width())
            & (box[:, 3] > 0)
            & (box[:, 1] < port.height())
        )
        return box[seen]

    def overlay_rects(self) -> dict[str, QRect]:
        """The overlays shown ("legend", "overview") and where, in viewport pixels."""
        offset = self.viewport().geometry().topLeft()
        return {
            name: widget.geometry().translated(-offset)
            for name, widget in (("legend", self._legend), ("overview", self.overview))
            if not widget.isHidden()
        }

    def _place_corners(self) -> None:
        """Each overlay wanted takes the first corner it prefers where it covers no node and
        not the other overlay, else a free place along an edge; with none it hides until the
        view leaves one free."""
        boxes = self._node_boxes_in_view()
        port = self.open_port().size()  # not under a panel shown over the canvas
        offset = self.viewport().geometry().topLeft()
        taken: list[QRect] = []
        for widget, wanted, corners, edges in (
            (self.overview, self._overview_wanted, OVERVIEW_CORNERS, OVERVIEW_EDGES),
            (self._legend, self._legend_wanted, LEGEND_CORNERS, LEGEND_EDGES),
        ):
            place = None
            blocked = np.vstack(
                [
                    boxes,
                    *(
                        [[t.left(), t.top(), t.left() + t.width(), t.top() + t.height()]]
                        for t in taken
                    ),
                ]
            )
            for form in (False, True) if wanted else ():
                if widget is self._legend:
                    self._legend_form(wide=form)
                elif form:
                    break  # the overview has one form
                place = self._free_place(widget.size(), port, blocked, corners, edges)
                if place is not None:
                    break
            if place is None:
                widget.hide()
                continue
            taken.append(place)
            widget.move(place.topLeft() + offset)
            widget.show()
            widget.raise_()

    @staticmethod
    def _free_place(size: QSize, port: QSize, blocked: np.ndarray, corners, edges) -> QRect | None:
        """The first corner free for ``size``, else the first free place along an edge."""
        for corner in corners:
            rect = corner_rect(corner, size, port)
            if rect.top() >= 0 and rect.left() >= 0 and not covers(rect, blocked):
                return rect
        for edge in edges:
            rect = along_edge(edge, size, port, blocked)
            if rect is not None:
                return rect
        return None

    def _update_overview(self) -> None:
        """The tree or its layout changed: the overview's picture is redrawn when next shown."""
        self._overview_stale = True
        self._show_overview_if_needed()

    def _show_overview_if_needed(self) -> None:
        """The overview is wanted for a big tree while part of it is out of view: over a tree
        fitted whole it would only hide nodes. Where it goes (if anywhere) is decided with the
        legend's place, both again on every move of the view."""
        show = len(self._scene.items_by_id) > 40  # first: every scroll step asks
        if show:
            content = self._scene.content_rect()
            show = not content.isEmpty() and not self.visible_scene_rect().adjusted(
                -1, -1, 1, 1
            ).contains(content)
        if show and self._overview_stale:
            self._overview_stale = False
            self.overview.refresh()
        self._overview_wanted = show
        self._place_corners()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        if self._fitted and self._scene.tree is not None:
            self.fit_to_window(self._fitted == "readable")  # still as fitted, to the new size
        self._show_overview_if_needed()
