"""The base of Ember's passes, and how a pass fails.

An Ember pass is a dataclass subclass of ``EmberPass``; its fields are its options
(``name{opt=value other-opt=value}`` in a pipeline, dashes in option names mapping to
underscores in field names). ``compiler/passes/registry.py`` lists every pass by name.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import ClassVar

from compiler.mlir import ir, passmanager


class PassFailure(Exception):
    """Raised by a pass to fail with a message located at ``op`` (or the module)."""

    def __init__(self, message: str, op: ir.Operation | None = None):
        super().__init__(message)
        self.op = op


@dataclass
class EmberPass:
    """Base of Ember's passes: subclass as a dataclass, set ``name`` and ``summary``,
    implement ``run``. An instance is the callable a ``PassManager`` runs."""

    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""

    def run(self, module: ir.Operation) -> None:
        raise NotImplementedError

    def __call__(self, op: ir.Operation, pass_) -> None:
        try:
            with op.context, op.location:  # builders inside passes need both
                self.run(op)
        except PassFailure as failure:
            where = failure.op if failure.op is not None else op
            where.location.emit_error(f"{self.name}: {failure}")
            pass_.signal_pass_failure()
        except Exception as bug:  # a bug of ours: still a located diagnostic, not a traceback
            op.location.emit_error(f"{self.name}: internal error: {type(bug).__name__}: {bug}")
            pass_.signal_pass_failure()


def run_upstream(op: ir.Operation, text: str) -> None:
    """Run upstream passes from inside an Ember pass (on the module it was given).

    A failure is a ``PassFailure`` naming the pipeline, after its diagnostics are
    emitted again in ``op``'s context: the ``MLIRError`` of the inner run holds them,
    and the outer pass manager would otherwise report only "Failure while executing
    pass pipeline" (where the context emits error diagnostics to its handlers,
    they have reached them already and the error holds none)."""
    try:
        _pass_manager(text, op.context).run(op)
    except ir.MLIRError as error:
        _MANAGERS.pop(_key(text, op.context), None)  # a fresh one next time
        for d in error.error_diagnostics:
            notes = "".join(f"\nnote: {n.message}" for n in d.notes)
            d.location.emit_error(f"{d.message}{notes}")
        raise PassFailure(f"upstream pipeline '{text}' failed") from None


_MANAGERS: dict = {}  # (context, pipeline, thread) -> its PassManager
_MANAGERS_LIMIT = 64  # each holds its context: tools and tests make many


def _key(text: str, context) -> tuple:
    return (context, text, threading.get_ident())  # one pass manager runs one module at a time


def _pass_manager(text: str, context) -> passmanager.PassManager:
    """The parsed pipeline, kept per context (and thread): a fresh ``canonicalize``
    builds its pattern set from every loaded dialect (about 1 ms); a pass manager that
    ran once keeps its passes initialized. Ember's passes run upstream pipelines once
    per root tiled, per module bufferized: ten roots of a 10-step stencil spent 39 ms
    in them, 22 with the pass managers kept."""
    key = _key(text, context)
    manager = _MANAGERS.get(key)
    if manager is None:
        if len(_MANAGERS) >= _MANAGERS_LIMIT:
            _MANAGERS.clear()
        manager = _MANAGERS[key] = passmanager.PassManager.parse(f"builtin.module({text})", context=context)
        # Upstream passes' own output is not verified here: the pass manager running the
        # Ember pass verifies the module after it (ember-opt), or the backend after its
        # pipeline (``run_pipeline(verify_each=False)``).
        manager.enable_verifier(False)
    return manager
