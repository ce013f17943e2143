"""``ember-cache``: show or clear Ember's artifact cache (also ``python -m tools.ember_cache``).

    ember-cache info            directory, entries, size and limit (EMBER_CACHE_MAX)
    ember-cache clear           remove every entry
    ember-cache clear --stale   remove only the entries of other Ember builds

It reads the same environment as Ember (EMBER_CACHE_DIR, EMBER_CACHE_MAX) and
imports only the runtime, so it starts fast and needs no MLIR.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings

from runtime import cache


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ember-cache", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    info = commands.add_parser("info", help="show the cache's directory, entries, size and limit")
    info.add_argument("--json", action="store_true", help="print the information as JSON")
    clear = commands.add_parser("clear", help="remove the cached entries")
    clear.add_argument("--stale", action="store_true", help="only the entries of other Ember builds")
    args = parser.parse_args(argv)
    configured = os.environ.get("EMBER_CACHE_MAX", "").strip()
    if configured:
        try:
            cache.parse_size(configured)
        except ValueError as e:
            print(
                f"ember-cache: warning: EMBER_CACHE_MAX: {e}; the default "
                f"{cache.format_size(cache.DEFAULT_MAX_BYTES)} applies",
                file=sys.stderr,
            )
            warnings.simplefilter("ignore", RuntimeWarning)

    if args.command == "info":
        state = cache.cache_info()
        if args.json:
            print(
                json.dumps(
                    {
                        "directory": None if state.directory is None else str(state.directory),
                        "entries": state.entries,
                        "total_bytes": state.total_bytes,
                        "limit": state.limit,
                        "stale_entries": state.stale_entries,
                    }
                )
            )
        else:
            print("\n".join(line for line in str(state).splitlines() if not line.startswith("this process")))
        return 0
    if cache.cache_dir() is None:
        print("ember-cache: the disk cache is off (EMBER_CACHE_DIR=off); nothing to clear")
        return 0
    removed = cache.clear_cache(stale_only=args.stale)
    what = "entries of other Ember builds" if args.stale else "entries"
    print(f"ember-cache: removed {removed} {what} from {cache.cache_dir()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
