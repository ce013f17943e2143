"""The pipeline an ember-opt command line asks for, checked piece by piece.

Every ``-p``, ``--pass-pipeline`` and pass flag is one piece; the pieces run in
command-line order as one pipeline. Each piece is built on its own before any
input is read, so a bad pipeline fails before any work, and an unknown pass name
is shown inside the text the user typed (MLIR's own parser only sees the one
element we hand it, so its caret would point at column 1 of that element).
"""

from __future__ import annotations

import re

from compiler.mlir import ir, passmanager
from compiler.passes import registry
from compiler.passes.pass_manager import build_pass_manager
from compiler.passes.pipeline_syntax import Element, PipelineError, nearest, parse_pipeline
from tools.opt_cli import PipelinePiece

UNKNOWN = "'{}' does not refer to a registered pass or pass pipeline"


def prepare(pieces: list[PipelinePiece], context: ir.Context) -> str | None:
    """One pipeline text (without the builtin.module wrapper) for all pieces, each
    nested as mlir-opt nests it and checked; None when the command line names no pass.
    A piece that fails to build is a PipelineError located in the piece's text."""
    texts = []
    for piece in pieces:
        if not piece.text.strip():
            continue
        try:
            text = nest_implicitly(piece.text, context)
            build_pass_manager(text, context)
        except PipelineError as error:
            raise _located(piece, error) from None
        texts.append(text)
    return ",".join(texts) if texts else None


def nest_implicitly(text: str, context: ir.Context) -> str:
    """Wrap each top-level upstream pass restricted to an op in that op's anchor:
    ``promote-buffers-to-stack`` -> ``func.func(promote-buffers-to-stack)``.

    mlir-opt's pass manager nests such passes implicitly; the bindings' pass
    manager refuses them ("did you intend to nest?")."""
    elements = parse_pipeline(text)
    if len(elements) == 1 and elements[0].name == "builtin.module" and elements[0].children is not None:
        elements = elements[0].children
    out = []
    for e in elements:
        anchor = _anchor(e, context) if e.children is None and registry.is_upstream_pass(e.name) else None
        out.append(f"{anchor}({e.text()})" if anchor else e.text())
    return ",".join(out)


def _anchor(e: Element, context: ir.Context) -> str | None:
    """The op an upstream pass is restricted to, when it cannot run on a module."""
    try:
        passmanager.PassManager("builtin.module", context=context).add(e.text())
        return None
    except ValueError as error:
        match = re.search(r"restricted to '([^']+)'", str(error))
        return match.group(1) if match else None


def _leaves(elements: list[Element]):
    for e in elements:
        if e.children is None:
            yield e.name
        else:
            yield from _leaves(e.children)


def _unknown_name(piece: PipelinePiece, error: PipelineError) -> str | None:
    """The first pass name of ``piece`` that nothing registers, if the error is about it."""
    try:
        names = list(_leaves(parse_pipeline(piece.text)))
    except PipelineError:
        return None
    known = set(registry.known_names())
    return next((n for n in names if n not in known and f"'{n}'" in str(error)), None)


def _column(text: str, name: str) -> int | None:
    """1-based column of ``name`` as a whole pass name in ``text``, outside ``{...}``."""
    depth = 0
    for match in re.finditer(r"[{}]|[\w.-]+", text):
        token = match.group()
        if token in "{}":
            depth += 1 if token == "{" else -1
        elif depth == 0 and token == name:
            return match.start() + 1
    return None


def _located(piece: PipelinePiece, error: PipelineError) -> PipelineError:
    name = _unknown_name(piece, error)
    column = _column(piece.source, name) if name else None
    if column is None:
        return error
    shown = f"{piece.flag}={piece.source}"
    caret = " " * (len(shown) - len(piece.source) + column - 1) + "^"
    hint = nearest(name, registry.known_names())
    return PipelineError(f"{UNKNOWN.format(name)}{hint}\n{shown}\n{caret}")
