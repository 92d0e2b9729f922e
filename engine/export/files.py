"""Writing exports to files, chosen by kind: what ``train --rules/--dot/--pmml/--python/--html`` call."""

from __future__ import annotations

from pathlib import Path

from engine.atomic import write_atomic, write_text_atomic
from engine.data.encoding import encode
from engine.errors import ArborError


def _rules(model, table, path: Path) -> str:
    from engine.export.rule_set import accuracy_note, rules_text, simplify_rules, to_rules

    data = encode(table, model.settings_.task)
    fmt = "markdown" if path.suffix.lower() == ".md" else "text"
    rules = to_rules(model.tree_, data)
    text = rules_text(model.tree_, rules, fmt)
    if not model.tree_.is_regression:
        simple = simplify_rules(model.tree_, rules, data, model.settings_.confidence)
        title = (
            "\n## Simplified rules (C4.5rules: the first that fires decides)\n\n"
            if fmt == "markdown"
            else "\nSimplified rules (C4.5rules: the first that fires decides):\n"
        )
        note = accuracy_note(model.tree_, simple, data)
        text += (
            title
            + rules_text(model.tree_, simple, fmt)
            + ("\n" if fmt == "markdown" else "")
            + note
            + "\n"
        )
    return text


def _dot(model, table, path):
    from engine.export.dot import to_dot

    return to_dot(model.tree_)


def _pmml(model, table, path):
    from engine.export.pmml import to_pmml

    return to_pmml(model.tree_)


def _python(model, table, path):
    from engine.export.python_code import to_python

    return to_python(model.tree_)


def _html(model, table, path, labels=None):
    from engine.export.html_page import DEFAULT_LABELS, to_html

    return to_html(model.tree_, model.settings_.algorithm, labels or DEFAULT_LABELS)


def _sql(model, table, path, dialect: str = "sqlite"):
    from engine.export.sql import to_sql

    return to_sql(model.tree_, dialect, algorithm=model.settings_.algorithm)


def _onnx(model, table, path):
    from engine.export.onnx_model import onnx_bytes

    return onnx_bytes(model.tree_)


EXPORTERS = {
    "rules": _rules,
    "dot": _dot,
    "pmml": _pmml,
    "python": _python,
    "html": _html,
    "sql": _sql,
    "onnx": _onnx,
}


def render(kind: str, model, table, path: Path, **options) -> str | bytes:
    """``model``'s tree as ``kind``, the text (or, for ONNX, bytes) :func:`export` writes to
    ``path``; refuses (with :class:`ArborError`) what the format cannot hold, before anything
    is written. ``options``: the format's own (``dialect`` for SQL, the node ``labels`` of the
    interactive page)."""
    if kind not in EXPORTERS:
        raise ArborError(f"unknown export {kind!r}; use one of {', '.join(EXPORTERS)}")
    return EXPORTERS[kind](model, table, Path(path), **options)


def export(kind: str, model, table, path: Path, **options) -> None:
    """Write ``model``'s tree as ``kind`` to ``path`` (atomically)."""
    content = render(kind, model, table, path, **options)
    if isinstance(content, bytes):
        write_atomic(path, lambda target: target.write_bytes(content))
    else:
        write_text_atomic(path, content)
