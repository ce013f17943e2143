"""A kernel's fastcall entry (``abi.fastcall_name``) as a CPython builtin function.

The builtin is made the way C extensions make theirs: a ``PyMethodDef`` with
``METH_FASTCALL`` handed to ``PyCFunction_NewEx``, its ``self`` the ``RETRY``
sentinel the entry returns when the inputs' layout is not its variant's. Calling it
costs what calling ``len`` does; a ctypes foreign call costs about 0.45 us more. The
method definition must outlive the builtin: it is returned with it, and whoever
keeps the builtin keeps it too (the generated call path's namespace).
"""

from __future__ import annotations

import ctypes

from runtime import abi

METH_FASTCALL = 0x0080


class _MethodDef(ctypes.Structure):
    _fields_ = [
        ("ml_name", ctypes.c_char_p),
        ("ml_meth", ctypes.c_void_p),
        ("ml_flags", ctypes.c_int),
        ("ml_doc", ctypes.c_char_p),
    ]


class _Retry:
    """The fastcall's answer for inputs of another layout: take the general path."""

    def __repr__(self) -> str:
        return "RETRY"


RETRY = _Retry()

_new_builtin = ctypes.pythonapi.PyCFunction_NewEx
_new_builtin.restype = ctypes.py_object
_new_builtin.argtypes = [ctypes.c_void_p, ctypes.py_object, ctypes.py_object]


def fastcall(loaded, name: str) -> dict | None:
    """``{"fast": builtin, "RETRY": RETRY, "fast_definition": ...}`` for the kernel
    ``name`` of a loaded object, for a generated call path's namespace; None when
    the object has no fastcall entry (a parallel kernel, an older artifact)."""
    try:
        address = loaded.address(abi.fastcall_name(name))
    except LookupError:
        return None
    definition = _MethodDef(f"ember_{name}".encode(), address, METH_FASTCALL, None)
    builtin = _new_builtin(ctypes.addressof(definition), RETRY, None)
    return {"fast": builtin, "RETRY": RETRY, "fast_definition": definition, "fast_object": loaded}
