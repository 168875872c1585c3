"""Curated word lists that steer the offline filmability judge where the published norms cannot.

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
#: the filmable threshold ("cache" 3.8, "database" 4.0, "software" 4.08, "repository" 3.66, "data"
#: 3.93). Words the norms already rate below the threshold (closure 1.78, function 1.92, compiler
#: 2.46) are not listed: their published rating is used. Everyday words whose other sense is
#: filmable (thread, python, container) are not listed here: they are read by the narration's
#: domain (:data:`SOFTWARE_SENSES`).
ABSTRACT_TECH: dict[str, float] = {
    name: 1.5
    for name in (
        "api", "apis", "recursion", "caching", "cache", "database", "repository", "software", "throughput",
        "microservice", "middleware", "kubernetes", "docker", "redis", "postgres", "postgresql",
        "mysql", "sql", "nosql", "json", "http", "https", "tls", "ssl", "dns", "git", "javascript", "backend",
        "frontend", "serverless", "async", "mutex", "schema", "refactoring", "data structure", "hashing",
        "data", "load balancer",
        # "code" alone is filmable (program text on a screen); a code's meaning is not
        "status code", "error code", "exit code",
    )
}

#: Filmable hardware, people at work, visible actions and shot styles that the norms miss ("cpu",
#: "typing", "motion blur"), rate by another sense ("ram" 4.55 is the animal; "code" 3.0 is a
#: cipher or a rule book, while B-roll "code" is lines of program text on a screen) or put close
#: to the threshold ("developer" 3.54, "coding" 3.03, "user" 3.16: people at a screen, which stock
#: libraries have plenty of). "data center" is a place (the rubric's own example of a setting).
FILMABLE: dict[str, float] = {
    name: 4.5
    for name in (
        "ram", "cpu", "gpu", "ssd", "hdd", "server rack", "ethernet cable", "network switch", "typing",
        "coding", "developer", "programmer", "user", "customer", "designer", "team", "office worker",
        "code", "source code", "data center", "motion blur",
        # people around a table ("meeting" 3.31 alone is the event); an instrument whose phrase the
        # norms rate 3.30 while "pressure gauge" is 4.70 (raters split on the whole phrase)
        "business meeting", "team meeting", "staff meeting", "tire pressure gauge", "tyre pressure gauge",
    )
}

#: Words with an everyday sense a camera can film and a software sense it cannot ("leak", "bug",
#: "lake", "cloud", "pipeline", "thread", "container", "branch", "cookie", "token"…). In a software
#: narration, or beside a software modifier ("memory leak", "data lake"), they are read as the
#: software concept unless the term itself names the visible thing with a concrete, non-software
#: word ("leaking pipe" has no listed word; "storm clouds", "oil pipeline", "stack of plates").
#: Hardware a camera can film (server, mouse, screen, keyboard, cable) is deliberately not listed.
SOFTWARE_SENSES: frozenset[str] = frozenset(
    (
        "leak", "bug", "lake", "cloud", "pipeline", "stream", "thread", "container", "branch", "tree",
        "stack", "heap", "queue", "pool", "bucket", "cluster", "node", "port", "socket", "shell", "table",
        "record", "key", "token", "cookie", "worm", "virus", "firewall", "mirror", "fork", "log", "library",
        "package", "module", "kernel", "spider", "crawler", "patch", "snapshot", "sandbox", "gateway",
        "hole", "trunk", "handshake", "certificate", "python", "java", "ruby", "rust", "file", "traffic",
        "broker", "worker", "batch", "wallet", "chain", "block", "string", "frame", "field", "column",
        "hook", "flag", "lock", "loop", "crash", "load", "race", "engine", "platform", "terminal", "tunnel",
        "pod", "warehouse", "client", "model", "garbage", "trojan",
        # phrases whose everyday words would otherwise read as the visible thing
        "garbage collection", "garbage collector", "stack overflow", "race condition",
    )
)

#: Modifiers that put a term in the software domain wherever it appears ("computer virus",
#: "network traffic", "data lake", "web crawler", "build pipeline"): a listed word next to a
#: :data:`SOFTWARE_SENSES` head makes it the software concept; it never counts as the concrete word
#: that names a visible thing. Words already in :data:`ABSTRACT_TECH` count too.
TECH_CONTEXT: frozenset[str] = frozenset(
    (
        "computer", "software", "memory", "network", "web", "internet", "online", "digital", "cyber", "app",
        "application", "program", "code", "source", "server", "browser", "system", "file", "user", "build",
        "binary", "search", "message", "access", "login", "security", "encryption", "job", "call", "feature",
        "request", "thread", "process", "linux", "windows", "unix", "production", "deployment", "test",
    )
)

#: Words that mark a narration as a software explainer on their own (jargon with no everyday
#: reading in a B-roll narration), plus every :data:`ABSTRACT_TECH` entry.
SOFTWARE_NARRATION_STRONG: frozenset[str] = frozenset(ABSTRACT_TECH) | frozenset(
    (
        "algorithm", "compiler", "compilation", "recursive", "encryption", "encrypt", "endpoint", "runtime",
        "polymorphism", "concurrency", "callback", "deployment", "authentication", "latency", "bandwidth",
        "orchestration", "closure", "debugging", "debug", "codebase", "website", "app", "browser",
        "programming", "programmer", "developer", "firewall", "deadlock", "backup", "unit test",
        "garbage collector", "garbage collection", "load balancer", "balancer", "refactor", "localhost",
        "html", "css", "xml", "linux", "github", "devops", "sysadmin", "cpu", "gpu", "ram",
    )
)

#: Words that hint at a software narration but also have everyday uses ("branch", "thread",
#: "server", "memory"): two of them (or one strong word) make the narration a software explainer.
SOFTWARE_NARRATION_WEAK: frozenset[str] = frozenset(
    (
        "function", "variable", "commit", "framework", "dependency", "protocol", "abstraction", "query",
        "index", "optimization", "authorization", "server", "container", "cluster", "branch", "program",
        "code", "processor", "network", "thread", "python", "memory", "data", "feature", "merge", "bug",
        "patch", "cloud", "stream", "streaming", "pipeline", "token", "cookie", "request", "crash", "storage",
        "file", "user", "login", "log", "build", "test", "deploy", "script", "computer", "laptop", "machine",
        "virus", "worm", "queue", "stack", "tree", "table", "key", "job", "worker", "binary", "search", "web",
        "crawler", "page", "loop", "handshake", "certificate", "security", "internet", "online", "digital",
        "software", "hardware", "cache", "traffic", "packet", "router", "password", "hacker", "install",
    )
)

#: Modifiers that name an economic quantity or sector ("housing market", "property ladder", "wage
#: freeze", "price floor"). Beside one of them, a head the norms rate concrete alone but abstract in
#: their own rated economic compounds ("market" 4.70 alone; "labor market" 2.85, "bond market" 2.80)
#: is read in its economic sense (:func:`reeljudge.filmability.senses.economic_compounds` finds
#: those heads in the norms; nothing here lists them). A listed word never counts as the concrete
#: word that names a visible thing.
ECONOMIC_CONTEXT: frozenset[str] = frozenset(
    (
        "housing", "property", "real estate", "job", "labour", "labor", "stock", "share", "credit", "debt", "bond",
        "capital", "commodity", "currency", "equity", "consumer", "financial", "finance", "economic", "money",
        "export", "import", "rental", "mortgage", "insurance", "price", "wage", "pay", "tax", "rent", "salary",
        "interest", "trade", "supply", "value", "hiring", "income", "budget", "investment", "pension", "market",
    )
)
