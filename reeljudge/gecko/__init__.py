"""Gecko (Wiles et al., 2024): does a generated clip or image show what its prompt asked for?

Question generation (keyword annotation + one multiple-choice question per keyword), the validity
filter, one VQA request per (media, question set), and scores per question, per tag and overall.
The verdict and its reasons are ``verdict``; the promptfoo adapter is ``reeljudge.assertions.gecko``;
from Python: ``reeljudge.score_gecko``.
"""

from reeljudge.gecko.dependencies import score_with_dependencies

__all__ = ["score_with_dependencies"]
