"""A pruning decision as HTML: the options weighed at a node, with the shares that make them.

The inspector shows it for the selected node and the Pruning panel's walk-through for the
decision at hand. The numbers are the record's (:mod:`engine.prune.record`); this module
only words and lays them out.
"""

from __future__ import annotations

from html import escape

from engine.export.labels import condition, number
from engine.prune.record import (
    BRANCH,
    COLLAPSED,
    IS_LEAF,
    KEPT,
    LEAF,
    PRUNED,
    RAISED,
    SUBTREE,
    Decision,
    PruningRecord,
    Share,
)
from engine.tree import Node, Tree

VERDICTS = {
    KEPT: "kept: the subtree's estimate is the lowest",
    PRUNED: "pruned to a leaf",
    RAISED: "replaced by its most populated branch (subtree raising)",
    COLLAPSED: "collapsed first: its leaves make no fewer training errors than it would alone",
    IS_LEAF: "a leaf: its estimate is what its parent adds up",
}
OPTION_NAMES = {SUBTREE: "keep the subtree", LEAF: "make it a leaf", BRANCH: "raise a branch"}
#: Why the notes' toys example prints 2.512 where the exact bound gives 2.554.
EXACT_NOTE = (
    "p solves P(at most E errors in N | p) = CF exactly, the notes' own equation. The MIT "
    "notes print p = 0.157 for the toys' leaf (N = 16, E = 1) and so 16 × 0.157 = 2.512; "
    "the root of their equation is p = 0.1596, giving 2.554."
)
C45_NOTE = (
    "Estimates use J48's normal approximation to the upper confidence bound "
    "(error estimate 'exact' solves the binomial equation of the notes)."
)


def _method(record: PruningRecord) -> str:
    if record.method == "reduced-error":
        return "reduced-error pruning: errors on the held-out rows"
    estimate = "exact binomial bound" if record.estimate == "exact" else "J48's approximation"
    return f"C4.5's pessimistic pruning ({estimate}, CF = {number(record.confidence)})"


#: The compact form's column heads (the inspector's narrow dock) and what they stand for, said
#: once in a legend under the table: (head, meaning) for rows, errors, the bound, the estimate.
COMPACT_HEADS = {
    "rows": ("rows", "training rows reaching it"),
    "held-out rows": ("rows", "held-out rows reaching it"),
    "errors": ("err.", "training errors made there"),
    "held-out errors": ("err.", "held-out errors made there"),
    "p (bound)": ("p", "the upper confidence bound on the error rate"),
    "estimated errors": ("est.", "estimated errors, rows × p"),
}


def _share_row(tree: Tree, node: Node | None, share: Share, pessimistic: bool, indent: bool) -> str:
    if (
        share.branch < 0
        or node is None
        or node.split is None
        or share.branch >= node.split.n_branches
    ):
        name = "as one leaf, with every row" if share.branch < 0 else f"branch {share.branch}"
    else:
        name = condition(tree, node, share.branch)
    if share.leaves > 1:
        name += f" ({share.leaves} leaves)"
    pad = "&nbsp;&nbsp;&nbsp;" if indent else ""
    rate = (
        f"{share.rate:.3f}"
        if pessimistic and share.leaves == 1
        else (f"{share.rate:.3f}&nbsp;avg" if pessimistic else "")
    )
    return (
        f"<tr><td>{pad}{escape(name)}</td><td align=right>{number(round(share.n, 3))}</td>"
        f"<td align=right>{number(round(share.errors, 3))}</td><td align=right>{rate}</td>"
        f"<td align=right>{share.estimate:.3f}</td></tr>"
    )


def decision_html(
    tree: Tree, decision: Decision, record: PruningRecord, node: Node | None, compact: bool = False
) -> str:
    """One decision as a table: options (bold: the one taken), their shares, the verdict.

    ``node`` is the node as it stood when decided (its split words the branches).
    ``compact``: short column heads ("rows", "err.", "p", "est.") with their meaning in a
    legend under the table, for a narrow dock (the inspector's); the numbers are the same."""
    pessimistic = record.method == "pessimistic" and decision.verdict != COLLAPSED
    held = record.method == "reduced-error"
    words = [
        "held-out rows" if held else "rows",
        "errors" if not held else "held-out errors",
        "p (bound)" if pessimistic else "",
        "estimated errors" if pessimistic else "errors",
    ]
    legend = ""
    if compact:  # one legend entry per short head, the first column's meaning
        meanings = dict(COMPACT_HEADS[w] for w in reversed(words) if w)
        heads = dict.fromkeys(COMPACT_HEADS[w][0] for w in words if w)
        legend = "; ".join(f"{h}: {meanings[h]}" for h in heads)
        words = [COMPACT_HEADS[w][0] if w else "" for w in words]
    head = (
        f"<tr><th align=left>option</th><th>{words[0]}</th><th>{words[1]}</th>"
        f"<th>{words[2]}</th><th>{words[3]}</th></tr>"
    )
    taken = {KEPT: SUBTREE, PRUNED: LEAF, RAISED: BRANCH, COLLAPSED: LEAF, IS_LEAF: LEAF}[
        decision.verdict
    ]
    body = []
    for option in decision.options:
        style = " style='background:#FFE08A'" if option.kind == taken else ""
        label = OPTION_NAMES[option.kind]
        raised_node = None
        if option.kind == BRANCH and node is not None and node.split is not None:
            label += f": {condition(tree, node, option.branch)}"
            # The shares are the raised child's own branches: word them by its split, raised
            # or not (only the raised tree's was used, and other verdicts read "branch 0").
            if 0 <= option.branch < len(node.children):
                raised_node = node.children[option.branch]
            elif decision.verdict == RAISED:
                raised_node = decision.after
        if decision.verdict == IS_LEAF:
            label = "as a leaf"
        body.append(
            f"<tr{style}><td><b>{escape(label)}</b></td><td></td><td></td><td></td>"
            f"<td align=right><b>{option.total:.3f}</b></td></tr>"
        )
        if option.kind == LEAF:
            share = option.parts[0]
            rate = f"{share.rate:.3f}" if pessimistic else ""
            body[-1] = (
                f"<tr{style}><td><b>{escape(label)}</b></td>"
                f"<td align=right>{number(round(share.n, 3))}</td>"
                f"<td align=right>{number(round(share.errors, 3))}</td><td align=right>{rate}</td>"
                f"<td align=right><b>{option.total:.3f}</b></td></tr>"
            )
            continue
        owner = raised_node if option.kind == BRANCH else node
        for share in option.parts:
            body.append(_share_row(tree, owner, share, pessimistic, indent=True))
    parts = [
        f"<p><b>Pruning</b> — {escape(_method(record))}<br>"
        f"<b>Verdict:</b> {escape(VERDICTS[decision.verdict])}</p>",
        f"<table cellspacing=3>{head}{''.join(body)}</table>",
    ]
    if legend:
        parts.append(f"<p style='color:#6B7280'>{escape(legend)}.</p>")
    if pessimistic and decision.verdict != IS_LEAF:
        parts.append(
            "<p style='color:#6B7280'>J48's rule: a leaf if its estimate is within 0.1 of "
            "both others; else the raised branch if within 0.1 of the subtree; else keep.</p>"
        )
    if pessimistic:
        parts.append(
            f"<p style='color:#6B7280'>{escape(EXACT_NOTE if record.estimate == 'exact' else C45_NOTE)}</p>"
        )
    return "".join(parts)


def node_pruning_html(
    tree: Tree, node_id: int, step: int | None = None, compact: bool = False
) -> str:
    """Every decision about ``node_id`` in ``tree`` (a pruned tree or a walk-through state);
    ``compact`` as for :func:`decision_html`."""
    record = tree.pruning
    if record is None:
        return ""
    decisions = record.decisions_at(tree, node_id, step)
    if not decisions:
        return ""
    here = tree.node(node_id)
    # The node as it stood when decided: a cut or raise kept it whole; otherwise it is unchanged.
    return "".join(
        decision_html(tree, d, record, d.before if d.before is not None else here, compact)
        for d in decisions
    )
