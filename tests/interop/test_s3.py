# SPDX-License-Identifier: Apache-2.0
"""Interop on S3 (the Ceph RGW that scripts/run_tests.sh starts): real Lance and lance-cpp
exchange datasets stored at s3://<bucket>/<unique prefix>/, configured only through
Lance's storage options.

  1. real Lance (LanceDB-node, tools/oracle/s3_oracle.cjs) creates, adds and deletes;
     lance-cpp (lance-interop --storage-option ...) reads every version equal;
  2. lance-cpp creates, appends and deletes; real Lance reads it equal, appends and
     deletes; lance-cpp reads the result equal and commits again, which real Lance reads;
  3. the same both ways with pylance (`storage_options=`), and a distributed write
     (lance-cpp write-fragments, pylance commit);
  4. lance-interop with the AWS_* environment instead of options, and with a wrong
     secret (a clear error that does not contain it).

The S3 coordinates come from LANCE_S3_*; without them the tests fail (never skip).
"""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import lance
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import datagen
from node_jobs import NodeJobs
from s3_env import S3Env
from conftest import (ORACLE_DIR, Interop, InteropError, assert_tables_equal, read_ipc,
                      write_ipc)

S3_ORACLE = ORACLE_DIR / "s3_oracle.cjs"
# apache-arrow (JS) decodes no large_list.
NODE_PROFILE = datagen.TypeProfile().without("large_list")


class S3(S3Env):
    """The test server (s3_env.py), with dataset URIs under the run prefix."""

    def __init__(self) -> None:
        super().__init__("interop-s3", "the S3 interop tests")

    def uri(self, name: str) -> str:
        return f"s3://{self.bucket}/{self.run_prefix}/{uuid.uuid4().hex[:8]}/{name}.lance"

    def keys(self, uri: str) -> List[str]:
        """Object keys under a dataset (relative to it)."""
        from pyarrow import fs
        base = uri[len("s3://"):]
        infos = self.filesystem().get_file_info(fs.FileSelector(base, recursive=True,
                                                                allow_not_found=True))
        return sorted(i.path[len(base) + 1:] for i in infos if i.type == fs.FileType.File)


@pytest.fixture(scope="module")
def s3():
    env = S3()
    yield env
    env.cleanup()


class S3Interop(Interop):
    """lance-interop with the S3 storage options on every command. Errors are scrubbed of
    the secret (it is on the command line)."""

    def __init__(self, base: Interop, s3: S3, options: Optional[Dict[str, str]] = None):
        super().__init__(base.binary, base.scratch)
        self.s3 = s3
        self.options = s3.storage_options if options is None else options

    def run(self, *args: Any, check: bool = True) -> subprocess.CompletedProcess:
        extra: List[Any] = []
        for key, value in self.options.items():
            extra += ["--storage-option", f"{key}={value}"]
        try:
            return super().run(*args, *extra, check=check)
        except InteropError as e:
            raise InteropError(self.s3.scrub(str(e))) from None


@pytest.fixture(scope="module")
def s3_interop(interop, s3) -> S3Interop:
    return S3Interop(interop, s3)


class NodeS3(NodeJobs):
    """Runs batches of jobs through tools/oracle/s3_oracle.cjs (see that script); the
    credentials reach it through the environment (LANCE_S3_*), not the jobs file."""

    def __init__(self, scratch: Path, s3: S3):
        super().__init__(S3_ORACLE, scratch, "s3", scrub=s3.scrub)
        self.s3 = s3


@pytest.fixture(scope="module")
def node_s3(node, session_dir, s3) -> NodeS3:  # `node` checks node + node_modules exist
    scratch = session_dir / "node-s3-scratch"
    scratch.mkdir(exist_ok=True)
    return NodeS3(scratch, s3)


@pytest.fixture(scope="module")
def scratch(session_dir) -> Path:
    d = session_dir / "s3-scratch"
    d.mkdir(exist_ok=True)
    return d


# --- a model of the live rows ------------------------------------------------------------


class Model:
    """The live rows after every version (the reference all readers must match)."""

    def __init__(self, data: datagen.RandomDataset):
        self.data = data
        self.live: Optional[pa.Table] = None
        self.by_version: Dict[int, pa.Table] = {}
        self.next_rid = 0

    def rows(self, n: int) -> pa.Table:
        batch = self.data.batch(self.next_rid, n)
        self.next_rid += n
        return batch

    def add(self, batch: pa.Table) -> None:
        self.live = batch if self.live is None else pa.concat_tables([self.live, batch])

    def delete(self, matches: Callable[[pa.Table], pa.Array]) -> None:
        self.live = self.live.filter(pc.invert(matches(self.live)))

    def commit(self, version: int, who: str) -> None:
        latest = max(self.by_version) if self.by_version else 0
        assert version == latest + 1, f"{who} committed v{version} after v{latest}"
        self.by_version[version] = self.live


def rid_in_or_range(values: List[int], lo: int, hi: int):
    predicate = f"rid IN ({', '.join(map(str, values))}) OR (rid >= {lo} AND rid < {hi})"

    def matches(t: pa.Table) -> pa.Array:
        rid = t.column("rid")
        return pc.or_(pc.is_in(rid, value_set=pa.array(values, pa.int64())),
                      pc.and_(pc.greater_equal(rid, lo), pc.less(rid, hi)))
    return predicate, matches


def count_where(table: pa.Table, matches) -> int:
    return pc.sum(pc.cast(matches(table), pa.int64())).as_py() or 0


def assert_manifests(s3: S3, uri: str, versions: int, v2_names: bool) -> None:
    """One manifest object per version, named as asked."""
    names = [k.split("/", 1)[1] for k in s3.keys(uri) if k.startswith("_versions/")
             and k.endswith(".manifest")]
    assert len(names) == versions, names
    if v2_names:
        assert all(len(n) == len("18446744073709551614.manifest") for n in names), names
    else:
        assert sorted(names) == sorted(f"{v}.manifest" for v in range(1, versions + 1))


# --- 1. real Lance writes, lance-cpp reads -----------------------------------------------


@pytest.mark.parametrize("v2_names", [True, False], ids=["v2names", "v1names"])
def test_node_writes_on_s3_lance_cpp_reads(s3, s3_interop, node_s3, scratch, v2_names):
    data = datagen.random_dataset(
        701 + int(v2_names), NODE_PROFILE, num_columns=10,
        cover=("struct", "list", "fixed_size_list", "utf8", "float64", "timestamp", "bool",
               "binary", "int32", "date32"))
    m = Model(data)
    uri = s3.uri(f"node-{'v2' if v2_names else 'v1'}")
    tag = Path(uri).parent.name
    b1, b2 = m.rows(200), m.rows(150)
    jobs = [{"op": "create", "uri": uri, "v2_names": v2_names, "storage_version": "2.0",
             "ipc": [write_ipc(b1, scratch / f"{tag}-1.arrow"),
                     write_ipc(b2, scratch / f"{tag}-2.arrow")]}]
    m.add(b1)
    pred, fn = rid_in_or_range([3, 250, 349], 50, 120)
    jobs.append({"op": "delete", "uri": uri, "predicate": pred})
    b3 = m.rows(100)
    jobs.append({"op": "add", "uri": uri, "ipc": write_ipc(b3, scratch / f"{tag}-3.arrow")})
    node_read = scratch / f"{tag}-node-read.arrow"
    jobs.append({"op": "read", "uri": uri, "out": node_read, "with_row_id": True})
    jobs.append({"op": "versions", "uri": uri})
    versions = node_s3.run_ok(jobs)
    assert versions[0] == 2, "create + add of a second fragment"
    m.commit(1, "node create")
    m.add(b2)
    m.commit(2, "node add")
    m.delete(fn)
    m.commit(3, "node delete")
    m.add(b3)
    m.commit(4, "node add")
    assert [v["version"] for v in versions[-1]] == [1, 2, 3, 4]
    assert_manifests(s3, uri, 4, v2_names)
    assert any(k.startswith("_deletions/") for k in s3.keys(uri)), "node wrote no deletion file"

    info = s3_interop.info(uri)
    assert info["version"] == 4
    assert info["data_storage_version"] == "2.0"
    assert len(info["fragments"]) == 3
    for version in range(1, 5):
        got = s3_interop.read(uri, version=version)
        assert_tables_equal(got, m.by_version[version], what=f"{uri} v{version}")
        assert s3_interop.count(uri, version=version) == m.by_version[version].num_rows
    # Row ids agree with real Lance's own reading.
    assert_tables_equal(s3_interop.read(uri, with_row_id=True), read_ipc(node_read),
                        key="_rowid", what=f"{uri} vs node")
    # A filter and a projection, evaluated on data read from S3.
    live = m.by_version[4]
    where = "rid >= 100 AND rid < 400"
    got = s3_interop.read(uri, columns=["c1", "rid"], filter=where)
    want = live.filter(pc.and_(pc.greater_equal(live.column("rid"), 100),
                               pc.less(live.column("rid"), 400))).select(["c1", "rid"])
    assert_tables_equal(got, want, what=f"{uri} where {where}")
    assert s3_interop.count(uri, filter=where) == want.num_rows
    assert [v["version"] for v in s3_interop.versions(uri)] == [1, 2, 3, 4]


# --- 2. lance-cpp writes, real Lance reads / appends / deletes, lance-cpp reads ----------


def test_lance_cpp_writes_on_s3_node_appends_and_deletes(s3, s3_interop, node_s3, scratch):
    data = datagen.random_dataset(
        711, NODE_PROFILE, num_columns=10,
        cover=("struct", "list", "fixed_size_list", "large_utf8", "uint64", "float32",
               "fixed_size_binary", "int16", "large_binary", "float16"))
    m = Model(data)
    uri = s3.uri("cpp")
    tag = Path(uri).parent.name

    b = m.rows(250)
    m.add(b)
    m.commit(s3_interop.write(b, uri, "create", max_rows_per_file=100), "lance-cpp create")
    b = m.rows(120)
    m.add(b)
    m.commit(s3_interop.write(b, uri, "append"), "lance-cpp append")
    pred, fn = rid_in_or_range([0, 7, 260, 369], 100, 200)  # all of fragment 1
    m.delete(fn)
    m.commit(s3_interop.delete(uri, pred), "lance-cpp delete")
    assert_manifests(s3, uri, 3, v2_names=True)

    # Real Lance reads it, appends and deletes across both writers' fragments.
    node_v3 = scratch / f"{tag}-node-v3.arrow"
    b4 = m.rows(80)
    pred5, fn5 = rid_in_or_range([1, 201, m.next_rid - 1], 300, 330)
    filt = "rid >= 50 AND rid < 300"
    out = node_s3.run_ok([
        {"op": "count", "uri": uri},
        {"op": "count", "uri": uri, "filter": filt},
        {"op": "read", "uri": uri, "out": node_v3, "with_row_id": True},
        {"op": "add", "uri": uri, "ipc": write_ipc(b4, scratch / f"{tag}-4.arrow")},
        {"op": "delete", "uri": uri, "predicate": pred5},
        {"op": "version", "uri": uri},
    ])
    live3 = m.by_version[3]
    f = lambda t: pc.and_(pc.greater_equal(t.column("rid"), 50), pc.less(t.column("rid"), 300))
    assert out[0] == live3.num_rows
    assert out[1] == count_where(live3, f)
    assert_tables_equal(read_ipc(node_v3).drop_columns(["_rowid"]), live3, what="node reading v3")
    assert_tables_equal(s3_interop.read(uri, version=3, with_row_id=True), read_ipc(node_v3),
                        key="_rowid", what="row ids v3")
    assert out[3:] == [4, 5, 5]
    m.add(b4)
    m.commit(4, "node add")
    m.delete(fn5)
    m.commit(5, "node delete")

    # lance-cpp reads real Lance's commits equal, row counts and content.
    for version in (4, 5):
        assert s3_interop.count(uri, version=version) == m.by_version[version].num_rows
        assert_tables_equal(s3_interop.read(uri, version=version), m.by_version[version],
                            what=f"lance-cpp reading node's v{version}")
    assert s3_interop.count(uri, filter=filt) == count_where(m.by_version[5], f)

    # ... and commits on top of them, which real Lance reads back equal.
    b6 = m.rows(30)
    m.add(b6)
    m.commit(s3_interop.write(b6, uri, "append"), "lance-cpp append")
    pred7, fn7 = rid_in_or_range([2, m.next_rid - 2], 360, 380)  # node's fragment too
    m.delete(fn7)
    m.commit(s3_interop.delete(uri, pred7), "lance-cpp delete")
    node_final = scratch / f"{tag}-node-final.arrow"
    out = node_s3.run_ok([{"op": "count", "uri": uri},
                          {"op": "read", "uri": uri, "out": node_final},
                          {"op": "versions", "uri": uri}])
    assert out[0] == m.by_version[7].num_rows
    assert_tables_equal(read_ipc(node_final), m.by_version[7], what="node reading v7")
    assert [v["version"] for v in out[2]] == list(range(1, 8))
    assert_manifests(s3, uri, 7, v2_names=True)


# --- 3. pylance as the second oracle -----------------------------------------------------


def test_pylance_and_lance_cpp_on_s3_both_ways(s3, s3_interop):
    data = datagen.random_dataset(721, datagen.TypeProfile(), num_columns=8,
                                  cover=("large_list", "struct", "list", "utf8", "int64"))
    so = s3.storage_options

    # pylance writes (format 2.0), deletes and appends; lance-cpp reads every version.
    m = Model(data)
    uri = s3.uri("pylance")
    b = m.rows(300)
    m.add(b)
    lance.write_dataset(b, uri, storage_options=so, data_storage_version="2.0",
                        max_rows_per_file=120)
    m.commit(1, "pylance create")
    pred, fn = rid_in_or_range([5, 125], 130, 240)
    lance.dataset(uri, storage_options=so).delete(pred)
    m.delete(fn)
    m.commit(2, "pylance delete")
    b = m.rows(90)
    m.add(b)
    lance.write_dataset(b, uri, mode="append", storage_options=so)
    m.commit(3, "pylance append")
    for version in (1, 2, 3):
        assert_tables_equal(s3_interop.read(uri, version=version), m.by_version[version],
                            what=f"lance-cpp reading pylance's v{version}")
    want = lance.dataset(uri, storage_options=so).to_table(with_row_id=True)
    assert_tables_equal(s3_interop.read(uri, with_row_id=True), want, key="_rowid")

    # lance-cpp appends and deletes on it; pylance reads the result.
    b = m.rows(40)
    m.add(b)
    m.commit(s3_interop.write(b, uri, "append"), "lance-cpp append")
    pred, fn = rid_in_or_range([0, m.next_rid - 1], 280, 310)
    m.delete(fn)
    m.commit(s3_interop.delete(uri, pred), "lance-cpp delete")
    ds = lance.dataset(uri, storage_options=so)
    assert ds.version == 5
    assert ds.count_rows() == m.by_version[5].num_rows
    assert_tables_equal(ds.to_table(), m.by_version[5], what="pylance reading lance-cpp's v5")

    # Distributed: lance-cpp workers write fragments to S3, pylance commits them.
    m2 = Model(data)
    uri2 = s3.uri("distributed")
    fragments = []
    for _ in range(2):
        b = m2.rows(70)
        m2.add(b)
        fragments += s3_interop.write_fragments(b, uri2, max_rows_per_file=50, mode="create")
    assert len(fragments) == 4
    ops = lance.LanceOperation.Overwrite(
        data.schema, [lance.FragmentMetadata.from_json(json.dumps(f)) for f in fragments])
    ds2 = lance.LanceDataset.commit(uri2, ops, storage_options=so)
    assert ds2.version == 1
    assert_tables_equal(ds2.to_table(), m2.live, what="pylance commit of lance-cpp fragments")
    assert_tables_equal(s3_interop.read(uri2), m2.live, what="lance-cpp reading it")


# --- 4. configuration and credentials ----------------------------------------------------


def test_aws_environment_fallback_and_wrong_secret(s3, interop, s3_interop, monkeypatch):
    data = datagen.random_dataset(731, datagen.TypeProfile(), num_columns=4)
    uri = s3.uri("env")
    table = data.batch(0, 50)
    assert s3_interop.write(table, uri, "create") == 1

    # No --storage-option at all: AWS_* from the environment, as in Lance.
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", s3.access_key)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", s3.secret_key)
    monkeypatch.setenv("AWS_ENDPOINT", s3.endpoint)
    monkeypatch.setenv("AWS_REGION", s3.region)
    monkeypatch.setenv("AWS_ALLOW_HTTP", "true")
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    assert_tables_equal(interop.read(uri), table, what="AWS_* environment")
    for var in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_ENDPOINT", "AWS_REGION",
                "AWS_ALLOW_HTTP"):
        monkeypatch.delenv(var)

    # The "--storage-option=KEY=VALUE" spelling works too.
    proc = interop.run("count", uri, *[f"--storage-option={k}={v}"
                                       for k, v in s3.storage_options.items()], check=False)
    assert (proc.returncode, proc.stdout.strip()) == (0, "50"), s3.scrub(proc.stderr)

    # A wrong secret: exit status 1, the S3 error named, no secret printed.
    wrong = "WrongSecretMustNotBePrinted0123456789abcd"
    bad = S3Interop(interop, s3, {**s3.storage_options, "aws_secret_access_key": wrong})
    proc = bad.run("count", uri, check=False)
    assert proc.returncode == 1, proc.stderr
    # RGW with STS on says 403 AccessDenied (AWS: SignatureDoesNotMatch).
    assert "HTTP 403" in proc.stderr, proc.stderr
    assert wrong not in proc.stderr + proc.stdout
    assert s3.secret_key not in proc.stderr + proc.stdout

    # A malformed option is a usage-level error naming the key, not a crash.
    proc = S3Interop(interop, s3, {**s3.storage_options, "client_max_retries": "lots"}).run(
        "count", uri, check=False)
    assert proc.returncode == 1 and "client_max_retries" in proc.stderr, proc.stderr
    proc = interop.run("count", uri, "--storage-option", "no-equals-sign", check=False)
    assert proc.returncode == 2 and "KEY=VALUE" in proc.stderr, proc.stderr
