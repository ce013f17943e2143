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
