# SPDX-License-Identifier: Apache-2.0
"""The `lance-cpp update` and `lance-cpp merge-insert` verbs: same results as pylance's
update / merge_insert on the same data, --help, and usage errors that commit nothing."""
import json

import lance
import pyarrow as pa
import pytest

from _cli import run


def table(n=20):
    return pa.table({"id": pa.array(range(n), pa.int64()),
                     "x": pa.array([i * 10 for i in range(n)], pa.int64()),
                     "name": [f"n{i}" for i in range(n)]})


def test_help_lists_the_verbs():
    out = run("--help").stdout + run("--help").stderr
    assert "update" in out and "merge-insert" in out
    for verb in ("update", "merge-insert"):
        proc = run(verb, "--help", check=False)
        text = proc.stdout + proc.stderr
        assert proc.returncode == 0, text
        assert "--on" in text if verb == "merge-insert" else "--set" in text


def test_update_matches_pylance(tmp_path):
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    lance.write_dataset(table(), str(ours), max_rows_per_file=5)
    lance.write_dataset(table(), str(theirs), max_rows_per_file=5)
    proc = run("update", ours, "--set", "x=x + 1", "--set", "name='u'", "--where", "id >= 12",
               "--json")
    doc = json.loads(proc.stdout)
    expected = lance.dataset(str(theirs)).update({"x": "x + 1", "name": "'u'"},
                                                 where="id >= 12")
    assert doc["num_rows_updated"] == expected["num_rows_updated"] == 8
    assert doc["version"] == 2
    a = lance.dataset(str(ours)).to_table().sort_by("id")
    b = lance.dataset(str(theirs)).to_table().sort_by("id")
    assert a.equals(b)
    # pylance reads the transaction we wrote.
    txn = lance.dataset(str(ours)).get_transactions(1)[0]
    assert type(txn.operation).__name__ == "Update"


def test_merge_insert_matches_pylance(tmp_path):
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    lance.write_dataset(table(), str(ours), max_rows_per_file=5)
    lance.write_dataset(table(), str(theirs), max_rows_per_file=5)
    rows = [{"id": 3, "x": -3, "name": "m3"}, {"id": 50, "x": -50, "name": "m50"}]
    src = tmp_path / "src.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    proc = run("merge-insert", ours, "--on", "id", "--input", src,
               "--delete-not-matched-by-source", "--not-matched-by-source-where", "id > 15",
               "--json")
    doc = json.loads(proc.stdout)
    expected = lance.dataset(str(theirs)).merge_insert("id").when_matched_update_all() \
        .when_not_matched_insert_all().when_not_matched_by_source_delete("id > 15") \
        .execute(pa.Table.from_pylist(rows, schema=table().schema))
    assert {k: doc[k] for k in expected} == expected
    assert expected == {"num_inserted_rows": 1, "num_updated_rows": 1, "num_deleted_rows": 4}
    a = lance.dataset(str(ours)).to_table().sort_by("id")
    b = lance.dataset(str(theirs)).to_table().sort_by("id")
    assert a.equals(b)
    # A CSV input with two keys and only some columns; matched rows keep the others.
    csv = tmp_path / "src.csv"
    csv.write_text("id,name,x\n4,n4,444\n5,zzz,555\n")
    doc = json.loads(run("merge-insert", ours, "--on", "id", "--on", "name", "--input", csv,
                         "--when-not-matched", "do-nothing", "--json").stdout)
    assert (doc["num_updated_rows"], doc["num_inserted_rows"]) == (1, 0)
    assert lance.dataset(str(ours)).to_table(filter="id = 4")["x"].to_pylist() == [444]


def test_usage_errors_commit_nothing(tmp_path):
    ds = tmp_path / "ds"
    lance.write_dataset(table(), str(ds))
    src = tmp_path / "src.jsonl"
    src.write_text(json.dumps({"id": 1, "x": 1, "name": "a"}) + "\n")
    bad = [
        ("update", ds),                                    # no --set
        ("update", ds, "--set", "nope=1"),                  # unknown column
        ("update", ds, "--set", "x=x +"),                   # bad expression
        ("merge-insert", ds, "--input", src),               # no --on
        ("merge-insert", ds, "--on", "id"),                 # no --input
        ("merge-insert", ds, "--on", "nope", "--input", src),
        ("merge-insert", ds, "--on", "id", "--input", src, "--when-matched", "maybe"),
    ]
    for args in bad:
        proc = run(*args, check=False)
        assert proc.returncode != 0, args
        assert proc.stderr.strip(), args
    assert lance.dataset(str(ds)).version == 1
