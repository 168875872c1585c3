"""The top floor: the promptfoo adapters, one module per judge, each with promptfoo's ``get_assert``.

- ``filmability``: the search terms a provider wrote, judged for a narration;
- ``gecko``: a clip or image against the prompt it was made from;
- ``video_probes``: a clip probed offline for visible faults;
- ``ab_judge``: the provider's clip against a reference clip, by the A/B protocol.

An adapter reads the test (``reeljudge.promptfoo.context``), calls its judge, and assembles the
promptfoo result (``reeljudge.promptfoo.results``) from the verdict: its pass and score, the reason
the verdict writes, named scores, breakdown and metadata. Nothing else in the package imports these
modules: ``index.js``, the warm worker, ``reeljudge init``'s entry files and ``assertions/*.py``
name them (``reeljudge.assertions.<judge>``).
"""
