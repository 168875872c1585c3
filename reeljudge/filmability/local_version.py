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
#: the offline judge's version, bumped whenever SOURCES change its verdicts (each version's change: docs/decisions.md)
LOCAL_JUDGE_VERSION = 12
SOURCES_SHA256 = "4e8d97f929444fe0"
