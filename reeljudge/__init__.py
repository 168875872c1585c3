"""reeljudge: promptfoo judges for video pipelines.

Importing this package is cheap on purpose: promptfoo starts a new Python process for every
assertion call, so heavy modules (google-genai, jsonschema, numpy, PyAV, ONNX) are imported only
inside the functions that need them.
"""

__version__ = "0.1.0"
