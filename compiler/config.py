"""Global settings (per-function ones go in ``compile(..., options={...})``)."""

recompile_limit = 8  # entries per code object before further misses run in CPython
