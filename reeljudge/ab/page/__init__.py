"""The rating page and the app that serves it: the static files, the Starlette routes (``server``), the admin
pages, a rater's submit and the page's watch log.

The top room of ``reeljudge.ab``: it stands on ``transport``, ``study`` and ``store``; only ``ab.cli`` imports it.
"""
