"""Judge calibration against human ratings (``reeljudge calibrate``).

Public: ``read_judge_scores``, ``read_human_ratings`` (inputs), ``calibrate`` / ``Settings``
(metrics), ``render`` / ``report_json`` (report).
"""
