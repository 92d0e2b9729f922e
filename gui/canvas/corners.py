"""The canvas's corners: the legend (top left or right, where fewer nodes are under it) and
the overview of a big tree (bottom right, while part of the tree is out of view)."""

from __future__ import annotations

from html import escape

import numpy as np
from PySide6.QtCore import QPoint, QRect

from gui.drawing import palette


class CornersMixin:
    """The legend and overview of a :class:`gui.canvas.tree_canvas.TreeCanvas`."""

    def _update_legend(self) -> None:
        """Class colours (when bars show them) and every mark drawn: as the exported legend."""
        tree = self._scene.tree
        rows = []
        if tree is not None and not tree.is_regression and self._scene.style.labels.bar:
            rows.append(f"<b>{escape(tree.schema.target)}</b>")
            rows += [f"<span style='color:{palette.class_colour(k).name()}'>&#9632;</span>&nbsp;{escape(c)}"
                     for k, c in enumerate(tree.classes)]
        if any(item.is_dashed() for item in self._scene.items_by_id.values()):
            rows.append(f"<span style='color:{palette.NODE_BORDER.name()}'>&#9633;</span>&nbsp;pruned here "
                        "(dashed)")
        if self._scene.ghosts_item is not None:
            rows.append("<span style='color:#B0B6BF'>&#9633;</span>&nbsp;cut by pruning (faint)")
        if not rows:
            self._legend.hide()
            return
        self._legend.setText("<br>".join(rows))
        self._legend.adjustSize()
        self._legend.show()
        self._place_legend()

    def _place_legend(self) -> None:
        """Top right, or top left when fewer nodes are under it there (a tree leaning right)."""
        right = QPoint(self.viewport().width() - self._legend.width() - 12, 10)
        left = QPoint(12, 10)
        self._legend.move(min((right, left), key=self._nodes_under_legend_at))
        self.overview.move(self.viewport().width() - self.overview.width() - 12,
                           self.viewport().height() - self.overview.height() - 12)

    def _nodes_under_legend_at(self, corner: QPoint) -> int:
        if self._scene.tree is None or not self._legend.isVisible():
            return 0
        area = self.mapToScene(QRect(corner, self._legend.size())).boundingRect()
        box = self._scene.node_boxes()
        return int(np.count_nonzero((box[:, 0] < area.right()) & (box[:, 2] > area.left())
                                    & (box[:, 1] < area.bottom()) & (box[:, 3] > area.top())))

    def _update_overview(self) -> None:
        """The tree or its layout changed: the overview's picture is redrawn when next shown."""
        self._overview_stale = True
        self._show_overview_if_needed()

    def _show_overview_if_needed(self) -> None:
        """The overview shows for a big tree while part of it is out of view: over a tree
        fitted whole it would only hide nodes."""
        show = len(self._scene.items_by_id) > 40  # first: every scroll step asks
        if show:
            content = self._scene.content_rect()
            show = not content.isEmpty() and not self.visible_scene_rect().adjusted(-1, -1, 1, 1).contains(content)
        if show and self._overview_stale:
            self._overview_stale = False
            self._place_legend()
            self.overview.refresh()
        self.overview.setVisible(show)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._place_legend()
        self._show_overview_if_needed()
