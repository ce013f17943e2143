#!/usr/bin/env bash
# What a user who runs `pip install ember` gets: build the wheel, install it (not
# editable) into a fresh virtual environment, and run the tools and the quick start
# from outside the checkout, so nothing can come from the source tree by accident.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Build from a copy of the files git would commit: a build/ folder left in the checkout
# by an earlier build would otherwise lend the wheel files its own rules leave out.
mkdir "$work/src"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$work/src")
python -m pip wheel -q --no-deps -w "$work/dist" "$work/src"
python -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q "$work"/dist/ember-*.whl
cd "$work"
py="$work/venv/bin/python"

# Every data file the packages ship (pass lists, LLVM IR resources...) is in the wheel.
(cd "$repo" && git ls-files compiler runtime tools | grep -v '\.py$' || true) | while read -r file; do
  "$py" - "$file" <<'EOF'
import importlib.resources, sys
package, _, name = sys.argv[1].rpartition("/")
if not importlib.resources.files(package.replace("/", ".")).joinpath(name).is_file():
    sys.exit(f"missing from the installed wheel: {sys.argv[1]}")
EOF
done

"$py" -c "import compiler, sys; assert '$work/venv' in compiler.__file__, compiler.__file__"
"$work/venv/bin/ember-opt" --list-passes | grep -q "ember-fuse"
"$work/venv/bin/ember-opt" --list-passes | grep -q "canonicalize"
EMBER_CACHE_DIR="$work/cache" "$py" "$repo/examples/quickstart.py"
echo "wheel check: the installed wheel runs ember-opt and the quick start"
