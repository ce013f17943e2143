"""IR dumps and timing reports of a pass manager, routed through ``sys.stderr``.

MLIR writes ``--mlir-print-ir-*`` dumps and the ``--mlir-timing`` report straight to
file descriptor 2, and the bindings can only print before/after *all* passes. To
honour ``--mlir-print-ir-before=cse`` we catch what MLIR writes on fd 2 while the
pass manager lives, keep the dumps of the passes asked for, and write the rest
to ``sys.stderr`` (which also lets in-process callers, such as tests, capture it).
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile
from dataclasses import dataclass

# ``// -----// IR Dump Before CSEPass: cse //----- //`` (the argument may carry ``{options}``).
_HEADER = re.compile(r"^// -----// IR Dump (Before|After) (.*?): ([\w.-]+)")
_TIMING = re.compile(r"^===-+===$")


@dataclass(frozen=True)
class DumpFilter:
    """Which dumps to keep: all of them, or those of the named passes."""

    before_all: bool = False
    after_all: bool = False
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    after_failure: bool = False  # the dump MLIR prints after a pass that failed

    @property
    def enabled(self) -> bool:
        return self.before_all or self.after_all or bool(self.before) or bool(self.after) or self.after_failure

    def keeps(self, when: str, pass_name: str, argument: str) -> bool:
        if self.after_failure and when == "After" and pass_name.endswith(" Failed"):
            return True
        everything, names = (self.before_all, self.before) if when == "Before" else (self.after_all, self.after)
        return everything or argument in names or pass_name in names


def select(text: str, dumps: DumpFilter) -> str:
    """The lines of ``text`` minus the dumps that ``dumps`` does not keep."""
    out, keeping = [], True
    for line in text.splitlines(keepends=True):
        header = _HEADER.match(line)
        if header:
            keeping = dumps.keeps(*header.groups())
        elif _TIMING.match(line):
            keeping = True  # the timing report follows the last dump
        if keeping:
            out.append(line)
    return "".join(out)


@contextlib.contextmanager
def native_stderr_to(sink: list[str]):
    """Collect what native code writes to fd 2 inside the block into ``sink``."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            sink.append(tmp.read().decode(errors="replace"))


@contextlib.contextmanager
def routed(dumps: DumpFilter, active: bool):
    """Route native stderr through ``select`` to ``sys.stderr`` when ``active``."""
    if not active:
        yield
        return
    sink: list[str] = []
    try:
        with native_stderr_to(sink):
            yield
    finally:
        sys.stderr.write(select("".join(sink), dumps))
        sys.stderr.flush()
