"""The canvas's layout: orientation, type and labels, ghosts, and laying a tree out again with
some nodes closed, on a worker thread when it is big, then showing it where the eye was."""

from __future__ import annotations

from engine.collection import collection_paused
from gui.canvas.tree_scene import make_items, with_box_paths
from gui.drawing.density import DENSITY_BELOW
from gui.drawing.nodes import LOD_BOX, new_metrics
from gui.drawing.plan import count_shown, plan_scene

#: A layout showing more nodes than this is made on a worker thread when the canvas has a job
#: starter (the window's): the window stays live, and Cancel stops it.
BACKGROUND_NODES = 3000


def dense(plan, scale: float) -> bool:
    """Whether the boxes of ``plan`` at ``scale`` are drawn as their density (under
    DENSITY_BELOW pixels wide on average), so no box outlines need making ahead."""
    return bool(len(plan.half)) and 2 * float(plan.half[:, 0].mean()) * scale < DENSITY_BELOW


def fit_scale(plan, viewport) -> float:
    """The scale ``fit_to_window`` will give a laid-out tree in a viewport of this size."""
    left, top, right, bottom = plan.bounds()
    width, height = (
        right - left + 40 + 160,
        bottom - top + 40 + 40,
    )  # its margins and the edge labels'
    scale = min(max(viewport.width() - 4, 1) / width, max(viewport.height() - 4, 1) / height)
    return float(min(scale, 1.5))


class LayoutMixin:
    """Laying the tree of a :class:`gui.canvas.tree_canvas.TreeCanvas` out, with what is open and how it is drawn."""

    def set_orientation(self, orientation: str) -> None:
        self._scene.orientation = orientation
        if self._scene.tree is not None:
            self._relayout(set(self._scene.collapsed), "fit")

    def orientation(self) -> str:
        return self._scene.orientation

    def style(self):
        """The type sizes and node labels the canvas draws with (exports use the same)."""
        return self._scene.style

    def set_style(self, style) -> None:
        """Draw nodes with ``style`` (e.g. other node labels), keeping what is open."""
        self._rebuild(style=style)

    def ghosts(self) -> bool:
        return self._scene.show_ghosts

    def set_ghosts(self, on: bool) -> None:
        """Draw (or stop drawing) what pruning cut, faintly below the leaves it left."""
        self._rebuild(ghosts=on)

    def _rebuild(self, **options) -> None:
        tree = self._scene.tree
        selected = self.selected_node()
        centre = self.mapToScene(self.viewport().rect().center())
        self._scene.blockSignals(True)
        self._scene.build(tree, collapsed=self._scene.collapsed, **options)
        self._scene.blockSignals(False)
        self._update_legend()
        if tree is not None:
            if selected >= 0:
                self.select_node(selected)
            self.centerOn(centre)
            self._update_overview()

    def reset_layout(self) -> None:
        self._scene.reset_layout()

    def set_job_starter(self, start) -> None:
        """Let big layouts run on a worker thread: ``start(name, call, done)`` runs ``call(monitor)``
        as a job with progress and Cancel, calls ``done(result)`` on the GUI thread when it ends,
        and returns False when it cannot start now. Without one, every layout is made at once."""
        self._start_job = start

    def _relayout(self, collapsed: set[int], follow: str, focus: int = -1) -> None:
        """Show the tree with ``collapsed`` closed, then follow ``focus``: "keep" it where it was on
        screen, show the "subtree" opened below it, make it "readable", or "fit" the whole tree."""
        tree = self._scene.tree
        if tree is None:
            return
        self._layout_token += 1
        token, orientation = self._layout_token, self._scene.orientation
        style, ghosts = self._scene.style, self._scene.show_ghosts
        anchor = None
        if focus in self._scene.items_by_id:
            anchor = self.mapFromScene(self._scene.items_by_id[focus].pos())
        shown = count_shown(tree, collapsed)
        if shown <= BACKGROUND_NODES or self._start_job is None:
            with collection_paused():
                plan = plan_scene(tree, orientation, collapsed, style, ghosts)
            self._show_plan(token, plan, None, None, follow, focus, anchor)
            return

        viewport, low_detail = self.viewport().size(), self._scene.low_detail

        def call(monitor):
            with collection_paused():
                plan = plan_scene(
                    tree,
                    orientation,
                    collapsed,
                    style,
                    ghosts,
                    monitor.scaled(0.0, 0.5),
                    new_metrics(style),
                )
                scale = fit_scale(plan, viewport)
                low = bool(scale < LOD_BOX) if follow == "fit" else low_detail
                if low and not (follow == "fit" and dense(plan, scale)):
                    plan = with_box_paths(plan)
                return plan, make_items(plan, monitor.scaled(0.5, 1.0), low), low

        what = "Laying out every node" if not collapsed else f"Laying out {shown:,} nodes"
        self._start_job(
            f"{what} of {tree.n_nodes:,}",
            call,
            lambda out: self._show_plan(token, *out, follow, focus, anchor),
        )

    def _show_plan(
        self, token: int, plan, items, items_low_detail, follow: str, focus: int, anchor
    ) -> None:
        if token != self._layout_token or plan.tree is not self._scene.tree:
            return  # asked for again since, or another tree arrived meanwhile
        with collection_paused():
            self._apply_plan(plan, items, items_low_detail, follow, focus, anchor)

    def _apply_plan(self, plan, items, items_low_detail, follow: str, focus: int, anchor) -> None:
        selected = self.selected_node()
        if follow == "fit":  # the detail the fitted view will have, so the items are set up once
            self._scene.low_detail = bool(fit_scale(plan, self.viewport().size()) < LOD_BOX)
        self._scene.blockSignals(True)
        self._scene.apply(plan, items, items_low_detail)
        self._scene.blockSignals(False)
        self._scene.sceneRectChanged.emit(
            self._scene.sceneRect()
        )  # blocked above; the view must know
        self._update_overview()
        if (
            selected >= 0
            and focus not in self._scene.items_by_id
            and selected not in self._scene.items_by_id
        ):
            self.node_selected.emit(-1)  # the selected node was closed away
        for node_id in (focus, selected):
            if node_id in self._scene.items_by_id:
                self._scene.items_by_id[node_id].setSelected(True)
                break
        item = self._scene.items_by_id.get(focus)
        if follow == "fit" or item is None:
            self.fit_to_window()
        elif follow == "readable":
            self.show_readable(focus)
        else:
            if anchor is not None:  # the node stays where it was on screen
                delta = item.pos() - self.mapToScene(anchor)
                self.centerOn(self.mapToScene(self.viewport().rect().center()) + delta)
            if follow == "subtree":
                self._follow_subtree(focus)
        if follow == "fit":
            self.opened.emit(-1, plan.n_shown, plan.tree.n_nodes)
        elif follow == "subtree":
            self.opened.emit(focus, plan.n_shown, plan.tree.n_nodes)
