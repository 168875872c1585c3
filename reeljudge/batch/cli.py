"""``reeljudge batch status|submit|wait|collect|cancel|run``: the Batch API for every Gemini judge.

Plan first by running a suite with ``REELJUDGE_CACHE=plan`` (or do everything with ``run``).
Settings (API key, base URL, retries, cache folder) come from the environment as for the judges.
Exit codes: 0 done; 1 something failed or is not finished (said on screen); 2 could not run.
"""

from __future__ import annotations

import argparse
import shlex
from collections import Counter
from typing import Any

from reeljudge.errors import ReelJudgeError


def _client(args: argparse.Namespace) -> Any:
    from reeljudge.cache import cache_folder
    from reeljudge.gemini.client import JudgeClient
    from reeljudge.gemini.settings import load_settings

    settings = load_settings({"cache_dir": cache_folder(args.cache_dir, "--cache-dir")})
    return JudgeClient(settings)


def _options(args: argparse.Namespace) -> Any:
    from reeljudge.batch.submit import SubmitOptions

    return SubmitOptions(source=getattr(args, "source", "auto"), inline_max_requests=getattr(args, "inline_max_requests", 100),
                         progress=not args.no_progress)


def _targets(store: Any, which: str | None) -> list[dict[str, Any]]:
    """The submissions named (id or job name), else every one with a job that is not collected."""
    if which:
        found = store.read_submission(which)
        if found is None:
            raise ReelJudgeError(f"no submission or job {which!r} in {store.jobs_dir}", kind="bad_input")
        return [found]
    return [s for s in store.submissions() if s.get("job") and not s.get("collected")]


def _status(args: argparse.Namespace) -> int:
    from reeljudge.batch.store import BatchStore

    client = _client(args)
    store = BatchStore(client.settings.cache_dir)
    out = store.open_submission_ids()
    kinds: Counter[str] = Counter()
    failed = []
    for record in store.planned():
        where = "out" if record.get("submission") in out else "waiting"
        kinds[f"{record.get('kind')} ({record.get('model')}), {where}"] += 1
        if record.get("failures") and where == "waiting":
            failed.append(record)
    print(f"planned requests in {store.root}: {sum(kinds.values())}")
    for label, count in sorted(kinds.items()):
        print(f"  {label}: {count}")
    print(f"with a failed batch attempt: {len(failed)}")
    if args.failed:
        for record in failed:
            print(f"  {record['kind']} {record['key'][:16]}…: {record['failures'][-1].get('reason')}")
    for s in store.submissions():
        mark = "collected" if s.get("collected") else "open"
        print(f"submission {s['id']}: {s.get('job') or '(no job)'} {s.get('state')} {s.get('count')} request(s) "
              f"{s.get('source')} [{mark}]")
    return 0


def _submit(args: argparse.Namespace) -> int:
    from reeljudge.batch.submit import submit

    done = submit(_client(args), _options(args))
    return 0 if all(s.get("job") or s.get("state") == "empty" for s in done) else 1


def _wait_or_collect(args: argparse.Namespace, *, collect_too: bool) -> int:
    from reeljudge.batch.collect import collect, report, wait
    from reeljudge.batch.store import BatchStore
    from reeljudge.batch.submit import job_state

    client = _client(args)
    store = BatchStore(client.settings.cache_dir)
    targets = _targets(store, args.job)
    if not targets:
        print("no open batch job (submit first, or name a collected one to see it)")
        return 0
    status = 0
    for submission in targets:
        if submission.get("collected"):
            report(collect(client, submission, None))
            continue
        if getattr(args, "no_wait", False):
            job = client.genai().batches.get(name=submission["job"])
        else:
            job = wait(client, submission, interval_s=args.interval, deadline_s=args.timeout, progress=not args.no_progress)
        if not collect_too:
            print(f"{submission['job']}: {job_state(job)}")
            continue
        outcome = collect(client, submission, job, progress=not args.no_progress)
        report(outcome)
        status = max(status, 0 if outcome.finished and not outcome.failed and not outcome.unknown else 1)
    return status


def _cancel(args: argparse.Namespace) -> int:
    from reeljudge.batch.store import BatchStore

    client = _client(args)
    for submission in _targets(BatchStore(client.settings.cache_dir), args.job):
        client.genai().batches.cancel(name=submission["job"])
        print(f"cancel requested for {submission['job']}; `reeljudge batch collect` then puts its requests back in the plan")
    return 0


def _run(args: argparse.Namespace) -> int:
    from reeljudge.batch.rounds import run_rounds

    eval_args = args.eval_args[1:] if args.eval_args[:1] == ["--"] else args.eval_args
    command = [*shlex.split(args.promptfoo), "eval", *eval_args]
    result = run_rounds(_client(args), command, max_rounds=args.max_rounds, interval_s=args.interval,
                        deadline_s=args.timeout, options=_options(args))
    if result.stopped != "nothing left to plan":
        return 1
    return result.exit_code


def add_parser(sub: argparse._SubParsersAction) -> None:
    """``reeljudge batch …``."""
    batch = sub.add_parser("batch", help="send planned judge requests through the Gemini Batch API (50%% price)")
    actions = batch.add_subparsers(dest="action", required=True)

    def command(name: str, func: Any, text: str) -> argparse.ArgumentParser:
        p = actions.add_parser(name, help=text)
        p.add_argument("--cache-dir", help="judge cache folder (default: REELJUDGE_CACHE_DIR or .reeljudge/cache)")
        p.add_argument("--no-progress", action="store_true", help="no progress bars")
        p.set_defaults(func=func)
        return p

    def polling(p: argparse.ArgumentParser) -> None:
        p.add_argument("job", nargs="?", help="a submission id or job name (default: every open job)")
        p.add_argument("--interval", type=float, default=30.0, help="seconds between polls (default 30)")
        p.add_argument("--timeout", type=float, default=86_400.0, help="give up waiting after this many seconds")

    def sending(p: argparse.ArgumentParser) -> None:
        p.add_argument("--source", choices=("auto", "inline", "file"), default="auto",
                       help="inline requests or a JSONL file through the Files API (auto: inline for small sets)")
        p.add_argument("--inline-max-requests", type=int, default=100, help="auto sends inline up to this many requests")

    p = command("status", _status, "planned requests and submissions")
    p.add_argument("--failed", action="store_true", help="list the requests whose last batch attempt failed")
    sending(command("submit", _submit, "send the planned requests (one job per model)"))
    polling(command("wait", lambda a: _wait_or_collect(a, collect_too=False), "wait until the open jobs finish"))
    p = command("collect", lambda a: _wait_or_collect(a, collect_too=True), "wait for the jobs and cache their replies")
    polling(p)
    p.add_argument("--no-wait", action="store_true", help="look once instead of waiting for the job to finish")
    polling(command("cancel", _cancel, "cancel open jobs"))
    p = command("run", _run, "plan → submit → collect rounds until an eval plans nothing: run -- <promptfoo eval args>")
    sending(p)
    p.add_argument("--interval", type=float, default=30.0, help="seconds between polls (default 30)")
    p.add_argument("--timeout", type=float, default=86_400.0, help="give up waiting for one job after this many seconds")
    p.add_argument("--max-rounds", type=int, default=10, help="stop after this many rounds (default 10)")
    p.add_argument("--promptfoo", default="npx promptfoo", help="how to run promptfoo (default: npx promptfoo)")
    p.add_argument("eval_args", nargs=argparse.REMAINDER, help="arguments for promptfoo eval, after --")
