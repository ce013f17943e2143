"""ember-opt's driver, in process: exit codes and messages of the error paths and options."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import textwrap

import pytest

from tools import ember_opt, split_input
from tools.opt_diagnostics import parse_expectations

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

GOOD = """\
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "ember.exp"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""

BAD_AXES = """\
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "ember.sum"(%a) {axes = array<i64: 3>, keepdims = false} : (tensor<4xf32>) -> tensor<f32>
  return %a : tensor<4xf32>
}
"""

LLVM = """\
llvm.func @add(%a: i32, %b: i32) -> i32 {
  %0 = llvm.add %a, %b : i32
  llvm.return %0 : i32
}
"""


@pytest.fixture
def write(tmp_path):
    def write(text: str, name: str = "input.mlir") -> str:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text))
        return str(path)

    return write


def run(capsys, *argv):
    code = ember_opt.main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


# ----------------------------------------------------------------------------- plain runs


def test_round_trip_prints_module(capsys, write):
    code, out, err = run(capsys, write(GOOD))
    assert code == 0 and err == ""
    assert '"ember.exp"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>' in out


def test_pipeline_runs_ember_and_upstream_passes(capsys, write):
    code, out, _ = run(capsys, write(GOOD), "--pass-pipeline=builtin.module(ember-to-linalg,canonicalize)")
    assert code == 0
    assert "linalg.generic" in out and "ember." not in out


def test_p_wraps_names_in_builtin_module(capsys, write):
    code, out, _ = run(capsys, write(GOOD), "-p", "ember-to-linalg,cse")
    assert code == 0 and "math.exp" in out


def test_stdin_and_output_file(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "stdin", io.StringIO(GOOD))
    target = tmp_path / "out.mlir"
    code, out, _ = run(capsys, "-", "-o", str(target))
    assert code == 0 and out == ""
    assert '"ember.exp"' in target.read_text()


def test_no_output_file_on_failure(capsys, write, tmp_path):
    target = tmp_path / "out.mlir"
    code, _, _ = run(capsys, write(BAD_AXES), "-o", str(target))
    assert code == 1 and not target.exists()


def test_unwritable_output_file(capsys, write, tmp_path):
    target = tmp_path / "no-such-dir" / "out.mlir"
    code, _, err = run(capsys, write(GOOD), "-o", str(target))
    assert code == 1
    assert err == f"ember-opt: error: cannot write output file '{target}': No such file or directory\n"


def test_stdin_is_the_default_input(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(BAD_AXES))
    code, _, err = run(capsys)
    assert code == 1
    assert err.startswith("<stdin>:2:8: error: 'ember.sum' op axes [3] out of range for rank 1")


def test_help_exits_zero(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "--pass-pipeline" in out


# ----------------------------------------------------------------------------- errors


def test_parse_error_names_the_real_file(capsys, write):
    path = write("func.func @f() {\n  %0 = bogus\n}\n", "broken.mlir")
    code, out, err = run(capsys, path)
    assert code == 1 and out == ""
    first, source, caret = err.splitlines()[:3]
    assert first == f"{path}:2:8: error: custom op 'bogus' is unknown (tried 'func.bogus' as well)"
    assert source == "  %0 = bogus"
    assert caret == "       ^"
    assert '"-"' not in err


def test_verifier_error_of_an_ember_op(capsys, write):
    path = write(BAD_AXES)
    code, _, err = run(capsys, path)
    assert code == 1
    assert err.startswith(f"{path}:2:8: error: 'ember.sum' op axes [3] out of range for rank 1")


def test_verifier_error_prints_its_notes(capsys, write):
    path = write("func.func @g(%a: i32) -> i32 {\n  return %a, %a : i32, i32\n}\n")
    code, _, err = run(capsys, path)
    assert code == 1
    assert f"{path}:2:3: error: 'func.return' op has 2 operands" in err
    assert f"{path}:2:3: note: see current operation" in err


def test_missing_input_file(capsys, tmp_path):
    missing = tmp_path / "nope.mlir"
    code, _, err = run(capsys, str(missing))
    assert code == 1
    assert err == f"ember-opt: error: cannot open input file '{missing}': No such file or directory\n"


@pytest.mark.parametrize(
    "pipeline, wanted",
    [
        ("-p=canonicalise", "did you mean 'canonicalize'"),
        ("-p=ember-to-linalgg", "did you mean 'ember-to-linalg'"),
        ("--pass-pipeline=builtin.module(lower-to-llmv)", "did you mean 'lower-to-llvm'"),
    ],
)
def test_unknown_pass_suggests_the_nearest(capsys, write, pipeline, wanted):
    flag, _, text = pipeline.partition("=")
    code, out, err = run(capsys, write(GOOD), flag, text)
    assert code == 1 and out == ""
    assert err.startswith("ember-opt: error: ") and wanted in err


def test_unknown_pass_fails_before_reading_stdin_chunks(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(BAD_AXES))
    code, _, err = run(capsys, "-p", "nonsense-pass")
    assert code == 1
    assert "'ember.sum'" not in err  # the pipeline is checked before any chunk runs


def test_unknown_pass_option(capsys, write):
    code, _, err = run(capsys, write(GOOD), "--pass-pipeline=builtin.module(ember-to-linalg{bogus=1})")
    assert code == 1
    assert err == "ember-opt: error: pass 'ember-to-linalg' has no option 'bogus'\n"


def test_unknown_command_line_option(capsys, write):
    code, _, err = run(capsys, write(GOOD), "--split-input-fil")
    assert code == 1
    assert err.startswith(
        "ember-opt: error: unknown command line argument '--split-input-fil' (did you mean '--split-input-file'"
    )


def test_pipeline_pieces_run_in_command_line_order(capsys, write):
    code, _, err = run(
        capsys,
        write(GOOD),
        "-p",
        "ember-to-linalg",
        "-canonicalize",
        "--pass-pipeline=builtin.module(cse)",
        "--mlir-print-ir-after-all",
    )
    assert code == 0, err
    order = re.findall(r"IR Dump After \S+: ([\w-]+)", err)
    assert order == ["ember-to-linalg", "canonicalize", "cse"]


@pytest.mark.parametrize(
    "emit, wanted",
    [
        ("bitcode", "unknown --emit=bitcode"),
        ("wasm", "unknown --emit=wasm"),
    ],
)
def test_emit_rejects_unknown_kinds(capsys, write, emit, wanted):
    code, _, err = run(capsys, write(GOOD), f"--emit={emit}")
    assert code == 1
    assert err.startswith(f"ember-opt: error: {wanted}") and "choose one of: mlir, llvm, asm, obj, ptx" in err


def test_emit_obj_writes_a_host_object_file(capsys, write, tmp_path):
    out = tmp_path / "k.o"
    code, _, err = run(capsys, write(GOOD), "--emit=obj", "-o", str(out))
    data = out.read_bytes()
    assert code == 0, err
    assert data[:4] == b"\x7fELF" and b"_mlir_ciface_" in data


def test_emit_asm_is_host_assembly_of_the_kernel(capsys, write):
    code, out, err = run(capsys, write(GOOD), "--emit=asm")
    assert code == 0, err
    assert "_mlir_ciface_f:" in out and "ret" in out and ".file" in out


def test_emit_obj_with_split_input_file_is_a_usage_error(capsys, write):
    code, _, err = run(capsys, write(GOOD), "--emit=obj", "--split-input-file")
    assert code == 1 and "cannot be combined" in err


def test_single_dash_long_options(capsys, write):
    code, out, _ = run(capsys, "-split-input-file", write(GOOD))
    assert code == 0 and "ember.exp" in out


# ----------------------------------------------------------------------------- options


def test_list_passes(capsys):
    code, out, _ = run(capsys, "--list-passes")
    assert code == 0
    sections = out.split("Ember pipelines:")
    ember_passes, rest = sections[0], sections[1]
    assert "  ember-to-linalg " in ember_passes and "  ember-fuse " in ember_passes
    pipelines, upstream = rest.split("Upstream MLIR passes:")
    assert "  lower-to-llvm " in pipelines and "  lower-to-loops " in pipelines
    assert "\n  canonicalize\n" in upstream


def test_emit_llvm_of_llvm_dialect(capsys, write):
    code, out, _ = run(capsys, write(LLVM), "--emit=llvm")
    assert code == 0
    assert "define i32 @add(i32 %0, i32 %1)" in out


def test_emit_llvm_lowers_ember_input_first(capsys, write):
    code, out, _ = run(capsys, write(GOOD), "--emit=llvm")
    assert code == 0
    assert "define " in out and "ember." not in out


def test_emit_llvm_after_a_short_pipeline_is_an_error(capsys, write):
    path = write(GOOD)
    code, out, err = run(capsys, path, "-p", "ember-to-linalg", "--emit=llvm")
    assert code == 1 and out == ""
    assert err.startswith(f"{path}: error: cannot translate to LLVM IR")


def test_allow_unregistered_dialect(capsys, write):
    path = write('func.func @f() {\n  "foo.bar"() : () -> ()\n  return\n}\n')
    assert run(capsys, path)[0] == 1
    code, out, _ = run(capsys, path, "--allow-unregistered-dialect")
    assert code == 0 and '"foo.bar"() : () -> ()' in out


def test_print_ir_after_all_goes_to_stderr(capsys, write):
    code, out, err = run(capsys, write(GOOD), "-p", "ember-to-linalg,canonicalize", "--mlir-print-ir-after-all")
    assert code == 0 and "IR Dump" not in out
    assert "IR Dump After ember-to-linalg" in err
    assert "IR Dump After CanonicalizerPass" in err


def test_print_ir_before_keeps_only_the_named_pass(capsys, write):
    code, _, err = run(capsys, write(GOOD), "-p", "ember-to-linalg,canonicalize", "--mlir-print-ir-before=canonicalize")
    assert code == 0
    assert err.count("IR Dump") == 1
    assert "IR Dump Before CanonicalizerPass: canonicalize" in err
    assert "linalg.generic" in err and "ember.exp" not in err


def test_timing_report(capsys, write):
    code, _, err = run(capsys, write(GOOD), "-p", "canonicalize", "--mlir-timing")
    assert code == 0
    assert "Execution time report" in err and "Canonicalizer" in err


def test_pass_failure_is_located(capsys, write):
    path = write(
        "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
        '  %0 = "foo.bar"(%a) : (tensor<4xf32>) -> tensor<4xf32>\n'
        "  return %0 : tensor<4xf32>\n}\n"
    )
    code, out, err = run(capsys, path, "--allow-unregistered-dialect", "-p", "one-shot-bufferize")
    assert code == 1 and out == ""
    assert err.startswith(f"{path}:2:8: error: op was not bufferized")


# ----------------------------------------------------------------------------- split and verify


def test_split_input_file_keeps_line_numbers(capsys, write):
    path = write(GOOD + "// -----\n" + BAD_AXES + "// -----\n" + GOOD.replace("@f", "@g"))
    code, out, err = run(capsys, path, "--split-input-file")
    assert code == 1
    assert err.startswith(f"{path}:7:8: error: 'ember.sum' op")
    assert out.count("module {") == 2 and "// -----\n" in out and "@g" in out


def test_without_split_the_marker_is_a_comment(capsys, write):
    path = write(GOOD + "// -----\n" + GOOD.replace("@f", "@g"))
    code, out, _ = run(capsys, path)
    assert code == 0 and out.count("module {") == 1


def test_verify_diagnostics_passes(capsys, write):
    text = BAD_AXES.replace("  %0 =", "  // expected-error @+1 {{axes [3] out of range}}\n  %0 =")
    code, out, err = run(capsys, write(text), "--verify-diagnostics")
    assert (code, out, err) == (0, "", "")


def test_verify_diagnostics_reports_missing_and_unexpected(capsys, write):
    text = "// expected-warning @unknown {{never}}\n" + BAD_AXES
    path = write(text)
    code, _, err = run(capsys, path, "--verify-diagnostics")
    assert code == 1
    assert f"{path}:3:8: error: unexpected error: 'ember.sum' op axes [3]" in err
    assert f'{path}:1:4: error: expected warning "never" was not produced' in err


def test_verify_diagnostics_with_split_checks_every_chunk(capsys, write):
    ok = BAD_AXES.replace("-> tensor<f32>\n", "-> tensor<f32> // expected-error {{out of range}}\n")
    code, out, err = run(capsys, write(ok + "// -----\n" + GOOD), "--split-input-file", "--verify-diagnostics")
    assert (code, err) == (0, "")
    assert "ember.exp" in out


# ----------------------------------------------------------------------------- pieces


def test_expectation_designators():
    text = textwrap.dedent("""\
        op0
        // expected-error @below {{b}}
        // expected-note @above {{a}}
        op3
        op4 // expected-remark {{here}}
        // expected-warning @-2 {{minus}}
        // expected-error-re @+1 {{x{{[0-9]+}}}}
        op7
        // expected-error @unknown {{nowhere}}
        """)
    found = {e.text: e for e in parse_expectations(text)}
    assert found["b"].line == 4  # the next line that is not a designator
    assert found["a"].line == 1  # the previous line that is not a designator
    assert found["here"].line == 5 and found["here"].kind == "remark"
    assert found["minus"].line == 4
    assert found["x{{[0-9]+}}"].line == 8 and found["x{{[0-9]+}}"].pattern.search("x42")
    assert found["nowhere"].line == 0


def test_split_chunks_pad_to_original_lines():
    chunks, misses = split_input.split("a\n// -----\nb\nc\n//   -----\nd\n", "// -----")
    assert chunks == ["a\n", "\n        \nb\nc\n//   -----\nd\n"] and misses == []


# ----------------------------------------------------------------------------- as a program


def test_python_dash_m(tmp_path):
    path = tmp_path / "bad.mlir"
    path.write_text(BAD_AXES)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [REPO, os.environ.get("PYTHONPATH")])))
    done = subprocess.run(
        [sys.executable, "-m", "tools.ember_opt", str(path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(f"{path}:2:8: error: 'ember.sum' op axes [3] out of range for rank 1")
    assert "Traceback" not in done.stderr


# ----------------------------------------------------------------------------- mlir-opt's command line

SCALAR = """\
func.func @f(%a: f64, %b: f64) -> f64 {
  %c = arith.mulf %a, %b : f64
  return %c : f64
}
"""

ALLOCS = """\
func.func @f() -> f32 {
  %c0 = arith.constant 0 : index
  %m = memref.alloc() : memref<4xf32>
  %v = memref.load %m[%c0] : memref<4xf32>
  return %v : f32
}
"""


def test_pass_flags_are_never_short_options(capsys, write, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, write(ALLOCS), "-promote-buffers-to-stack", "-one-shot-bufferize")
    assert code == 0, err
    assert "memref.alloca()" in out  # the pass ran (nested in func.func as mlir-opt nests it)
    assert sorted(os.listdir(tmp_path)) == ["input.mlir"]  # and no file "ne-shot-bufferize"


def test_glued_short_option_values_are_refused(capsys, write):
    code, out, err = run(capsys, write(SCALAR), "-ofoo")
    assert code == 1 and out == ""
    assert err.startswith("ember-opt: error: unknown command line argument '-ofoo'")


def test_output_file_as_o_equals(capsys, write, tmp_path):
    target = tmp_path / "out.mlir"
    code, out, _ = run(capsys, write(SCALAR), f"-o={target}")
    assert code == 0 and out == "" and "arith.mulf" in target.read_text()


@pytest.mark.parametrize("flag", ["-canonicalize=max-iterations=3", "--canonicalize=max-iterations=3"])
def test_pass_flag_value_holds_the_pass_options(capsys, write, flag):
    code, _, err = run(capsys, write(SCALAR), flag, "--mlir-print-ir-after-all")
    assert code == 0, err
    assert "IR Dump After CanonicalizerPass: canonicalize{" in err and "max-iterations=3" in err


def test_bad_option_of_a_pass_flag(capsys, write):
    code, _, err = run(capsys, write(SCALAR), "-canonicalize=bogus=1")
    assert code == 1 and "no such option bogus" in err


def test_flag_takes_only_a_boolean_value(capsys, write):
    code, _, err = run(capsys, write(SCALAR), "--verify-diagnostics=maybe")
    assert code == 1 and "takes true or false" in err


def test_unknown_pass_in_pass_pipeline_is_located(capsys, write):
    code, _, err = run(capsys, write(SCALAR), "--pass-pipeline=builtin.module(cse,canonicalise)")
    assert code == 1
    lines = err.splitlines()
    assert lines[0].startswith("ember-opt: error: 'canonicalise' does not refer to a registered pass")
    assert "did you mean 'canonicalize'" in lines[0]
    assert lines[1] == "--pass-pipeline=builtin.module(cse,canonicalise)"
    assert lines[2].index("^") == lines[1].index("canonicalise")


def test_emit_obj_refuses_a_terminal(capsys, write, monkeypatch):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, out, err = run(capsys, write(SCALAR), "--emit=obj")
    assert (code, out) == (1, "")
    assert err == "ember-opt: error: refusing to write binary to a terminal; use -o\n"


def test_printing_flags(capsys, write):
    path = write(SCALAR)
    code, out, _ = run(capsys, path, "-mlir-print-op-generic", "-mlir-print-debuginfo")
    assert code == 0
    assert '"arith.mulf"(%arg0, %arg1)' in out and f'loc("{path}":2:8)' in out


def test_verify_each_false_and_disable_threading(capsys, write):
    code, out, _ = run(capsys, write(SCALAR), "-cse", "--verify-each=false", "--mlir-disable-threading")
    assert code == 0 and "arith.mulf" in out


def test_print_ir_after_failure_prints_only_the_failed_pass(capsys, write):
    code, _, err = run(capsys, write(GOOD), "-p", "cse,ember-bufferize", "--mlir-print-ir-after-failure")
    assert code == 1
    assert re.findall(r"IR Dump After (.*?):", err) == ["ember-bufferize Failed"]


# ----------------------------------------------------------------------------- split markers


def test_custom_split_markers(capsys, write):
    path = write(SCALAR + "# cut\n" + SCALAR.replace("@f", "@g"))
    code, out, _ = run(capsys, path, "--split-input-file=# cut", "--output-split-marker=// ====")
    assert code == 0
    assert out.count("module {") == 2 and "\n// ====\nmodule {" in out


def test_near_miss_with_the_split_marker_warns(capsys, write):
    path = write(SCALAR + "// ----\n" + SCALAR.replace("@f", "@g"))
    code, out, err = run(capsys, path, "--split-input-file")
    assert code == 0 and out.count("module {") == 1  # not split
    assert err.startswith(f"{path}:5:7: warning: near miss with file split marker\n// ----\n      ^")


# ----------------------------------------------------------------------------- passes on plain upstream input


def test_emit_llvm_of_plain_scalar_function(capsys, write):
    code, out, err = run(capsys, write(SCALAR), "--emit=llvm")
    assert code == 0, err
    assert "fmul double" in out


def test_lower_to_llvm_of_plain_scalar_function(capsys, write):
    code, out, err = run(capsys, write(SCALAR), "-p", "lower-to-llvm")
    assert code == 0, err
    assert "llvm.fmul" in out


def test_upstream_failure_inside_an_ember_pass_keeps_its_diagnostics(capsys, write):
    path = write(GOOD)
    code, _, err = run(capsys, path, "-p", "ember-bufferize")
    assert code == 1
    assert err.startswith(f"{path}:2:8: error: op was not bufferized")
    assert "ember-bufferize: upstream pipeline '" in err and "internal error" not in err


def test_upstream_failure_inside_an_ember_pass_without_a_handler():
    from compiler.dialects.ember import new_context
    from compiler.mlir import ir
    from compiler.passes.pass_manager import run_pipeline

    module = ir.Module.parse(GOOD, new_context())
    with pytest.raises(ir.MLIRError) as caught:
        run_pipeline(module, "ember-bufferize")
    messages = [d.message for d in caught.value.error_diagnostics]
    assert messages[0].startswith("op was not bufferized")
    assert messages[-1].startswith("ember-bufferize: upstream pipeline '")


def test_a_reader_that_leaves_early_gets_no_traceback(tmp_path):
    """``ember-opt big.mlir | head``: output past the pipe's buffer, reader gone. (LLVM's
    own SIGPIPE handling ends the process where it sees the signal first; the driver's
    BrokenPipeError handler covers the writes where it does not.)"""
    functions = "\n".join(f"func.func @f{i}(%a: f64) -> f64 {{\n  return %a : f64\n}}" for i in range(3000))
    path = tmp_path / "big.mlir"
    path.write_text(functions)
    run = subprocess.Popen(
        [sys.executable, "-m", "tools.ember_opt", str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert run.stdout.read(16)
    run.stdout.close()
    errors = run.stderr.read().decode()
    run.wait()
    assert "Traceback" not in errors and "BrokenPipe" not in errors
