"""The promptfoo wing: everything that knows promptfoo's shapes, and nothing else does.

- ``context``: what promptfoo hands a judge, read once into a frozen ``TestContext``;
- ``results``: the one builder of promptfoo's result format (GradingResult);
- ``identity``: who judged a result (``metadata.judge_identity``), read by the judges and the gates;
- ``results_file``: the one reader of promptfoo's results files (the gates, ``ab import``, Gecko reports and pairs).
"""
