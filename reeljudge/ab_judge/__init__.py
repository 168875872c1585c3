"""The A/B judge: Gemini applies the human A/B protocol to a pair of clips, in both orders.

- ``options``: what the judge reads (``judge``, ``orders``, ``pass_on``, vars, media settings);
- ``rubric``: the instruction text and reply schema in ``rubrics/``, generated from the protocol file;
- ``request``: one judge request per order (prompt as data, clips labelled A and B) and its reader,
  which refuses a reply that breaks the protocol's rules (``check_form``);
- ``verdict``: the verdicts of both orders mapped back to systems (a flip is a tie flagged inconsistent),
  each writing its own reason;
- ``pair``: the judging of one pair through the shared judge client, cache and media layer;
- ``probes_judge``: the offline judge (``judge: probes``): temporal and technical dimensions from the
  video probes, adherence abstained;
- ``api``: ``reeljudge.judge_pair``; ``batch``: ``reeljudge ab judge``. The promptfoo adapter is
  ``reeljudge.assertions.ab_judge`` (``assertion`` here only says so to an old entry file).

Importing this package is cheap: every module loads its heavy parts when used.
"""
