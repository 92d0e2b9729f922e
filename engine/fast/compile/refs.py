"""Groups of arrays passed between kernels by reference (:func:`as_ref`).

numba passes a named tuple by value, as its flattened fields: an array is seven machine
words, so each call from the growth loop to ``evaluate`` or ``build_local`` carried some
eight hundred scalars, and every copy of a tuple took and released a reference on each
of its arrays. That code, repeated at every call site and in every callee, was most of
what LLVM optimised in the one-time compile. A :class:`Ref` is one pointer to the same
fields (``group.field`` reads the same in the kernels' source), so a call carries one
word a group.
"""

from __future__ import annotations

from numba.core import types
from numba.experimental import structref
from numba.extending import overload


@structref.register
class Ref(types.StructRef):
    """A named tuple's fields behind one reference (the kernels only read them)."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


def as_ref(group):
    """``group`` (a named tuple of arrays, numbers and such tuples) by reference inside
    a kernel; run by the interpreter, the tuple itself (its fields read the same)."""
    return group


def _ref_type(group: types.NamedTuple) -> Ref:
    fields = []
    for name, t in zip(group.fields, group.types, strict=True):
        fields.append((name, _ref_type(t) if isinstance(t, types.NamedTuple) else t))
    return Ref(fields)


@overload(as_ref)
def _as_ref(group):
    if not isinstance(group, types.NamedTuple):
        return lambda group: group
    names = group.fields
    # The fields are known only now, from the tuple's type: the copy is written out.
    body = "\n".join(f"    ref.{n} = as_ref(group.{n})" for n in names)
    source = f"def impl(group):\n    ref = new(ref_type)\n{body}\n    return ref\n"
    scope = {
        "__name__": __name__,
        "new": structref.new,
        "ref_type": _ref_type(group),
        "as_ref": as_ref,
    }
    exec(source, scope)  # noqa: S102 - field names of our own named tuples
    return scope["impl"]


class RefHandle(structref.StructRefProxy):
    """Python's handle on a :class:`Ref` (made by ``engine.fast.kernels.by_ref``): passed
    back to kernels, so that a kernel called from Python takes the group in the form the
    kernels calling it do, and is compiled once for both."""


structref.define_boxing(Ref, RefHandle)
