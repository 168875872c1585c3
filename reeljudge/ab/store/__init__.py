"""What a study holds: the protocol as data, samples and their clips, judgement records, the server's evidence of
watching, the SQL store, and the ways in (promptfoo results, manifests) and out (JSONL, CSV).

The ground floor of ``reeljudge.ab``: it imports no other room of it.
"""
