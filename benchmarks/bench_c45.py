"""C4.5 build time: Arbor against Weka's J48 on the same generated ARFF file.

    python benchmarks/bench_c45.py            # 10,000 and 100,000 rows, median of 3 (~3 min)
    python benchmarks/bench_c45.py --quick    # 10,000 rows, one run
    python benchmarks/bench_c45.py --sizes 100000 --missing 0.1

Data: 10 numeric and 5 nominal attributes (5 values each), 3 classes with noise (the CART
benchmark's generator, with the ordinal codes declared nominal; ``--missing`` blanks that
share of the cells, written as ``?``). J48 runs with its
defaults (confidence 0.25, two instances per leaf, subtree raising) and unpruned (-U);
its time is the "Time taken to build model" it prints. Ours is the fit of a table read
beforehand, pruning included. Leaves and tree sizes are printed side by side: they
should be equal. Needs Java and Weka (``/usr/share/java/weka.jar`` or ``$WEKA_JAR``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_cart import make_data  # noqa: E402

from engine.compiling.lifecycle import compile_kernels  # noqa: E402
from engine.data.arff import read_arff  # noqa: E402
from engine.estimator import DecisionTree  # noqa: E402

WEKA_JAR = os.environ.get("WEKA_JAR", "/usr/share/java/weka.jar")


def write_arff(path: Path, n: int, missing: float = 0.0) -> None:
    X, y, _ = make_data(n, missing=missing)
    labels = np.array(["a", "b", "c"])[y]
    with open(path, "w") as f:
        f.write("@relation bench\n")
        f.writelines(f"@attribute n{i} numeric\n" for i in range(10))
        f.writelines(f"@attribute c{i} {{v0,v1,v2,v3,v4}}\n" for i in range(5))
        f.write("@attribute y {a,b,c}\n@data\n")
        for r in range(n):
            f.write(
                ",".join(
                    ["?" if v != v else repr(float(v)) for v in X[r, :10]]
                    + ["?" if v != v else f"v{int(v)}" for v in X[r, 10:]]
                    + [labels[r]]
                )
                + "\n"
            )


def j48(path: Path, unpruned: bool) -> tuple[float, int, int]:
    cmd = [
        "java",
        "-Xmx4g",
        "-cp",
        WEKA_JAR,
        "weka.classifiers.trees.J48",
        *(["-U"] if unpruned else []),
        "-t",
        str(path),
        "-no-cv",
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    seconds = float(re.search(r"Time taken to build model:\s*([\d.]+)", out).group(1))
    leaves = int(re.search(r"Number of Leaves\s*:\s*(\d+)", out).group(1))
    size = int(re.search(r"Size of the tree\s*:\s*(\d+)", out).group(1))
    return seconds, leaves, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="10,000 rows, one run")
    parser.add_argument("--sizes", type=int, nargs="*")
    parser.add_argument("--runs", type=int)
    parser.add_argument("--missing", type=float, default=0.0, help="share of cells left blank")
    args = parser.parse_args()
    if shutil.which("java") is None or not Path(WEKA_JAR).exists():
        sys.exit(f"needs Java and Weka ({WEKA_JAR}); set WEKA_JAR to its jar")
    sizes = args.sizes or ([10_000] if args.quick else [10_000, 100_000])
    runs = args.runs or (1 if args.quick else 3)
    compile_kernels()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "warm.arff"
        write_arff(path, 3000, args.missing)
        DecisionTree(algorithm="c45").fit(read_arff(path))  # compiled kernels loaded
        print(
            f"{'rows':>8} {'pruning':>11} | {'J48':>7} {'Arbor':>7} {'ratio':>5} | "
            f"{'leaves J48 / ours':>17} {'size J48 / ours':>15}"
        )
        for n in sizes:
            path = Path(tmp) / f"c45_{n}.arff"
            write_arff(path, n, args.missing)
            table = read_arff(path)
            for prune in ("pessimistic", "none"):
                ours, theirs = [], []
                for _ in range(runs):
                    theirs.append(j48(path, unpruned=prune == "none"))
                    start = time.perf_counter()
                    model = DecisionTree(algorithm="c45", prune=prune).fit(table)
                    ours.append(time.perf_counter() - start)
                t_j48, t_ours = statistics.median(t for t, _, _ in theirs), statistics.median(ours)
                _, leaves, size = theirs[-1]
                tree = model.tree_
                print(
                    f"{n:>8} {prune:>11} | {t_j48:>6.2f}s {t_ours:>6.2f}s {t_ours / t_j48:>5.2f} | "
                    f"{leaves:>8} / {tree.n_leaves:<6} {size:>7} / {tree.n_nodes:<6}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
