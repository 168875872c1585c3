"""The one row reader (``reeljudge.rows``): JSONL, CSV and YAML rows with the numbers errors name."""

from __future__ import annotations

import pytest

from reeljudge.errors import BadInputError
from reeljudge.rows import Unparsed, csv_rows, jsonl_rows, yaml_rows


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
