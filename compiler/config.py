"""Global settings (per-function ones go in ``compile(..., options={...})``)."""

recompile_limit = 8  # entries per code object before further misses run in CPython

# Worker threads a parallel kernel call splits into (like torch.set_num_threads). None:
# the EMBER_NUM_THREADS environment variable, else the cores this process may run on.
num_threads: int | None = None
