"""Fixtures for the engine tests: forcing the compiled growth kernels."""

from __future__ import annotations

import pytest


@pytest.fixture
def compiled_builder(monkeypatch):
    """Every fit in the test runs on the compiled kernels (waiting for their one-time
    compilation), never on their interpreted twin; the test fails if one did not."""
    pytest.importorskip("numba")
    from engine.compiling.lifecycle import compile_kernels
    from engine.fast import builder

    assert compile_kernels(), "the growth kernels do not compile here"
    kinds = []
    choose = builder.kernels

    def recording(compiled: bool):
        kinds.append(compiled)
        return choose(compiled)

    monkeypatch.setattr(builder, "kernels", recording)
    yield kinds
    assert all(kinds), "a fit ran on the interpreted kernels"
