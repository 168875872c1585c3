"""promptfoo assertion: Gecko prompt adherence of a generated clip or image (see reeljudge.gecko)."""

from reeljudge.gecko.assertion import get_assert  # noqa: F401
