#!/usr/bin/env bash
# Pack what a GPU machine without a package registry lacks for benchmarks/gpu_check.sh:
# the MLIR bindings (the torch-mlir wheel pinned in pyproject.toml, for the machine's
# Python), as WHEEL_DIR/torch_mlir.tar.xz. The wheel is 80 MB; its shared library
# stripped of symbols and its opt tool dropped, the archive is about 40 MB, which fits
# machines that take at most 64 MB of files.
#
#   bash benchmarks/gpu_wheels.sh [WHEEL_DIR] [PYTHON_VERSION]    # default: .gpu_carry 3.12
set -eu
cd "$(dirname "$0")/.."
OUT=${1:-.gpu_carry}
PYVER=${2:-3.12}
PIN=$(grep -o '"torch-mlir==[^"]*"' pyproject.toml | tr -d '"')
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 -m pip download -q --no-deps --only-binary=:all: --python-version "$PYVER" --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 -d "$WORK" "$PIN"
(cd "$WORK" && python3 -m zipfile -e torch_mlir-*.whl unpacked)
rm -f "$WORK"/unpacked/torch_mlir/_mlir_libs/torch-mlir-opt
strip --strip-unneeded "$WORK"/unpacked/torch_mlir/_mlir_libs/libTorchMLIRAggregateCAPI.so
mkdir -p "$OUT"
(cd "$WORK/unpacked" && tar -cf - torch_mlir torch_mlir-*.dist-info) | xz -T0 -6 > "$OUT/torch_mlir.tar.xz"
ls -la "$OUT/torch_mlir.tar.xz"
