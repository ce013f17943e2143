"""Diagnostics for ember-opt: capture them from MLIR, print them, verify them.

The bindings normally turn error diagnostics into an ``MLIRError`` and hand the
others to context handlers. ember-opt wants every diagnostic in one place, in
order, with its notes: for printing ``file:line:col: error: ...`` and for
``--verify-diagnostics``. So the context sends errors to handlers too
(``emit_error_diagnostics``) and one handler copies each diagnostic into a plain
``Diag`` (the binding's object dies when the callback returns).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from compiler.mlir import ir

# ``loc("-":2:8)``, also inside ``callsite(...)``/``fused[...]``/named locations.
_FILE_LINE_COL = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')

# mlir-opt adds this note to verifier errors; under --verify-diagnostics it is off there.
_OP_DUMP_NOTE = "see current operation:"


@dataclass
class Diag:
    """One diagnostic, detached from MLIR; ``file`` is None for unknown locations."""

    severity: str  # error | warning | note | remark
    message: str
    file: str | None = None
    line: int = 0
    col: int = 0
    notes: list[Diag] = field(default_factory=list)


def _severity(severity) -> str:
    return str(severity).rsplit(".", 1)[-1].lower()


def _location(loc) -> tuple[str | None, int, int]:
    """(file, line, col) of a location's first file position, or (None, 0, 0)."""
    match = _FILE_LINE_COL.search(str(loc))
    if not match:
        return None, 0, 0
    return match.group(1), int(match.group(2)), int(match.group(3))


def to_diag(d, severity: str | None = None) -> Diag:
    """Copy a binding diagnostic (and its notes) into a ``Diag``."""
    file, line, col = _location(d.location)
    notes = [to_diag(n, "note") for n in d.notes]
    return Diag(severity or _severity(d.severity), d.message, file, line, col, notes)


class Collector:
    """Collects every diagnostic emitted in a context, errors included."""

    def __init__(self, context: ir.Context):
        self.diags: list[Diag] = []
        context.emit_error_diagnostics = True
        self._handle = context.attach_diagnostic_handler(self._on_diagnostic)

    def _on_diagnostic(self, d) -> bool:
        self.diags.append(to_diag(d))
        return True  # handled: nothing else prints it

    def take(self) -> list[Diag]:
        diags, self.diags = self.diags, []
        return diags


# ----------------------------------------------------------------------------- printing


class Printer:
    """Formats diagnostics like mlir-opt: ``file:line:col: error: msg``, source line, caret.

    Diagnostics located in the parsed text carry the file name ``-`` (the bindings
    parse strings); they are shown under the input's real name.
    """

    def __init__(self, display_name: str, source: str):
        self.display_name = display_name
        self.lines = source.splitlines()

    def where(self, d: Diag) -> str:
        if d.file is None:
            return self.display_name
        file = self.display_name if d.file == "-" else d.file
        return f"{file}:{d.line}:{d.col}"

    def _snippet(self, d: Diag) -> list[str]:
        if d.file not in ("-", self.display_name) or not 0 < d.line <= len(self.lines):
            return []
        text = self.lines[d.line - 1]
        return [text, " " * max(d.col - 1, 0) + "^"]

    def format(self, d: Diag) -> str:
        out = [f"{self.where(d)}: {d.severity}: {d.message}", *self._snippet(d)]
        out += [self.format(n) for n in d.notes]
        return "\n".join(out)


# ----------------------------------------------------------------------------- verifying

_EXPECTED = re.compile(
    r"expected-(error|note|remark|warning)(-re)? *(@([+-][0-9]+|above|below|unknown))? *\{\{(.*)\}\}$"
)


@dataclass
class Expected:
    """An ``expected-<kind> @where {{text}}`` comment; line 0 means @unknown."""

    kind: str
    line: int
    pattern: re.Pattern
    text: str
    at: tuple[int, int]  # line and column of the comment itself
    matched: bool = False


def _pattern(text: str, is_regex: bool) -> re.Pattern:
    """A substring pattern; ``-re`` comments hold ``{{regex}}`` parts inside literal text."""
    if not is_regex:
        return re.compile(re.escape(text))
    parts = re.split(r"\{\{(.*?)\}\}", text)
    return re.compile("".join(p if i % 2 else re.escape(p) for i, p in enumerate(parts)))


def _target_line(where: str | None, line: int, last_plain: int) -> int | None:
    """Line an expectation applies to; None for @below (the next plain line decides)."""
    if not where:
        return line
    if where[0] in "+-":
        return line + int(where)
    if where == "above":
        return last_plain
    if where == "unknown":
        return 0
    return None


def parse_expectations(source: str) -> list[Expected]:
    """Every expected-* comment of ``source``, with the line it applies to (as mlir-opt).

    A line holding such a comment is a *designator* line: ``@above`` skips back over
    designator lines and ``@below`` skips forward over them.
    """
    found, pending, last_plain = [], [], 0
    for number, text in enumerate(source.splitlines(), start=1):
        match = _EXPECTED.search(text.rstrip())
        if not match:
            for e in pending:
                e.line = number
            pending, last_plain = [], number
            continue
        kind, is_re, _, where, body = match.groups()
        target = _target_line(where, number, last_plain)
        e = Expected(kind, target or 0, _pattern(body, bool(is_re)), body, (number, match.start() + 1))
        if target is None:
            pending.append(e)
        found.append(e)
    return found


def _flatten(diags: list[Diag]) -> list[Diag]:
    """Diagnostics followed by their notes, minus mlir-opt's op-dump notes."""
    out = []
    for d in diags:
        if d.severity == "note" and d.message.startswith(_OP_DUMP_NOTE):
            continue
        out.append(d)
        out.extend(_flatten(d.notes))
    return out


def _match(d: Diag, expected: list[Expected], source_name: str) -> bool:
    # 0: an unknown location; -1: another file, never expected
    line = 0 if d.file is None else d.line if d.file in ("-", source_name) else -1
    for e in expected:
        if not e.matched and e.kind == d.severity and e.line == line and e.pattern.search(d.message):
            e.matched = True
            return True
    return False


def verify(diags: list[Diag], expected: list[Expected], source_name: str = "-") -> list[Diag]:
    """Errors for unexpected diagnostics and for expectations nothing produced;
    diagnostics in file ``source_name`` (or ``-``) are located in the input."""
    problems = []
    for d in _flatten(diags):
        if not _match(d, expected, source_name):
            problems.append(Diag("error", f"unexpected {d.severity}: {d.message}", d.file, d.line, d.col))
    for e in expected:
        if not e.matched:
            message = f'expected {e.kind} "{e.text}" was not produced'
            problems.append(Diag("error", message, "-", *e.at))
    return problems
