#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the seed corpus of the libFuzzer targets (tests/fuzz/corpus/<name>/).

Seeds come from real files: the fixtures of tests/data (written by Lance 8.0.0 / pylance
14), files pylance 14 and pyarrow write now (Lance files of every version, Arrow IPC
files and streams, FragmentMetadata JSON), and small real-shaped answers (S3 / RGW / STS
XML, namespace REST bodies). Several targets read a mode byte first (see
tests/fuzz/fuzz_entries.h); seeds carry it. The corpus is then minimised by
`scripts/fuzz.sh minimize DIR` (libFuzzer -merge=1) before being committed.

Usage: .venv/bin/python tests/fuzz/make_seeds.py   (needs pyarrow and pylance)
"""
import hashlib
import json
import os
import pathlib
import shutil
import tempfile

import pyarrow as pa
import pyarrow.ipc as ipc

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
OUT = ROOT / "tests" / "fuzz" / "corpus"
MAX_SEED = 96 * 1024


def put(target, data, prefix=b""):
    if isinstance(data, str):
        data = data.encode()
    data = prefix + data
    if len(data) > MAX_SEED:
        return
    d = OUT / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


def fixture_files(suffix):
    return sorted(p for p in DATA.rglob("*" + suffix) if p.is_file())


def sample_table():
    return pa.table({
        "i": pa.array([1, None, -3, 2**62], pa.int64()),
        "s": pa.array(["a", None, "", "long string " * 3]),
        "f": pa.array([1.5, float("nan"), None, -0.0], pa.float64()),
        "b": pa.array([True, False, None, True]),
        "l": pa.array([[1, 2], None, [], [3]], pa.list_(pa.int32())),
        "st": pa.array([{"x": 1, "y": "a"}, None, {"x": 3, "y": None}, {"x": 4, "y": "d"}]),
        "v": pa.array([[1.0, 2.0], [3.0, 4.0], None, [5.0, 6.0]], pa.list_(pa.float32(), 2)),
        "d": pa.array(["x", "y", "x", None]).dictionary_encode(),
        "ts": pa.array([0, 1, None, 3], pa.timestamp("us", "UTC")),
        "bin": pa.array([b"\x00\x01", None, b"", b"\xff"], pa.binary()),
    })


def lance_seeds():
    for p in fixture_files(".lance"):
        put("lance_file", p.read_bytes())
    import lance.file as lf
    t = sample_table().drop_columns(["d"])
    with tempfile.TemporaryDirectory() as tmp:
        for version in ["2.0", "2.1", "2.2"]:
            tables = [("all", t if version != "2.0" else t.drop_columns(["st"])),
                      ("ints", pa.table({"x": pa.array(range(300))})),
                      ("empty", t.slice(0, 0))]
            for name, table in tables:
                path = os.path.join(tmp, f"{name}_{version}.lance")
                with lf.LanceFileWriter(path, table.schema, version=version) as w:
                    w.write_batch(table)
                put("lance_file", pathlib.Path(path).read_bytes())


def ipc_seeds():
    for p in fixture_files(".arrow"):
        put("arrow_ipc", p.read_bytes(), b"\x00")
    tables = [sample_table(), pa.table({"row_id": pa.array([0, 5, 9], pa.uint32())}),
              sample_table().slice(0, 0)]
    for table in tables:
        for compression in [None, "zstd", "lz4"]:
            opts = ipc.IpcWriteOptions(compression=compression)
            sink = pa.BufferOutputStream()
            with ipc.new_file(sink, table.schema, options=opts) as w:
                w.write_table(table)
            put("arrow_ipc", sink.getvalue().to_pybytes(), b"\x00")
            sink = pa.BufferOutputStream()
            with ipc.new_stream(sink, table.schema, options=opts) as w:
                w.write_table(table, max_chunksize=2)
            put("arrow_ipc", sink.getvalue().to_pybytes(), b"\x01")


def table_seeds():
    for p in fixture_files(".manifest"):
        put("manifest", p.read_bytes())
    for p in fixture_files(".txn"):
        put("transaction", p.read_bytes())
    for p in fixture_files(".arrow"):
        if "_deletions" in p.parts:
            put("deletion", p.read_bytes(), b"\x00")
            put("deletion", p.read_bytes(), b"\x02")
    for p in fixture_files(".bin"):
        if "_deletions" in p.parts:
            put("deletion", p.read_bytes(), b"\x01")
            put("deletion", p.read_bytes(), b"\x03")
    # Datasets pylance writes now: deletions of both forms, more operations.
    import lance
    with tempfile.TemporaryDirectory() as tmp:
        uri = os.path.join(tmp, "ds")
        ds = lance.write_dataset(pa.table({"x": pa.array(range(6000))}), uri)
        ds.delete("x < 3")
        ds.delete("x >= 10 and x < 5500")
        ds = lance.write_dataset(pa.table({"x": pa.array(range(10))}), uri, mode="append")
        ds.update({"x": "x + 1"}, where="x = 2")
        ds.add_columns({"y": "x * 2"})
        ds = lance.write_dataset(pa.table({"x": pa.array([1])}), uri, mode="overwrite")
        for p in sorted(pathlib.Path(uri).rglob("*")):
            if p.suffix == ".manifest":
                put("manifest", p.read_bytes())
            elif p.suffix == ".txn":
                put("transaction", p.read_bytes())
            elif p.suffix == ".arrow":
                put("deletion", p.read_bytes(), b"\x00")
            elif p.suffix == ".bin":
                put("deletion", p.read_bytes(), b"\x01")
        frags = lance.dataset(uri).get_fragments()
        for f in frags:
            put("fragment_json", json.dumps(f.metadata.to_json()))
        ds = lance.dataset(uri, version=2)
        for f in ds.get_fragments():
            put("fragment_json", json.dumps(f.metadata.to_json()))


def fragment_seeds():
    put("fragment_json", '{"id": 0, "files": [], "physical_rows": 0}')
    put("fragment_json", json.dumps({
        "id": 3, "files": [{"path": "a.lance", "fields": [0, 1], "column_indices": [0, 1],
                            "file_major_version": 2, "file_minor_version": 1,
                            "file_size_bytes": 1234, "base_id": None}],
        "physical_rows": 100,
        "deletion_file": {"read_version": 4, "id": 99, "file_type": "bitmap",
                          "num_deleted_rows": 7, "base_id": None},
        "row_id_meta": None, "overlays": []}))


S3_LIST = """<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>lance</Name>
<Prefix>ds/_versions/</Prefix><KeyCount>2</KeyCount><MaxKeys>1000</MaxKeys>
<Delimiter>/</Delimiter><IsTruncated>true</IsTruncated>
<NextContinuationToken>1ueGcxLPRx1Tr%2FXYExHnhbYLgveDs2J%2FwmKVGB</NextContinuationToken>
<Contents><Key>ds/_versions/1.manifest</Key><LastModified>2026-12-02T10:15:30.123Z</LastModified>
<ETag>&quot;9b2cf535f27731c974343645a3985328&quot;</ETag><Size>1234</Size>
<StorageClass>STANDARD</StorageClass></Contents>
<Contents><Key>ds/_versions/a%20b&amp;c.manifest</Key><LastModified>2026-12-02T10:15:31Z</LastModified>
<Size>0</Size></Contents>
<CommonPrefixes><Prefix>ds/_versions/sub/</Prefix></CommonPrefixes>
<EncodingType>url</EncodingType></ListBucketResult>"""
S3_ERROR = """<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code>
<Message>The specified key does not exist.</Message><Key>ds/x</Key>
<RequestId>tx00000a1b2c3d4e5f-0065-default</RequestId><HostId>default-zone</HostId></Error>"""
S3_SLOWDOWN = "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"
S3_DELETE = """<?xml version="1.0" encoding="UTF-8"?><DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
<Deleted><Key>a</Key></Deleted><Error><Key>b</Key><Code>AccessDenied</Code><Message>Access Denied</Message></Error>
</DeleteResult>"""
S3_INITIATE = """<?xml version="1.0" encoding="UTF-8"?><InitiateMultipartUploadResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
<Bucket>lance</Bucket><Key>ds/data/x.lance</Key><UploadId>2~iCw_lDY8VoNMl4rGpJ3qZ2UHb3vn</UploadId></InitiateMultipartUploadResult>"""
S3_COMPLETE = """<?xml version="1.0" encoding="UTF-8"?><CompleteMultipartUploadResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
<Location>http://127.0.0.1:7480/lance/ds/data/x.lance</Location><Bucket>lance</Bucket><Key>ds/data/x.lance</Key>
<ETag>"3858f62230ac3c915f300c664312c11f-2"</ETag></CompleteMultipartUploadResult>"""
S3_COPY = """<CopyObjectResult><LastModified>2026-12-02T10:15:30.000Z</LastModified><ETag>"abc"</ETag></CopyObjectResult>"""
STS_OK = """<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult>
<SourceIdentity>Alice</SourceIdentity><AssumedRoleUser><Arn>arn:aws:sts::123456789012:assumed-role/demo/fuzz</Arn>
<AssumedRoleId>ARO123EXAMPLE123:fuzz</AssumedRoleId></AssumedRoleUser><Credentials>
<AccessKeyId>ASIAIOSFODNN7EXAMPLE</AccessKeyId><SecretAccessKey>wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY</SecretAccessKey>
<SessionToken>AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI</SessionToken>
<Expiration>2026-12-02T11:15:30Z</Expiration></Credentials><PackedPolicySize>6</PackedPolicySize>
</AssumeRoleResult><ResponseMetadata><RequestId>c6104cbe-af31-11e0-8154-cbc7ccf896c7</RequestId></ResponseMetadata></AssumeRoleResponse>"""
STS_ERR = """<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type>
<Code>AccessDenied</Code><Message>User is not authorized to perform: sts:AssumeRole</Message></Error>
<RequestId>4f6d8a9e-0000-0000-0000-000000000000</RequestId></ErrorResponse>"""


def s3_seeds():
    # Byte 0: parser (mod 8); byte 1: HTTP status (200 + 100 * (b % 4)).
    put("s3_xml", S3_LIST, b"\x00\x00")
    put("s3_xml", S3_ERROR, b"\x01\x02")
    put("s3_xml", S3_SLOWDOWN, b"\x01\x03")
    put("s3_xml", S3_DELETE, b"\x02\x00")
    put("s3_xml", S3_INITIATE, b"\x03\x00")
    put("s3_xml", S3_COMPLETE, b"\x03\x00")
    put("s3_xml", S3_ERROR, b"\x03\x00")
    put("s3_xml", STS_OK, b"\x04\x00")
    put("s3_xml", STS_ERR, b"\x04\x02")
    put("s3_xml", "bytes 0-99/1234", b"\x05\x00")
    put("s3_xml", "Wed, 02 Dec 2026 10:15:30 GMT", b"\x05\x00")
    put("s3_xml", "2026-12-02T10:15:30.5+01:00", b"\x05\x00")
    put("s3_xml", "ds/a%20b%2Bc+d%E2%82%AC", b"\x0e\x00")
    put("s3_xml", S3_COPY, b"\x07\x00")
    put("s3_xml", "<a x='1' y=\"&lt;&#65;&#x42;\"><![CDATA[<raw>]]><!-- c --><b/>t&amp;</a>",
        b"\x07\x00")


NS = [
    (0, {"id": ["a"], "page_token": "t", "limit": 10}),
    (1, {"namespaces": ["x", "y"], "page_token": None}),
    (2, {"id": ["a", "b"], "mode": "create", "properties": {"k": "v"}}),
    (3, {"id": ["a"], "properties": {"owner": "me"}}),
    (4, {"tables": ["t1", "t2"], "page_token": "n"}),
    (5, {"id": ["ns", "t"], "version": 3, "with_table_uri": True, "load_detailed_metadata": False}),
    (6, {"table": "t", "namespace": ["ns"], "version": 3, "location": "s3://b/ns/t.lance",
         "table_uri": "s3://b/ns/t.lance", "schema": {"fields": [{"name": "x", "type": {"type": "int64"},
                                                                   "nullable": True}]},
         "storage_options": {"aws_region": "us-east-1"}, "stats": {"num_deleted_rows": 0,
                                                                   "num_fragments": 1}}),
    (7, {"id": ["ns", "t"], "location": "s3://b/ns/t.lance", "vend_credentials": True}),
    (8, {"id": ["ns", "t"], "location": "file:///tmp/t.lance", "mode": "CREATE"}),
    (9, {"location": "/tmp/t.lance", "version": 1, "storage_options": {}, "properties": {}}),
    (10, {"id": ["t"], "on": ["id"], "when_matched_update_all": True,
          "when_not_matched_insert_all": True, "when_matched_update_all_filt": "x > 1"}),
    (11, {"id": ["t"], "k": 10, "vector": {"single_vector": [1.0, 2.0]}, "filter": "x > 3",
          "columns": {"column_names": ["x"]}, "with_row_id": True, "offset": 0}),
    (12, {"id": ["t"], "new_columns": [{"name": "y", "expression": "x * 2"}]}),
    (13, {"id": ["t"], "alterations": [{"path": "x", "rename": "z", "nullable": True,
                                         "data_type": {"type": "int32"}}]}),
    (14, {"total_bytes": 100, "num_rows": 10, "num_indices": 0,
          "fragment_stats": {"num_fragments": 1, "num_small_fragments": 1,
                             "lengths": {"min": 10, "max": 10, "mean": 10, "p25": 10,
                                         "p50": 10, "p75": 10, "p99": 10}}}),
    (15, {"versions": [{"version": 1, "timestamp_millis": 1764670530000, "manifest_path": "x",
                        "manifest_size": 123, "e_tag": "e", "metadata": {"a": "b"}}]}),
    (16, {"tags": {"v1": {"version": 1, "manifest_size": 10, "branch": None}}}),
    (17, {"status": "SUCCEEDED", "properties": {"operation": "Append"}}),
    (18, {"id": ["t"], "predicate": "x > 1", "updates": [["x", "x + 1"]]}),
    (19, {"owner": "me", "created": "2026"}),
]


def namespace_seeds():
    for mode, body in NS:
        put("namespace_json", json.dumps(body), bytes([mode]))
    put("namespace_json", "", b"\x05")
    put("namespace_json", '{"id": [1]}', b"\x05")
    put("namespace_json", '{"a": "\\u00e9\\ud83d\\ude00"}', b"\x13")


CSV = [
    "i,s,f,b\n1,a,1.5,true\n2,\"q,\"\"x\"\"\",2e3,false\n,,,\n",
    "\ufeffa,b\r\n9223372036854775807,18446744073709551615\r\n-1,0\r\n",
    "x\n1\n2.5\nNaN\n-inf\n",
    "a,b,c\n\"multi\nline\",2,\n",
]
JSONL = [
    '{"i": 1, "s": "a", "f": 1.5, "b": true, "u": 18446744073709551615}\n{"i": null}\n',
    '{"l": [1, 2], "o": {"x": 1, "y": [true]}}\n{"l": [], "o": {"x": null}}\n',
    '{"f": "NaN"}\n{"f": 1e308}\n{"f": -0.0}\n',
    '{"s": "\\u00e9\\n"}\n\n{"s": "x"}\n',
]


def cli_seeds():
    for text in CSV:
        put("cli_input", text, b"\x00")
        put("cli_input", text, b"\x02")
        put("cli_input", text, b"\x07")
    for text in JSONL:
        put("cli_input", text, b"\x01")
        put("cli_input", text, b"\x03")
    put("cli_input", '{"a": [1, -2.5e-3, "x", null, true, {"b": {}}]}', b"\x04")
    put("cli_input", json.dumps([{"name": "x", "type": "int64", "nullable": False},
                                 {"name": "y", "type": "list<struct<a: utf8, b: float32>>"}]),
        b"\x05")
    for t in ["map<utf8, int64, keys_sorted>", "dictionary<values=utf8, indices=int8, ordered>",
              "timestamp[us, tz=UTC]", "decimal(40, -2)", "fixed_size_list<float32 not null, 128>",
              "struct<\"a b\": large_list<binary>>"]:
        put("cli_input", t, b"\x06")


PREDICATES = [
    "i > 3", "i + j * 2 > -f", "s LIKE 'd\\%' ESCAPE '\\'", "s IN ('a', 'b', NULL)",
    "NOT (b IS NULL) AND (x BETWEEN 2 AND 5 OR t <> -128)", "f IS NAN OR f = 1e300",
    "i % j = 0", "i / 0 > 1", "CAST(x AS string) = '3'", "s = 'f''' OR s ILIKE 'A%'",
    "array_has_any(l, [1, 8])", "i = 9223372036854775807", "t * t > 100",
    "(((((((i > 1)))))))", "x < 3 XOR b", "s >= 'b' AND s < 'e'", "i IS NOT NULL",
    "timestamp '2026-01-01 00:00:00' > date '2025-01-01'", "regexp_match(s, '^[a-d]')",
]


def predicate_seeds():
    for p in PREDICATES:
        put("predicate", p)


def ipc_stream(table, compression=None):
    sink = pa.BufferOutputStream()
    options = pa.ipc.IpcWriteOptions(compression=compression)
    with pa.ipc.new_stream(sink, table.schema, options=options) as w:
        w.write_table(table)
    return sink.getvalue().to_pybytes()


def rest_request_seeds():
    # Control byte: bits 0-2 method (1 POST, 0 GET), bits 3-4 key (0 none, 1 read,
    # 2 write, 3 admin in namespace "a"), bit 5 as a bearer token.
    post, get = 1, 0
    read, write, admin_a = 1 << 3, 2 << 3, 3 << 3
    rows = pa.table({"id": pa.array([1, 2, 3], pa.int64()),
                     "s": pa.array(["x", None, "z"]),
                     "v": pa.array([[1.0, 2.0], [3.0, 4.0], None],
                                   pa.list_(pa.float32()))})
    ipc = ipc_stream(rows)
    seeds = [
        (post | admin_a, "/v1/namespace/a/create", "{}"),
        (get | read, "/v1/namespace/%24/list?limit=2", ""),
        (post | write, "/v1/table/a%24t/declare", "{}"),
        (post | admin_a, "/v1/table/a%24t/create?mode=create", ipc),
        (post | admin_a | 0x20, "/v1/table/t/create", ipc_stream(rows, "zstd")),
        (post | write, "/v1/table/a%24t/insert?mode=append", ipc),
        (post | write, "/v1/table/a%24t/merge_insert?on=id&when_matched_update_all=true"
                       "&when_not_matched_insert_all=true", ipc),
        (post | read, "/v1/table/a%24t/query",
         '{"k": 10, "vector": {}, "filter": "id > 1", "columns": ["id", "s"]}'),
        (post | read, "/v1/table/a%24t/count_rows", '{"predicate": "s IS NULL"}'),
        (post | read, "/v1/table/a%24t/describe?vend_credentials=true", "{}"),
        (post | admin_a, "/v1/table/a%24t/rename",
         '{"new_table_name": "u", "new_namespace_id": ["b"]}'),
        (post | admin_a, "/v1/table/a%24r/register", '{"location": "__manifest"}'),
        (post | admin_a, "/v1/table/a%24t/drop", "{}"),
        (post | write, "/v1/table/a%24t/update", '{"updates": [["id", "id + 1"]]}'),
        (post | write, "/v1/table/a%24t/tags/create", '{"tag": "v1", "version": 1}'),
        (get | admin_a, "/v1/table?delimiter=.", ""),
        (post, "/v1/table/%2A/describe", "{}"),
        (post | read, "/v1/table/x/describe", "[" * 200 + "]" * 200),
        (post | write, "/v1/table/a%24t/schema_metadata/update", '{"k": "v"}'),
        (post | write, "/v1/table/a%24t/create?properties=%7B%22a%22%3A%22b%22%7D", ipc),
    ]
    for control, target, body in seeds:
        if isinstance(body, str):
            body = body.encode()
        put("rest_request", target.encode() + b"\n" + body, bytes([control]))


def main():
    if OUT.exists():
        shutil.rmtree(OUT)
    lance_seeds()
    ipc_seeds()
    table_seeds()
    fragment_seeds()
    s3_seeds()
    namespace_seeds()
    cli_seeds()
    predicate_seeds()
    rest_request_seeds()
    for d in sorted(OUT.iterdir()):
        files = list(d.iterdir())
        print(f"{d.name}: {len(files)} seeds, {sum(f.stat().st_size for f in files)} bytes")


if __name__ == "__main__":
    main()
