"""The pass table, the pipeline parser and the mix of Ember and upstream passes in one PassManager."""

import importlib
import inspect
import pkgutil
import subprocess
import sys
from dataclasses import dataclass

import pytest

import compiler.passes
from compiler.dialects import ember
from compiler.mlir import ir, passmanager
from compiler.passes import pass_manager, registry
from compiler.passes.base import EmberPass, PassFailure
from compiler.passes.pipeline_syntax import Element, PipelineError, parse_options, parse_pipeline

ELEMENTWISE = """
#id1 = affine_map<(d0) -> (d0)>
func.func @f(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""


def test_parse_nested_pipeline_with_options():
    elements = parse_pipeline("builtin.module(func.func(canonicalize{max-iterations=3}), ember-tile{tile-bytes=64})")
    assert elements == [
        Element(
            "builtin.module",
            children=[
                Element("func.func", children=[Element("canonicalize", options="max-iterations=3")]),
                Element("ember-tile", options="tile-bytes=64"),
            ],
        )
    ]
    assert elements[0].text() == "builtin.module(func.func(canonicalize{max-iterations=3}),ember-tile{tile-bytes=64})"


@pytest.mark.parametrize("text", ["builtin.module(", "builtin.module(cse", "a{b", "builtin.module(,)"])
def test_malformed_pipelines_are_errors(text):
    with pytest.raises(PipelineError):
        parse_pipeline(text)


def test_options_are_typed_by_the_pass_fields():
    cls = registry.pass_class("ember-tile")
    assert parse_options(cls, "tile-bytes=4096") == {"tile_bytes": 4096}
    with pytest.raises(PipelineError, match="expects int"):
        parse_options(cls, "tile-bytes=big")
    with pytest.raises(PipelineError, match="did you mean 'tile-bytes'"):
        parse_options(cls, "tile-byte=3")


def test_unknown_pass_names_the_nearest_known_ones():
    with ember.new_context():
        with pytest.raises(PipelineError, match="ember-fuse"):
            pass_manager.build_pass_manager("builtin.module(ember-fusee)")
        with pytest.raises(PipelineError, match="canonicalize"):
            pass_manager.build_pass_manager("builtin.module(func.func(canonicalise))")


def test_named_pipelines_expand_to_registered_passes():
    for name in ("lower-to-loops", "lower-to-llvm"):
        flat = pass_manager.expand([Element(name)])
        assert flat and all(
            registry.is_ember_pass(e.name) or registry.is_upstream_pass(e.name) or e.children is not None for e in flat
        )
    assert [e.name for e in pass_manager.expand([Element("lower-to-loops")])][:6] == [
        "ember-to-linalg",
        "ember-fuse",
        "ember-split-column-reductions",
        "ember-tile",
        "ember-scalar-carries",
        "ember-bufferize",
    ]


def test_every_listed_upstream_pass_is_registered():
    names = registry.upstream_passes()
    assert len(names) > 200 and "one-shot-bufferize" in names and "linalg-fuse-elementwise-ops" in names
    with ir.Context():
        for name in names:
            for anchor in ("{}", "func.func({})", "gpu.module({})"):  # as tools/list_upstream_passes.py
                try:
                    passmanager.PassManager.parse(f"builtin.module({anchor.format(name)})")
                    break
                except ValueError:
                    continue
            else:
                raise AssertionError(f"{name} is not a registered pass")


def test_ember_pass_inside_an_anchor_runs_in_order_with_upstream_passes():
    with ember.new_context():
        module = ir.Module.parse(ELEMENTWISE)
        pass_manager.run_pipeline(module, "builtin.module(func.func(canonicalize, ember-tile{tile-bytes=64}, cse))")
        text = str(module)
    assert "scf.forall" in text and "(d0 * 8)" in text  # 64 bytes / (2 operands x 4 bytes)


@dataclass
class AlwaysFails(EmberPass):
    name = "test-always-fails"

    def run(self, module):
        op = module.regions[0].blocks[0].operations[0]
        raise PassFailure("refusing", op.operation)


def test_pass_failure_is_a_located_diagnostic_not_a_traceback():
    with ember.new_context() as context:
        module = ir.Module.parse(ELEMENTWISE)
        pm = passmanager.PassManager("builtin.module", context=context)
        pass_manager.add_pass(pm, AlwaysFails())
        with pytest.raises(ir.MLIRError) as err:
            pm.run(module.operation)
    assert "test-always-fails: refusing" in str(err.value)
    assert err.value.error_diagnostics[0].location is not None


def test_every_table_entry_is_the_pass_of_that_name():
    for name in registry.ember_pass_names():
        cls = registry.pass_class(name)
        assert inspect.isclass(cls) and issubclass(cls, EmberPass) and cls is not EmberPass
        assert cls.name == name and cls.summary, name


def _pass_classes_in_the_package() -> dict:
    """{class: module} of every EmberPass subclass defined in a module of compiler.passes."""
    found = {}
    for info in pkgutil.iter_modules(compiler.passes.__path__, "compiler.passes."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, EmberPass) and cls is not EmberPass and cls.__module__ == info.name:
                found[cls] = info.name
    return found


def test_every_pass_class_of_the_package_is_in_the_table():
    classes = _pass_classes_in_the_package()
    assert len(classes) >= 8
    for cls, module in classes.items():
        assert registry.is_ember_pass(cls.name), f"{module}.{cls.__name__} ({cls.name!r}) is not in the registry"
        assert registry.pass_location(cls.name) == (module, cls.__name__)


def test_pipelines_and_names_are_known_without_importing_passes():
    assert registry.pipeline_names() == [
        "gpu-to-nvvm",
        "loops-to-llvm",
        "lower-to-gpu",
        "lower-to-llvm",
        "lower-to-loops",
        "lower-to-nvvm",
    ]
    assert registry.pipeline_summary("lower-to-llvm") and "ember-to-linalg" in registry.pipeline_text("lower-to-loops")
    known = registry.known_names()
    assert set(registry.ember_pass_names()) <= set(known) and "lower-to-loops" in known and "cse" in known
    with pytest.raises(PipelineError, match="ember-fuse"):
        registry.pass_class("ember-fusee")


def test_importing_the_registry_imports_no_pass_module():
    pass_modules = sorted({module for module, _ in map(registry.pass_location, registry.ember_pass_names())})
    helpers = ["compiler.passes.linalg_utils", "compiler.passes.pass_manager", "compiler.passes.base"]
    code = (
        "import sys, compiler; before = set(sys.modules); "  # what the compiler package imports itself
        "import compiler.passes.registry as r; r.known_names(); r.pipeline_text('lower-to-llvm'); "
        f"print([m for m in {pass_modules + helpers!r} if m in set(sys.modules) - before])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
