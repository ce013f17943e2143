"""Pipeline text: ``builtin.module(func.func(canonicalize), ember-tile{tile-bytes=64})``.

MLIR's pass registry is C++; a pass written in Python cannot be registered there by
name. So we parse ``--pass-pipeline`` text ourselves into ``Element``s;
``pass_manager.py`` turns every element naming an Ember pass or pipeline into Python
and hands every other one to MLIR's own parser unchanged.
"""

from __future__ import annotations

import dataclasses
import difflib
from dataclasses import dataclass


class PipelineError(ValueError):
    """A pipeline text names an unknown pass or option, or does not parse."""


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
        raise PipelineError(f"unexpected {text[parser.pos :]!r} in pipeline {text!r}")
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
        name = self.text[start : self.pos]
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
                    return self.text[start + 1 : self.pos - 1].strip()
        raise PipelineError(f"unbalanced '{{' in {self.text!r}")


def parse_options(cls, text: str) -> dict:
    """``a=1 b-c=true`` -> ``{"a": 1, "b_c": True}``, typed by the fields of the pass
    class ``cls`` (a dataclass with a ``name``)."""
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
    """`` (did you mean 'x', 'y'?)`` for the candidates close to ``name``, else ``""``."""
    close = difflib.get_close_matches(name, list(candidates), n=3, cutoff=0.5)
    return f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
