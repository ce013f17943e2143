#!/usr/bin/env bash
# One prepared check of the CUDA backend on a machine with a GPU, in under 5 minutes:
# install Ember's dependencies from local wheels (such machines may reach no package
# registry), run the GPU tests, then benchmark the streaming workloads and a matmul
# against the device's copy bandwidth, torch.compile and CuPy (benchmarks/gpu_bench.py).
#
#   bash benchmarks/gpu_check.sh [WHEEL_DIR]
#
# WHEEL_DIR (default: .gpu_carry) holds wheels of what the machine lacks (pip-installed
# into a private target folder with --no-index), or torch_mlir.tar.xz, the torch_mlir
# package folder packed whole (benchmarks/gpu_wheels.sh makes it). Whatever Python packages the machine already has
# (numpy, llvmlite, cuda-bindings, torch, cupy) are used as they are.
set -u
cd "$(dirname "$0")/.."
WHEELS=${1:-.gpu_carry}
SITE=${EMBER_GPU_SITE:-/tmp/ember-site}
PY=${PYTHON:-python3}
mkdir -p "$SITE"
if ! $PY -c "import torch_mlir.ir" 2>/dev/null; then
    if [ -f "$WHEELS/torch_mlir.tar.xz" ]; then
        tar -xJf "$WHEELS/torch_mlir.tar.xz" -C "$SITE"
    fi
    if ls "$WHEELS"/*.whl >/dev/null 2>&1; then
        $PY -m pip install -q --no-index --no-deps --no-compile --target "$SITE" "$WHEELS"/*.whl
    fi
fi
export PYTHONPATH="$SITE:$PWD:${PYTHONPATH:-}" PYTHONUNBUFFERED=1 EMBER_CACHE_DIR=off
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
$PY -c "import llvmlite, numpy, cuda.bindings; print('llvmlite', llvmlite.__version__, 'numpy', numpy.__version__, 'cuda-bindings', cuda.bindings.__version__)"
status=0
timeout 240 $PY -m pytest -q -p no:cacheprovider --maxfail=15 test/python/test_cuda_backend.py test/python/test_cuda_runtime.py || status=1
timeout 300 $PY benchmarks/gpu_bench.py ${EMBER_GPU_BENCH_ARGS:-} || status=1
exit $status
