"""Regenerate compiler/passes/upstream_passes.txt: the upstream MLIR passes the bindings register.

The bindings offer no way to enumerate registered passes, so we take every
dash-separated word in the bindings' C API library and keep those a pass manager
accepts as a pass name. Run it after changing the pinned bindings:

    python -m tools.list_upstream_passes
"""

import re
import sys

from compiler.mlir import capi_library_path, ir, passmanager
from compiler.passes.registry import upstream_list

# Short names the byte scan can miss (their strings sit next to other text).
SEEDS = {
    "cse",
    "canonicalize",
    "inline",
    "sccp",
    "symbol-dce",
    "mem2reg",
    "sroa",
    "print-ir",
    "loop-invariant-code-motion",
    "control-flow-sink",
    "strip-debuginfo",
    "topological-sort",
}
WORD = rb"(?<![\x21-\x7e])[a-z][a-z0-9]*(?:-[a-z0-9]+)*(?![\x21-\x7e])"


def _candidates() -> set[str]:
    with open(capi_library_path(), "rb") as f:
        return SEEDS | {m.group().decode() for m in re.finditer(WORD, f.read())}


def _is_pass(name: str) -> bool:
    # a pass restricted to an op is accepted under that op: func.func or gpu.module
    for anchor in ("builtin.module({})", "builtin.module(func.func({}))", "builtin.module(gpu.module({}))"):
        try:
            passmanager.PassManager.parse(anchor.format(name))
            return True
        except ValueError:
            continue
    return False


def main() -> int:
    with ir.Context():
        names = sorted(n for n in _candidates() if _is_pass(n))
    target = upstream_list()  # the file in this source tree
    target.write_text("\n".join(names) + "\n")
    print(f"{len(names)} upstream passes -> {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
