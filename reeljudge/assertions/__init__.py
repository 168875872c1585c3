"""The top floor: the promptfoo adapters, one module per judge, each with promptfoo's ``get_assert``.

- ``filmability``: the search terms a provider wrote, judged for a narration;
- ``gecko``: a clip or image against the prompt it was made from;
- ``video_probes``: a clip probed offline for visible faults;
- ``ab_judge``: the provider's clip against a reference clip, by the A/B protocol.

One adapter per row of the judge table (``reeljudge.judging``). An adapter only reads the test
(``reeljudge.promptfoo.context``, the media through ``reeljudge.promptfoo.clips``), calls its judge's
core, which returns a finished verdict (``reeljudge.verdict.Verdict``), and hands it to the one
builder of promptfoo's result (``reeljudge.promptfoo.results.verdict_result``). Nothing else in the
package imports these modules: ``index.js``, the warm worker, ``reeljudge init``'s entry files and
``assertions/*.py`` name them (``reeljudge.assertions.<judge>``).
"""
