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


def _check_line(i: int, t, n) -> str:
    a = n(f"a{i}")
    conds = [f"{n('type')}({a}) is not {n('ndarray')}", f"{a}.dtype is not {n(f'IN{i}')}", f"{a}.ndim != {t.rank}"]
    conds += [f"{a}.shape[{axis}] != {d}" for axis, d in enumerate(t.shape) if d is not DYN]
    return f"    if {' or '.join(conds)}:\n        {n('bad')}({i}, {a})"


def _statements(signature, trusted_shapes, checked: bool, fast: bool, n) -> tuple[list[str], str]:
    """The call's statements over the inputs ``a0, a1, ...``, and the expression of its
    result (the tuple of outputs); every name the code uses is spelled ``n(name)``."""
    n_in = len(signature.inputs)
    ins = [n(f"a{i}") for i in range(n_in)]
    allocated = signature.allocated
    outs = [n(f"o{j}") if i is None else n(f"a{i}") for j, i in enumerate(signature.inout)]
    lines = []
    if trusted_shapes is not None:  # static sizes: which allocator is known now
        for j in allocated:
            shape = tuple(trusted_shapes[j])
            allocate = "empty" if outputs.cached(shape, signature.outputs[j].dtype) else "bare_empty"
            lines.append(f"    {n(f'o{j}')} = {n(allocate)}({shape!r}, {n(f'OUT{j}')})")
    else:
        if checked:
            lines += [_check_line(i, t, n) for i, t in enumerate(signature.inputs)]
        shapes = "".join(f"{a}.shape, " for a in ins)
        shapes += "".join(f"{n('int')}({ins[i]}), " for i in signature.value_inputs)
        key, found_shapes = n("key"), n("shapes")
        lines += [
            f"    {key} = ({shapes})",
            f"    {found_shapes} = {n('shape_cache')}.get({key})",
            f"    if {found_shapes} is None:",
            f"        {found_shapes} = {n('output_shapes')}({key})",
        ]
        lines += [f"    {n(f'o{j}')} = {n(f'EMPTY{j}')}({found_shapes}[{j}])" for j in allocated]
    layout = "".join(f"{a}.flags.c_contiguous, " for a in ins)
    arrays = ", ".join(ins + [n(f"o{j}") for j in allocated])
    nbytes = " + ".join(f"{a}.nbytes" for a in ins + [n(f"o{j}") for j in allocated])
    found = n("found")
    general = [
        f"    {found} = {n('variants')}.get(({layout}))",
        f"    if {found} is None:",
        f"        {found} = {n('variant')}(({layout}))",
        f"    if {found}[0].parallel:",
        f"        {found}[1]({arrays}, {n('parts_for_bytes')}({nbytes}))",  # the launcher: all parts, one call
        "    else:",
        f"        {found}[1]({arrays})",
    ]
    if fast:  # the all-contiguous variant as a builtin: it says RETRY for another layout
        lines.append(f"    if {n('fast')}({arrays}) is {n('RETRY')}:")
        general = ["    " + line for line in general]
    lines += general
    return lines, f"({''.join(o + ', ' for o in outs)})"


def call_source(signature, trusted_shapes: list | None = None, checked: bool = True, fast: bool = False) -> str:
    """The call function's text. With ``trusted_shapes`` (the output shapes, for a fully
    static signature) the caller has already checked every input's class, dtype and
    shape — the frontend's guards do — so the checks and the shape lookup are left out.
    ``checked=False``: the caller checked class, dtype, rank and static sizes (guards over
    symbolic sizes); only the memoized shape lookup stays. ``fast``: the namespace has
    ``fast``, the all-contiguous variant's ``abi.fastcall_name`` builtin, tried first."""
    lines, result = _statements(signature, trusted_shapes, checked, fast, str)
    ins = ", ".join(f"a{i}" for i in range(len(signature.inputs)))
    return "\n".join([f"def call({ins}):", *lines, f"    return {result}"]) + "\n"


def _scope(signature, namespace: dict) -> dict:
    scope = dict(namespace, ndarray=np.ndarray, empty=outputs.empty, bare_empty=np.empty, type=type, int=int)
    scope.update({f"IN{i}": t.dtype for i, t in enumerate(signature.inputs)})
    scope.update({f"OUT{j}": t.dtype for j, t in enumerate(signature.outputs)})
    scope.update({f"EMPTY{j}": outputs.empty_of(t.dtype) for j, t in enumerate(signature.outputs)})
    return scope


def make_call(signature, namespace: dict, trusted_shapes: list | None = None, checked: bool = True):
    """The generated call function; ``namespace`` supplies bad, shape_cache,
    output_shapes, variants, variant and parts_for_bytes (and fast and RETRY, if any)."""
    scope = _scope(signature, namespace)
    source = call_source(signature, trusted_shapes, checked, fast="fast" in namespace)
    exec(compile(source, f"<ember call {signature.name}>", "exec"), scope)
    call = scope["call"]
    call.__ember_source__ = source
    return call


def inline_call(
    signature,
    namespace: dict,
    inputs: list[str],
    result: str,
    prefix: str,
    trusted_shapes: list | None = None,
    checked: bool = True,
):
    """The same call as statements for another generated function to contain (a frontend
    entry: one Python frame less per call): ``(lines, scope)``, the inputs read from the
    expressions ``inputs`` once, the tuple of outputs assigned to ``result``, every name
    of the call and of ``scope`` spelled with ``prefix`` (the caller's reserved one).
    ``trusted_shapes`` and ``checked`` as for ``make_call``."""

    def n(name: str) -> str:
        return prefix + name

    lines = [f"    {n(f'a{i}')} = {expr}" for i, expr in enumerate(inputs)]
    statements, outs = _statements(signature, trusted_shapes, checked, "fast" in namespace, n)
    lines += [*statements, f"    {result} = {outs}"]
    return lines, {n(k): value for k, value in _scope(signature, namespace).items()}
