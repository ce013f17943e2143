"""Import every module of the given packages first, each in a fresh interpreter.

An import cycle stays hidden as long as every process happens to import the cycle's
modules in a lucky order: ``import compiler`` first loads everything, and only a
user whose first import is ``runtime.kernel`` sees "partially initialized module".
A fresh interpreter per module makes each one the first import once, so a cycle
fails here instead of in a user's program. CI runs it on ``compiler``, ``runtime``
and ``tools``:

    python -m tools.check_imports compiler runtime tools
"""

from __future__ import annotations

import argparse
import os
import pkgutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


def modules_of(package: str, root: Path) -> list[str]:
    """The dotted names of ``package`` and every module below it, found on disk (not
    by importing them: importing is what is being tested)."""
    directory = root / package.replace(".", os.sep)
    names = [package]
    for info in pkgutil.iter_modules([str(directory)], prefix=f"{package}."):
        names += modules_of(info.name, root) if info.ispkg else [info.name]
    return sorted(names)


def import_error(module: str, root: Path) -> str | None:
    """The error output of importing ``module`` alone in a new interpreter, or None."""
    result = subprocess.run(
        [sys.executable, "-c", f"import {module}"],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    if result.returncode == 0:
        return None
    return result.stderr.strip().splitlines()[-1] if result.stderr.strip() else f"exit status {result.returncode}"


def check(packages: list[str], root: Path, jobs: int = os.cpu_count() or 1) -> dict[str, str]:
    """Module name -> error line, for every module that fails as a first import."""
    modules = [m for p in packages for m in modules_of(p, root)]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        errors = dict(zip(modules, pool.map(lambda m: import_error(m, root), modules)))
    return {m: e for m, e in errors.items() if e is not None}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="check_imports", description=__doc__.splitlines()[0])
    parser.add_argument("packages", nargs="+", help="top-level packages to check")
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="directory holding the packages")
    args = parser.parse_args(argv)
    failures = check(args.packages, args.root.resolve())
    for module, error in sorted(failures.items()):
        print(f"{module}: {error}")
    count = sum(len(modules_of(p, args.root.resolve())) for p in args.packages)
    print(f"{count - len(failures)} of {count} modules import first in a fresh interpreter")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
