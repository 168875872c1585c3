"""Moved: the promptfoo adapter that was here is ``reeljudge.assertions.filmability`` (issue 29: the adapters live
on the top floor, and no judge package imports one). Importing the old name says where it went.
"""

raise ImportError("reeljudge.filmability.assertion has moved to reeljudge.assertions.filmability: in your promptfoo entry file write "
                  "`from reeljudge.assertions.filmability import get_assert` (what `reeljudge init` writes now)")
