"""Pruning: functions that take a tree and return a new one."""

from __future__ import annotations

from engine.encoding import Encoded
from engine.monitor import Monitor
from engine.settings import Settings
from engine.tree import Tree


def prune_for(tree: Tree, data: Encoded, settings: Settings, monitor: Monitor) -> Tree:
    """Apply the pruning ``settings`` asks for."""
    return tree
