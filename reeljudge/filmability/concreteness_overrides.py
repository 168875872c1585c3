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

#: Software concepts that the norms miss ("API", "Redis") or rate by an everyday sense at or above
#: the filmable threshold ("cache" 3.8, "database" 4.0, "software" 4.08, "repository" 3.66). Words the
#: norms already rate below the threshold (closure 1.78, function 1.92, compiler 2.46) are not listed:
#: their published rating is used. Everyday words whose other sense is filmable and useful as a
#: visual metaphor (library, python, thread, handshake, certificate) are deliberately not listed.
ABSTRACT_TECH: dict[str, float] = {
    name: 1.5
    for name in (
        "api", "apis", "recursion", "caching", "cache", "database", "repository", "software", "throughput",
        "microservice", "middleware", "kubernetes", "docker", "redis", "postgres", "postgresql",
        "mysql", "sql", "nosql", "json", "http", "https", "tls", "ssl", "dns", "git", "javascript", "backend",
        "frontend", "serverless", "async", "mutex", "schema", "refactoring", "data structure", "hashing",
    )
}

#: Filmable hardware, people at work and visible actions that the norms miss ("cpu", "gpu", "typing"),
#: rate by another sense ("ram" 4.55 is the animal) or put close to the threshold ("developer" 3.54,
#: "coding" 3.03, "user" 3.16: people at a screen, which stock libraries have plenty of).
FILMABLE: dict[str, float] = {
    name: 4.5
    for name in (
        "ram", "cpu", "gpu", "ssd", "hdd", "server rack", "ethernet cable", "network switch", "typing",
        "coding", "developer", "programmer", "user", "customer", "designer", "team", "office worker",
    )
}

#: Words that mark a narration as a software explainer (the offline judge then also counts
#: programming visuals as related): every abstract entry above plus software words whose published
#: rating is already abstract. Not a rating table.
SOFTWARE_TERMS: frozenset[str] = frozenset(ABSTRACT_TECH) | frozenset(
    (
        "closure", "recursive", "algorithm", "function", "variable", "encryption", "compiler", "compilation",
        "commit", "endpoint", "latency", "bandwidth", "framework", "dependency", "runtime", "protocol",
        "orchestration", "deployment", "abstraction", "inheritance", "polymorphism", "concurrency", "callback",
        "query", "index", "optimization", "authentication", "authorization", "server", "container", "cluster",
        "branch", "program", "code", "compiler", "processor", "network", "browser", "backup", "unit test",
        "garbage collector", "load balancer", "handshake", "certificate", "thread", "python",
    )
)
