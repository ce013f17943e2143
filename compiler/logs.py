"""``EMBER_LOGS`` / ``compiler.set_logs``: what Ember prints while it works, like TORCH_LOGS.

Channels: graph_code, guards, recompiles, bytecode, graph_breaks, graph_sizes, dynamic, ir,
output_code, perf (``+all`` or ``all`` for every one). Each message goes to the
``compiler.<channel>`` logger, which prints to stderr when the channel is on.
"""

from __future__ import annotations

import logging
import os
import sys

CHANNELS = (
    "graph_code",
    "guards",
    "recompiles",
    "bytecode",
    "graph_breaks",
    "graph_sizes",
    "dynamic",
    "ir",
    "output_code",
    "perf",
)
_enabled: set[str] = set()
_handler = logging.StreamHandler(sys.stderr)
_handler.setFormatter(logging.Formatter("[ember:%(name)s] %(message)s"))


def logger(channel: str) -> logging.Logger:
    return logging.getLogger(f"compiler.{channel}")


def set_logs(spec: str | None = None, **channels: bool) -> None:
    """``set_logs("guards,recompiles")``, ``set_logs("+all")``, ``set_logs(guards=True)``,
    ``set_logs("")`` to turn everything off."""
    wanted = set()
    if spec:
        for part in spec.replace(" ", "").split(","):
            name = part.lstrip("+")
            if name == "all":
                wanted.update(CHANNELS)
            elif name in CHANNELS:
                wanted.add(name)
            elif name:
                raise ValueError(f"unknown log channel {name!r} (known: {', '.join(CHANNELS)}, all)")
    wanted.update(name for name, on in channels.items() if on)
    unknown = set(channels) - set(CHANNELS)
    if unknown:
        raise ValueError(f"unknown log channel(s) {sorted(unknown)} (known: {', '.join(CHANNELS)})")
    _enabled.clear()
    _enabled.update(wanted)
    for name in CHANNELS:
        log = logger(name)
        log.setLevel(logging.INFO if name in wanted else logging.WARNING)
        if name in wanted and _handler not in log.handlers:
            log.addHandler(_handler)
            log.propagate = False


def enabled(channel: str) -> bool:
    return channel in _enabled


def log(channel: str, message: str, *args) -> None:
    if channel in _enabled:
        logger(channel).info(message, *args)


set_logs(os.environ.get("EMBER_LOGS", ""))
