"""``engine.flat.ends``: one past each node's last descendant, against a walk of the tree."""

import numpy as np
import pytest

from engine.flat import ends


def _random_preorder(rng, n_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Parents and depths of a random tree numbered in pre-order."""
    parent, depth, stack = [-1], [0], [0]
    while len(parent) < n_nodes:
        while len(stack) > 1 and rng.random() < 0.3:  # back up to an ancestor
            stack.pop()
        p = stack[-1]
        parent.append(p)
        depth.append(depth[p] + 1)
        stack.append(len(parent) - 1)
    return np.array(parent), np.array(depth)


def _walked(parent: np.ndarray) -> np.ndarray:
    end = np.arange(1, len(parent) + 1)
    for i in range(len(parent) - 1, 0, -1):
        end[parent[i]] = max(end[parent[i]], end[i])
    return end


@pytest.mark.parametrize("seed", range(8))
def test_ends_are_the_walks(seed):
    rng = np.random.default_rng(seed)
    parent, depth = _random_preorder(rng, int(rng.integers(1, 400)))
    assert ends(parent, depth).tolist() == _walked(parent).tolist()
    # Numbered from a deeper root (a subtree's arrays): the same ends.
    assert ends(parent, depth + 3).tolist() == _walked(parent).tolist()


def test_a_lone_root_and_a_chain():
    assert ends(np.array([-1]), np.array([0])).tolist() == [1]
    chain = np.arange(-1, 5)
    assert ends(chain, np.arange(6)).tolist() == [6] * 6


@pytest.mark.parametrize("compiled", [False, True], ids=["python", "compiled"])
def test_growths_ends_are_numpys(compiled):
    """The grown tree's ends come from a kernel beside the pre-order (one loop back over the
    nodes); numpy's level-at-a-time ``ends`` is its oracle."""
    from engine.fast.builder import kernels

    rng = np.random.default_rng(9)
    C = kernels(compiled)
    for _ in range(6):
        parent, depth = _random_preorder(rng, int(rng.integers(1, 400)))
        got = C.subtree_ends(parent.astype(np.intp))
        assert got.tolist() == ends(parent, depth).tolist()
