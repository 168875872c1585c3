"""Moved: the promptfoo adapter that was here is ``reeljudge.assertions.video_probes`` (issue 29: the adapters live
on the top floor, and no judge package imports one). Importing the old name says where it went.
"""

raise ImportError("reeljudge.probes.assertion has moved to reeljudge.assertions.video_probes: in your promptfoo entry file write "
                  "`from reeljudge.assertions.video_probes import get_assert` (what `reeljudge init` writes now)")
