"""The named pipelines of SPEC §3, and the import of every module that registers a pass."""

from __future__ import annotations

from compiler.passes import ember_to_linalg  # noqa: F401  (registers ember-to-linalg)
from compiler.passes.registry import register_pipeline
