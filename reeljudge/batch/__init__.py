"""Batch mode for every Gemini judge: plan, submit, collect, in rounds.

1. **plan** — run a suite with the judge cache in mode ``plan`` (``REELJUDGE_CACHE=plan``): a judge
   request that misses the cache is recorded in the plan store (``<cache>/batch/planned/``) instead
   of sent, and its assertion fails as "queued for batch" (``plan.py``, the planner ``planner.py`` hands the judge client);
2. **submit** — the planned requests go to the Gemini Batch API, one job per model, inline for
   small sets and as a JSONL file through the Files API for large ones (``submit.py``);
3. **collect** — the job is polled; each result goes through the same checks and reply reader as an
   online reply and into the judge cache under the request's own key (``collect.py``);
4. **rounds** — a multi-stage judge (Gecko: generate → filter → VQA) needs one round per stage;
   ``reeljudge batch run -- <promptfoo eval args>`` repeats plan → submit → collect until nothing is
   left to plan (``rounds.py``). The last eval reads every reply from the cache: zero calls.
"""
