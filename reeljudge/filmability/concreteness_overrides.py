"""Curated concreteness ratings (1–5) that take precedence over the published norms.

Data only. Why it exists: Brysbaert et al. (2014) rate words out of context, so tech jargon is
either missing (API, Redis, Kubernetes) or rated by its everyday sense ("cache" 3.8 as a hidden
store, "database" 4.0, "container" 4.85 as a box, "cloud" 4.54 as weather). In B-roll search terms
for tech narration these name software concepts that no camera can film, which is what the rubric
calls unfilmable ("programming concepts: closure, recursion, API"). The other list names filmable
hardware, people at work and visible actions that the norms miss or under-rate ("typing" is not
rated; its lemma "type" gets 3.3 from the abstract noun sense "a kind of").

Values are on the norms' 1–5 scale: 1.5 = clearly abstract, 4.5 = clearly filmable. Keys are
lower-case lemmas or multiword phrases; lookups lemmatise first, so list singular forms.
Keep each list short and only for terms that the norms get wrong in this domain.
"""

from __future__ import annotations

#: Software and programming concepts: unfilmable even where the norms rate an everyday sense.
ABSTRACT_TECH: dict[str, float] = {
    name: 1.5
    for name in (
        "api", "apis", "closure", "recursion", "recursive", "caching", "cache", "database", "algorithm",
        "function", "variable", "encryption", "compiler", "compilation", "commit", "repository",
        "endpoint", "latency", "throughput", "bandwidth", "microservice",
        "middleware", "framework", "library", "dependency", "runtime", "protocol", "kubernetes",
        "docker", "redis", "postgres", "postgresql", "mysql", "sql", "nosql", "json", "http", "https",
        "tls", "ssl", "dns", "git", "javascript", "python", "backend", "frontend", "cloud computing",
        "serverless", "orchestration", "deployment", "abstraction", "inheritance", "polymorphism",
        "concurrency", "thread", "mutex", "async", "callback", "query", "index", "schema",
        "optimization", "optimisation", "refactoring", "architecture", "software", "data structure",
        "hash", "hashing", "token", "authentication", "authorization", "certificate", "handshake",
    )
}

#: Filmable hardware, places, people at work and visible actions the norms miss or under-rate.
FILMABLE: dict[str, float] = {
    name: 4.5
    for name in (
        "ram", "cpu", "gpu", "ssd", "hdd", "motherboard", "server rack",
        "ethernet cable", "fiber optic cable", "router", "network switch", "circuit board",
        "typing", "coding", "developer", "programmer", "engineer", "user", "customer", "designer",
        "team", "office worker", "whiteboard", "sticky note", "computer monitor",
    )
}
