"""The offline filmability judge's version, part of its cache key (so a changed judge never replays old
verdicts) without reading its source files on every call.

``tests/filmability/test_local_judge_version.py`` hashes ``SOURCES`` and fails, with the new hash to record,
whenever they change: then bump ``LOCAL_JUDGE_VERSION`` and set ``SOURCES_SHA256``.
"""

#: files (paths from reeljudge/filmability/) whose content decides the offline judge's verdicts
SOURCES: tuple[str, ...] = (
    "judge_local.py", "lexicon.py", "concreteness_overrides.py", "embeddings.py",
    "term_reading.py", "heads.py", "senses.py", "relevance.py", "background.py", "../data/background_narrations.txt",
)
LOCAL_JUDGE_VERSION = 11  # 3: terms read by head, phrase and sense (issue 11); 4: relevance against rival topics (issue 20); 5: a phrase both 1–5 norm sets rate keeps the lower rating (issue 20); 6: relevance read in two views, concreteness threshold 3.6 (issue 20); 7: the economic sense of a head beside an economic modifier (issue 20); 8: an agent before its action and object decides, concreteness threshold 3.65 (issue 20); 9: a direct reading needs the whole sentence to stand out from the topics (issue 20); 10: a list holding a term read as unrelated is at most generally related (issue 27); 11: a list is related only when its narration ranks high among background narrations about other things (list level: the joined list and its terms' mean), not-English input is not judged, phrasal verbs and meeting/gauge phrases read (issue 35)
SOURCES_SHA256 = "87919b0a123effab"
