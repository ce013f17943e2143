"""The NVPTX backend without a GPU: gpu.module -> LLVM IR -> PTX, assembled by ptxas.

Needs libdevice and ptxas (the ``nvidia-cuda-nvcc-cu12`` wheel of the ``test`` extra);
the tests that need one of them skip without it. Nothing here needs a driver.
"""

from __future__ import annotations

import os
import stat

import pytest

from compiler.backends.nvptx import codegen, toolkit
from compiler.dialects.ember import new_context
from compiler.errors import BackendError
from compiler.mlir import ir
from compiler.passes import registry
from compiler.passes.pass_manager import run_pipeline
from tools import ember_opt

EXP_KERNEL = """\
    gpu.func @exp_kernel(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %v = memref.load %x[%i] : memref<?xf32>
        %e = math.exp %v : f32
        memref.store %e, %y[%i] : memref<?xf32>
      }
      gpu.return
    }
"""

SUM_KERNEL = """\
    gpu.func @sum_kernel(%x: memref<?xf32>, %out: memref<?xf32>, %n: index)
        workgroup(%smem : memref<256xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : i32
      %c32 = arith.constant 32 : i32
      %zero = arith.constant 0.0 : f32
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %n : index
      %v = scf.if %in -> (f32) {
        %l = memref.load %x[%i] : memref<?xf32>
        scf.yield %l : f32
      } else {
        scf.yield %zero : f32
      }
      %s, %valid = gpu.shuffle xor %v, %c16, %c32 : f32
      %r = arith.addf %v, %s : f32
      memref.store %r, %smem[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %is0 = arith.cmpi eq, %tid, %c0 : index
      scf.if %is0 {
        %t = memref.load %smem[%c0] : memref<256xf32, #gpu.address_space<workgroup>>
        memref.store %t, %out[%bid] : memref<?xf32>
      }
      gpu.return
    }
"""

COPY_KERNEL = """\
    gpu.func @copy_kernel(%x: memref<?xf32>, %y: memref<?xf32>) kernel {
      %tid = gpu.thread_id x
      %v = memref.load %x[%tid] : memref<?xf32>
      memref.store %v, %y[%tid] : memref<?xf32>
      gpu.return
    }
"""


def gpu_source(*kernels: str, name: str = "ember_kernels") -> str:
    body = "".join(kernels)
    return f"module attributes {{gpu.container_module}} {{\n  gpu.module @{name} {{\n{body}  }}\n}}\n"


def lowered(source: str) -> ir.Module:
    module = ir.Module.parse(source, new_context())
    run_pipeline(module, "builtin.module(gpu-to-nvvm)")
    return module


def kernels_ir(*kernels: str) -> str:
    return codegen.kernel_module_ir(lowered(gpu_source(*kernels)))


def _has_libdevice() -> bool:
    try:
        toolkit.libdevice_path()
        return True
    except BackendError:
        return False


needs_libdevice = pytest.mark.skipif(not _has_libdevice(), reason="no CUDA libdevice (pip install 'ember[cuda]')")
needs_ptxas = pytest.mark.skipif(toolkit.ptxas_path() is None, reason="no ptxas (pip install 'ember[cuda]')")

ARCHES = ["sm_80", "sm_90"]


@pytest.fixture
def no_toolkit(monkeypatch, tmp_path):
    """A machine with no CUDA toolkit anywhere: every search finds nothing."""
    monkeypatch.setattr(toolkit, "toolkit_roots", lambda: [tmp_path / "no-cuda"])
    monkeypatch.setattr(toolkit, "_path_ptxas", lambda: None)


# ----------------------------------------------------------------------------- the pipeline, LLVM IR


def test_gpu_to_nvvm_is_a_named_pipeline():
    assert registry.is_pipeline("gpu-to-nvvm")
    assert registry.pipeline_summary("gpu-to-nvvm") == "GPU kernels (gpu.module) to the NVVM and LLVM dialects"
    assert registry.is_upstream_pass("convert-gpu-to-nvvm")  # listed under its gpu.module anchor


def test_kernel_module_ir_translates_the_lowered_gpu_module():
    llvm_ir = kernels_ir(EXP_KERNEL, SUM_KERNEL)
    assert "define ptx_kernel void @exp_kernel(" in llvm_ir
    assert "define ptx_kernel void @sum_kernel(" in llvm_ir
    assert "declare float @__nv_expf(float)" in llvm_ir
    assert "addrspace(3) global [256 x float]" in llvm_ir  # the workgroup buffer
    assert codegen.kernel_names(llvm_ir) == {"exp_kernel", "sum_kernel"}


def test_kernel_module_ir_takes_the_only_gpu_module_whatever_its_name():
    llvm_ir = codegen.kernel_module_ir(lowered(gpu_source(COPY_KERNEL, name="other")))
    assert "define ptx_kernel void @copy_kernel(" in llvm_ir


def test_kernel_module_ir_errors():
    with pytest.raises(BackendError, match="no gpu.module"):
        codegen.kernel_module_ir(ir.Module.parse("func.func @f() { return }", new_context()))
    not_lowered = ir.Module.parse(gpu_source(COPY_KERNEL), new_context())
    with pytest.raises(BackendError, match=r"ops outside the llvm/nvvm dialects remain: .*gpu\.func.*gpu-to-nvvm"):
        codegen.kernel_module_ir(not_lowered)
    two = "module attributes {gpu.container_module} {\n  gpu.module @b {\n%s  }\n  gpu.module @a {\n%s  }\n}\n"
    with pytest.raises(BackendError, match=r"several gpu.modules \(@b, @a\) and none named @ember_kernels"):
        codegen.kernel_module_ir(lowered(two % (COPY_KERNEL, COPY_KERNEL)))


# ----------------------------------------------------------------------------- PTX


@needs_libdevice
@pytest.mark.parametrize("arch", ARCHES)
def test_ptx_of_the_kernels(arch):
    ptx = codegen.ptx_from_llvm_ir(kernels_ir(EXP_KERNEL, SUM_KERNEL), arch)
    assert f".target {arch}" in ptx
    assert ".version 7.0" in ptx if arch == "sm_80" else ".version 8.0" in ptx
    assert ".visible .entry exp_kernel(" in ptx and ".visible .entry sum_kernel(" in ptx
    assert "shfl.sync.bfly.b32" in ptx and "bar.sync" in ptx and ".shared" in ptx
    # libdevice is linked in and internalized: nothing of it is left to resolve
    assert ".extern" not in ptx and "__nv_" not in ptx


@needs_libdevice
@needs_ptxas
@pytest.mark.parametrize("arch", ARCHES)
def test_ptxas_assembles_the_ptx(arch):
    toolkit.ptxas_check(codegen.ptx_from_llvm_ir(kernels_ir(EXP_KERNEL, SUM_KERNEL), arch), arch)


@needs_libdevice
def test_libdevice_is_internalized_and_dropped():
    """Linked whole, libdevice's hundreds of functions would be PTX too (about a MB)."""
    ptx = codegen.ptx_from_llvm_ir(kernels_ir(EXP_KERNEL), "sm_90")
    assert len(ptx.encode()) < 20_000
    assert ".func" not in ptx  # __nv_expf inlined


@needs_libdevice
def test_ptx_is_logged(monkeypatch):
    seen = []
    monkeypatch.setattr(codegen.logs, "log", lambda channel, message, *args: seen.append((channel, message % args)))
    ptx = codegen.ptx_from_llvm_ir(kernels_ir(EXP_KERNEL), "sm_80")
    assert ("output_code", f"PTX for sm_80\n{ptx}") in seen
    perf = [text for channel, text in seen if channel == "perf"]
    assert len(perf) == 1 and perf[0].startswith("PTX for sm_80 (exp_kernel): LLVM link + O3 + codegen ")


def test_a_kernel_without_math_needs_no_libdevice(no_toolkit):
    ptx = codegen.ptx_from_llvm_ir(kernels_ir(COPY_KERNEL), "sm_80")
    assert ".visible .entry copy_kernel(" in ptx


def test_unknown_arch_is_refused_before_llvm_sees_it():
    with pytest.raises(BackendError, match="unknown GPU architecture 'sm_81'"):
        codegen.ptx_from_llvm_ir(kernels_ir(COPY_KERNEL), "sm_81")


def test_default_arch(monkeypatch):
    monkeypatch.delenv(codegen.ARCH_ENV, raising=False)
    assert codegen.default_arch() == "sm_80"
    monkeypatch.setenv(codegen.ARCH_ENV, "sm_90")
    assert codegen.default_arch() == "sm_90"


def test_invalid_llvm_ir_is_a_backend_error():
    with pytest.raises(BackendError, match="invalid LLVM IR for the GPU"):
        codegen.ptx_from_llvm_ir("define ptx_kernel void @k( {", "sm_80")


# ----------------------------------------------------------------------------- the toolkit


def test_missing_libdevice_says_how_to_install_it(no_toolkit):
    with pytest.raises(BackendError, match=r"libdevice\.10\.bc\) not found .*pip install 'ember\[cuda\]'"):
        toolkit.libdevice_path()
    with pytest.raises(BackendError, match=r"pip install 'ember\[cuda\]'"):
        codegen.ptx_from_llvm_ir(kernels_ir(EXP_KERNEL), "sm_80")
    assert toolkit.ptxas_path() is None
    with pytest.raises(BackendError, match="ptxas not found"):
        toolkit.ptxas_check("", "sm_80")


def _fake_toolkit(root) -> None:
    (root / "bin").mkdir(parents=True)
    (root / "nvvm" / "libdevice").mkdir(parents=True)
    (root / "nvvm" / "libdevice" / "libdevice.10.bc").write_bytes(b"BC")
    ptxas = root / "bin" / "ptxas"
    ptxas.write_text("#!/bin/sh\nexit 0\n")
    ptxas.chmod(ptxas.stat().st_mode | stat.S_IXUSR)


def test_search_order(monkeypatch, tmp_path):
    wheel, home, path = tmp_path / "wheel", tmp_path / "home", tmp_path / "cuda-path"
    for root in (wheel, home, path):
        _fake_toolkit(root)
    monkeypatch.setattr(toolkit, "_wheel_root", lambda: wheel)
    monkeypatch.setattr(toolkit, "_path_ptxas", lambda: None)
    monkeypatch.setattr(toolkit, "DEFAULT_ROOT", tmp_path / "usr-local-cuda")
    monkeypatch.setenv("CUDA_HOME", str(home))
    monkeypatch.setenv("CUDA_PATH", str(path))
    assert toolkit.libdevice_path() == wheel / "nvvm" / "libdevice" / "libdevice.10.bc"
    assert toolkit.ptxas_path() == wheel / "bin" / "ptxas"
    monkeypatch.setattr(toolkit, "_wheel_root", lambda: None)
    assert toolkit.ptxas_path() == home / "bin" / "ptxas"
    monkeypatch.delenv("CUDA_HOME")
    assert toolkit.libdevice_path() == path / "nvvm" / "libdevice" / "libdevice.10.bc"


@needs_ptxas
def test_ptxas_check_reports_ptxas_messages():
    with pytest.raises(BackendError, match=r"ptxas -arch=sm_80 rejected the PTX .*<ptx>"):
        toolkit.ptxas_check(".version 7.0\n.target sm_80\n.address_size 64\nnot ptx\n", "sm_80")


# ----------------------------------------------------------------------------- ember-opt --emit=ptx


def run(capsys, *argv):
    code = ember_opt.main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


@needs_libdevice
@pytest.mark.parametrize("arch", ARCHES)
def test_ember_opt_emit_ptx(capsys, tmp_path, arch):
    source = tmp_path / "kernels.mlir"
    source.write_text(gpu_source(EXP_KERNEL, SUM_KERNEL))
    verify = ["--check-ptx"] if toolkit.ptxas_path() is not None else []
    code, out, err = run(capsys, str(source), "--emit=ptx", f"--gpu-arch={arch}", *verify)
    assert code == 0, err
    assert f".target {arch}" in out and ".visible .entry sum_kernel(" in out


@needs_libdevice
def test_ember_opt_emit_ptx_of_lowered_input_and_default_arch(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv(codegen.ARCH_ENV, "sm_90")
    source = tmp_path / "kernels.mlir"
    source.write_text(str(lowered(gpu_source(EXP_KERNEL))))
    out_file = tmp_path / "kernels.ptx"
    code, out, err = run(capsys, str(source), "--emit=ptx", "-o", str(out_file))
    assert code == 0 and out == "", err
    assert ".target sm_90" in out_file.read_text()


@needs_libdevice
@pytest.mark.skipif(not registry.is_pipeline("lower-to-nvvm"), reason="no lower-to-nvvm pipeline")
def test_ember_opt_emit_ptx_lowers_ember_input_first(capsys, tmp_path):
    source = tmp_path / "f.mlir"
    source.write_text(
        "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
        '  %0 = "ember.exp"(%a) : (tensor<4xf32>) -> tensor<4xf32>\n'
        "  return %0 : tensor<4xf32>\n}\n"
    )
    code, out, err = run(capsys, str(source), "--emit=ptx", "--gpu-arch=sm_90")
    assert code == 0, err
    assert ".target sm_90" in out and ".visible .entry" in out and "__nv_" not in out


def test_ember_opt_emit_ptx_errors_are_one_line(capsys, tmp_path, no_toolkit):
    source = tmp_path / "kernels.mlir"
    source.write_text(gpu_source(EXP_KERNEL))
    code, out, err = run(capsys, str(source), "--emit=ptx")
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "error: CUDA libdevice (libdevice.10.bc) not found" in err
    code, _, err = run(capsys, str(source), "--emit=ptx", "--gpu-arch=sm_90", "--check-ptx")
    assert code == 1 and "error: CUDA libdevice" in err
    code, _, err = run(capsys, str(source), "--emit=ptx", "--gpu-arch=compute_90")
    assert code == 1 and err.startswith("ember-opt: error: unknown GPU architecture 'compute_90'")
    code, _, err = run(capsys, str(source), "--check-ptx")
    assert (code, err) == (1, "ember-opt: error: --check-ptx only applies to --emit=ptx\n")


def test_ember_opt_emit_ptx_through_the_console_script_path(tmp_path):
    """The same as a subprocess, as lit and users run it (no libdevice needed: no math)."""
    import subprocess
    import sys

    source = tmp_path / "kernels.mlir"
    source.write_text(gpu_source(COPY_KERNEL))
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    result = subprocess.run(
        [sys.executable, "-m", "tools.ember_opt", str(source), "--emit=ptx", "--gpu-arch=sm_90"],
        capture_output=True,
        text=True,
        cwd=repo,
    )
    assert result.returncode == 0, result.stderr
    assert ".visible .entry copy_kernel(" in result.stdout
