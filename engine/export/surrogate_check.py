"""Refusing to export a tree whose splits have surrogates (``--missing surrogate``) to a format
that cannot route by them: its predictions would differ from Arbor's on rows with missing
values. ``--missing majority`` needs no refusal: its splits' one-hot fractions send such a
row down the majority branch in every format that knows fractions."""

from __future__ import annotations

from engine.errors import ArborError
from engine.tree import Tree


def refuse_surrogates(tree: Tree, format_name: str) -> None:
    """Raise ArborError when ``tree`` has surrogate splits, naming the option to change."""
    if any(node.split is not None and node.split.surrogates for node in tree.nodes()):
        raise ArborError(
            f"the {format_name} export cannot route rows by surrogate splits, so its "
            "predictions would differ on rows with missing values: train with --missing "
            "majority or fractional to export this format (model JSON keeps surrogates)"
        )
