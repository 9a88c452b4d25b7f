# SPDX-License-Identifier: Apache-2.0
"""Datasets lance-cpp writes, used by real Lance, then by lance-cpp again.

Each scenario is one dataset with a seeded random schema and this timeline:

  lance-cpp:  its own start (create + appends + deletes | create + overwrite | distributed
              write: write-fragments on several "workers" + commit overwrite, then
              write-fragments + commit append), ending with a delete
  node:       opens it, counts (with and without filters), scans           [phase A]
  pylance:    appends, deletes (across lance-cpp's and its own fragments)
  node:       adds, deletes, scans                                          [phase B]
  lance-cpp:  appends, deletes
  node:       counts and scans the final version                            [phase C]

A Python model of the live rows after every version is the reference: lance-cpp,
pylance and node must all read every version equal to it (after sorting by `rid`), and
lance-cpp and pylance must agree on the row ids.
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
from conftest import (assert_tables_equal, assert_versions_match_pylance, lance_manifest_names,
                      read_ipc, write_ipc)

NODE_OK_PROFILE = datagen.TypeProfile().without("large_list")
FULL_PROFILE = datagen.TypeProfile()


@dataclass
class ScenarioSpec:
    name: str
    start: str  # "history" | "overwrite" | "distributed"
    seed: int
    v2_names: bool
    profile: datagen.TypeProfile
    cover: tuple = ()

    @property
    def node_decodes(self) -> bool:
        """apache-arrow (JS) cannot decode large_list: node then only counts/deletes."""
        return "large_list" not in self.profile.nested


SPECS = [
    ScenarioSpec("history-v1names", "history", 301, False, NODE_OK_PROFILE,
                 ("struct", "list", "fixed_size_list", "timestamp", "large_utf8", "float16")),
    ScenarioSpec("history-v2names", "history", 302, True, NODE_OK_PROFILE,
                 ("uint64", "large_binary", "date32", "fixed_size_binary", "bool", "int8")),
    ScenarioSpec("history-large-list", "history", 303, True, FULL_PROFILE,
                 ("large_list", "struct", "list", "utf8")),
    ScenarioSpec("overwrite-v1names", "overwrite", 304, False, NODE_OK_PROFILE,
                 ("list", "binary", "uint16", "float32")),
    ScenarioSpec("distributed-v2names", "distributed", 305, True, NODE_OK_PROFILE,
                 ("struct", "fixed_size_list", "int64", "uint32", "float64", "int16")),
    ScenarioSpec("distributed-v1names", "distributed", 306, False, FULL_PROFILE,
                 ("large_list", "timestamp", "float16", "large_utf8")),
]
# More scenarios on fully random schemas (LANCE_INTEROP_CPP_SEEDS=N fuzzes harder).
for _k in range(int(os.environ.get("LANCE_INTEROP_CPP_SEEDS", "3"))):
    _start = ("history", "overwrite", "distributed")[_k % 3]
    SPECS.append(ScenarioSpec(f"extra{_k}-{_start}", _start, 1000 + _k, _k % 2 == 0,
                              NODE_OK_PROFILE if _k % 4 else FULL_PROFILE))


@dataclass
class Scenario:
    spec: ScenarioSpec
    uri: Path
    scratch: Path
    data: datagen.RandomDataset
    rng: random.Random
    live: Optional[pa.Table] = None
    expected: Dict[int, pa.Table] = field(default_factory=dict)
    writer_of: Dict[int, str] = field(default_factory=dict)  # version -> who committed
    next_rid: int = 0
    node_results: Dict[str, list] = field(default_factory=dict)
    filters: Dict[str, list] = field(default_factory=dict)

    @property
    def version(self) -> int:
        return max(self.expected) if self.expected else 0

    def record(self, version: int, writer: str) -> None:
        assert version == self.version + 1, f"{writer} committed v{version} after v{self.version}"
        self.expected[version] = self.live
        self.writer_of[version] = writer

    def new_rows(self, n: int) -> pa.Table:
        """The next `n` rows of the data, live from now on (the caller writes them)."""
        batch = self.data.batch(self.next_rid, n)
        self.next_rid += n
        self.live = batch if self.live is None else pa.concat_tables([self.live, batch])
        return batch

    def delete_plan(self, whole_range: Optional[tuple] = None):
        """A predicate on rid (some live rows, one range) and its Python twin."""
        rids = self.live.column("rid").to_pylist()
        picks = sorted(self.rng.sample(rids, min(8, len(rids))))
        lo = self.rng.choice(rids)
        lo, hi = whole_range or (lo, lo + 15)
        predicate = (f"rid IN ({', '.join(map(str, picks))}) OR (rid >= {lo} AND rid < {hi})")

        def matches(t: pa.Table) -> pa.Array:
            rid = t.column("rid")
            return pc.or_(pc.is_in(rid, value_set=pa.array(picks, pa.int64())),
                          pc.and_(pc.greater_equal(rid, lo), pc.less(rid, hi)))
        return predicate, matches

    def null_delete_plan(self):
        """Deletes the rows where the first nullable scalar column is NULL in the upper
        half of rid (exercising the predicate on a random type), or falls back to
        delete_plan()."""
        for f in list(self.data.schema)[1:]:
            if f.nullable and not pa.types.is_nested(f.type):
                rids = self.live.column("rid").to_pylist()
                cut = rids[len(rids) // 2]

                def matches(t: pa.Table, c=f.name) -> pa.Array:
                    return pc.and_(pc.is_null(t.column(c)), pc.greater_equal(t.column("rid"), cut))
                return f"{f.name} IS NULL AND rid >= {cut}", matches
        return self.delete_plan()

    def apply_delete(self, matches: Callable) -> None:
        self.live = self.live.filter(pc.invert(matches(self.live)))


# --- the timeline ------------------------------------------------------------------------


def _cpp_start(s: Scenario, interop) -> None:
    spec = s.spec
    if spec.start == "history":
        b = s.new_rows(250)
        s.record(interop.write(b, s.uri, "create", max_rows_per_file=100,
                               v1_names=not spec.v2_names), "lance-cpp create")
        b = s.new_rows(120)
        s.record(interop.write(b, s.uri, "append", max_rows_per_file=100), "lance-cpp append")
        pred, fn = s.delete_plan(whole_range=(100, 200))  # all of the second fragment
        s.apply_delete(fn)
        s.record(interop.delete(s.uri, pred), "lance-cpp delete")
        b = s.new_rows(80)
        s.record(interop.write(b, s.uri, "append", max_rows_per_group=32), "lance-cpp append")
    elif spec.start == "overwrite":
        b = s.new_rows(150)
        s.record(interop.write(b, s.uri, "create", max_rows_per_file=64,
                               v1_names=not spec.v2_names), "lance-cpp create")
        b = s.new_rows(50)
        s.record(interop.write(b, s.uri, "append"), "lance-cpp append")
        # Overwrite with another schema; the old versions stay readable.
        s.data = datagen.random_dataset(spec.seed + 1000, spec.profile, num_columns=8)
        s.next_rid = 10_000
        s.live = None
        b = s.new_rows(220)
        s.record(interop.write(b, s.uri, "overwrite", max_rows_per_file=100), "lance-cpp overwrite")
    elif spec.start == "distributed":
        read_version = None
        if not spec.v2_names:
            # Commit has no naming option: V1 names come from an existing V1 dataset,
            # which the distributed overwrite then replaces.
            b = s.new_rows(20)
            s.record(interop.write(b, s.uri, "create", v1_names=True), "lance-cpp create")
            read_version = s.version
            s.live = None
        # Three workers write fragments; the driver commits them as one overwrite.
        fragments = []
        for _ in range(3):
            b = s.new_rows(110)
            fragments += interop.write_fragments(b, s.uri, max_rows_per_file=50)
        assert len(fragments) == 9
        s.record(interop.commit(s.uri, fragments, "overwrite", schema=s.data.schema,
                                read_version=read_version), "lance-cpp commit overwrite")
        fragments = []
        for _ in range(2):
            b = s.new_rows(70)
            fragments += interop.write_fragments(b, s.uri)
        s.record(interop.commit(s.uri, fragments, "append", read_version=s.version),
                 "lance-cpp commit append")
    else:
        raise ValueError(spec.start)
    pred, fn = s.delete_plan()
    s.apply_delete(fn)
    s.record(interop.delete(s.uri, pred), "lance-cpp delete")


def _node_read_jobs(s: Scenario, phase: str, filters: List[str]) -> List[dict]:
    jobs = [{"op": "count", "uri": s.uri}, {"op": "version", "uri": s.uri}]
    jobs += [{"op": "count", "uri": s.uri, "filter": f} for f, _ in filters]
    if s.spec.node_decodes:
        jobs.append({"op": "read", "uri": s.uri, "with_row_id": True,
                     "out": s.scratch / f"node-{phase}.arrow"})
    return jobs


def _filters(s: Scenario) -> List[tuple]:
    """(predicate, its Python twin) pairs over the live rows."""
    rids = s.live.column("rid").to_pylist()
    mid, lo, hi = rids[len(rids) // 2], rids[3], rids[-4]
    out = [
        (f"rid < {mid}", lambda t: pc.less(t.column("rid"), mid)),
        (f"rid >= {lo} AND rid <= {hi}",
         lambda t: pc.and_(pc.greater_equal(t.column("rid"), lo),
                           pc.less_equal(t.column("rid"), hi))),
    ]
    for f in list(s.data.schema)[1:]:
        if f.nullable and not pa.types.is_nested(f.type):
            out.append((f"{f.name} IS NULL OR rid = {rids[0]}",
                        lambda t, c=f.name: pc.or_(pc.is_null(t.column(c)),
                                                   pc.equal(t.column("rid"), rids[0]))))
            break
    return out


def expected_count(table: pa.Table, matches: Callable) -> int:
    return pc.sum(pc.cast(matches(table), pa.int64())).as_py() or 0


def run_timeline(s: Scenario, interop, node) -> None:
    _cpp_start(s, interop)
    # Phase A: node opens and scans what lance-cpp wrote.
    filters = _filters(s)
    s.filters["A"] = filters
    s.node_results["A"] = node.run_ok(_node_read_jobs(s, "A", filters))
    s.node_results["A_version"] = s.version
    # pylance appends and deletes.
    b = s.new_rows(60)
    ds = lance.write_dataset(b, str(s.uri), mode="append", data_storage_version="2.0",
                             max_rows_per_file=40)
    s.record(ds.version, "pylance append")
    pred, fn = s.delete_plan()
    s.apply_delete(fn)
    ds = lance.dataset(str(s.uri))
    ds.delete(pred)
    s.record(ds.version, "pylance delete")
    # Phase B: node adds and deletes (when it can decode the data), then scans.
    jobs, live_after = [], []
    if s.spec.node_decodes:
        b = s.new_rows(40)
        jobs.append({"op": "add", "uri": s.uri, "ipc": write_ipc(b, s.scratch / "node-add.arrow")})
        live_after.append(s.live)
    pred, fn = s.delete_plan()
    s.apply_delete(fn)
    jobs.append({"op": "delete", "uri": s.uri, "predicate": pred})
    live_after.append(s.live)
    results = node.run_ok(jobs + _node_read_jobs(s, "B", []))
    for job, version, live in zip(jobs, results, live_after):
        s.live = live
        s.record(version, f"node {job['op']}")
    s.node_results["B"] = results[len(jobs):]
    s.node_results["B_version"] = s.version
    # lance-cpp appends and deletes on top of real Lance's commits.
    b = s.new_rows(30)
    s.record(interop.write(b, s.uri, "append"), "lance-cpp append")
    pred, fn = s.null_delete_plan()
    s.apply_delete(fn)
    s.record(interop.delete(s.uri, pred), "lance-cpp delete")
    # Phase C: node reads the final version.
    filters = _filters(s)
    s.filters["C"] = filters
    s.node_results["C"] = node.run_ok(_node_read_jobs(s, "C", filters))
    s.node_results["C_version"] = s.version


@pytest.fixture(scope="module", params=SPECS, ids=[sp.name for sp in SPECS])
def scenario(request, session_dir, interop, node) -> Scenario:
    spec = request.param
    root = session_dir / "cpp-written"
    root.mkdir(exist_ok=True)
    scratch = root / f"{spec.name}-scratch"
    scratch.mkdir()
    data = datagen.random_dataset(spec.seed, spec.profile, num_columns=10, cover=spec.cover)
    s = Scenario(spec=spec, uri=root / f"{spec.name}.lance", scratch=scratch, data=data,
                 rng=random.Random(spec.seed))
    run_timeline(s, interop, node)
    return s


# --- the checks ------------------------------------------------------------------------


def test_layout(scenario):
    """Format 2.0, the asked manifest names on every version, distinct fragment ids."""
    names = lance_manifest_names(scenario.uri)
    assert len(names) == scenario.version
    if scenario.spec.v2_names:
        assert all(len(n) == len("18446744073709551614.manifest") for n in names), names
    else:
        assert names == sorted(f"{v}.manifest" for v in range(1, scenario.version + 1))
    for version, writer in scenario.writer_of.items():
        if not writer.startswith("lance-cpp"):
            continue
        ds = lance.dataset(str(scenario.uri), version=version)
        assert ds.data_storage_version == "2.0", f"v{version} ({writer})"
        fragments = ds.get_fragments()
        assert len({f.fragment_id for f in fragments}) == len(fragments)
        for f in fragments:
            for data_file in f.metadata.files:
                assert (data_file.file_major_version, data_file.file_minor_version) == (2, 0)


def test_versions_agree(scenario, interop):
    want = list(range(1, scenario.version + 1))
    assert [v["version"] for v in interop.versions(scenario.uri)] == want
    assert_versions_match_pylance(interop, scenario.uri)


def test_pylance_reads_every_version(scenario):
    for version, expected in scenario.expected.items():
        ds = lance.dataset(str(scenario.uri), version=version)
        what = f"pylance v{version} after {scenario.writer_of[version]}"
        assert ds.count_rows() == expected.num_rows, what
        assert_tables_equal(ds.to_table(), expected, what=what)


def test_cpp_reads_every_version(scenario, interop):
    for version, expected in scenario.expected.items():
        what = f"lance-cpp v{version} after {scenario.writer_of[version]}"
        assert interop.count(scenario.uri, version=version) == expected.num_rows, what
        got = interop.read(scenario.uri, version=version, with_row_id=True)
        assert_tables_equal(got.drop_columns(["_rowid"]), expected, what=what)
        want = lance.dataset(str(scenario.uri), version=version).to_table(with_row_id=True)
        assert_tables_equal(got, want, key="_rowid", what=what + " (row ids vs pylance)")


def test_filters_agree(scenario, interop):
    for phase in ("A", "C"):
        version = scenario.node_results[f"{phase}_version"]
        ds = lance.dataset(str(scenario.uri), version=version)
        for predicate, matches in scenario.filters[phase]:
            want = expected_count(scenario.expected[version], matches)
            assert ds.count_rows(filter=predicate) == want, f"pylance v{version}: {predicate}"
            assert interop.count(scenario.uri, filter=predicate, version=version) == want, \
                f"lance-cpp v{version}: {predicate}"
            got = interop.read(scenario.uri, version=version, filter=predicate)
            assert_tables_equal(got, ds.to_table(filter=predicate),
                                what=f"lance-cpp v{version} where {predicate}")


@pytest.mark.parametrize("phase", ["A", "B", "C"])
def test_node_reads(scenario, interop, phase):
    version = scenario.node_results[f"{phase}_version"]
    expected = scenario.expected[version]
    results = scenario.node_results[phase]
    count, node_version = results[0], results[1]
    what = f"node phase {phase} (v{version})"
    assert node_version == version, what
    assert count == expected.num_rows, what
    filters = scenario.filters.get(phase, [])
    for (predicate, matches), got in zip(filters, results[2:2 + len(filters)]):
        assert got == expected_count(expected, matches), f"{what}: count where {predicate}"
    if not scenario.spec.node_decodes:
        return
    node_table = read_ipc(scenario.scratch / f"node-{phase}.arrow")
    assert_tables_equal(node_table.drop_columns(["_rowid"]), expected, what=what)
    cpp = interop.read(scenario.uri, version=version, with_row_id=True)
    assert_tables_equal(cpp, node_table, key="_rowid", what=what + " (row ids vs lance-cpp)")
