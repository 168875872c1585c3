"""Moved: the promptfoo adapter that was here is ``reeljudge.assertions.gecko`` (issue 29: the adapters live
on the top floor, and no judge package imports one). Importing the old name says where it went.
"""

raise ImportError("reeljudge.gecko.assertion has moved to reeljudge.assertions.gecko: in your promptfoo entry file write "
                  "`from reeljudge.assertions.gecko import get_assert` (what `reeljudge init` writes now)")
