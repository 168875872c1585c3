"""Moved: the promptfoo adapter that was here is ``reeljudge.assertions.ab_judge`` (issue 29: the adapters live
on the top floor, and no judge package imports one). Importing the old name says where it went.
"""

raise ImportError("reeljudge.ab_judge.assertion has moved to reeljudge.assertions.ab_judge: in your promptfoo entry file write "
                  "`from reeljudge.assertions.ab_judge import get_assert` (what `reeljudge init` writes now)")
