"""promptfoo assertion: footage filmability of B-roll search terms (see reeljudge.filmability)."""

from reeljudge.filmability.assertion import get_assert  # noqa: F401
