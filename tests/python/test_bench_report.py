# SPDX-License-Identifier: Apache-2.0
"""docs/benchmarks.md is generated from bench/results/latest.json by bench/report.py
(never typed by hand), and report.py's aims and its "one run only" rule behave."""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.environ.get("LANCE_SOURCE_DIR") or os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REPORT = os.path.join(ROOT, "bench", "report.py")
sys.path.insert(0, os.path.join(ROOT, "bench"))
import report  # noqa: E402


def run_report(*args):
    return subprocess.run([sys.executable, REPORT, *args], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout


def test_doc_is_generated_from_latest_json():
    want = run_report("--markdown", "bench/results/latest.json")
    with open(os.path.join(ROOT, "docs", "benchmarks.md")) as f:
        have = f.read()
    assert have == want, (
        "docs/benchmarks.md differs from `bench/report.py --markdown "
        "bench/results/latest.json`: regenerate it with `.venv/bin/python bench/report.py "
        "--markdown bench/results/latest.json > docs/benchmarks.md` (or run `make bench`)")


def summary(seconds, nbytes=1000):
    med = sorted(seconds)[len(seconds) // 2]
    return {"mb_s": nbytes / med / 1e6, "median_s": med, "samples_s": seconds,
            "peak_rss_mb": 100.0}


def write(d, name, obj):
    with open(os.path.join(d, name), "w") as f:
        json.dump(obj, f)


def s3_files(d, ours_scan, theirs_scan):
    """A minimal S3 part: the same 1e9 bytes for every MB/s."""
    write(d, "s3.json", {
        "data_file_bytes": 10**9, "rows": 10, "logical_bytes": 10**9, "data_files": 2,
        "endpoint": "http://127.0.0.1:1", "settings": {},
        "write": summary([2.0, 2.0, 2.0]), "curl_put": summary([1.0, 1.0, 1.0]),
        "scan": summary(ours_scan), "curl_get": summary([1.0, 1.0, 1.0])})
    write(d, "pylance-s3.json", {
        "write": summary([1.0, 1.0, 1.0]), "scan": summary(theirs_scan),
        "scan_of_local": summary(theirs_scan), "data_files": 2, "data_file_bytes": 10**9})
    write(d, "s3-scan-pylance.json", {"scan_other": summary(ours_scan)})


def build(tmp_path, parts, load="0.10 0.10 0.10"):
    out = tmp_path / "out.json"
    run_report("--dir", str(tmp_path), "--out", str(out), "--parts", parts, "--git-commit",
               "abc", "--dirty", "true", "--timestamp", "2026-01-01T00:00:00Z",
               "--load-before", load, "--load-after", "0.2 0.2 0.2")
    with open(out) as f:
        return json.load(f), str(out)


def test_s3_aims_and_keys(tmp_path):
    s3_files(tmp_path, [1.0, 1.0, 1.0], [2.0, 2.0, 2.0])
    r, _ = build(tmp_path, "s3")
    assert r["git_commit"] == "abc" and r["dirty"] is True and "git_commit_end" not in r
    assert r["load_before"] == [0.1, 0.1, 0.1] and r["load_after"] == [0.2, 0.2, 0.2]
    for k in ("s3_write_mb_s", "pylance_s3_write_mb_s", "s3_scan_mb_s", "pylance_s3_scan_mb_s",
              "s3_scan_of_pylance_mb_s", "pylance_s3_scan_of_local_mb_s", "curl_put_mb_s",
              "curl_get_mb_s", "s3_write_peak_rss_mb", "pylance_s3_scan_peak_rss_mb"):
        assert k in r, k
    assert r["s3_scan_mb_s"] == pytest.approx(1000.0)  # 1e9 bytes / 1 s
    a = r["aims"]
    assert a["s3_scan_on_local_dataset"]["met"] is True       # 2.0x pylance
    assert a["s3_scan_vs_curl"]["met"] is True                # 1.0x curl
    assert a["s3_write"]["met"] is False                      # 0.5x pylance
    assert a["s3_write_vs_curl"]["met"] is False
    assert a["local_write_v20"]["met"] is None                # the local part did not run
    assert "local_write_mb_s" not in r


def test_refresh_failure_is_recorded_and_shown(tmp_path):
    with open(tmp_path / "refresh.failed", "w") as f:
        f.write("exit status 1\nrefresh_benchmark: not implemented yet\n")
    r, out = build(tmp_path, "refresh")
    assert "not implemented yet" in r["failures"]["refresh"]
    assert r["aims"]["refresh"]["met"] is None
    doc = report.markdown(out)
    assert "not implemented yet" in doc
    assert "| refresh under load" in doc and "not measured" in doc


def test_refresh_aim(tmp_path):
    write(tmp_path, "refresh.json", {
        "refresh_p99_ms_background": 11.0, "refresh_p99_ms_none": 10.0,
        "refresh_p99_ms_inline": 300.0, "refresh_failed_requests": 0})
    r, _ = build(tmp_path, "refresh")
    assert r["refresh_p99_ms_inline"] == 300.0
    assert r["aims"]["refresh"]["met"] is True
    write(tmp_path, "refresh.json", {
        "refresh_p99_ms_background": 11.0, "refresh_p99_ms_none": 10.0,
        "refresh_failed_requests": 2})
    r, _ = build(tmp_path, "refresh")
    assert r["aims"]["refresh"]["met"] is False


def test_never_merges_an_earlier_file(tmp_path):
    out = tmp_path / "out.json"
    with open(out, "w") as f:
        json.dump({"local_write_mb_s": 1.0, "s3_write_mb_s": 2.0, "aims": {"x": True}}, f)
    s3_files(tmp_path, [1.0], [1.0])
    r, _ = build(tmp_path, "s3")
    assert "local_write_mb_s" not in r and "x" not in r["aims"]


def test_every_rep_clause_and_busy_machine():
    # Median 3x faster, but the slowest repetition is slower than pylance's median.
    r = {"local_scan_mb_s": 300.0, "pylance_scan_of_local_dataset_mb_s": 100.0,
         "samples_s": {"local_scan_mb_s": [1.0, 1.0, 12.0],
                       "pylance_scan_of_local_dataset_mb_s": [3.0, 3.0, 3.0]},
         "load_before": [1.5, 1.0, 1.0], "machine": {"nproc": 2}}
    a = {x["name"]: x for x in report.aims(r)}["local_scan_on_local_file_v20"]
    assert a["met"] is False
    assert "= 0.25x" in a["measured"]
    assert "measured on a busy machine" in a["reason"]
    r["samples_s"]["local_scan_mb_s"] = [1.0, 1.0, 2.5]
    r["load_before"] = [0.5, 0.5, 0.5]
    a = {x["name"]: x for x in report.aims(r)}["local_scan_on_local_file_v20"]
    assert a["met"] is True and "busy" not in a["reason"]


def ray_file(d, ours_read, cross_equal=True, ours_leaks=False):
    e = {"write_calls": [], "read_calls": [], "calling_processes": []}
    write(d, "ray.json", {
        "rows": 10, "blocks": 2, "reps": 3, "logical_bytes": 2 * 10**9, "filter": "x < 0.5",
        "result_rows": 5, "result_bytes": 10**9, "data_storage_version": "2.2",
        "ray_cpus": 2, "namespace": "ns", "versions": {"ray": "r", "lance_ray": "l",
                                                       "pylance": "p"},
        "cross_reads_equal": cross_equal, "mismatches": [] if cross_equal else ["x"],
        "secret_in_write_task": {"lance_cpp": ours_leaks, "lance_ray": True},
        "lance_cpp": dict(e, write=summary([2.0, 2.0, 2.0]), read=summary(ours_read),
                          describe_calls_per_job=[5, 5, 4], declare_calls_per_job=[1, 1, 1]),
        "lance_ray": dict(e, write=summary([4.0, 4.0, 4.0]), read=summary([1.0, 1.0, 1.0]),
                          describe_calls_per_job=[1, 1, 1], declare_calls_per_job=[1, 1, 1])})


def test_ray_keys_and_aims(tmp_path):
    ray_file(tmp_path, [2.0, 2.0, 2.0])
    r, out = build(tmp_path, "ray")
    assert r["ray_write_mb_s"] == pytest.approx(1000.0)        # 2e9 bytes / 2 s
    assert r["lance_ray_write_mb_s"] == pytest.approx(500.0)
    assert r["ray_read_mb_s"] == pytest.approx(500.0)          # the result's 1e9 bytes
    assert r["lance_ray_read_mb_s"] == pytest.approx(1000.0)
    assert r["ray_describe_calls"] == 5 and r["lance_ray_describe_calls"] == 1
    a = r["aims"]
    assert a["ray_write"]["met"] is True and a["ray_read"]["met"] is False
    assert a["ray_same_rows"]["met"] is True
    assert "lance_cpp no" in a["ray_same_rows"]["measured"]
    doc = report.markdown(out)
    assert "| describe_table calls per job | 5 | 1 |" in doc
    ray_file(tmp_path, [1.0, 1.0, 1.0], cross_equal=False)
    assert build(tmp_path, "ray")[0]["aims"]["ray_same_rows"]["met"] is False
    ray_file(tmp_path, [1.0, 1.0, 1.0], ours_leaks=True)
    assert build(tmp_path, "ray")[0]["aims"]["ray_same_rows"]["met"] is False
    with open(tmp_path / "ray.failed", "w") as f:
        f.write("exit status 1\nray: the reads differ\n")
    os.remove(tmp_path / "ray.json")
    r, out = build(tmp_path, "ray")
    assert r["aims"]["ray_read"]["met"] is None and "reads differ" in r["failures"]["ray"]


def cloud_files(d, name, with_pylance_write=True):
    """A minimal Azure / GCS part: the same 1e9 bytes for every MB/s."""
    cpu = {"cpu_self_median_s": 1.0, "cpu_server_median_s": 2.0}
    write(d, f"{name}.json", {
        "data_file_bytes": 10**9, "data_file_sizes": [10**9], "rows": 10,
        "logical_bytes": 10**9, "data_files": 1, "settings": {"reps": 3},
        "write": {**summary([2.0, 2.0, 2.0]), **cpu}, "scan": {**summary([1.0, 1.0, 1.0]), **cpu}})
    curl = {"cpu_curl_median_s": 0.5, "cpu_server_median_s": 1.5}
    py = {"endpoint": "http://127.0.0.1:1", "curl_parallel": 4,
          "curl_get": {**summary([0.5]), **curl}, "curl_put": {**summary([1.0]), **curl},
          "scan_of_local": {**summary([4.0]), "cpu_median_s": 1.0}}
    if with_pylance_write:
        py.update({"write": {**summary([4.0]), "cpu_median_s": 1.0},
                   "scan": {**summary([4.0]), "cpu_median_s": 1.0}, "data_file_bytes": 10**9,
                   "write_via": "direct"})
        write(d, f"{name}-scan-pylance.json", {"scan_other": summary([2.0])})
    else:
        py["write_skipped"] = "no proxy"
    write(d, f"pylance-{name}.json", py)


def test_cloud_parts_and_merge(tmp_path):
    cloud_files(tmp_path, "azure")
    cloud_files(tmp_path, "gcs", with_pylance_write=False)
    r, out = build(tmp_path, "azure gcs")
    assert r["azure_write_mb_s"] == 500.0 and r["pylance_azure_write_mb_s"] == 250.0
    assert r["azure_curl_get_mb_s"] == 2000.0 and r["azure_scan_of_pylance_mb_s"] == 500.0
    assert "pylance_gcs_write_mb_s" not in r and r["data_gcs"]["pylance_write"] == "no proxy"
    assert not r["failures"]
    latest = tmp_path / "latest.json"
    with open(latest, "w") as f:
        json.dump({"parts": ["local"], "local_write_mb_s": 1.0, "azure_write_mb_s": 7.0,
                   "azure_stale_mb_s": 1.0, "samples_s": {"local_write_mb_s": [1.0]},
                   "raw": {"local": {}}, "failures": {"azure": "old", "gen": "x"}}, f)
    run_report("--merge", out, "--into", str(latest))
    with open(latest) as f:
        m = json.load(f)
    assert m["local_write_mb_s"] == 1.0 and m["azure_write_mb_s"] == 500.0
    assert "azure_stale_mb_s" not in m and m["failures"] == {"gen": "x"}
    assert m["parts"] == ["local", "azure", "gcs"] and m["merged"]["azure"]["git_commit"] == "abc"
    assert set(m["raw"]) == {"local", "azure", "gcs"}
    doc = run_report("--markdown", str(latest))
    assert "merged from another run" in doc and "`pylance_azure_write_mb_s`" in doc
    # Only the emulator parts may be merged.
    with open(out) as f:
        part = json.load(f)
    part["parts"] = ["local"]
    with open(out, "w") as f:
        json.dump(part, f)
    with pytest.raises(subprocess.CalledProcessError):
        run_report("--merge", out, "--into", str(latest))
