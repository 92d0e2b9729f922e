"""Growth on several threads (engine.fast.threads): every thread count grows the same tree,
to the bit, and a cancel stops the threads."""

import threading
import time
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("numba")

from engine.errors import Cancelled  # noqa: E402
from engine.fast import builder, threads  # noqa: E402
from engine.growth import grow  # noqa: E402
from engine.monitor import Monitor  # noqa: E402
from engine.settings import resolve  # noqa: E402
from tests.oracle.data import generated, shape  # noqa: E402

pytestmark = pytest.mark.usefixtures("compiled_builder")


@pytest.fixture(autouse=True)
def small_fits_use_threads(monkeypatch):
    monkeypatch.setattr(builder, "THREADS_LEAST_ROWS", 0)


def bits(tree) -> list[str]:
    """Every node's shape and numbers; repr() of a float is exact: equal text, equal bits."""
    return [
        repr((float(n.impurity), float(n.value), sorted(n.stats.items()), n.split))
        for n in tree.walk()
    ]


def splits_recorded(monkeypatch) -> list:
    """The statuses the growth loop handed to every thread (``Splitter.split``), as they come."""
    statuses = []
    split_node = threads.Splitter.split

    def splitting(splitter, growth, status):
        statuses.append(status)
        split_node(splitter, growth, status)

    monkeypatch.setattr(threads.Splitter, "split", splitting)
    return statuses


CASES = [
    ("exact", dict(algorithm="cart"), dict(nominal=1)),
    ("exact, missing", dict(algorithm="cart", max_depth=9), dict(nominal=2, missing=0.1)),
    # Rows missing a split's value go whole down one branch: the subtrees wait where they are.
    (
        "exact, majority",
        dict(algorithm="cart", max_depth=9, missing="majority"),
        dict(nominal=2, missing=0.1),
    ),
    ("histogram", dict(algorithm="cart", splitter="histogram"), dict(missing=0.05)),
    (
        "histogram majority",
        dict(algorithm="cart", splitter="histogram", missing="majority"),
        dict(missing=0.1),
    ),
    # Subtrees under subset splits of categories, searched by the top, grown by the threads.
    (
        "histogram nominal",
        dict(algorithm="cart", splitter="histogram"),
        dict(nominal=2, categories=4, missing=0.05),
    ),
    (
        "histogram regression",
        dict(algorithm="cart", task="regression", splitter="histogram", max_depth=12),
        dict(regression=True, missing=0.1),
    ),
    ("c45 numeric", dict(algorithm="c45", prune="none"), dict(classes=4)),
    (
        "histogram c45",
        dict(algorithm="c45", prune="none", splitter="histogram"),
        dict(classes=4, missing=0.05),
    ),
    (
        "regression",
        dict(algorithm="cart", task="regression", max_depth=10),
        dict(regression=True, missing=0.1),
    ),
    ("best-first", dict(algorithm="cart", growth="best", max_leaves=40), dict()),
    (
        "absolute error",
        dict(algorithm="cart", task="regression", criterion="absolute_error", max_depth=8),
        dict(regression=True),
    ),
]


def small_subtrees(monkeypatch) -> None:
    """A 3,000-row fit shaped as a big one: the threads share small subtrees, every thread
    splits the top."""
    # Small subtrees below 256 entries: a few dozen of them for the threads to share.
    for rows in ("LOCAL_ROWS", "LOCAL_ROWS_LEAST", "HIST_LOCAL_ROWS"):
        monkeypatch.setattr(builder, rows, 256)
    monkeypatch.setattr(builder, "HIST_EXACT_BELOW", 64)
    # Histograms: the threads grow the subtrees of nodes below 1,024 entries from theirs,
    # handed out while the top grows in chunks of this much work.
    monkeypatch.setattr(builder, "HIST_SHARE_ROWS", 1024)
    monkeypatch.setattr(builder, "CHUNK_WORK", 2_000)
    # Exact search: nodes of 512 entries or more split by every thread at once.
    monkeypatch.setattr(builder, "SPLIT_LEAST_ROWS", 512)


@pytest.mark.parametrize("name, params, data_shape", CASES, ids=[c[0] for c in CASES])
def test_one_two_and_three_threads_grow_the_same_tree(name, params, data_shape, monkeypatch):
    small_subtrees(monkeypatch)
    # Deferred subtrees wait in ordinary pages, as a big fit's do (builder._ordinary_zeros).
    monkeypatch.setattr(builder, "ORDINARY_PAGES_LEAST", 0)
    split = splits_recorded(monkeypatch)
    shared, searched, n_parts = [], [], []
    append = threads._append

    def counting(growth, parts):  # the subtrees grown by threads, as their nodes join the tree
        rows = np.concatenate([p.rows for p in parts])
        shared.append(len(rows))
        searched.append(int((growth.nodes.attribute[rows] >= 0).sum()))
        n_parts.append(len(parts))
        append(growth, parts)

    monkeypatch.setattr(threads, "_append", counting)
    data = generated(5, n=3000, **data_shape)
    trees = [grow(data, resolve(**params, threads=k)) for k in (1, 2, 3)]
    # The threads grew subtrees (but best-first: one thread, the leaves limit ordering all).
    assert len(shared) == (0 if name == "best-first" else 2) and all(k > 2 for k in shared)
    # Every thread on the root and the nodes down to 512 entries, in the two fits on threads
    # (exact search, depth-first).
    from engine.fast.growth_loop import SPLIT_BIG, SPLIT_ROOT

    if name.startswith("histogram"):
        # Searched subtrees among them, handed out in batches while the top grew (more parts
        # than threads), and the rest at the end.
        assert not split and all(k >= 2 for k in searched) and n_parts[0] > 2
    elif name == "best-first":
        assert not split
    else:
        assert split.count(SPLIT_ROOT) == 2 and split.count(SPLIT_BIG) >= 4
    assert sum(1 for _ in trees[0].walk()) > 50
    assert shape(trees[0]) == shape(trees[1]) == shape(trees[2])
    assert bits(trees[0]) == bits(trees[1]) == bits(trees[2])


# Exact search's parts hold one subtree each (threads.biggest_first): nothing to give.
GIVING = [c for c in CASES if "histogram" in c[0]]


@pytest.mark.parametrize("name, params, data_shape", GIVING, ids=[c[0] for c in GIVING])
def test_parts_giving_subtrees_away_grow_the_same_tree(name, params, data_shape, monkeypatch):
    """A part still growing gives some of its subtrees to a thread with nothing to grow
    (``Pipeline._give``), forced here at every pause of every part: in the histogram mode
    nodes it has split itself (rows of its own, found through its rows when the nodes are
    appended), or subtrees it has yet to start; the new parts take the scratch of parts
    grown before. The tree is the same, bit for bit."""
    small_subtrees(monkeypatch)
    monkeypatch.setattr(threads, "STEAL_LEAST_ENTRIES", 0)
    given = []

    def always(pipeline, part):
        spare = pipeline._spare()  # a part grown before's scratch, taken again
        gift = part.split_off(spare)
        if gift is None:
            if spare is not None:
                pipeline.spares.append(spare)
            return
        given.append((gift.source is part, len(gift.rows)))
        with pipeline.ready:
            pipeline._put(gift)

    monkeypatch.setattr(threads.Pipeline, "_give", always)
    data = generated(5, n=3000, **data_shape)
    want = bits(grow(data, resolve(**params, threads=1)))
    for k in (2, 3):
        given.clear()
        assert bits(grow(data, resolve(**params, threads=k))) == want, k
        assert given and all(mine for mine, _ in given)


def test_a_part_gives_about_half_its_entries_the_biggest_first_and_keeps_a_valid_heap(
    monkeypatch,
):
    monkeypatch.setattr(threads, "STEAL_LEAST_ENTRIES", 0)
    part = threads._Part.__new__(threads._Part)
    sizes = np.array([100, 5, 40, 30, 20, 5])
    start = np.r_[0, np.cumsum(sizes)[:-1]]
    part.nodes = SimpleNamespace(start=start, end=start + sizes, slot=np.full(6, -1))
    part.state = SimpleNamespace(heap_size=np.array([6]), free_slots=np.array([0]))
    # Pending in pre-order (keys) among rows 2..7 of the part's nodes.
    part.heap = SimpleNamespace(
        node=np.array([0, 1, 2, 3, 4, 5, 0, 0]),
        key=np.array([1.0, 2.0, 2.0, 3.0, 4.0, 5.0, 0, 0]),
        tie=np.array([0, 1, 2, 3, 4, 5, 0, 0]),
    )
    part.rows = np.arange(6) + 10
    made = []
    part.growth = SimpleNamespace(params=SimpleNamespace(share=1))  # (the histogram mode)
    part.hist = SimpleNamespace(free=np.zeros(8, np.int64))

    def made_with(self, growth, rows, source=None, spare=None):
        made.append((rows.tolist(), source))

    monkeypatch.setattr(threads._Part, "__init__", made_with)
    assert threads._Part.split_off(part) is not None
    # 200 entries: the biggest (100) is half already; as rows of the giving part.
    assert made == [([0], part)]
    left = part.state.heap_size[0]
    assert left == 5 and part.heap.node[:left].tolist() == [1, 2, 3, 4, 5]
    assert part.heap.key[:left].tolist() == [2.0, 2.0, 3.0, 4.0, 5.0]
    # One node with most of the entries goes whole; small ones make up the rest of a half.
    part.heap.node[:5] = [1, 2, 3, 4, 5]
    sizes[:] = [0, 5, 80, 6, 7, 2]
    part.nodes.end[:] = part.nodes.start + sizes
    made.clear()
    assert threads._Part.split_off(part) is not None
    assert made == [([2], part)]  # 80 of 100: the biggest first, as far from half as the 20
    part.state.heap_size[0] = 1
    assert threads._Part.split_off(part) is None  # one subtree left: nothing to give
    part.state.heap_size[0] = 4
    part.growth.params.share = 0
    assert threads._Part.split_off(part) is None  # exact search's: one subtree, started


@pytest.mark.parametrize("rule, copied", [("fractional", True), ("majority", False)])
def test_subtrees_wait_where_they_are_unless_splits_copy_rows_missing_a_value(
    rule, copied, monkeypatch
):
    """C4.5's fractional rows go down both branches, copied past their node's segment, so a
    deferred subtree's segment moves aside before later splits overrun it; under ``--missing
    majority`` a row goes down one branch whole and the threads read the segment in place,
    as without missing values (the calling thread alone copied 38 ms a million-row fit)."""
    small_subtrees(monkeypatch)
    read = []
    make_part = threads._Part.__init__

    def recording(part, growth, rows, source=None, spare=None):
        make_part(part, growth, rows, source, spare)
        read.append(part.space.arena is growth.space.arena)
        read.append(int(growth.state.deferred_top[0]) > 0)  # segments copied to the side

    monkeypatch.setattr(threads._Part, "__init__", recording)
    data = generated(5, n=3000, missing=0.1)
    want = bits(grow(data, resolve(algorithm="cart", missing=rule, threads=1)))
    assert bits(grow(data, resolve(algorithm="cart", missing=rule, threads=2))) == want
    assert read and read[0::2] == [not copied] * (len(read) // 2)
    assert read[1::2] == [copied] * (len(read) // 2)
    assert threads.spills(np.array([False, True]), 0)
    assert not threads.spills(np.array([False, True]), 1)
    assert not threads.spills(np.array([False, False]), 0)


def test_memory_written_and_read_once_is_zeros_of_ordinary_pages(monkeypatch):
    import mmap

    monkeypatch.setattr(builder, "ORDINARY_PAGES_LEAST", 1024)
    small = builder._ordinary_zeros((3, 10), np.int32)
    big = builder._ordinary_zeros((3, 1000), np.int32)
    for a, size in ((small, (3, 10)), (big, (3, 1000))):
        assert a.shape == size and a.dtype == np.int32 and a.flags.c_contiguous
        assert a.flags.writeable and not a.any()
    big[2, 999] = 7
    assert big.sum() == 7 and builder._ordinary_zeros(0, np.float64).shape == (0,)

    def owner(a):
        while isinstance(a, np.ndarray):
            a = a.base
        return getattr(a, "obj", a)  # (a memoryview's)

    if hasattr(mmap, "MADV_NOHUGEPAGE"):  # (elsewhere numpy's zeros)
        assert isinstance(owner(big), mmap.mmap) and owner(small) is None


def test_the_histogram_pool_grows_rather_than_a_node_going_without(monkeypatch):
    """Depth-first, a node's children always get their histograms (the largest derived), so
    the tree is the same however few slots the pool starts with."""
    monkeypatch.setattr(builder, "HIST_LOCAL_ROWS", 128)
    data = generated(5, n=4000, regression=True)  # no missing values: derived ones
    settings = resolve(algorithm="cart", task="regression", splitter="histogram", threads=1)
    roomy = grow(data, settings)
    more = []
    more_slots = builder._more_slots

    def counting(hist, state, need):
        more.append(need)
        return more_slots(hist, state, need)

    monkeypatch.setattr(builder, "_more_slots", counting)
    monkeypatch.setattr(builder, "HIST_SLOTS", {"depth": 1, "best": 1})
    tight = grow(data, settings)
    assert more and bits(tight) == bits(roomy)


def test_exact_searchs_last_subtrees_are_handed_out_one_at_a_time_the_biggest_first():
    sizes = np.array([5.0, 100.0, 7.0, 60.0, 50.0, 60.0])
    groups = threads.biggest_first(sizes)
    assert [g.tolist() for g in groups] == [[1], [3], [5], [4], [2], [0]]  # ties in row order
    assert threads.n_threads(3) == 3 and threads.n_threads(0) >= 1


def test_the_last_subtrees_are_handed_out_in_shorter_and_shorter_shares():
    sizes = np.r_[[400.0, 30.0, 250.0], np.full(64, 5.0)]  # 1,000 in all
    groups = threads.guided_shares(sizes, 2)
    assert sorted(np.concatenate(groups).tolist()) == list(range(len(sizes)))
    loads = [sizes[g].sum() for g in groups]
    assert loads[:2] == [400.0, 250.0]  # the largest first, alone: each over a quarter left
    # Then half of what is left per thread, down to 1/16 of the whole (the last: the rest).
    assert loads[2:] == [90.0, 65.0, 65.0, 65.0, 65.0]
    assert all(t == sorted(t) for t in map(list, groups))  # a share's subtrees in row order


def test_a_big_nodes_attributes_are_taken_the_dearest_first():
    # 12 attributes swept along sorted orders, then 4 scored from their counts (``mixed``),
    # here given with the counted ones first: the sweeps are taken first, in attribute order.
    data = SimpleNamespace(
        kind=np.zeros(16, np.int64), numeric_index=np.r_[[-1] * 4, np.arange(12)]
    )
    assert threads.scan_order(data) == [(j, j + 1) for j in [*range(4, 16), *range(4)]]
    nominal = SimpleNamespace(kind=np.array([1, 0]), numeric_index=np.array([-1, -1]))
    assert threads.scan_order(nominal) == [(0, 1), (1, 2)]  # a nominal table: a sweep's cost


@pytest.mark.parametrize("splitter", ["exact", "histogram"])
def test_a_cancel_stops_the_threads(splitter, monkeypatch):
    """A cancel while the threads grow the small subtrees (in the histogram mode, while the
    top grows beside them or after): Cancelled, and no thread goes on."""
    monkeypatch.setattr(builder, "CHUNK_WORK", 2_000)
    for rows in ("LOCAL_ROWS", "LOCAL_ROWS_LEAST"):
        monkeypatch.setattr(builder, rows, 2048)
    monkeypatch.setattr(builder, "HIST_LOCAL_ROWS", 256)
    monkeypatch.setattr(builder, "HIST_SHARE_ROWS", 2048)
    started = threading.Event()
    grow_part = threads._Part.grow

    def grow_slowly(part, stop, budget, check=None):
        started.set()
        for _ in range(3000):  # until the cancel reaches this thread
            if stop.is_set():
                break
            if check is not None:  # the calling thread's monitor
                check()
            time.sleep(0.01)
        else:
            raise AssertionError("the cancel did not reach a thread")
        grow_part(part, stop, budget, check)

    monkeypatch.setattr(threads._Part, "grow", grow_slowly)
    handed = tasks_handed(monkeypatch)
    monitor = Monitor()
    data = generated(3, n=8000)
    errors = []

    def fit():
        try:
            grow(data, resolve(algorithm="cart", threads=2, splitter=splitter), monitor)
        except Cancelled as err:
            errors.append(err)

    thread = threading.Thread(target=fit)
    thread.start()
    assert started.wait(30)
    monitor.cancel()
    thread.join(timeout=30)
    assert not thread.is_alive() and errors
    assert handed and all(f.done() for f in handed)  # no helper grows on


def tasks_handed(monkeypatch) -> list:
    """The futures of the work handed to helper threads (``threads.helpers``), as handed."""
    handed = []
    pool = threads.helpers()

    class Recording:
        def submit(self, *args, **kwargs):
            handed.append(pool.submit(*args, **kwargs))
            return handed[-1]

    monkeypatch.setattr(threads, "helpers", Recording)
    return handed


@pytest.mark.parametrize("splitter", ["exact", "histogram"])
def test_parts_stopped_by_the_kernels_flag_alone_never_make_a_tree(splitter, monkeypatch):
    """Cancel sets the kernels' flag (``Monitor.stop_flag``) before the monitor says so: parts
    seeing the flag stop where they are, and the fit must raise Cancelled, not append them
    (a window's Cancel at the wrong moment once gave a tree with nodes missing, and freed
    memory twice)."""
    for rows in ("LOCAL_ROWS", "LOCAL_ROWS_LEAST", "HIST_LOCAL_ROWS"):
        monkeypatch.setattr(builder, rows, 256)
    monkeypatch.setattr(builder, "HIST_SHARE_ROWS", 1024)
    monkeypatch.setattr(builder, "CHUNK_WORK", 2_000)
    monitor = Monitor()
    grow_part = threads._Part.grow

    def flagged(part, stop, budget, check=None):
        monitor.stop_flag[0] = 1  # the flag only: monitor.check() still passes
        grow_part(part, stop, budget, check)

    monkeypatch.setattr(threads._Part, "grow", flagged)
    with pytest.raises(Cancelled):
        grow(generated(3, n=8000), resolve(algorithm="cart", threads=2, splitter=splitter), monitor)
    assert not monitor.cancelled


def test_a_cancel_while_every_thread_splits_the_top_stops_the_fit(monkeypatch):
    """Cancel between two big nodes split by every thread: Cancelled, and every step handed
    to a helper thread done."""
    monkeypatch.setattr(builder, "THREADS_LEAST_ROWS", 0)
    monkeypatch.setattr(builder, "SPLIT_LEAST_ROWS", 512)
    monitor = Monitor()
    split_node = threads.Splitter.split
    splits = []

    def split_then_cancel(splitter, growth, status):
        split_node(splitter, growth, status)
        splits.append(status)
        if len(splits) == 3:
            monitor.cancel()

    monkeypatch.setattr(threads.Splitter, "split", split_then_cancel)
    handed = tasks_handed(monkeypatch)
    with pytest.raises(Cancelled):
        grow(generated(6, n=6000), resolve(algorithm="cart", threads=2), monitor)
    assert len(splits) == 3
    assert handed and all(f.done() for f in handed)  # no helper splits on


def test_cross_validation_and_alpha_folds_side_by_side_score_as_one_after_another():
    from engine.evaluate.evaluation import cross_val_predict
    from engine.fitting import fit_tree
    from engine.prune.alpha import choose_alpha

    data = generated(4, n=400, nominal=1, missing=0.05)
    runs = [cross_val_predict(data, resolve(algorithm="cart", threads=k), folds=3) for k in (1, 2)]
    assert np.array_equal(runs[0][0], runs[1][0]) and runs[0][1] == runs[1][1]
    tree = fit_tree(data, resolve(algorithm="cart", prune="none"))
    chosen = [
        choose_alpha(tree, data, resolve(algorithm="cart", cv_alpha=3, threads=k)) for k in (1, 3)
    ]
    assert np.array_equal(chosen[0].cv_error, chosen[1].cv_error)
    assert chosen[0].chosen_alpha == chosen[1].chosen_alpha


def test_fold_map_keeps_the_order_and_stops_at_a_failure():
    out = threads.fold_map(lambda x, m: x * x, range(7), 3, Monitor())
    assert out == [0, 1, 4, 9, 16, 25, 36]

    def fail(x, monitor):
        if x == 2:
            raise Cancelled("stop")
        return x

    with pytest.raises(Cancelled):
        threads.fold_map(fail, range(5), 2, Monitor())


def test_scikit_learns_n_jobs_is_the_thread_count():
    pytest.importorskip("sklearn")
    from engine.sklearn import ArborClassifier

    every = threads.n_threads(0)
    for n_jobs, want in ((None, 0), (1, 1), (3, 3), (-1, every), (-2 - every, 1)):
        assert ArborClassifier(n_jobs=n_jobs)._settings(100).threads == want
    with pytest.raises(ValueError, match="n_jobs"):
        ArborClassifier(n_jobs=0)._settings(100)


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_big_nodes_counted_in_blocks_grow_the_same_tree_however_counted(task, monkeypatch):
    """Nodes of 131,072 entries or more are counted in blocks of 65,536
    (growth_loop.COUNT_BLOCK) added in order: by one thread, or by every thread taking blocks
    while the others have no subtree to grow (``Pipeline.idle``, forced both ways here). The
    root's children, of fewer, are counted a range of attributes by each thread
    (``SPLIT_SUM_ATTRIBUTES``); a node's scan is one thread's, or (many bins) shared."""
    from engine.fast.growth_loop import COUNT_BLOCK, SPLIT_ROOT, SPLIT_SCAN, SPLIT_SUM_ATTRIBUTES

    n = 2 * COUNT_BLOCK + 9_000
    data = generated(11, n=n, regression=task == "regression", missing=0.1, decimals=1)
    params = dict(algorithm="cart", task=task, splitter="histogram", max_depth=6)
    statuses = splits_recorded(monkeypatch)
    want = bits(grow(data, resolve(**params, threads=1)))
    phases: list = []
    run_step = threads.Splitter.split

    def splitting(splitter, growth, status):  # every step the threads were handed
        C = growth.kernels
        step = C.split_step
        monkeypatch.setattr(
            C, "split_step", lambda phase, *a: phases.append(phase) or step(phase, *a)
        )
        try:
            run_step(splitter, growth, status)
        finally:
            monkeypatch.setattr(C, "split_step", step)

    monkeypatch.setattr(threads.Splitter, "split", splitting)
    for idle in (True, False):
        monkeypatch.setattr(threads.Pipeline, "idle", lambda self, idle=idle: idle)
        for k in (2, 3):
            assert bits(grow(data, resolve(**params, threads=k))) == want, (idle, k)
    assert statuses.count(SPLIT_ROOT) == 2  # the root by every thread, when they were idle
    # The root's children (both counted: entries missing its value go down both) by every
    # thread, a range of attributes each, in the fits on 2 and 3 threads; each of the three
    # nodes scanned by one thread.
    assert phases.count(SPLIT_SUM_ATTRIBUTES) == 2 * (2 + 3) and phases.count(SPLIT_SCAN) == 6
    monkeypatch.setattr(threads, "SCAN_SHARED_BINS", 1)
    monkeypatch.setattr(threads.Pipeline, "idle", lambda self: True)
    phases.clear()
    assert bits(grow(data, resolve(**params, threads=2))) == want
    assert phases.count(SPLIT_SCAN) == 3 * 2  # every node's by both threads


def test_blocked_counts_are_exact_counts(monkeypatch):
    """Classes counted in blocks are whole numbers, exact in any order: on columns of fewer
    values than bins, the histogram mode's tree is exact search's (sweeping sorted orders),
    split for split."""
    from engine.fast.growth_loop import COUNT_BLOCK

    data = generated(12, n=2 * COUNT_BLOCK + 5_000, decimals=1, classes=4)
    params = dict(algorithm="cart", max_depth=5)
    monkeypatch.setattr(builder, "EXACT_BINS_LEAST_ROWS", 10**12)
    exact = grow(data, resolve(splitter="exact", threads=1, **params))
    for k in (1, 2):
        binned = grow(data, resolve(splitter="histogram", threads=k, **params))
        assert shape(binned) == shape(exact)


def test_work_made_beside_gives_its_result_or_its_error_when_asked():
    names = []

    def work():
        names.append(threading.current_thread().name)
        return 7

    assert threads.beside(work, 1)() == 7 and names == ["MainThread"]  # asked for: here
    assert threads.beside(work, 2)() == 7 and names[-1].startswith("arbor-help")

    def failing():
        raise ArithmeticError("no")

    made = threads.beside(failing, 2)
    with pytest.raises(ArithmeticError, match="no"):
        made()


def test_the_helper_threads_are_kept_from_fit_to_fit():
    data = generated(3, n=30_000)
    params = resolve(algorithm="cart", splitter="histogram", threads=2)

    def helping() -> set:
        return {t.ident for t in threading.enumerate() if t.name.startswith("arbor-help")}

    want = bits(grow(data, params))
    kept = helping()
    assert kept and bits(grow(data, params)) == want
    assert helping() == kept  # none started again


def test_a_splitter_of_one_thread_splits_as_the_growth_loop_does(monkeypatch):
    """The builder makes a Splitter for two threads or more; one of a single thread (no other
    thread's buffers) still splits every big node, into the one-thread tree."""
    small_subtrees(monkeypatch)
    split = splits_recorded(monkeypatch)
    made = threads.Splitter.__init__
    monkeypatch.setattr(threads.Splitter, "__init__", lambda self, growth, _: made(self, growth, 1))
    data = generated(5, n=3000, nominal=1)
    params = dict(algorithm="cart")
    alone = grow(data, resolve(**params, threads=1))
    assert not split
    assert bits(grow(data, resolve(**params, threads=2))) == bits(alone)
    assert split
