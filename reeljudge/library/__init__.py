"""Judges over whole libraries: many clips or narrations in parallel processes, to resumable JSONL.

- :func:`reeljudge.library.probe_library.probe_library_file` — the offline probes over a folder or
  manifest of clips (``reeljudge probes``);
- engines: a local process pool (:mod:`reeljudge.library.engines`), or a Dask distributed cluster
  (:mod:`reeljudge.library.dask_engine`);
- output (:mod:`reeljudge.library.jsonl`): append-only JSONL, one fsynced line per item, resumable.

The filmability judge in bulk (``reeljudge filmability bulk``) lives in
:mod:`reeljudge.filmability.bulk` and runs on the same engines and output.
"""
