"""lit configuration for Ember's FileCheck tests (``lit -v test/lit``).

Tools run from this checkout whether or not it is pip-installed: ``ember-opt`` is
``python -m tools.ember_opt`` with the repository root on PYTHONPATH, and
``FileCheck`` is the PyPI ``filecheck`` package run by the same Python (so no
console script on PATH is needed). ``not`` is lit's built-in.
"""

import os
import sys

import lit.formats

config.name = "Ember"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)

repo_root = os.path.abspath(os.path.join(config.test_source_root, "..", ".."))
python = f'"{sys.executable}"'

pythonpath = [repo_root] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
config.environment["PYTHONPATH"] = os.pathsep.join(pythonpath)
for name in ("HOME", "TMPDIR"):
    if name in os.environ:
        config.environment[name] = os.environ[name]


# Tool names only where they stand as a command word, never inside a path such as
# test/lit/ember-opt/foo.mlir (lit applies substitutions after expanding %s).
def tool(name):
    return rf"(?<![\w/.-]){name}(?![\w/.-])"


config.substitutions.append((tool("ember-opt"), f"{python} -m tools.ember_opt"))
config.substitutions.append((tool("FileCheck"), f"{python} -m filecheck"))
config.substitutions.append(("%python", python))


# The CUDA toolkit's pieces (from the nvidia-cuda-nvcc-cu12 wheel, a CUDA toolkit or
# PATH): the `libdevice` feature (ember-opt --emit=ptx of kernels calling math
# functions needs it), the `ptxas` feature and `%ptxas`, for the tests that assemble
# the PTX ember-opt prints. Any failure to find one (or to import the finder) means
# no feature: the tests that require it are skipped.
def _cuda_toolkit():
    sys.path.insert(0, repo_root)
    try:
        from compiler.backends.nvptx import toolkit
    except Exception:
        return False, None
    finally:
        sys.path.remove(repo_root)
    try:
        toolkit.libdevice_path()
        has_libdevice = True
    except Exception:
        has_libdevice = False
    try:
        return has_libdevice, toolkit.ptxas_path()
    except Exception:
        return has_libdevice, None


has_libdevice, ptxas = _cuda_toolkit()
if has_libdevice:
    config.available_features.add("libdevice")
if ptxas is not None:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", f'"{ptxas}"'))
