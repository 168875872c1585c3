"""The one row reader (``reeljudge.rows``): JSONL, CSV and YAML rows with the numbers errors name."""

from __future__ import annotations

import pytest

from reeljudge.errors import BadInputError
from reeljudge.rows import TABLE_SUFFIXES, Unparsed, csv_rows, jsonl_rows, read_table, yaml_rows


def test_jsonl_rows_carry_their_line_numbers_and_keep_a_bad_line_as_unparsed():
    rows = jsonl_rows('{"a": 1}\n\n  \n{"a": 2\n"just text"\n')
    assert [n for n, _ in rows] == [1, 4, 5]
    assert rows[0][1] == {"a": 1} and rows[2][1] == "just text"
    assert isinstance(rows[1][1], Unparsed) and rows[1][1].line == '{"a": 2' and "delimiter" in rows[1][1].message


def test_csv_rows_count_lines_as_the_file_has_them_even_with_a_field_over_two_lines():
    fields, rows = csv_rows(' item , score\nx,1\n"y\nstill y",2\n\nz, 3 \n')
    assert fields == ["item", "score"]
    assert rows == [(2, {"item": "x", "score": "1"}), (3, {"item": "y\nstill y", "score": "2"}), (6, {"item": "z", "score": "3"})]


def test_yaml_rows_number_the_entries_and_name_the_file_and_line_when_it_is_not_yaml():
    assert yaml_rows("- a\n- b: 1\n", "f.yaml") == [(1, "a"), (2, {"b": 1})]
    assert yaml_rows("narrations:\n  - a\n", "f.yaml", key="narrations") == [(1, "a")]
    with pytest.raises(BadInputError, match=r"f\.yaml: expected a YAML list of clips, got dict"):
        yaml_rows("a: 1\n", "f.yaml", what="clips")
    with pytest.raises(BadInputError, match=r"(?s)f\.yaml: not valid YAML .*line 2"):
        yaml_rows("- a\n- [b\n", "f.yaml")


def test_the_library_manifest_and_calibration_inputs_name_the_line_of_a_bad_row(tmp_path):
    from reeljudge.calibration.inputs import _rows
    from reeljudge.gates.results import CannotCompare
    from reeljudge.library.manifest import read_manifest

    manifest = tmp_path / "clips.jsonl"
    manifest.write_text('{"path": "a.mp4"}\n\n{"path": \n', encoding="utf-8")
    items, bad = read_manifest(manifest)
    assert len(items) == 1 and [b.message.split(":")[0] for b in bad] == ["not valid JSON (Expecting value)"]
    assert bad[0].origin == "clips.jsonl line 3"
    ratings = tmp_path / "h.csv"
    text = 'item,rater,score\n"a\nb",ann,3\nc,ann,x\n'
    rows = list(_rows(ratings, text))
    assert [n for n, _ in rows] == [2, 4]  # c is on line 4: a's item spans lines 2 and 3
    with pytest.raises(CannotCompare, match="line 2 is not valid JSON"):
        list(_rows(tmp_path / "h.jsonl", '{"item": "a"}\n{"item"\n'))


def test_read_table_chooses_the_reader_by_suffix_and_checks_a_csv_header():
    assert sorted(TABLE_SUFFIXES) == [".csv", ".jsonl", ".yaml", ".yml"]
    jsonl = read_table('{"clip": "a"}\n', ".JSONL", "m", columns=("clip",), what="clips")
    assert (jsonl.rows, jsonl.unit) == ([(1, {"clip": "a"})], "line")
    yaml = read_table("clips:\n  - a\n", ".yml", "m", columns=("clip",), what="clips", key="clips")
    assert (yaml.rows, yaml.unit) == ([(1, "a")], "entry")
    csv = read_table("clip,prompt\na,\n", ".csv", "m", columns=("clip", "url"), what="clips", blank_cells=False)
    assert (csv.rows, csv.unit) == ([(2, {"clip": "a"})], "line")
    kept = read_table("clip,prompt\na,\n", ".csv", "m", columns=("clip",), what="clips")
    assert kept.rows == [(2, {"clip": "a", "prompt": ""})]
    assert read_table("a.mp4\n", ".txt", "m", columns=("clip",), what="clips") is None
    with pytest.raises(BadInputError, match=r"^m: the CSV header \['x'\] has no 'narration' column$"):
        read_table("x\n1\n", ".csv", "m", columns=("narration",), what="narrations")
    with pytest.raises(BadInputError, match=r"has no column of \['clip', 'url'\]$"):
        read_table("x\n1\n", ".csv", "m", columns=("clip", "url"), what="clips")


def test_the_bulk_narrations_and_the_library_manifest_read_tables_alike(tmp_path):
    """The two bulk commands share the suffix dispatch: the same suffixes, numbers and header check."""
    from reeljudge.filmability.bulk_rows import read_rows
    from reeljudge.library.manifest import read_manifest

    (tmp_path / "n.yaml").write_text("- {narration: A kite., terms: [kite]}\n- {narration: ''}\n")
    (tmp_path / "m.yaml").write_text("- a.mp4\n- ''\n")
    assert [r.problem is None for r in read_rows(tmp_path / "n.yaml")] == [True, False]
    assert read_rows(tmp_path / "n.yaml")[1].problem.startswith("n.yaml entry 2: ")
    items, bad = read_manifest(tmp_path / "m.yaml")
    assert [i.origin for i in items] == ["m.yaml entry 1"] and [b.origin for b in bad] == ["m.yaml entry 2"]
    (tmp_path / "n.csv").write_text("text\nx\n")
    (tmp_path / "m.csv").write_text("text\nx\n")
    with pytest.raises(BadInputError, match="narrations file .*n.csv: the CSV header"):
        read_rows(tmp_path / "n.csv")
    with pytest.raises(BadInputError, match="manifest .*m.csv: the CSV header"):
        read_manifest(tmp_path / "m.csv")
