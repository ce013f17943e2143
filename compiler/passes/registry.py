"""Ember's passes and named pipelines, usable inside MLIR's textual pipelines.

MLIR's pass registry is C++; a pass written in Python cannot be registered there by
name. So we parse ``--pass-pipeline`` text ourselves: every element that names an
Ember pass or pipeline becomes a Python pass (``PassManager.add(callable)``), every
other element is handed to MLIR's own parser unchanged. One ``PassManager`` runs
the whole mix, so IR printing, timing and verification work across both kinds.

An Ember pass is a dataclass subclass of ``EmberPass``; its fields are its options,
parsed from ``name{opt=value other-opt=value}`` (dashes in option names map to
underscores in field names).
"""

from __future__ import annotations

import dataclasses
import difflib
import os
from dataclasses import dataclass
from typing import Callable, ClassVar

from compiler.mlir import ir, passmanager

UPSTREAM_LIST = os.path.join(os.path.dirname(__file__), "upstream_passes.txt")


class PipelineError(ValueError):
    """A pipeline text names an unknown pass or option, or does not parse."""


class PassFailure(Exception):
    """Raised by a pass to fail with a message located at ``op`` (or the module)."""

    def __init__(self, message: str, op: ir.Operation | None = None):
        super().__init__(message)
        self.op = op


@dataclass
class EmberPass:
    """Base of Ember's passes: subclass as a dataclass, set ``name``, implement ``run``."""

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


PASSES: dict[str, type[EmberPass]] = {}
# name -> (pipeline text, summary); the text may itself name Ember passes and pipelines.
PIPELINES: dict[str, tuple[Callable[[], str], str]] = {}


def register(cls: type[EmberPass]) -> type[EmberPass]:
    if not cls.name or cls.name in PASSES:
        raise ValueError(f"pass name {cls.name!r} missing or taken")
    PASSES[cls.name] = cls
    return cls


def register_pipeline(name: str, summary: str):
    def wrap(text_fn: Callable[[], str]):
        PIPELINES[name] = (text_fn, summary)
        return text_fn

    return wrap


def upstream_passes() -> list[str]:
    with open(UPSTREAM_LIST) as f:
        return [line.strip() for line in f if line.strip()]


def known_names() -> list[str]:
    _load_all()
    return sorted(set(PASSES) | set(PIPELINES) | set(upstream_passes()))


def _load_all() -> None:
    """Import every module that registers passes (they register on import)."""
    from compiler.passes import pipelines  # noqa: F401


# ----------------------------------------------------------------------------- parsing


@dataclass
class Element:
    name: str
    options: str = ""  # the text inside ``{...}``, without the braces
    children: list | None = None  # set for an op anchor such as ``func.func(...)``

    def text(self) -> str:
        if self.children is not None:
            return f"{self.name}({','.join(c.text() for c in self.children)})"
        return f"{self.name}{{{self.options}}}" if self.options else self.name


def parse_pipeline(text: str) -> list[Element]:
    parser = _Parser(text)
    elements = parser.elements()
    if parser.pos != len(text):
        raise PipelineError(f"unexpected {text[parser.pos:]!r} in pipeline {text!r}")
    return elements


class _Parser:
    def __init__(self, text: str):
        self.text, self.pos = text, 0

    def _skip(self):
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def _peek(self) -> str:
        self._skip()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def elements(self) -> list[Element]:
        out = [self.element()]
        while self._peek() == ",":
            self.pos += 1
            out.append(self.element())
        return out

    def element(self) -> Element:
        self._skip()
        start = self.pos
        while self.pos < len(self.text) and (self.text[self.pos].isalnum() or self.text[self.pos] in "-_."):
            self.pos += 1
        name = self.text[start:self.pos]
        if not name:
            raise PipelineError(f"expected a pass name at offset {start} of {self.text!r}")
        if self._peek() == "{":
            return Element(name, options=self._braced())
        if self._peek() == "(":
            self.pos += 1
            children = [] if self._peek() == ")" else self.elements()
            if self._peek() != ")":
                raise PipelineError(f"missing ')' after {name}( in {self.text!r}")
            self.pos += 1
            return Element(name, children=children)
        return Element(name)

    def _braced(self) -> str:
        depth, start = 0, self.pos
        quote = None
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            self.pos += 1
            if quote:
                quote = None if ch == quote else quote
            elif ch in "\"'":
                quote = ch
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    return self.text[start + 1:self.pos - 1].strip()
        raise PipelineError(f"unbalanced '{{' in {self.text!r}")


def parse_options(cls: type[EmberPass], text: str) -> dict:
    """``a=1 b-c=true`` -> ``{"a": 1, "b_c": True}``, typed by the pass's fields."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    values = {}
    for item in text.split():
        key, _, raw = item.partition("=")
        attr = key.replace("-", "_")
        if attr not in fields:
            hint = nearest(key, [f.replace("_", "-") for f in fields])
            raise PipelineError(f"pass '{cls.name}' has no option '{key}'{hint}")
        values[attr] = _convert(cls.name, key, fields[attr].type, raw if _ else "true")
    return values


def _convert(pass_name, key, type_, raw: str):
    type_name = type_ if isinstance(type_, str) else type_.__name__
    try:
        if type_name == "bool":
            if raw not in ("true", "false", "1", "0"):
                raise ValueError(raw)
            return raw in ("true", "1")
        if type_name == "int":
            return int(raw)
        if type_name == "float":
            return float(raw)
        return raw.strip("\"'")
    except ValueError:
        raise PipelineError(f"option '{key}' of pass '{pass_name}' expects {type_name}, got {raw!r}") from None


def nearest(name: str, candidates) -> str:
    close = difflib.get_close_matches(name, list(candidates), n=3, cutoff=0.5)
    return f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""


# ----------------------------------------------------------------------------- building


def expand(elements: list[Element]) -> list[Element]:
    """Replace named Ember pipelines by their elements, recursively."""
    _load_all()
    out = []
    for e in elements:
        if e.children is not None:
            out.append(Element(e.name, children=expand(e.children)))
        elif e.name in PIPELINES:
            if e.options:
                raise PipelineError(f"pipeline '{e.name}' takes no options")
            out.extend(expand(parse_pipeline(PIPELINES[e.name][0]())))
        else:
            out.append(e)
    return out


def _contains_ember(e: Element) -> bool:
    if e.children is None:
        return e.name in PASSES
    return any(_contains_ember(c) for c in e.children)


def _flatten_anchor(e: Element) -> list[Element]:
    """Split ``func.func(a, ember-x, b)`` into ``func.func(a)``, ``ember-x``, ``func.func(b)``.

    Ember passes walk the whole module themselves, so lifting them out of an
    anchor keeps the order of effects while letting MLIR nest the upstream parts.
    """
    out, run = [], []
    for c in e.children:
        if _contains_ember(c):
            if run:
                out.append(Element(e.name, children=run))
                run = []
            out.extend(_flatten_anchor(c) if c.children is not None else [c])
        else:
            run.append(c)
    if run:
        out.append(Element(e.name, children=run))
    return out


def add_to_pass_manager(pm: passmanager.PassManager, text: str) -> None:
    """Add a pipeline (without the ``builtin.module(...)`` wrapper) to ``pm``."""
    elements = expand(parse_pipeline(text))
    if len(elements) == 1 and elements[0].name == "builtin.module" and elements[0].children is not None:
        elements = elements[0].children
    flat = []
    for e in elements:
        flat.extend(_flatten_anchor(e) if e.children is not None and _contains_ember(e) else [e])
    for e in flat:
        if e.children is None and e.name in PASSES:
            cls = PASSES[e.name]
            instance = cls(**parse_options(cls, e.options))
            pm.add(instance, name=cls.name, argument=cls.name, description=cls.summary)
        else:
            _add_upstream(pm, e)


def _add_upstream(pm, e: Element) -> None:
    try:
        pm.add(e.text())
    except ValueError as err:
        unknown = e.name if e.children is None else _first_unknown(e)
        known = unknown in upstream_passes()  # a bad option of a known pass: no name to suggest
        hint = nearest(unknown, known_names()) if unknown and not known else ""
        raise PipelineError(f"{str(err).strip()}{hint}") from None


def _first_unknown(e: Element) -> str | None:
    names = set(upstream_passes())
    for c in e.children or []:
        if c.children is None and c.name not in names:
            return c.name
    return None


def build_pass_manager(text: str, context: ir.Context | None = None) -> passmanager.PassManager:
    pm = passmanager.PassManager("builtin.module", context=context)
    add_to_pass_manager(pm, text)
    return pm


def run_upstream(op: ir.Operation, text: str) -> None:
    """Run upstream passes from inside an Ember pass (on the module it was given)."""
    passmanager.PassManager.parse(f"builtin.module({text})", context=op.context).run(op)


def run_pipeline(module: ir.Module, text: str) -> ir.Module:
    """Run ``text`` on ``module`` in place; MLIRError on failure (diagnostics attached)."""
    build_pass_manager(text, module.context).run(module.operation)
    return module
