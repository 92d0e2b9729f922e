"""The one-time compile's child process, started by :mod:`engine.compiling.lifecycle` as
``python -m engine.compile_child``: every warm-up fit, in this process and over partitions.

It sits above every stage because the fits over partitions are :mod:`engine.scale`'s; the
life-cycle below starts it by name, so no stage imports one above it.
"""

from engine.compiling.lifecycle import child_main
from engine.compiling.warmup import warm_up
from engine.scale.warmup import warm_up_partitions

if __name__ == "__main__":
    child_main((warm_up, warm_up_partitions))
