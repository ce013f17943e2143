"""The per-kernel Python call path, generated as straight-line code.

A warm call of a small kernel is dominated by Python, not by the kernel: loops over
arguments, generic checks and list building each cost a fraction of a microsecond.
``make_call`` writes, for one signature, a function with one line per argument
(type, dtype, rank and static-size checks), a memoized shape lookup (keyed by the
input shapes and the ints of the signature's ``value_inputs``), the output
allocations (not of in-out outputs: their inputs are returned) and the foreign call — the same thing a person would write by hand.
The generated source is kept on the function (``__ember_source__``) for reading.
"""

from __future__ import annotations

import numpy as np

from runtime import outputs
from runtime.abi import DYN


def _check_line(i: int, t) -> str:
    conds = [f"type(a{i}) is not ndarray", f"a{i}.dtype is not IN{i}", f"a{i}.ndim != {t.rank}"]
    conds += [f"a{i}.shape[{axis}] != {d}" for axis, d in enumerate(t.shape) if d is not DYN]
    return f"    if {' or '.join(conds)}:\n        bad({i}, a{i})"


def call_source(signature, trusted_shapes: list | None = None, checked: bool = True, fast: bool = False) -> str:
    """The call function's text. With ``trusted_shapes`` (the output shapes, for a fully
    static signature) the caller has already checked every input's class, dtype and
    shape — the frontend's guards do — so the checks and the shape lookup are left out.
    ``checked=False``: the caller checked class, dtype, rank and static sizes (guards over
    symbolic sizes); only the memoized shape lookup stays. ``fast``: the namespace has
    ``fast``, the all-contiguous variant's ``abi.fastcall_name`` builtin, tried first."""
    n_in = len(signature.inputs)
    ins = [f"a{i}" for i in range(n_in)]
    allocated = signature.allocated
    outs = [f"o{j}" if i is None else f"a{i}" for j, i in enumerate(signature.inout)]
    lines = [f"def call({', '.join(ins)}):"]
    if trusted_shapes is not None:  # static sizes: which allocator is known now
        for j in allocated:
            shape = tuple(trusted_shapes[j])
            allocate = "empty" if outputs.cached(shape, signature.outputs[j].dtype) else "bare_empty"
            lines.append(f"    o{j} = {allocate}({shape!r}, OUT{j})")
    else:
        if checked:
            lines += [_check_line(i, t) for i, t in enumerate(signature.inputs)]
        shapes = "".join(f"a{i}.shape, " for i in range(n_in))
        shapes += "".join(f"int(a{i}), " for i in signature.value_inputs)
        lines += [
            f"    key = ({shapes})",
            "    shapes = shape_cache.get(key)",
            "    if shapes is None:",
            "        shapes = output_shapes(key)",
        ]
        lines += [f"    o{j} = empty(shapes[{j}], OUT{j})" for j in allocated]
    layout = "".join(f"a{i}.flags.c_contiguous, " for i in range(n_in))
    arrays = ", ".join(ins + [f"o{j}" for j in allocated])
    if fast:  # the all-contiguous variant as a builtin: it says RETRY for another layout
        lines += [f"    if fast({arrays}) is not RETRY:", f"        return ({''.join(o + ', ' for o in outs)})"]
    nbytes = " + ".join(f"{a}.nbytes" for a in ins + [f"o{j}" for j in allocated])
    lines += [
        f"    found = variants.get(({layout}))",
        "    if found is None:",
        f"        found = variant(({layout}))",
        "    if found[0].parallel:",
        f"        found[1]({arrays}, parts_for_bytes({nbytes}))",  # the launcher: all parts, one call
        "    else:",
        f"        found[1]({arrays})",
        f"    return ({''.join(o + ', ' for o in outs)})",
    ]
    return "\n".join(lines) + "\n"


def make_call(signature, namespace: dict, trusted_shapes: list | None = None, checked: bool = True):
    """The generated call function; ``namespace`` supplies bad, shape_cache,
    output_shapes, variants, variant and parts_for_bytes (and fast and RETRY, if any)."""
    scope = dict(namespace, ndarray=np.ndarray, empty=outputs.empty, bare_empty=np.empty)
    scope.update({f"IN{i}": t.dtype for i, t in enumerate(signature.inputs)})
    scope.update({f"OUT{j}": t.dtype for j, t in enumerate(signature.outputs)})
    source = call_source(signature, trusted_shapes, checked, fast="fast" in namespace)
    exec(compile(source, f"<ember call {signature.name}>", "exec"), scope)
    call = scope["call"]
    call.__ember_source__ = source
    return call
