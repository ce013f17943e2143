"""Ember's passes (one module each), the named pipelines, and the pipeline machinery.

Importing the package imports nothing: ``registry`` lists the passes by name and
imports a pass module only when its class is asked for.
"""
