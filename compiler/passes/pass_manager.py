"""One ``PassManager`` for a pipeline that mixes Ember's passes with upstream ones.

Every element of the pipeline text that names an Ember pass becomes a Python pass
(``PassManager.add(callable)``), a named pipeline is replaced by its text, and every
other element is handed to MLIR's own parser unchanged. One ``PassManager`` runs the
whole mix, so IR printing, timing and verification work across both kinds.
"""

from __future__ import annotations

from compiler.mlir import ir, passmanager
from compiler.passes import registry
from compiler.passes.base import EmberPass
from compiler.passes.pipeline_syntax import Element, PipelineError, nearest, parse_options, parse_pipeline


def expand(elements: list[Element]) -> list[Element]:
    """Replace named Ember pipelines by their elements, recursively."""
    out = []
    for e in elements:
        if e.children is not None:
            out.append(Element(e.name, children=expand(e.children)))
        elif registry.is_pipeline(e.name):
            if e.options:
                raise PipelineError(f"pipeline '{e.name}' takes no options")
            out.extend(expand(parse_pipeline(registry.pipeline_text(e.name))))
        else:
            out.append(e)
    return out


def _contains_ember(e: Element) -> bool:
    if e.children is None:
        return registry.is_ember_pass(e.name)
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


def add_pass(pm: passmanager.PassManager, instance: EmberPass) -> None:
    """Add one Ember pass instance to ``pm``, under its name."""
    cls = type(instance)
    pm.add(instance, name=cls.name, argument=cls.name, description=cls.summary)


def add_to_pass_manager(pm: passmanager.PassManager, text: str) -> None:
    """Add a pipeline (without the ``builtin.module(...)`` wrapper) to ``pm``."""
    elements = expand(parse_pipeline(text))
    if len(elements) == 1 and elements[0].name == "builtin.module" and elements[0].children is not None:
        elements = elements[0].children
    flat = []
    for e in elements:
        flat.extend(_flatten_anchor(e) if e.children is not None and _contains_ember(e) else [e])
    for e in flat:
        if e.children is None and registry.is_ember_pass(e.name):
            cls = registry.pass_class(e.name)
            add_pass(pm, cls(**parse_options(cls, e.options)))
        else:
            _add_upstream(pm, e)


def _add_upstream(pm, e: Element) -> None:
    try:
        pm.add(e.text())
    except ValueError as err:
        unknown = e.name if e.children is None else _first_unknown(e)
        known = registry.is_upstream_pass(unknown)  # a bad option of a known pass: no name to suggest
        hint = nearest(unknown, registry.known_names()) if unknown and not known else ""
        raise PipelineError(f"{str(err).strip()}{hint}") from None


def _first_unknown(e: Element) -> str | None:
    for c in e.children or []:
        if c.children is None and not registry.is_upstream_pass(c.name):
            return c.name
    return None


def build_pass_manager(text: str, context: ir.Context | None = None) -> passmanager.PassManager:
    pm = passmanager.PassManager("builtin.module", context=context)
    add_to_pass_manager(pm, text)
    return pm


def run_pipeline(module: ir.Module, text: str, verify_each: bool = True) -> ir.Module:
    """Run ``text`` on ``module`` in place; MLIRError on failure (diagnostics attached).

    ``verify_each=False`` verifies the module once, after the pipeline, instead of after
    every pass: the backend's way. Verifying after each of the ~40 passes of
    ``lower-to-loops`` and ``loops-to-llvm`` was a quarter of their time (softmax's
    43 ms -> 31); ``ember-opt`` and the ``ir`` log keep the per-pass check, which names
    the pass that broke the IR."""
    manager = build_pass_manager(text, module.context)
    manager.enable_verifier(verify_each)
    manager.run(module.operation)
    if not verify_each:
        module.operation.verify()
    return module
