"""Pseudocounts (seed 004: "add data based on prior knowledge"): what ``--laplace`` and
``--m-estimate M`` add to every leaf's class weights before they become probabilities
(:attr:`engine.tree.Tree.pseudocounts`, read by :func:`engine.predict.class_probabilities`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from engine.flat import replaced, root_distribution
from engine.settings import Settings
from engine.tree import Tree


def leaf_pseudocounts(settings: Settings, class_weights: np.ndarray) -> tuple[float, ...]:
    """The pseudocounts ``settings`` add to every leaf's class weights (seed 004: "add
    data based on prior knowledge"): 1 per class for ``laplace``, ``m_estimate`` M spread
    as the training rows' classes (``class_weights``) are; none otherwise.

    >>> from engine.settings import resolve
    >>> leaf_pseudocounts(resolve(m_estimate=7), np.array([8.0, 6.0]))
    (4.0, 3.0)
    >>> leaf_pseudocounts(resolve(laplace=True), np.array([8.0, 6.0]))
    (1.0, 1.0)
    """
    K = len(class_weights)
    if settings.task != "classification" or not K:
        return ()
    if settings.laplace:
        return (1.0,) * K
    if settings.m_estimate is not None:
        total = float(np.sum(class_weights))
        prior = class_weights / total if total > 0 else np.full(K, 1.0 / K)
        return tuple(float(settings.m_estimate * p) for p in prior)
    return ()


def with_pseudocounts(tree: Tree, settings: Settings) -> Tree:
    """``tree`` with the pseudocounts ``settings`` ask for, the prior from its root."""
    if tree.is_regression:
        return tree
    pseudocounts = leaf_pseudocounts(settings, root_distribution(tree))
    flat = tree.__dict__.get("_flat")
    if flat is not None:  # the same nodes: the same arrays, not another walk over them
        flat = replace(flat, pseudocounts=pseudocounts)
    return replaced(tree, flat, pseudocounts=pseudocounts)
