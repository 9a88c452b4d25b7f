# SPDX-License-Identifier: Apache-2.0
"""Credential refresh counters, read from Python and from `lance-cpp --stats`.

A table lives under a lance_cpp DirectoryNamespace on the test RGW that vends STS
credentials (credential_vendor.*) reported to live a few seconds: the dataset opened
through it reads with a refreshing source whose counters (fetches, waits, latencies...)
are read from ``LanceDataset.credential_stats()`` and ``lance_cpp.credential_stats()``
after scans, and from the CLI's ``--stats`` output (stderr; JSON with ``--json``).
Needs the RGW with STS of scripts/run_tests.sh (LANCE_S3_*); fails, never skips, without.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from typing import Dict

import pyarrow as pa
import pytest

import lance_cpp
from _cli import run
from _vending import S3Env, s3env  # noqa: F401  (fixture)

LIFETIME_MS = 4000
OFFSET_MS = 1000

FIELDS = {
    "sources", "live_sources", "fetches", "completed_fetches", "background_refreshes",
    "blocking_refreshes", "forced_refreshes", "inline_refreshes", "failures",
    "failed_requests", "deferred_refreshes", "waits", "total_wait_ms", "max_wait_ms",
    "last_fetch_latency_ms", "max_fetch_latency_ms", "total_fetch_latency_ms",
    "avg_fetch_latency_ms", "expires_at_millis", "refresh_offset_ms",
}


def role_arn() -> str:
    role = os.environ.get("LANCE_S3_STS_ROLE_ARN")
    if not role:
        pytest.fail("LANCE_S3_STS_ROLE_ARN is not set: these tests need the RGW with STS "
                    "that scripts/run_tests.sh starts", pytrace=False)
    return role


def vending_props(s3: S3Env, root: str) -> Dict[str, str]:
    props = {"root": root}
    props.update({f"storage.{k}": v for k, v in s3.options().items()})
    props.update({
        "credential_vendor.enabled": "true",
        "credential_vendor.permission": "write",
        "credential_vendor.aws_role_arn": role_arn(),
        "credential_vendor.aws_region": s3.region,
        "credential_vendor.reported_lifetime_millis": str(LIFETIME_MS),
        "credential_vendor.refresh_offset_millis": str(OFFSET_MS),
    })
    return props


def rows(n: int) -> pa.Table:
    return pa.table({"id": pa.array(range(n), pa.int64()),
                     "name": pa.array([f"r{i}" for i in range(n)])})


@pytest.fixture()
def vended_table(s3env: S3Env):  # noqa: F811
    root = f"s3://{s3env.bucket}/py-credential-stats/{uuid.uuid4().hex[:12]}"
    props = vending_props(s3env, root)
    ns = lance_cpp.namespace.DirectoryNamespace(**props)
    lance_cpp.write_dataset(rows(100), namespace_client=ns, table_id=["events"])
    return ns, root, props


def test_dataset_counters_after_scans_across_an_expiry(vended_table, s3env: S3Env):  # noqa: F811
    ns, root, _ = vended_table
    ds = lance_cpp.dataset(namespace_client=ns, table_id=["events"])
    assert ds.to_table().num_rows == 100
    before = ds.credential_stats()
    assert isinstance(before, dict) and set(before) == FIELDS
    assert all(isinstance(v, int) for v in before.values()), before
    # Seeded by the open's describe_table: the scan fetched nothing and waited for nothing.
    assert before["live_sources"] == 1  # one source per provider id stays alive
    assert before["failed_requests"] == 0
    assert before["refresh_offset_ms"] == OFFSET_MS
    assert before["expires_at_millis"] > 0

    # Past the reported expiry: the next scan waits for exactly one blocking fetch.
    time.sleep((before["expires_at_millis"] - time.time() * 1000) / 1000 + 0.5)
    assert ds.to_table().num_rows == 100
    after = ds.credential_stats()
    assert after["blocking_refreshes"] == before["blocking_refreshes"] + 1
    assert after["fetches"] == before["fetches"] + 1
    assert after["completed_fetches"] == before["completed_fetches"] + 1
    assert after["waits"] >= before["waits"] + 1
    assert after["total_wait_ms"] >= after["max_wait_ms"] >= 0
    assert after["max_fetch_latency_ms"] >= after["last_fetch_latency_ms"] >= 0
    assert after["failures"] == before["failures"]
    assert after["failed_requests"] == 0
    assert after["expires_at_millis"] > before["expires_at_millis"]

    # The process-wide view has the same provider, keyed by its (secret-free) id.
    everything = lance_cpp.credential_stats()
    mine = {k: v for k, v in everything.items() if root in k and "events" in k}
    assert len(mine) == 1, list(everything)
    (provider_id, counters), = mine.items()
    assert "LanceNamespaceStorageOptionsProvider" in provider_id
    assert set(counters) == FIELDS
    assert counters["blocking_refreshes"] == after["blocking_refreshes"]
    assert s3env.secret_key not in repr(everything)


def test_dataset_without_provider_has_no_credential_stats(tmp_path):
    ds = lance_cpp.write_dataset(rows(3), str(tmp_path / "plain.lance"))
    assert ds.credential_stats() is None
    assert isinstance(lance_cpp.credential_stats(), dict)


def test_cli_stats_json_reports_the_provider_and_the_executor(vended_table, s3env: S3Env):  # noqa: F811
    _, root, props = vended_table
    ns_args = ["--namespace", "dir", "--table-id", "events"]
    for k, v in props.items():
        ns_args += ["--ns-prop", f"{k}={v}"]
    proc = run("--stats", "--json", "count", *ns_args)
    assert proc.stdout.strip() == "100"  # data on stdout only, unchanged
    stats = json.loads(proc.stderr.strip().splitlines()[-1])["stats"]
    assert stats["executor"]["threads"] > 0
    # The process's own peak memory (VmHWM): more than the binary's pages, far from 1 GiB.
    assert 1 << 20 < stats["process"]["peak_rss_bytes"] < 1 << 30
    assert set(stats["executor"]) >= {"tasks_submitted", "peak_bytes_reserved",
                                      "memory_waits"}
    mine = [p for p in stats["credentials"] if root in p["provider_id"]]
    assert len(mine) == 1, stats["credentials"]
    assert set(mine[0]) == FIELDS | {"provider_id"}
    # One open, credentials valid: the describe seeded the source, nothing was fetched.
    assert mine[0]["fetches"] == 0
    assert mine[0]["waits"] == 0
    assert mine[0]["failed_requests"] == 0
    # Printed after the verb, when its dataset is gone: the counters stay, the current
    # expiry (of a live source) is none.
    assert mine[0]["sources"] == 1
    assert mine[0]["live_sources"] == 0
    assert mine[0]["expires_at_millis"] == 0
    assert s3env.secret_key not in proc.stderr


def test_cli_stats_text_on_a_local_dataset(tmp_path):
    uri = str(tmp_path / "local.lance")
    lance_cpp.write_dataset(rows(7), uri)
    proc = run("--stats", "count", uri)
    assert proc.stdout.strip() == "7"
    lines = proc.stderr.strip().splitlines()
    process = [line for line in lines if line.startswith("stats: process ")]
    assert len(process) == 1, lines
    assert 1 << 20 < int(process[0].split("peak_rss_bytes=")[1]) < 1 << 30, process
    executor = [line for line in lines if line.startswith("stats: executor ")]
    assert len(executor) == 1, lines
    fields = dict(kv.split("=", 1) for kv in executor[0].split()[2:])
    assert int(fields["threads"]) > 0
    assert set(fields) == {"threads", "tasks_submitted", "tasks_run_by_waiter",
                           "tasks_cancelled", "memory_budget_bytes", "bytes_reserved",
                           "peak_bytes_reserved", "memory_waits"}
    assert "stats: credentials: no storage options provider was used" in lines
    # Without --stats nothing is printed.
    assert run("count", uri).stderr == ""
