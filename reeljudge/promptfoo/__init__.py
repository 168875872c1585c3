"""The promptfoo wing: everything that knows promptfoo's shapes, and nothing else does.

Two floors. Below the media layer, knowing only promptfoo:

- ``context``: what promptfoo hands a judge, read once into a frozen ``TestContext``;
- ``results``: the one builder of promptfoo's result format (GradingResult), from any verdict;
- ``results_file``: the one reader of promptfoo's results files (the gates, ``ab import``, Gecko reports and pairs).

One floor above the media layer, on its facts (media types, carriers, store schemes):

- ``clips``: which clip or image a test is about, the documented order over promptfoo's response
  shapes, handed to the media resolver to open.
"""
