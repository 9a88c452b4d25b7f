# SPDX-License-Identifier: Apache-2.0
"""Datasets real Lance writes during the test, read by lance-cpp.

Both oracles write file format 2.0 with V1 and V2 manifest names: pylance 14 (in this
process) and Lance 8.0.0 through LanceDB-node (one node process for all datasets). Each
dataset has a seeded random schema over every supported type, with nulls, several
fragments, deletions made by the oracle (including one removing a whole fragment and one
rewriting an existing deletion file) and appends after deletions. lance-cpp's reading is
compared exactly with pylance's reading of the same version, and with the data written
(minus the deleted rows).
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional

import lance
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import datagen
import predgen
from conftest import (assert_tables_equal, assert_versions_match_pylance, lance_manifest_names,
                      read_ipc, write_ipc)

NUM_SEEDS = int(os.environ.get("LANCE_INTEROP_SEEDS", "6"))
NUM_PREDICATES = int(os.environ.get("LANCE_INTEROP_PREDICATES", "40"))
PYLANCE_PROFILE = datagen.TypeProfile()
# apache-arrow (JS) has no large_list; Lance 8 drops struct-level nulls in file format 2.0
# (pylance refuses them), so the node datasets carry some.
NODE_PROFILE = datagen.TypeProfile(struct_nulls=True).without("large_list")


def _chunks(kinds: List[str], n: int) -> List[List[str]]:
    return [kinds[i::n] for i in range(n)]


@dataclass
class Step:
    """One write of the history: an append of rows [start, start + n) or a delete."""

    kind: str  # "write" | "delete"
    start: int = 0
    n: int = 0
    predicate: str = ""
    deleted: Optional[Callable[[pa.Table], pa.Array]] = None  # rows the predicate matches


@dataclass
class OracleDataset:
    writer: str  # "pylance" | "node"
    seed: int
    v2_names: bool
    uri: Path
    data: datagen.RandomDataset
    steps: List[Step] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.writer}-seed{self.seed}-{'v2' if self.v2_names else 'v1'}names"

    def expected(self, version: int) -> pa.Table:
        """The live rows after `version` commits (version 1 = the first write)."""
        table = None
        for step in self.steps[:version]:
            if step.kind == "write":
                batch = self.data.batch(step.start, step.n)
                table = batch if table is None else pa.concat_tables([table, batch])
            else:
                table = table.filter(pc.invert(step.deleted(table)))
        return table


def _nullable_scalar_column(schema: pa.Schema) -> str:
    for f in list(schema)[1:]:
        if f.nullable and not pa.types.is_nested(f.type):
            return f.name
    return ""


def _history(data: datagen.RandomDataset, first: int) -> List[Step]:
    """create `first` rows, append 120, delete (incl. one whole 100-row fragment), append
    80, delete again (rewrites deletion files) and by a null test on a data column."""
    s1 = first
    s2 = first + 120
    end = s2 + 80

    def isin(*ranges):
        def f(t):
            rid = t.column("rid")
            out = pc.equal(rid, -1)
            for lo, hi in ranges:
                out = pc.or_(out, pc.and_(pc.greater_equal(rid, lo), pc.less(rid, hi)))
            return out
        return f

    steps = [
        Step("write", 0, first),
        Step("write", s1, 120),
        Step("delete", predicate=f"(rid >= 100 AND rid < 200) OR rid IN (0, 7, 42, {s1 + 3}) "
                                  f"OR (rid > {s1 + 100} AND rid <= {s1 + 110})",
             deleted=_or(isin((100, 200), (s1 + 101, s1 + 111)),
                         _rid_in(0, 7, 42, s1 + 3))),
        Step("write", s2, 80),
    ]
    col = _nullable_scalar_column(data.schema)
    second = f"rid IN (1, 8, 43, {s1 + 4}, {end - 1}) OR (rid >= 250 AND rid < 260)"
    second_fn = _or(_rid_in(1, 8, 43, s1 + 4, end - 1), isin((250, 260)))
    if col:
        second += f" OR ({col} IS NULL AND rid >= {s2})"
        second_fn = _or(second_fn, lambda t, c=col: pc.and_(pc.is_null(t.column(c)),
                                                            pc.greater_equal(t.column("rid"), s2)))
    steps.append(Step("delete", predicate=second, deleted=second_fn))
    return steps


def _rid_in(*values):
    return lambda t: pc.is_in(t.column("rid"), value_set=pa.array(values, pa.int64()))


def _or(f, g):
    return lambda t: pc.or_(f(t), g(t))


def _make_datasets(root: Path) -> List[OracleDataset]:
    out = []
    for writer, profile, base in (("pylance", PYLANCE_PROFILE, 100), ("node", NODE_PROFILE, 200)):
        kinds = list(profile.scalars) + list(profile.nested)
        combos = [c for c in datagen.NESTED_COMBOS
                  if all(k in profile.nested for k in c.split("/"))]
        covers = [a + b for a, b in zip(_chunks(kinds, NUM_SEEDS), _chunks(combos, NUM_SEEDS))]
        for i in range(NUM_SEEDS):
            seed = base + i + 1
            data = datagen.random_dataset(seed, profile, num_columns=12, cover=covers[i])
            ds = OracleDataset(writer, seed, v2_names=(i % 2 == 1), uri=None, data=data)
            ds.uri = root / f"{ds.id}.lance"
            ds.steps = _history(data, first=300)
            out.append(ds)
    return out


def _write_pylance(ds: OracleDataset) -> None:
    for step in ds.steps:
        if step.kind == "write":
            lance.write_dataset(ds.data.batch(step.start, step.n), str(ds.uri),
                                mode="create" if step.start == 0 else "append",
                                data_storage_version="2.0", max_rows_per_file=100,
                                max_rows_per_group=64, enable_v2_manifest_paths=ds.v2_names)
        else:
            lance.dataset(str(ds.uri)).delete(step.predicate)


def _node_jobs(ds: OracleDataset, scratch: Path) -> List[Dict]:
    """create from the first two writes (two fragments), then the rest of the history,
    then node's own reading of the result."""
    jobs = []
    for k, step in enumerate(ds.steps):
        if step.kind == "write":
            ipc = write_ipc(ds.data.batch(step.start, step.n), scratch / f"{ds.id}-{k}.arrow")
            if step.start == 0:
                jobs.append({"op": "create", "uri": ds.uri, "ipc": [ipc],
                             "v2_names": ds.v2_names, "storage_version": "2.0"})
            else:
                jobs.append({"op": "add", "uri": ds.uri, "ipc": ipc})
        else:
            jobs.append({"op": "delete", "uri": ds.uri, "predicate": step.predicate})
    jobs.append({"op": "read", "uri": ds.uri, "out": scratch / f"{ds.id}-node-read.arrow",
                 "with_row_id": True})
    return jobs


@pytest.fixture(scope="module")
def oracle_datasets(session_dir, node) -> Dict[str, OracleDataset]:
    root = session_dir / "oracle-written"
    scratch = session_dir / "oracle-written-ipc"
    root.mkdir()
    scratch.mkdir()
    datasets = _make_datasets(root)
    jobs = []
    for ds in datasets:
        if ds.writer == "pylance":
            _write_pylance(ds)
        else:
            jobs += _node_jobs(ds, scratch)
    node.run_ok(jobs)
    for ds in datasets:
        ds.node_read = scratch / f"{ds.id}-node-read.arrow"
    return {ds.id: ds for ds in datasets}


DATASET_IDS = [ds.id for ds in _make_datasets(Path("/nonexistent"))]


@pytest.fixture(params=DATASET_IDS)
def dataset(request, oracle_datasets) -> OracleDataset:
    return oracle_datasets[request.param]


def _expected_live(ds: OracleDataset, version: int) -> pa.Table:
    table = ds.expected(version)
    if ds.writer == "node":
        # What file format 2.0 keeps of struct nulls (nothing), as Lance 8 writes it.
        table = pa.Table.from_arrays([datagen.drop_struct_validity(c) for c in table.columns],
                                     schema=table.schema)
    return table


def test_every_type_is_covered():
    """Each type, and each two-level nesting, is written by at least one oracle."""
    covered, combos = set(), set()
    for ds in _make_datasets(Path("/nonexistent")):
        for f in ds.data.schema:
            covered |= datagen.kinds_of(f.type)
            combos |= datagen.combos_of(f.type)
    assert covered == set(datagen.ALL_KINDS), sorted(set(datagen.ALL_KINDS) - covered)
    assert set(datagen.NESTED_COMBOS) <= combos, sorted(set(datagen.NESTED_COMBOS) - combos)


def test_layout_is_what_was_asked(dataset, interop):
    """The oracle wrote format 2.0 with the asked manifest names and several fragments."""
    ds = lance.dataset(str(dataset.uri))
    assert ds.data_storage_version == "2.0"
    names = lance_manifest_names(dataset.uri)
    assert len(names) == len(dataset.steps)
    if dataset.v2_names:
        assert all(len(n) == len("18446744073709551614.manifest") for n in names), names
    else:
        assert names == sorted(f"{v}.manifest" for v in range(1, len(dataset.steps) + 1))
    assert len(ds.get_fragments()) >= 3
    assert any(f.metadata.deletion_file is not None for f in ds.get_fragments())
    info = interop.info(dataset.uri)
    assert info["version"] == len(dataset.steps)
    assert info["data_storage_version"] == "2.0"
    assert len(info["fragments"]) == len(ds.get_fragments())
    assert_versions_match_pylance(interop, dataset.uri)


def test_reads_equal_to_written_data(dataset, interop):
    got = interop.read(dataset.uri)
    assert_tables_equal(got, _expected_live(dataset, len(dataset.steps)), what=dataset.id)


def test_reads_equal_to_pylance_with_row_ids(dataset, interop):
    got = interop.read(dataset.uri, with_row_id=True)
    want = lance.dataset(str(dataset.uri)).to_table(with_row_id=True)
    assert_tables_equal(got, want, key="_rowid", what=dataset.id)


@pytest.mark.parametrize("dataset_id", [i for i in DATASET_IDS if i.startswith("node")])
def test_reads_equal_to_node(oracle_datasets, interop, dataset_id):
    """Node's own reading of what it wrote: query().withRowId().toArrow()."""
    dataset = oracle_datasets[dataset_id]
    got = interop.read(dataset.uri, with_row_id=True)
    want = read_ipc(dataset.node_read)
    assert_tables_equal(got, want, key="_rowid", what=dataset.id)


def test_every_version_equals_pylance(dataset, interop):
    for version in range(1, len(dataset.steps) + 1):
        got = interop.read(dataset.uri, version=version)
        want = lance.dataset(str(dataset.uri), version=version).to_table()
        assert_tables_equal(got, want, what=f"{dataset.id} v{version}")
        assert_tables_equal(got, _expected_live(dataset, version),
                            what=f"{dataset.id} v{version} vs written")
        assert interop.count(dataset.uri, version=version) == want.num_rows


def test_counts_filters_and_projection(dataset, interop):
    ds = lance.dataset(str(dataset.uri))
    assert interop.count(dataset.uri) == ds.count_rows()
    schema = dataset.data.schema
    col = _nullable_scalar_column(schema)
    filters = ["rid < 100", "rid >= 150 AND rid <= 420", "rid IN (2, 3, 5, 7, 11, 13, 299)"]
    if col:
        filters += [f"{col} IS NULL", f"{col} IS NOT NULL AND rid > 50"]
    for predicate in filters:
        assert interop.count(dataset.uri, filter=predicate) == ds.count_rows(filter=predicate), \
            predicate
    rng = random.Random(dataset.seed)
    columns = rng.sample(schema.names, 4)
    if "rid" not in columns:
        columns.append("rid")
    got = interop.read(dataset.uri, columns=columns, filter=filters[1])
    want = ds.to_table(columns=columns, filter=filters[1])
    assert got.schema.names == columns
    assert_tables_equal(got, want, what=f"{dataset.id} {columns} where {filters[1]}")


def test_bitmap_deletion_file(session_dir, interop):
    """More than a few thousand deletions in one fragment: real Lance writes a roaring
    bitmap (.bin) deletion file instead of an Arrow array."""
    uri = session_dir / "bitmap-deletions.lance"
    n = 7000
    table = pa.table({"rid": pa.array(range(n), pa.int64()),
                      "x": pa.array([i * 3 % 1000 for i in range(n)], pa.int32())})
    lance.write_dataset(table, str(uri), data_storage_version="2.0",
                        enable_v2_manifest_paths=False)
    ds = lance.dataset(str(uri))
    ds.delete("x >= 100")
    assert list((uri / "_deletions").glob("*.bin")), "expected a bitmap deletion file"
    assert interop.count(uri) == ds.count_rows() == len([i for i in range(n) if i * 3 % 1000 < 100])
    assert_tables_equal(interop.read(uri), ds.to_table())
    assert_tables_equal(interop.read(uri, with_row_id=True), ds.to_table(with_row_id=True),
                        key="_rowid")


def test_random_filters_match_pylance(dataset, interop):
    """Seeded random predicates (comparisons, IN, IS NULL, NOT, AND/OR over every scalar
    column and struct member) count and select the same rows in lance-cpp as in pylance."""
    ds = lance.dataset(str(dataset.uri))
    table = ds.to_table()
    mismatches = []
    checked = 0
    for i, predicate in enumerate(predgen.predicates(dataset.seed, table, NUM_PREDICATES)):
        if predgen.oracle_quirk(predicate):
            continue
        try:
            want = ds.count_rows(filter=predicate)
        except Exception:  # outside what DataFusion accepts for these types: not compared
            continue
        checked += 1
        try:
            got = interop.count(dataset.uri, filter=predicate)
        except AssertionError as e:
            mismatches.append(f"{predicate}: lance-cpp failed: {str(e).splitlines()[-1]}")
            continue
        if got != want:
            mismatches.append(f"{predicate}: lance-cpp {got} != pylance {want}")
        elif i % 5 == 0:
            rows = interop.read(dataset.uri, filter=predicate)
            assert_tables_equal(rows, ds.to_table(filter=predicate), what=predicate)
    assert checked >= NUM_PREDICATES // 2
    assert not mismatches, "\n".join(mismatches)
