"""The PoLiS scorer: schemas, checks, normalisers and metrics of the six subtasks.

Pure Python plus jsonschema; never imports Django. See scoring/README.md.
"""
