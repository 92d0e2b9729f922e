"""Fixtures of the fits over partitions: which pieces the fit read, and the folders its
workers kept values in."""

from __future__ import annotations

from collections import Counter

import pytest


@pytest.fixture
def reads(monkeypatch):
    """How many times each piece's rows were read (by index)."""
    from engine.scale import tasks

    seen = Counter()
    monkeypatch.setattr(tasks, "READ_HOOK", lambda piece, index: seen.update([index]))
    return seen


@pytest.fixture
def kept_folders(monkeypatch):
    """The folders the workers made to keep values in files (none when kept in memory)."""
    from engine.scale import tasks

    folders = []
    made = tasks.kept_folder
    monkeypatch.setattr(tasks, "kept_folder", lambda *a: folders.append(made(*a)) or folders[-1])
    return folders
