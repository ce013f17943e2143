"""The pipeline parser and the mix of Ember and upstream passes in one PassManager."""

import pytest

from compiler.dialects import ember
from compiler.mlir import ir, passmanager
from compiler.passes import registry
from compiler.passes.registry import Element, PipelineError, parse_pipeline

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
    assert elements == [Element("builtin.module", children=[
        Element("func.func", children=[Element("canonicalize", options="max-iterations=3")]),
        Element("ember-tile", options="tile-bytes=64"),
    ])]
    assert elements[0].text() == "builtin.module(func.func(canonicalize{max-iterations=3}),ember-tile{tile-bytes=64})"


@pytest.mark.parametrize("text", ["builtin.module(", "builtin.module(cse", "a{b", "builtin.module(,)"])
def test_malformed_pipelines_are_errors(text):
    with pytest.raises(PipelineError):
        parse_pipeline(text)


def test_options_are_typed_by_the_pass_fields():
    cls = registry.PASSES["ember-tile"]
    assert registry.parse_options(cls, "tile-bytes=4096") == {"tile_bytes": 4096}
    with pytest.raises(PipelineError, match="expects int"):
        registry.parse_options(cls, "tile-bytes=big")
    with pytest.raises(PipelineError, match="did you mean 'tile-bytes'"):
        registry.parse_options(cls, "tile-byte=3")


def test_unknown_pass_names_the_nearest_known_ones():
    with ember.new_context():
        with pytest.raises(PipelineError, match="ember-fuse"):
            registry.build_pass_manager("builtin.module(ember-fusee)")
        with pytest.raises(PipelineError, match="canonicalize"):
            registry.build_pass_manager("builtin.module(func.func(canonicalise))")


def test_named_pipelines_expand_to_registered_passes():
    for name in ("lower-to-loops", "lower-to-llvm"):
        flat = registry.expand([Element(name)])
        assert flat and all(e.name in registry.PASSES or e.name in registry.upstream_passes()
                            or e.children is not None for e in flat)
    assert [e.name for e in registry.expand([Element("lower-to-loops")])][:4] == [
        "ember-to-linalg", "ember-fuse", "ember-tile", "ember-bufferize"]


def test_every_listed_upstream_pass_is_registered():
    names = registry.upstream_passes()
    assert len(names) > 200 and "one-shot-bufferize" in names and "linalg-fuse-elementwise-ops" in names
    with ir.Context():
        for name in names:
            try:
                passmanager.PassManager.parse(f"builtin.module({name})")
            except ValueError:
                passmanager.PassManager.parse(f"builtin.module(func.func({name}))")


def test_ember_pass_inside_an_anchor_runs_in_order_with_upstream_passes():
    with ember.new_context():
        module = ir.Module.parse(ELEMENTWISE)
        registry.run_pipeline(module, "builtin.module(func.func(canonicalize, ember-tile{tile-bytes=64}, cse))")
        text = str(module)
    assert "scf.forall" in text and "(d0 * 8)" in text  # 64 bytes / (2 operands x 4 bytes)


def test_pass_failure_is_a_located_diagnostic_not_a_traceback():
    @registry.register
    class AlwaysFails(registry.EmberPass):
        name = "test-always-fails"

        def run(self, module):
            op = module.regions[0].blocks[0].operations[0]
            raise registry.PassFailure("refusing", op.operation)

    try:
        with ember.new_context():
            module = ir.Module.parse(ELEMENTWISE)
            with pytest.raises(ir.MLIRError) as err:
                registry.run_pipeline(module, "builtin.module(test-always-fails)")
        assert "test-always-fails: refusing" in str(err.value)
        assert err.value.error_diagnostics[0].location is not None
    finally:
        del registry.PASSES["test-always-fails"]
