"""The offline judge's cache key changes whenever its code or data change (a recorded hash guards it)."""

import hashlib
from pathlib import Path

from reeljudge.filmability import local_version


def test_recorded_sources_hash_matches_the_code():
    here = Path(local_version.__file__).resolve().parent
    digest = hashlib.sha256()
    for name in local_version.SOURCES:
        digest.update(name.encode())
        digest.update((here / name).read_bytes())
    actual = digest.hexdigest()[:16]
    assert actual == local_version.SOURCES_SHA256, (
        f"the offline filmability judge changed: bump LOCAL_JUDGE_VERSION and set SOURCES_SHA256 = {actual!r} "
        "in reeljudge/filmability/local_version.py, so cached verdicts of the old judge are not replayed"
    )
