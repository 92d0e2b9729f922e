"""The kernels compile once per machine, in one child at a time that never outlives its parent,
into a per-user folder that clones at other paths share; after the warm-up nothing compiles.

Tests that start processes use their own cache folder (``ARBOR_CACHE_DIR``) and, where a
real compilation would take a minute, a stand-in warm-up that a ``sitecustomize`` module
installs in every process they start (the compiling child included).
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.compiling import lifecycle as kernels
from engine.fast import NUMBA_INSTALLED
from engine.fast.compile import cache

ROOT = Path(__file__).resolve().parents[3]
needs_numba = pytest.mark.skipif(not NUMBA_INSTALLED, reason="numba is not installed")

FAKE_WARM_UP = """\
import importlib.abc, importlib.machinery, os, sys, time
from pathlib import Path

def warm_up(check=lambda: None, partitions=False):
    name = f"warm-up-{os.getpid()}" + ("-partitions" if partitions else "")
    Path(os.environ["ARBOR_TEST_RAN"], name).touch()
    time.sleep(float(os.environ.get("ARBOR_TEST_WARM_UP_SECONDS", "0")))

def warm_up_partitions(check=lambda: None):
    warm_up(check, partitions=True)

#: What to change in a module as it loads. Importing the warm-ups here to change them would
#: cost every process a test starts a second of Dask it may never load.
PATCHES = {
    "engine.compiling.warmup": lambda module: setattr(module, "warm_up", warm_up),
    "engine.scale.warmup": lambda module: setattr(
        module, "warm_up_partitions", warm_up_partitions
    ),
}

class Patching(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name not in PATCHES:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            PATCHES[name](module)

        spec.loader.exec_module = exec_module
        return spec

sys.meta_path.insert(0, Patching())
"""


def _env(tmp_path: Path, seconds: float = 0.0) -> dict:
    """A process environment with its own cache folder and the stand-in warm-up."""
    hooks = tmp_path / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "sitecustomize.py").write_text(FAKE_WARM_UP)
    ran = tmp_path / "ran"
    ran.mkdir(exist_ok=True)
    env = dict(
        os.environ,
        ARBOR_CACHE_DIR=str(tmp_path / "cache"),
        ARBOR_TEST_RAN=str(ran),
        ARBOR_TEST_WARM_UP_SECONDS=str(seconds),
        QT_QPA_PLATFORM="offscreen",
    )
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT), str(hooks), env.get("PYTHONPATH")) if p
    )
    env.pop("XDG_CACHE_HOME", None)
    return env


def _folder(tmp_path: Path) -> Path:
    return cache._folder(str(tmp_path / "cache"), cache.sources_digest())


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead too (waiting for its reaper)
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


def _wait_for(condition, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


# ---------------------------------------------------------------------- where the cache is


def test_the_cache_is_in_the_per_user_cache_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("ARBOR_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    if sys.platform.startswith("linux"):
        assert cache.cache_root() == tmp_path / "xdg" / "arbor"
        monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # the spec says: ignore it
        assert cache.cache_root() == Path.home() / ".cache" / "arbor"
    monkeypatch.setenv("ARBOR_CACHE_DIR", str(tmp_path / "mine"))
    assert cache.cache_root() == tmp_path / "mine"
    folder = cache._folder(str(tmp_path / "mine"), "0123456789abcdef")
    assert folder.parent == tmp_path / "mine" / "numba" and folder.is_dir()
    from importlib.metadata import version

    assert folder.name.startswith(f"{version('arbor')}-numba{version('numba')}-py")
    assert folder.name.endswith("-0123456789abcdef")


def test_the_digest_covers_the_kernels_and_what_they_import():
    names = {p.relative_to(cache.ENGINE).as_posix() for p in cache.kernel_sources()}
    assert {
        "fast/kernels.py",
        "fast/sweeps.py",
        "fast/growth_loop.py",
        "fast/histogram.py",
        "learn/tolerances.py",
    } <= names  # tolerances: constants compiled into the kernels
    assert {"fast/compile/jit.py"} <= names  # the options numba compiles with
    assert not {"fast/builder.py", "compiling/lifecycle.py", "fast/compile/cache.py"} & names


@needs_numba
def test_the_kernels_cache_into_the_shared_folder():
    from engine.fast import kernels

    assert Path(kernels.impurity.stats.cache_path) == cache.kernel_folder()


def _clone(tmp_path: Path, name: str) -> Path:
    """A copy of the engine at another path: new files, so new modification times."""
    target = tmp_path / name
    shutil.copytree(
        ROOT / "engine",
        target / "engine",
        copy_function=shutil.copyfile,
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    return target


def test_the_digest_is_of_content_not_of_paths_or_times(tmp_path):
    here = cache.sources_digest()
    copy = _clone(tmp_path, "copy") / "engine"
    assert cache.sources_digest(copy) == here
    changed = _clone(tmp_path, "changed") / "engine"
    tolerances = changed / "learn" / "tolerances.py"  # constants compiled into the kernels
    tolerances.write_text(tolerances.read_text() + "\n# changed\n")
    assert cache.sources_digest(changed) != here
    growth = copy / "growth.py"  # not compiled: no reason to compile again
    growth.write_text(growth.read_text() + "\n# changed\n")
    assert cache.sources_digest.__wrapped__(copy) == here


@needs_numba
@pytest.mark.slow
def test_two_clones_at_other_paths_share_one_compilation(tmp_path):
    """numba's own cache is keyed by path and modification time: a second clone compiled again.
    Slow (2 s of CPU, two processes loading numba): that clones at other paths, with other
    times, name the same folder is checked quickly by the digest's test above."""
    script = (
        "import json, numpy as np\n"
        "from engine.fast import kernels\n"
        "from engine.fast.compile.cache import kernel_folder\n"
        "kernels.first_best(np.array([1.0, 3.0, 2.0]), 3, 1e-6)\n"
        "s = kernels.first_best.stats\n"
        "print(json.dumps({'folder': str(kernel_folder()), 'file': kernels.__file__,\n"
        "                  'hits': sum(s.cache_hits.values()), 'misses': sum(s.cache_misses.values())}))\n"
    )
    env = dict(os.environ, ARBOR_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("PYTHONPATH", None)

    def run(where: Path) -> dict:
        out = _python(["-c", script], env, cwd=where)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout.strip().splitlines()[-1])

    first = run(_clone(tmp_path, "first"))
    later = _clone(tmp_path, "second")
    stamp = time.time() + 60  # later modification times for the second copy, set not waited for
    for path in later.rglob("*.py"):
        os.utime(path, (stamp, stamp))
    second = run(later)
    assert first["file"] != second["file"]
    assert first["folder"] == second["folder"]
    assert (first["misses"], second["misses"], second["hits"]) == (1, 0, 1)


# ---------------------------------------------------------------------- the warm-up


def _signatures() -> dict:
    """Every compiled kernel's signatures in this process, and the cache index's entries."""
    import importlib

    from numba.core.dispatcher import Dispatcher

    loaded = {}
    for path in cache.kernel_sources():
        if path.parent.name != "fast":
            continue
        module = importlib.import_module(f"engine.fast.{path.stem}")
        for name, obj in vars(module).items():
            if isinstance(obj, Dispatcher) and obj.py_func.__module__ == module.__name__:
                loaded[f"{path.stem}.{name}"] = {str(s) for s in obj.signatures}
    index = {}
    for nbi in cache.kernel_folder().glob("*.nbi"):
        with open(nbi, "rb") as f:
            pickle.load(f)  # numba's version
            _, overloads = pickle.loads(f.read())
        index[nbi.name] = {str(key[0]) for key in overloads}
    return {"loaded": loaded, "index": index}


def _other_fits(tmp_path: Path) -> None:
    """Real fits unlike the warm-up's: files read from disk, other shapes, missing values,
    pruning, cross-validation, a regrown subtree, the window's step-by-step growth."""
    from engine.data.encoding import encode
    from engine.data.io import read_table
    from engine.estimator import DecisionTree
    from engine.evaluate.evaluation import cross_validate
    from engine.growth import grow, grow_below, grow_steps

    rng = np.random.default_rng(7)
    n = 9_000
    frame = pd.DataFrame({f"a{i}": rng.normal(size=n).round(3) for i in range(6)})
    frame["k"] = rng.integers(0, 4, n)
    frame["colour"] = rng.choice(list("pqrst"), n)
    frame["y"] = np.array(list("vwxyz"))[
        (frame.a0 > 0).astype(int) + 2 * (frame.a1 > 0.5) + (frame.k == 3)
    ]
    frame.to_csv(tmp_path / "big.csv", index=False)
    table = read_table(tmp_path / "big.csv")
    numeric = read_table(tmp_path / "big.csv", ignored=["colour"])
    for options in (
        {"algorithm": "cart", "splitter": "histogram"},
        {"algorithm": "cart", "criterion": "entropy", "max_depth": 8},
        {"algorithm": "cart", "criterion": "misclassification", "growth": "best", "max_leaves": 30},
        {"algorithm": "cart", "prune": "cost-complexity", "cv_alpha": 3, "max_depth": 6},
        {"algorithm": "c45", "max_depth": 6},
        {"algorithm": "c45", "prune": "reduced-error", "max_depth": 6},
    ):
        DecisionTree(**options).fit(numeric)
    DecisionTree(algorithm="c45", max_depth=5).fit(table)
    model = DecisionTree(algorithm="c45", prune="none", max_depth=2).fit(table)
    leaf = next(node for node in model.tree_.root.walk() if node.is_leaf and node.weight > 2_500)
    grow_below(model.tree_, encode(table), model.settings_, leaf.id)
    regression = numeric.frame.assign(y=numeric.frame.a0 * 2 + rng.normal(size=n))
    DecisionTree(algorithm="cart", task="regression", max_depth=8).fit(regression, target="y")
    holes = frame.copy()
    holes.loc[rng.random(n) < 0.1, "a0"] = np.nan
    holes.loc[rng.random(n) < 0.1, "colour"] = None
    for options in ({"algorithm": "c45", "max_depth": 5}, {"algorithm": "cart", "max_depth": 5}):
        DecisionTree(**options).fit(holes, target="y")
    data = encode(numeric)
    steps = grow_steps(data, DecisionTree(algorithm="cart", max_depth=3).settings())
    for _ in zip(range(3), steps, strict=False):
        pass
    cross_validate(
        data,
        DecisionTree(algorithm="cart", splitter="histogram", max_leaves=20).settings(),
        folds=3,
        seed=2,
    )
    grow(
        data,
        DecisionTree(algorithm="cart", max_depth=4).settings(),
        compiled=True,
        rows=np.arange(0, n, 3),
        weights=np.full(len(range(0, n, 3)), 2.0),
    )


@needs_numba
def test_after_the_warm_up_real_fits_compile_nothing_new(tmp_path):
    """The warm-up once compiled a writable-array signature; every real fit then compiled a
    read-only one (43 s in its own process)."""
    assert kernels.compile_kernels()
    before = _signatures()
    _other_fits(tmp_path)
    after = _signatures()
    assert after["index"] == before["index"]  # nothing compiled and saved
    assert after["loaded"] == before["loaded"]  # nothing compiled, nothing else loaded


def _loaded_signatures() -> dict:
    """Every compiled kernel signature loaded in this process (a worker's, by client.run)."""
    return _signatures()["loaded"]


def _partition_files(tmp_path: Path) -> dict:
    """Parquet partitions unlike the warm-up's CSV files: more rows (a node of 8,192 summed
    into histograms), missing values, a 300-category attribute, a numeric target."""
    rng = np.random.default_rng(11)
    n = 24_000
    frame = pd.DataFrame({f"a{i}": rng.normal(size=n).round(3) for i in range(4)})
    frame["colour"] = rng.choice(list("pqrst"), n)
    frame["key"] = [f"k{v}" for v in rng.integers(0, 300, n)]
    frame["y"] = np.array(list("uvw"))[(frame.a0 > 0).astype(int) + (frame.colour == "p")]
    frame["z"] = frame.a1 * 2 + rng.normal(size=n)
    holes = frame.copy()
    holes.loc[rng.random(n) < 0.1, "a0"] = np.nan
    holes.loc[rng.random(n) < 0.1, "colour"] = None
    folders = {}
    for name, table in (("plain", frame), ("holes", holes)):
        folder = tmp_path / name
        folder.mkdir()
        for k in range(4):
            table.iloc[k * n // 4 : (k + 1) * n // 4].to_parquet(folder / f"part.{k}.parquet")
        folders[name] = str(folder)
    return folders


#: Fits over partitions unlike the warm-up's: alpha on held-out rows, C4.5, a leaf limit, regression.
PARTITION_FITS = (
    ("holes", "y", {"algorithm": "cart"}),
    ("holes", "y", {"algorithm": "c45", "max_depth": 6}),
    ("plain", "y", {"algorithm": "cart", "prune": "none", "max_depth": 8}),
    ("plain", "y", {"algorithm": "cart", "growth": "best", "max_leaves": 40}),
    ("holes", "z", {"algorithm": "cart", "task": "regression", "max_depth": 6}),
)


def _fit_partitions_on(cluster, folders) -> None:
    from engine.scale.source import describe, scan
    from engine.scale.training import fit_partitions
    from engine.settings import resolve

    for name, target, options in PARTITION_FITS:
        dataset = scan(describe(folders[name]), cluster.map, target)
        fit_partitions(dataset, resolve(**options), cluster)


@needs_numba
def test_fits_over_partitions_use_only_kernels_the_warm_up_compiles(tmp_path):
    """The compilation (``python main.py compile``, or the child a fit starts) runs fits over
    partitions too: a first fit on a local Dask cluster compiled the partition kernels in
    every worker process, a minute each. Here the fits run on a worker thread of this
    process, so a kernel signature they need beyond the warm-up's would be compiled here
    (and saved in the cache folder) and show. (A worker process, which loads its kernels
    from the cache folder: the slow test below.)"""
    pytest.importorskip("distributed")
    from engine.scale.cluster import Cluster
    from engine.scale.warmup import warm_up_partitions

    assert kernels.compile_kernels()
    warm_up_partitions()
    before = _signatures()
    assert "partitions.accumulate_leaves" in before["loaded"]
    folders = _partition_files(tmp_path)
    with Cluster(n_workers=1, processes=False) as cluster:
        _fit_partitions_on(cluster, folders)
    after = _signatures()
    assert after["index"] == before["index"]  # nothing compiled and saved
    assert after["loaded"] == before["loaded"]  # the driver's scoring and the worker's passes


@needs_numba
@pytest.mark.slow
def test_worker_processes_load_only_kernels_the_warm_up_compiles(tmp_path):
    """As above, on a worker process of its own (it loads the kernels it needs from the cache
    folder): its signatures and the driver's are all the warm-up's. Slow (about 6 s of CPU,
    most of it the worker process starting and loading the kernels), and only a worker
    process shows what a worker process loads: run with -m slow."""
    pytest.importorskip("distributed")
    from engine.scale.cluster import Cluster
    from engine.scale.warmup import warm_up_partitions

    assert kernels.compile_kernels()
    warm_up_partitions()
    warmed = _loaded_signatures()
    folders = _partition_files(tmp_path)
    with Cluster(n_workers=1) as cluster:
        _fit_partitions_on(cluster, folders)
        workers = cluster.client.run(_loaded_signatures)
    assert _loaded_signatures() == warmed  # the driver's scoring
    for loaded in workers.values():
        assert "partitions.accumulate_leaves" in loaded
        for kernel, signatures in loaded.items():
            assert signatures <= warmed.get(kernel, set()), kernel


# ---------------------------------------------------------------------- the child


@needs_numba
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize(
    "how",
    # A parent that exits ends the child the same two ways as one that is killed (the
    # kernel's PR_SET_PDEATHSIG, the end of its input pipe): the second case with -m slow.
    ["killed", pytest.param("exits", marks=pytest.mark.slow)],
)
def test_the_compiling_child_never_outlives_its_parent(tmp_path, how):
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from engine.compiling import lifecycle as c\n"
            "c.prepare()\n"
            "while c._child is None: time.sleep(0.02)\n"
            "print(c._child.pid, flush=True)\n"
            "sys.stdin.readline()\n",
        ],  # then exits
        env=_env(tmp_path, seconds=120),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    child = int(parent.stdout.readline())
    assert _alive(child)
    if how == "killed":
        parent.send_signal(signal.SIGKILL)
    else:
        parent.stdin.write("\n")
        parent.stdin.flush()
    parent.wait(timeout=30)
    assert _wait_for(lambda: not _alive(child), 10)


@needs_numba
@pytest.mark.slow
def test_one_compilation_at_a_time_and_a_second_child_joins_the_first(tmp_path):
    """Slow (3 s of CPU: two compiling children, each its own process), and only processes
    show how they share a lock: run with -m slow. (A child that compiles and marks the
    folder complete is in the quick run: the too-big fit below.)"""
    env = _env(tmp_path)
    folder = _folder(tmp_path)
    ran = tmp_path / "ran"
    command = [sys.executable, "-m", "engine.compile_child"]
    with cache.folder_lock(folder) as held:  # "another process" compiling
        assert held
        child = subprocess.Popen(command, env=env, stdin=subprocess.PIPE)
        time.sleep(1.5)
        assert child.poll() is None and not list(ran.iterdir())  # waiting for the lock
        cache.mark_complete(folder, 42.0)
    assert child.wait(timeout=30) == 0
    assert not list(ran.iterdir())  # found the folder complete: compiled nothing
    cache.mark_incomplete(folder)
    child = subprocess.Popen(command, env=env, stdin=subprocess.PIPE)  # its parent stays
    assert child.wait(timeout=60) == 0
    # the fits in this process, then over partitions
    assert sorted(p.name.endswith("-partitions") for p in ran.iterdir()) == [False, True]
    assert cache.is_complete(folder)
    assert json.loads((folder / cache.COMPLETE).read_text())["sources"]


# ---------------------------------------------------------------------- what people see


def _big_csv(tmp_path: Path) -> Path:
    rng = np.random.default_rng(1)
    n = 3_000
    frame = pd.DataFrame({"a": rng.normal(size=n).round(2), "b": rng.normal(size=n).round(2)})
    frame["y"] = np.where(frame.a + frame.b > 0, "yes", "no")
    frame.to_csv(tmp_path / "big.csv", index=False)
    return tmp_path / "big.csv"


def _python(args, env, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """``python ARGS`` in a process of its own, with ``env``, no input, its output kept."""
    return subprocess.run(
        [sys.executable, *args],
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _cli(args, env) -> subprocess.CompletedProcess:
    return _python([str(ROOT / "main.py"), *args], env)


def _small_csv(tmp_path: Path) -> Path:
    frame = pd.read_csv(_big_csv(tmp_path)).head(600)  # 1,200 cells: a tiny fit
    frame.to_csv(tmp_path / "small.csv", index=False)
    return tmp_path / "small.csv"


#: In one fresh interpreter, main.py's main as the command line runs it: trains on the small
#: table and the big one (a tiny fit and a small one: neither may start the compilation or
#: wait for it), prints what that left, then makes every fit too big to run uncompiled and
#: trains on the small table again (it then compiles, says so and waits). A line on stderr
#: parts what the fits said before from what the too-big one said. One interpreter for both
#: tests reading it: one each cost a second of CPU more.
COMMANDS = """\
import json, os, sys, time
import main
from engine.fast.compile import cache
small, big, too_big = sys.argv[1:]

def train(data, *options):
    code = main.main(["train", data, "--algorithm", "cart", "--max-depth", "2", *options])
    print(f"exit {code}", flush=True)

started = time.monotonic()
train(small)
train(big)
left = {
    "seconds": time.monotonic() - started,
    "ran": os.listdir(os.environ["ARBOR_TEST_RAN"]),
    "folder": str(cache.kernel_folder()),
    "complete": cache.is_complete(cache.kernel_folder()),
}
print(json.dumps(left), flush=True)
print(too_big, file=sys.stderr, flush=True)
import engine.growth
engine.growth.INTERPRETED_MAX_CELLS = engine.growth.UNCOMPILED_MAX_CELLS = 0
os.environ["ARBOR_TEST_WARM_UP_SECONDS"] = "1"  # the stand-in compilation, from now on
train(small, "--prune", "none")
"""
TOO_BIG = "-- every fit too big to run uncompiled from here --"


@pytest.fixture(scope="module")
def commands(tmp_path_factory):
    """:data:`COMMANDS` run: ``(before, left, after, stderr_before, stderr_after, folder)``,
    the output of the small commands, what they left, the too-big one's output."""
    tmp_path = tmp_path_factory.mktemp("commands")
    env = _env(tmp_path, seconds=120)  # until the too-big fit: the small ones never wait
    hooks = tmp_path / "hooks" / "sitecustomize.py"
    hooks.write_text(
        hooks.read_text()
        + (  # the too-big fit grows uncompiled once compiled: the stand-in compilation
            "def uncompiled(module):\n"  # compiled nothing to load (the small fits run
            "    choose = module.kernels\n"  # uncompiled anyway: the kernels are cold)
            "    module.kernels = lambda compiled: choose(False)\n"
            "PATCHES['engine.fast.builder'] = uncompiled\n"
        )
    )
    data = (_small_csv(tmp_path), _big_csv(tmp_path))  # 1,200 and 6,000 cells
    out = _python(["-c", COMMANDS, *map(str, data), TOO_BIG], env)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    at = next(k for k, line in enumerate(lines) if line.startswith("{"))
    before, after = "\n".join(lines[:at]), "\n".join(lines[at + 1 :])
    assert TOO_BIG in out.stderr, out.stderr
    err_before, err_after = out.stderr.split(TOO_BIG)
    return before, json.loads(lines[at]), after, err_before, err_after, _folder(tmp_path)


@needs_numba
def test_a_small_command_neither_starts_nor_waits_for_the_compilation(commands):
    before, left, _, err_before, _, folder = commands
    assert before.count("CART tree") == 2 and before.count("exit 0") == 2, before
    assert "compil" not in err_before
    assert left["seconds"] < 60  # the stand-in compilation takes 120 s
    assert left["ran"] == []  # nothing compiled or loaded
    assert Path(left["folder"]) == folder and not left["complete"]


@needs_numba
def test_a_fit_too_big_to_run_uncompiled_compiles_says_so_and_waits(commands):
    # Every fit is too big here (the limits are nought), so a small table does: it then grows
    # on the interpreted kernels in a tenth of the big one's seven seconds of CPU. Unpruned:
    # CART's cost-complexity pruning runs its own kernel once the compilation is done, and the
    # stand-in compiled none, so it compiled that one for real here (2 s of CPU).
    _, _, after, _, err_after, folder = commands
    assert after.count("CART tree") == 1 and after.count("exit 0") == 1, after
    compiling = [
        line for line in err_after.splitlines() if "compiling the fast split search" in line
    ]
    assert len(compiling) == 1 and "once" in compiling[0]
    # Compiled, then used; and complete, which is what ``python main.py compile`` reads to say
    # so (in this process, below: another process here cost a second of CPU).
    assert cache.is_complete(folder)


@needs_numba
def test_compile_on_a_complete_folder_says_it_is_already_compiled(capsys, monkeypatch):
    """``python main.py compile --json`` where the folder is complete: nothing compiled,
    nothing said on stderr. (This process compiled nothing itself, as a fresh one would
    not: the report says "already" only then.)"""
    from cli.main import main

    assert kernels.compile_kernels()
    monkeypatch.setattr(kernels, "_compiling_notice", None)
    assert main(["compile", "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    report = json.loads(out)
    assert report["already"] and report["ok"] and Path(report["folder"]) == cache.kernel_folder()


def test_progress_is_told_with_the_time_left_at_this_machines_rate(monkeypatch):
    told = []
    monkeypatch.setattr(kernels, "_state", "compiling")
    monkeypatch.setattr(kernels, "_expected_kernels", 40)
    monkeypatch.setattr(kernels, "_started_at", time.monotonic() - 30.0)
    monkeypatch.setattr(
        kernels, "_compiling_notice", kernels.Notice("compiling", "", expected=20.0)
    )
    monkeypatch.setattr(kernels, "_listeners", [told.append])
    kernels._progress(10)  # 30 s for 10 of 40: about 90 s left, whatever the last one took
    assert told[-1].done == 10 and told[-1].total == 40 and told[-1].fraction == 0.25
    assert "10 of about 40 kernels, 2 min left" in told[-1].message
    kernels._progress(45)  # more kernels than expected: the total grows, never done early
    assert told[-1].total == 46 and told[-1].fraction < 1.0


@needs_numba
@pytest.mark.slow
def test_compile_says_why_it_failed_and_tries_again_when_asked(tmp_path):
    """Slow (4 s of CPU: two commands and the compiling child, each its own process), and
    only real commands show what they print: run with -m slow. That a failure is kept until
    what drives the compilation changes is checked quickly, in this process, below."""
    env = _env(tmp_path)
    folder = _folder(tmp_path)
    cache.mark_failed(folder, "Traceback ...\nLoweringError: something numba could not do")
    assert kernels.state() != "failed"  # this process uses its own folder
    out = _cli(["train", str(_big_csv(tmp_path)), "--max-depth", "2"], env)
    assert out.returncode == 0 and "compiling" not in out.stderr  # no retry on every run
    assert "could not be compiled here (LoweringError: something numba could not do)" in out.stderr
    out = _cli(["compile"], env)  # asked: tries again
    assert out.returncode == 0, out.stderr
    assert "Compiled the fast split search" in out.stdout and cache.failure(folder) is None
    # the child's warm-ups (in this process, over partitions), then the load's same two
    assert len(list((tmp_path / "ran").iterdir())) == 4


def test_expected_times_read_like_a_person_says_them():
    assert [kernels.describe_seconds(s) for s in (3, 38, 60, 100, 250)] == [
        "5 s",
        "40 s",
        "about a minute",
        "2 min",
        "4 min",
    ]


def test_a_failure_is_remembered_until_what_drives_the_compilation_changes(tmp_path):
    folder = cache._folder(str(tmp_path), "0123456789abcdef")
    cache.mark_failed(folder, "TypingError: no such thing")
    assert cache.failure(folder) == "TypingError: no such thing"
    (folder / cache.FAILED).write_text(json.dumps({"driver": "an older warm-up", "reason": "gone"}))
    assert cache.failure(folder) is None
    cache.clear_failure(folder)
    assert cache.failure(folder) is None


def test_only_a_whole_compilation_sets_the_next_ones_estimate(tmp_path, monkeypatch):
    monkeypatch.setenv("ARBOR_CACHE_DIR", str(tmp_path))
    folder = cache._folder(str(tmp_path), "0123456789abcdef")
    assert cache.is_empty(folder)
    assert cache.expected_compile(90.0, 70) == (90.0, 70)  # nothing timed here yet
    cache.mark_complete(folder, 118.0, 117.0, 71)
    assert cache.expected_compile(90.0, 70) == (118.0, 71)
    cache.mark_complete(folder, 55.0, 52.0, 12, whole=False)  # finished one stopped halfway
    assert cache.expected_compile(90.0, 70) == (118.0, 71)
    assert json.loads((folder / cache.COMPLETE).read_text())["kernels"] == 12
