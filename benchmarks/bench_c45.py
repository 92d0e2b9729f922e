"""C4.5 fit time against Weka's J48 (build time as J48 reports it) on the same generated data.

    python benchmarks/bench_c45.py          # 10,000 and 100,000 rows; needs Debian's weka package
"""

from __future__ import annotations

import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.estimator import DecisionTree  # noqa: E402
from engine.io import write_table  # noqa: E402
from engine.table import make_table  # noqa: E402

JAR = Path("/usr/share/java/weka.jar")


def make_data(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(np.round(rng.normal(size=(n, 6)), 2), columns=[f"n{i}" for i in range(6)])
    for i in range(3):
        frame[f"c{i}"] = rng.choice(list("pqrst"), n)
    score = frame.n0 + frame.n1 * frame.n2 + (frame.c0 == "q") + rng.normal(0, 0.8, n)
    frame["y"] = pd.Categorical(np.digitize(score, [-0.5, 0.7]).astype(str), categories=["0", "1", "2"])
    return make_table(frame)


def main() -> None:
    if not (JAR.exists() and shutil.which("java")):
        sys.exit("Weka is not installed (apt-get install weka)")
    print(f"{'rows':>8} {'J48 s':>8} {'Arbor s':>8} {'ratio':>6} {'leaves J48/Arbor':>18}")
    for n in (10_000, 100_000):
        table = make_data(n)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "data.arff"
            write_table(table, path)
            out = subprocess.run(["java", "-Xmx4g", "-cp", str(JAR), "weka.classifiers.trees.J48", "-t", str(path),
                                  "-no-cv"], capture_output=True, text=True, check=True).stdout
        weka_s = float(re.search(r"Time taken to build model: ([\d.]+) seconds", out).group(1))
        weka_leaves = int(re.search(r"Number of Leaves\s*:\s*(\d+)", out).group(1))
        times = []
        for _ in range(3 if n <= 10_000 else 1):
            start = time.perf_counter()
            model = DecisionTree(algorithm="c45").fit(table)
            times.append(time.perf_counter() - start)
        ours = statistics.median(times)
        print(f"{n:>8} {weka_s:>8.2f} {ours:>8.2f} {ours / max(weka_s, 1e-3):>6.1f} "
              f"{weka_leaves:>9}/{model.tree_.n_leaves:<8}", flush=True)


if __name__ == "__main__":
    main()
