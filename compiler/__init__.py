"""Ember: compile Python functions over NumPy arrays to native code through MLIR."""

__version__ = "0.1.0"
