"""Where the CUDA toolkit's pieces are: libdevice (the math library, LLVM bitcode) and ptxas.

Each is looked for, in order, in:

1. the ``nvidia-cuda-nvcc-cu12`` wheel (``pip install 'ember[cuda]'``): the namespace
   package ``nvidia.cuda_nvcc``, with ``nvvm/libdevice/libdevice.10.bc`` and ``bin/ptxas``;
2. ``$CUDA_HOME``, then ``$CUDA_PATH`` (a toolkit's root);
3. ``/usr/local/cuda``;
4. the directory of ``ptxas`` on ``PATH`` (``<root>/bin/ptxas``).

Only libdevice is needed to produce PTX; ptxas only checks (assembles) it: the CUDA
driver compiles PTX itself when a kernel is loaded.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from compiler.errors import BackendError

LIBDEVICE = Path("nvvm", "libdevice", "libdevice.10.bc")
PTXAS = Path("bin", "ptxas")
DEFAULT_ROOT = Path("/usr/local/cuda")
INSTALL_HINT = "pip install 'ember[cuda]' (the nvidia-cuda-nvcc-cu12 wheel), or set CUDA_HOME to a CUDA toolkit"


def _wheel_root() -> Path | None:
    """The directory of the ``nvidia.cuda_nvcc`` namespace package, if installed."""
    try:
        spec = importlib.util.find_spec("nvidia.cuda_nvcc")
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    return Path(locations[0]) if locations else None


def _path_ptxas() -> Path | None:
    found = shutil.which("ptxas")
    return Path(found) if found else None


def toolkit_roots() -> list[Path]:
    """The toolkit roots searched, in order (existing or not)."""
    roots = []
    wheel = _wheel_root()
    if wheel is not None:
        roots.append(wheel)
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            roots.append(Path(os.environ[var]))
    roots.append(DEFAULT_ROOT)
    ptxas = _path_ptxas()
    if ptxas is not None:
        roots.append(ptxas.resolve().parent.parent)  # <root>/bin/ptxas, through symlinks
    return roots


def libdevice_path() -> Path:
    """libdevice's bitcode; BackendError saying how to install it when none is found."""
    roots = toolkit_roots()
    for root in roots:
        if (root / LIBDEVICE).is_file():
            return root / LIBDEVICE
    searched = ", ".join(str(r) for r in dict.fromkeys(roots))
    raise BackendError(
        f"CUDA libdevice ({LIBDEVICE.name}) not found (searched {searched}); to install it: {INSTALL_HINT}"
    )


def ptxas_path() -> Path | None:
    """ptxas, or None when no toolkit has one and none is on PATH."""
    for root in toolkit_roots():
        if (root / PTXAS).is_file() and os.access(root / PTXAS, os.X_OK):
            return root / PTXAS
    return _path_ptxas()


def ptxas_check(ptx: str, arch: str) -> None:
    """Assemble ``ptx`` for ``arch`` (``sm_90``) with ptxas, to check it; BackendError
    with ptxas's messages when it fails, or when there is no ptxas."""
    ptxas = ptxas_path()
    if ptxas is None:
        raise BackendError(f"ptxas not found; to install it: {INSTALL_HINT}")
    with tempfile.TemporaryDirectory(prefix="ember-ptxas-") as tmp:
        source, cubin = Path(tmp, "kernels.ptx"), Path(tmp, "kernels.cubin")
        source.write_text(ptx, encoding="utf-8")
        try:
            result = subprocess.run(
                [str(ptxas), f"-arch={arch}", str(source), "-o", str(cubin)], capture_output=True, text=True
            )
        except OSError as e:
            raise BackendError(f"cannot run {ptxas}: {e.strerror}") from None
    if result.returncode != 0:
        messages = (result.stderr or result.stdout).strip().replace(str(source), "<ptx>")
        raise BackendError(f"ptxas -arch={arch} rejected the PTX (exit {result.returncode}): {messages}")
