# SPDX-License-Identifier: Apache-2.0
"""Reading file formats 2.1 and 2.2 written by real Lance: the matrix of matrix_gen.py
(pylance 14.0.2 at "2.1" and "2.2", LanceDB-node 0.31.0 = Lance 8.0.0 at its default 2.1,
maps at 2.2), generated once per session.

For every dataset, lance_cpp must give exactly what pylance gives (v2x_common.table_diff:
schema with metadata, row order, every value bit for bit; chunking, buffers under null
slots and dictionary contents may differ):

  * opening: versions, storage version, schema, row counts, fragments;
  * to_table() of every version (version 1 has no deletions);
  * projections: reversed, a random subset, each column alone; nested fields ("s.a");
  * filters on an int and on a string column: to_table(filter=), count_rows(filter);
  * LanceDataset.take with random, unsorted, repeated indices (all and some columns);
  * LanceFragment.take per fragment (sorted indices with repeats: pylance 14 refuses
    unsorted ones, "Requested row indices are not strictly increasing");
  * the lance-cpp CLI: `scan --format jsonl` and `take --rows ... --format jsonl` of one
    dataset equal the same CLI on the same data written in format 2.0.

test_matrix_coverage checks the generator (pylance only): deletion file kinds, pages,
hints that took effect, LanceDB-node's default version and data.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any, Dict, List

import lance
import numpy as np
import pyarrow as pa
import pytest

import matrix_gen
from v2x_common import (SEED, assert_same, checked, cpp_bin, cpp_module, dataset_ids,
                        matrix, skip_in_selftest, specs, table_diff)

DATASETS = dataset_ids()


@pytest.fixture(scope="session")
def mx(tmp_path_factory) -> Dict[str, Any]:
    return matrix(tmp_path_factory)


@pytest.fixture(scope="session")
def cpp():
    return cpp_module()


def _entry(mx, ds_id):
    d = mx["datasets"][ds_id]
    return d, specs()[d["spec"]], d["uri"]


def _open(mx, cpp, ds_id):
    """_entry's (entry, spec, uri) and the dataset opened by pylance and by lance_cpp."""
    d, spec, uri = _entry(mx, ds_id)
    return d, spec, uri, lance.dataset(uri), checked(f"{ds_id}: dataset()", cpp.dataset, uri)


def _rng(ds_id: str, salt: str) -> np.random.Generator:
    return np.random.default_rng([SEED, sum(map(ord, ds_id + salt))])


def _frag_id(f) -> int:
    return f.fragment_id if hasattr(f, "fragment_id") else f.id


def _frag_summary(f) -> Dict[str, Any]:
    meta = f.metadata if hasattr(f, "metadata") else f
    d = meta.deletion_file
    return {"id": _frag_id(f), "physical_rows": meta.physical_rows,
            "files": [(df.path, df.file_major_version, df.file_minor_version)
                      for df in (meta.files if not callable(meta.files) else meta.files())],
            "deletion": None if d is None else (d.num_deleted_rows,)}


# -- opening ------------------------------------------------------------------------------


@pytest.mark.parametrize("ds_id", DATASETS)
def test_open_and_describe(mx, cpp, ds_id):
    d, spec, uri, theirs, ours = _open(mx, cpp, ds_id)
    assert ours.version == theirs.version
    assert ours.latest_version == theirs.latest_version
    assert ours.data_storage_version == theirs.data_storage_version == d["data_storage_version"]
    assert ours.schema.equals(theirs.schema, check_metadata=True), \
        f"schema:\n{ours.schema}\n--- pylance:\n{theirs.schema}"
    assert ours.count_rows() == theirs.count_rows() == d["num_rows"]
    assert [_frag_summary(f) for f in ours.get_fragments()] == \
        [_frag_summary(f) for f in theirs.get_fragments()]
    assert [v["version"] for v in ours.versions()] == [v["version"] for v in theirs.versions()]


# -- full scans ---------------------------------------------------------------------------


@pytest.mark.parametrize("ds_id", DATASETS)
def test_scan_every_version(mx, cpp, ds_id):
    d, spec, uri = _entry(mx, ds_id)
    for version in range(1, d["version"] + 1):
        want = lance.dataset(uri, version=version).to_table()
        got = checked(f"{ds_id} v{version}: to_table()",
                      lambda: cpp.dataset(uri, version=version).to_table())
        assert_same(got, want, f"{ds_id} version {version}")


# -- projections --------------------------------------------------------------------------


def _struct_paths(schema: pa.Schema) -> List[str]:
    """Dotted paths to the leaves of top-level structs (pylance projects them as flat
    columns named by the path). Not into packed structs: pylance 14.0.2 fails projecting
    any child but the first of one ("Need at least 59080 bytes in buffers[0] in array of
    type Float64, but got 29540", "Expected 2 buffers in array of type Utf8, got 1")."""
    paths = []

    def walk(prefix, t):
        for i in range(t.num_fields):
            f = t.field(i)
            if pa.types.is_struct(f.type):
                walk(f"{prefix}.{f.name}", f.type)
            else:
                paths.append(f"{prefix}.{f.name}")

    for f in schema:
        if pa.types.is_struct(f.type) and \
                (f.metadata or {}).get(matrix_gen.PACKED.encode()) != b"true":
            walk(f.name, f.type)
    return paths


@pytest.mark.parametrize("ds_id", DATASETS)
def test_projections(mx, cpp, ds_id):
    d, spec, uri, theirs, ours = _open(mx, cpp, ds_id)
    names = theirs.schema.names
    rng = _rng(ds_id, "projection")
    projections = [list(reversed(names)),
                   [names[i] for i in rng.permutation(len(names))[:4]]]
    projections += [[n] for n in names]
    _check_projections(ds_id, theirs, ours, projections)


def _check_projections(ds_id, theirs, ours, projections) -> None:
    """Every projection, failures collected (the message lists which columns fail)."""
    failures = []
    for cols in projections:
        want = theirs.to_table(columns=cols)
        try:
            got = ours.to_table(columns=cols)
        except Exception as e:
            failures.append(f"columns={cols}: {type(e).__name__}: {str(e)[:300]}")
            continue
        failures += [f"columns={cols}: {p}" for p in table_diff(got, want)]
    assert not failures, f"{ds_id}: {len(failures)} of {len(projections)} projections " \
                         "differ from pylance:\n  " + "\n  ".join(failures[:40])


STRUCT_DATASETS = [i for i in DATASETS
                   if _struct_paths(specs()[i.split("/")[1]].table.schema)]


@pytest.mark.parametrize("ds_id", STRUCT_DATASETS)
def test_nested_field_projection(mx, cpp, ds_id):
    """columns=["s.a"]: pylance gives the struct's child as a top-level column named by
    its path (every struct leaf, alone and next to rid)."""
    d, spec, uri, theirs, ours = _open(mx, cpp, ds_id)
    paths = _struct_paths(theirs.schema)
    _check_projections(ds_id, theirs, ours, [[p] for p in paths] + [["rid", p] for p in paths])


# -- filters ------------------------------------------------------------------------------


# pylance 14.0.2's late materialization fails on a packed struct with a string child
# ("Expected 2 buffers in array of type Utf8, got 1"), whatever the filter: filtered scans
# are asked for without it (same rows, another code path; lance_cpp ignores the option).
NO_LATE = {"late_materialization": False}


@pytest.mark.parametrize("ds_id", DATASETS)
def test_filters(mx, cpp, ds_id):
    d, spec, uri, theirs, ours = _open(mx, cpp, ds_id)
    names = theirs.schema.names
    both = f"({spec.int_filter}) AND ({spec.str_filter})"
    for flt in (spec.int_filter, spec.str_filter, both):
        want_n = theirs.count_rows(filter=flt)
        got_n = checked(f"{ds_id}: count_rows({flt!r})", ours.count_rows, filter=flt)
        assert got_n == want_n, f"{ds_id}: count_rows({flt!r})"
        want = theirs.to_table(filter=flt, **NO_LATE)
        got = checked(f"{ds_id}: to_table(filter={flt!r})", ours.to_table, filter=flt,
                      **NO_LATE)
        assert_same(got, want, f"{ds_id} filter {flt!r}")
        cols = [names[-1], "rid"]
        assert_same(checked(f"{ds_id}: to_table({cols}, filter={flt!r})", ours.to_table,
                            columns=cols, filter=flt, **NO_LATE),
                    theirs.to_table(columns=cols, filter=flt, **NO_LATE),
                    f"{ds_id} {cols} filter {flt!r}")
    if d["num_rows"]:
        assert 0 < theirs.count_rows(filter=spec.int_filter) < d["num_rows"], \
            f"{ds_id}: the int filter should select some rows, not all"


# -- take ---------------------------------------------------------------------------------


def _take_indices(rng: np.random.Generator, n: int, k: int) -> List[int]:
    """k random offsets in [0, n), unsorted, with repeats (the last few repeat earlier ones
    and the first and last row are in)."""
    if n == 0:
        return []
    picks = rng.integers(0, n, size=k).tolist() + [0, n - 1]
    picks += picks[: max(2, k // 10)]
    rng.shuffle(picks)
    return picks


@pytest.mark.parametrize("ds_id", DATASETS)
def test_take(mx, cpp, ds_id):
    d, spec, uri, theirs, ours = _open(mx, cpp, ds_id)
    indices = _take_indices(_rng(ds_id, "take"), d["num_rows"], 150)
    names = theirs.schema.names
    for cols in (None, [names[-1], "rid"]):
        want = theirs.take(indices, columns=cols)
        got = checked(f"{ds_id}: take({len(indices)} indices, columns={cols})", ours.take,
                      indices, columns=cols)
        assert_same(got, want, f"{ds_id} take columns={cols}")
    # An Arrow array of indices works as a list does.
    assert_same(checked(f"{ds_id}: take(pa.array)", ours.take,
                        pa.array(indices, pa.uint64())),
                theirs.take(pa.array(indices, pa.uint64())), f"{ds_id} take(pa.array)")


@pytest.mark.parametrize("ds_id", DATASETS)
def test_fragment_take(mx, cpp, ds_id):
    d, spec, uri, theirs, ours = _open(mx, cpp, ds_id)
    ours_frags = checked(f"{ds_id}: get_fragments()", ours.get_fragments)
    their_frags = theirs.get_fragments()
    assert [_frag_id(f) for f in ours_frags] == [f.fragment_id for f in their_frags]
    rng = _rng(ds_id, "fragment")
    names = theirs.schema.names
    for mine, frag in zip(ours_frags, their_frags):
        n = frag.count_rows()
        # Offsets among the fragment's live rows, sorted, with repeats.
        indices = sorted(rng.integers(0, n, size=min(40, n)).tolist() + [0, n - 1] * 2)
        for cols in (None, ["rid", names[-1]]):
            want = frag.take(indices, columns=cols)
            got = checked(f"{ds_id}: fragment {frag.fragment_id} take(columns={cols})",
                          mine.take, indices, columns=cols)
            assert_same(got, want, f"{ds_id} fragment {frag.fragment_id} take columns={cols}")


# -- the lance-cpp CLI --------------------------------------------------------------------

# Columns the CLI tests compare: string/binary kinds of the strings spec (not the
# dictionary one: this is about the CLI, not about types).
CLI_SPEC = "strings"
CLI_COLUMNS = ["rid", "tag", "str_low", "str_high", "lstr_high", "str_unicode", "str_empty",
               "str_all_null", "bin_high", "lbin_low"]
CLI_ROWS = [0, 1, 5, 9, 200, 4321, 27271]


def _cli(*args) -> List[str]:
    binary = cpp_bin()
    assert binary.exists(), f"lance-cpp not found at {binary} (ninja lance-cpp, or set " \
                            "LANCE_CPP_BIN)"
    cmd = [str(binary)] + [str(a) for a in args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed ({proc.returncode}): " \
                                 f"{proc.stderr.strip()[:1500]}"
    return proc.stdout.splitlines()


@pytest.fixture(scope="session")
def cli_reference(mx) -> Dict[str, Any]:
    """The CLI spec written again by pylance in format 2.0 (which lance-cpp reads) with the
    same fragments and deletes: `lance-cpp scan` of it is the expected output."""
    spec = specs()[CLI_SPEC]
    uri = Path(mx["root"]) / "cli-reference-2.0" / f"{CLI_SPEC}.lance"
    if not uri.exists():
        # All but the dictionary column (the CLI output is compared, not the types).
        data = spec.table.drop_columns(["dict_str"])
        ds = lance.write_dataset(data, str(uri), data_storage_version="2.0",
                                 max_rows_per_file=spec.max_rows_per_file)
        for predicate in spec.deletes:
            ds.delete(predicate)
    lines = _cli("scan", uri, "--columns", ",".join(CLI_COLUMNS), "--format", "jsonl")
    assert len(lines) == lance.dataset(str(uri)).count_rows()
    return {"uri": uri, "lines": lines}


CLI_DATASETS = [i for i in DATASETS if i.endswith(f"/{CLI_SPEC}")]


@pytest.mark.parametrize("ds_id", CLI_DATASETS)
def test_cli_scan_jsonl(mx, cli_reference, ds_id):
    skip_in_selftest("runs the lance-cpp CLI")
    d, spec, uri = _entry(mx, ds_id)
    lines = _cli("scan", uri, "--columns", ",".join(CLI_COLUMNS), "--format", "jsonl")
    want = cli_reference["lines"]
    assert len(lines) == len(want), f"{len(lines)} lines != {len(want)}"
    for i, (a, b) in enumerate(zip(lines, want)):
        assert a == b, f"line {i}:\n{a[:500]}\n--- from the 2.0 copy:\n{b[:500]}"
    # Every line is one JSON object with the columns in order.
    assert list(json.loads(lines[1]).keys()) == CLI_COLUMNS


def _cli_take(uri) -> List[Dict[str, Any]]:
    """`lance-cpp take URI --rows ... --format jsonl`, each row cut to CLI_COLUMNS."""
    lines = _cli("take", uri, "--rows", ",".join(map(str, CLI_ROWS)), "--format", "jsonl")
    rows = [json.loads(line) for line in lines]
    for row in rows:
        assert set(CLI_COLUMNS) <= set(row), f"take printed {sorted(row)}"
    return [{k: row[k] for k in CLI_COLUMNS} for row in rows]


def test_cli_take_jsonl_format_2_0(cli_reference):
    """`take --rows` on the 2.0 copy: the rows `scan` prints at those offsets."""
    skip_in_selftest("runs the lance-cpp CLI")
    assert _cli_take(cli_reference["uri"]) == \
        [json.loads(cli_reference["lines"][i]) for i in CLI_ROWS]


@pytest.mark.parametrize("ds_id", CLI_DATASETS)
def test_cli_take_jsonl(mx, cli_reference, ds_id):
    skip_in_selftest("runs the lance-cpp CLI")
    d, spec, uri = _entry(mx, ds_id)
    assert _cli_take(uri) == [json.loads(cli_reference["lines"][i]) for i in CLI_ROWS]


# -- the generator itself (pylance and LanceDB-node only) -------------------------------------


def _leaf_columns(f: pa.Field) -> int:
    """File columns of a field in 2.1+: one per leaf, a packed struct is one."""
    t = f.type
    if pa.types.is_struct(t):
        if (f.metadata or {}).get(matrix_gen.PACKED.encode()) == b"true":
            return 1
        return sum(_leaf_columns(t.field(i)) for i in range(t.num_fields))
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_map(t):
        return _leaf_columns(t.value_field if not pa.types.is_map(t) else
                             pa.field("e", pa.struct([t.key_field, t.item_field])))
    if pa.types.is_fixed_size_list(t):
        return _leaf_columns(t.value_field)
    return 1


def _column_encodings(uri: str) -> Dict[str, List[str]]:
    """Top-level column -> Debug text of its pages' encodings, in every data file."""
    from lance.file import LanceFileReader

    ds = lance.dataset(uri)
    out: Dict[str, List[str]] = {f.name: [] for f in ds.schema}
    for frag in ds.get_fragments():
        for df in frag.metadata.files:
            meta = LanceFileReader(f"{uri}/data/{df.path}").metadata()
            pos = 0
            for f in ds.schema:
                k = _leaf_columns(f)
                for c in meta.columns[pos:pos + k]:
                    out[f.name] += [str(p.encoding) for p in c.pages]
                pos += k
            assert pos == len(meta.columns), f"{uri}: {len(meta.columns)} columns, {pos} leaves"
    return out


def _max_pages(uri: str) -> int:
    from lance.file import LanceFileReader

    ds = lance.dataset(uri)
    return max(len(c.pages) for frag in ds.get_fragments() for df in frag.metadata.files
               for c in LanceFileReader(f"{uri}/data/{df.path}").metadata().columns)


# Hinted column -> (text its pages' encodings must contain, text they must not).
HINT_EFFECTS = {
    "i64_zstd": ("CompressionAlgorithmZstd", None),
    "i32_lz4": ("CompressionAlgorithmLz4", None),
    "str_zstd": ("CompressionAlgorithmZstd", None),
    "str_lz4": ("CompressionAlgorithmLz4", None),
    "str_none": ("MiniBlockLayout", "General("),
    "str_fullzip": ("FullZipLayout", None),
    "i32_fullzip": ("FullZipLayout", None),
    "lbin_miniblock": ("MiniBlockLayout", "FullZipLayout"),
    "f32_bss_on": ("ByteStreamSplit", None),
    "f64_bss_off": ("CompressionAlgorithmLz4", "ByteStreamSplit"),
    "i32_rle": ("Rle(", None),
    "str_dict_forced": ("dictionary: Some", None),
    "str_dict_refused": (None, "dictionary: Some"),
    "struct_packed": ("PackedStruct", None),
    "struct_packed_nonull": ("PackedStruct", None),
    "struct_packed_var": ("PackedStruct", None),
    "str_zstd_lvl9": ("level: Some(\n                                                9", None),
}


def test_matrix_coverage(mx):
    """The matrix holds what it claims (so that a pylance upgrade cannot quietly thin it)."""
    ds = mx["datasets"]
    problems = []
    for ds_id, d in ds.items():
        versions = {f"{maj}.{minor}" for fr in d["fragments"] for _, maj, minor in fr["files"]}
        want = {d["data_storage_version"]}
        if ds_id == "pylance-2.1/mixed":
            want = {"2.1", "2.2"}
        if versions and versions != want:
            problems.append(f"{ds_id}: data files {versions}")
    # LanceDB-node 0.31.0 writes 2.1 by default; the maps were asked for 2.2.
    assert ds["node-2.1/primitives"]["data_storage_version"] == "2.1"
    assert ds["node-2.2/maps"]["data_storage_version"] == "2.2"
    for writer in ("pylance-2.1", "pylance-2.2", "node-2.1"):
        kinds = {Path(p).suffix for p in ds[f"{writer}/primitives"]["deletion_files"]}
        if kinds != {".arrow", ".bin"}:
            problems.append(f"{writer}/primitives: deletion files {kinds}")
        if {Path(p).suffix for p in ds[f"{writer}/pages"]["deletion_files"]} != {".bin"}:
            problems.append(f"{writer}/pages: no .bin deletion file")
        # The fragment the first delete covers is gone from the manifest.
        if [f["id"] for f in ds[f"{writer}/nested"]["fragments"]] != [0, 2]:
            problems.append(f"{writer}/nested: fragments {ds[f'{writer}/nested']['fragments']}")
    for version in matrix_gen.VERSIONS:
        for spec_name, least in (("pages", 10), ("vectors", 2), ("bigvalues", 2)):
            pages = _max_pages(ds[f"pylance-{version}/{spec_name}"]["uri"])
            if pages < least:
                problems.append(f"pylance-{version}/{spec_name}: at most {pages} pages/column")
    for ds_id in ("pylance-2.1/hints", "pylance-2.2/hints", "pylance-2.2/hints22"):
        encodings = _column_encodings(ds[ds_id]["uri"])
        for column, texts in encodings.items():
            if column not in HINT_EFFECTS:
                continue
            want, unwanted = HINT_EFFECTS[column]
            text = "\n".join(texts)
            if want and want not in text:
                problems.append(f"{ds_id}: {column}: no {want!r} in its encodings")
            if unwanted and unwanted in text:
                problems.append(f"{ds_id}: {column}: {unwanted!r} in its encodings")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("spec_name", [s.name for s in specs().values()
                                       if "node" in s.writers])
def test_node_wrote_the_matrix(mx, spec_name):
    """pylance reads LanceDB-node's dataset equal to pylance's own (same data, fragments
    and deletes), every version after the last add, less NODE_UNSUPPORTED columns."""
    spec = specs()[spec_name]
    version = spec.node_version or "2.1"
    node = mx["datasets"][f"node-{version}/{spec_name}"]
    mine = mx["datasets"][f"pylance-{version}/{spec_name}"]
    cols = matrix_gen.node_columns(spec)
    fragments = max(1, -(-spec.num_rows // spec.max_rows_per_file))
    for k in range(len(spec.deletes) + 1):
        got = lance.dataset(node["uri"], version=fragments + k).to_table()
        want = lance.dataset(mine["uri"], version=1 + k).to_table(columns=cols)
        problems = table_diff(got, want)
        assert not problems, f"node-{version}/{spec_name} (after {k} deletes):\n" + \
            "\n".join(problems)
