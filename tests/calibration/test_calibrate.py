"""``reeljudge calibrate``: statistics, inputs (promptfoo, CSV, JSONL), groups, raters, and bad input."""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pytest
from scipy import stats

from reeljudge.cli import main
from reeljudge.stats.correlation import correlation, correlations_with_intervals
from reeljudge.stats.pairwise_accuracy import PairwiseAccuracy, pairwise_accuracy
from support.results_fixtures import RunSpec, make_results


def _acc23_by_definition(metric, human):
    """acc23 straight from the definition: try every threshold, count pairs one by one."""
    pairs = list(combinations(range(len(metric)), 2))
    best = (-1.0, 0.0)
    for eps in sorted({0.0, *(abs(metric[i] - metric[j]) for i, j in pairs)}):
        correct = 0
        for i, j in pairs:
            dm, dh = metric[i] - metric[j], human[i] - human[j]
            metric_tie = abs(dm) <= eps
            correct += (metric_tie and dh == 0) or (not metric_tie and dm * dh > 0)
        if correct / len(pairs) > best[0]:
            best = (correct / len(pairs), eps)
    return best


def test_pairwise_accuracy_matches_its_definition_and_resamples_by_weights():
    rng = np.random.default_rng(4)
    for _ in range(25):
        n = int(rng.integers(2, 25))
        human = rng.integers(1, 4, n).astype(float)
        metric = np.round(0.5 * human + rng.normal(0, 1, n), int(rng.integers(0, 2)))
        result = pairwise_accuracy(metric, human)
        assert (result.accuracy, result.epsilon) == pytest.approx(_acc23_by_definition(metric, human))
        idx = rng.integers(0, n, n)  # a bootstrap resample, explicit vs as weights
        explicit = pairwise_accuracy(metric[idx], human[idx])
        weighted = PairwiseAccuracy(metric, human)(np.bincount(idx, minlength=n))
        assert weighted.accuracy == pytest.approx(explicit.accuracy)


def test_tie_calibration_rewards_a_metric_that_ties_what_humans_tie():
    human = np.array([1, 1, 2, 2, 3, 3], dtype=float)
    metric = np.array([0.10, 0.11, 0.50, 0.52, 0.90, 0.93])
    result = pairwise_accuracy(metric, human)
    assert result.accuracy == 1.0 and result.epsilon == pytest.approx(0.03)
    assert pairwise_accuracy(metric[::-1].copy(), human).accuracy < 0.5


def test_correlations_are_scipys_and_constant_input_is_undefined():
    rng = np.random.default_rng(1)
    x = rng.normal(size=60)
    y = x + rng.normal(size=60)
    assert correlation("pearson", x, y) == pytest.approx(stats.pearsonr(x, y).statistic)
    assert correlation("spearman", x, y) == pytest.approx(stats.spearmanr(x, y).statistic)
    assert correlation("kendall_tau_b", x, y) == pytest.approx(stats.kendalltau(x, y).statistic)
    assert np.isnan(correlation("spearman", np.ones(5), np.arange(5)))
    intervals = correlations_with_intervals(x, y, n_resamples=300)
    assert all(i.low < i.estimate < i.high for i in intervals.values())
    assert intervals == correlations_with_intervals(x, y, n_resamples=300)  # seeded


def _promptfoo_run(tmp_path, n=60, not_judged=()):
    data = make_results(RunSpec(n_tests=n, seed=1, not_judged=not_judged))
    for row in data["results"]["results"]:
        t = row["testIdx"]
        row["testCase"]["metadata"] = {"family": "text-to-video" if t % 2 else "stock", "tags": ["motion"] if t % 3 == 0 else []}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data))
    return path, data


def _two_raters(tmp_path, data, noise=0.1):
    """Ratings 1-5 from two raters: the judge's score plus each rater's own noise (long CSV)."""
    rng = np.random.default_rng(9)
    lines = ["item,rater,rating"]
    for row in data["results"]["results"]:
        quality = row["namedScores"].get("film_relevance", 0.5)
        for rater in ("ana", "ben"):
            rating = int(np.clip(np.round(1 + 4 * (quality + rng.normal(0, noise))), 1, 5))
            lines.append(f"{row['testCase']['description']},{rater},{rating}")
    path = tmp_path / "ratings.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_promptfoo_scores_against_two_raters_with_groups(tmp_path):
    results, data = _promptfoo_run(tmp_path, not_judged=(5,))
    ratings = _two_raters(tmp_path, data)
    out = tmp_path / "report.json"
    assert main(["calibrate", str(results), str(ratings), "--metric", "film_relevance", "--metric", "score",
                 "--resamples", "200", "--json", str(out), "-q"]) == 0
    report = json.loads(out.read_text())
    assert report["raters"] == 2 and set(report["rater_ceiling_spearman"]) == {"ana", "ben"}
    assert report["items"]["not_judged"] == ["narration-00005"]  # left out, never a score
    assert report["items"]["matched"] == 59
    groups = {g["group"]: g for g in report["results"]["film_relevance"]}
    assert set(groups) == {"all", "family=stock", "family=text-to-video", "tag=motion"}
    assert groups["all"]["spearman"]["estimate"] > 0.7  # ratings follow the judge's relevance up to noise
    assert groups["tag=motion"]["n"] == 20
    assert report["results"]["score"][0]["spearman"]["estimate"] < groups["all"]["spearman"]["estimate"]


def test_csv_and_jsonl_inputs_and_the_markdown_report(tmp_path, capsys):
    judge = tmp_path / "judge.jsonl"
    judge.write_text("".join(json.dumps({"item": f"v{i}", "score": i % 7 / 7, "tags": "a;b" if i < 10 else "b"}) + "\n"
                             for i in range(30)))
    human = tmp_path / "human.jsonl"
    human.write_text("".join(json.dumps({"item": f"v{i}", "ratings": {"r1": i % 7, "r2": (i % 7) + (i % 2)}}) + "\n"
                             for i in range(30)))
    assert main(["calibrate", str(judge), str(human), "--resamples", "100"]) == 0
    text = capsys.readouterr().out
    assert "### judge metric `score`" in text and "| tag=a | 10 |" in text and "| all | 30 |" in text
    assert "Human ceiling" in text


@pytest.mark.parametrize(
    ("judge_rows", "human_rows", "extra", "message"),
    [
        # a single named rater
        ([{"item": f"v{i}", "score": i} for i in range(10)], [{"item": f"v{i}", "rating": i, "rater": "ana"} for i in range(10)],
         [], "every item has ratings from a single rater (ana)"),
        # one unnamed rating per item, not declared as means
        ([{"item": f"v{i}", "score": i} for i in range(10)], [{"item": f"v{i}", "ratings": [i]} for i in range(10)],
         [], "pass --ratings-are-means"),
        # ids that do not match at all
        ([{"item": f"video-{i}", "score": i} for i in range(10)], [{"item": f"v{i}", "ratings": [i, i]} for i in range(10)],
         [], "item ids do not match: 0 of the 10 rated items"),
        # ids that match for too few items
        ([{"item": f"v{i}", "score": i} for i in range(3)], [{"item": f"v{i}", "ratings": [i, i]} for i in range(10)],
         [], "3 of the 10 rated items"),
        # constant judge scores
        ([{"item": f"v{i}", "score": 0.8} for i in range(10)], [{"item": f"v{i}", "ratings": [i, i + 1]} for i in range(10)],
         [], "judge scores (score) are constant (0.8) over the 10 matched items: every correlation is undefined"),
        # constant human ratings
        ([{"item": f"v{i}", "score": i} for i in range(10)], [{"item": f"v{i}", "ratings": [3, 3]} for i in range(10)],
         [], "human ratings (per-item means) are constant (3)"),
        # too few items
        ([{"item": f"v{i}", "score": i} for i in range(2)], [{"item": f"v{i}", "ratings": [i, i]} for i in range(2)],
         [], "only 2 items have both judge scores and human ratings"),
        # a rating that is not a number
        ([{"item": "v1", "score": 1}], [{"item": "v1", "rating": "good", "rater": "a"}], [],
         "row 1: rating 'good' is not a number"),
        # a judge file without the asked-for column
        ([{"item": "v1", "score": 1}], [{"item": "v1", "rating": 1, "rater": "a"}], ["--metric", "clip"],
         "row 1: clip None is not a number"),
        # the same judge item twice
        ([{"item": "v1", "score": 1}, {"item": "v1", "score": 2}], [{"item": "v1", "rating": 1, "rater": "a"}], [],
         "item 'v1' appears twice (row 2)"),
        # a rater who rated an item twice
        ([{"item": "v1", "score": 1}], [{"item": "v1", "rating": 1, "rater": "a"}, {"item": "v1", "rating": 2, "rater": "a"}], [],
         "rater 'a' rated item 'v1' twice"),
        # no rating field
        ([{"item": "v1", "score": 1}], [{"item": "v1", "stars": 1}], [], "row 1 has no 'rating' (or JSONL 'ratings') field"),
    ],
)
def test_bad_input_is_a_clear_message_and_exit_2(tmp_path, capsys, judge_rows, human_rows, extra, message):
    judge, human = tmp_path / "judge.jsonl", tmp_path / "human.jsonl"
    judge.write_text("".join(json.dumps(r) + "\n" for r in judge_rows))
    human.write_text("".join(json.dumps(r) + "\n" for r in human_rows))
    assert main(["calibrate", str(judge), str(human), "--resamples", "100", "-q", *extra]) == 2
    assert message in capsys.readouterr().err


def test_bad_promptfoo_input(tmp_path, capsys):
    results, data = _promptfoo_run(tmp_path, n=12)
    ratings = _two_raters(tmp_path, data)

    def err(*argv):
        assert main(["calibrate", *argv, "--resamples", "100", "-q"]) == 2
        return capsys.readouterr().err

    assert "has no metric 'gecko_score' (it has: film_filmability, film_relevance, film_variety, score)" in err(
        str(results), str(ratings), "--metric", "gecko_score")
    assert "unknown field {test}" in err(str(results), str(ratings), "--item", "{test}")
    assert "has no var 'video'" in err(str(results), str(ratings), "--item", "{vars.video}")
    assert "is not unique" in err(str(results), str(ratings), "--item", "{prompt}")
    nothing, _ = _promptfoo_run(tmp_path, n=12, not_judged=tuple(range(12)))
    assert "none of its 12 test results was judged" in err(str(nothing), str(ratings))
    cut = tmp_path / "cut.json"
    cut.write_text(results.read_text()[:1000])
    assert "cut.json: not valid JSON" in err(str(cut), str(ratings))
    csv_without_item = tmp_path / "scores.csv"
    csv_without_item.write_text("video,score\na,1\n")
    assert "a CSV needs a header with an 'item' column (found: video, score)" in err(str(csv_without_item), str(ratings))
