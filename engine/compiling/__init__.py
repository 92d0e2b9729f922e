"""The one-time compile of the kernels: its life-cycle in a process and in the child that
compiles (:mod:`.lifecycle`), and the fits that compile every kernel (:mod:`.warmup`).
How one kernel is compiled and cached is :mod:`engine.fast.compile`'s."""
