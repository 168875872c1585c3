"""Moved: the promptfoo adapter that was here is ``reeljudge.assertions.filmability`` (issue 29: the adapters live
on the top floor, and no judge package imports one). Importing the old name says where it went.
"""

from reeljudge.moved import refuse_moved

refuse_moved(__name__)
