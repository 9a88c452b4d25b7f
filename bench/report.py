# SPDX-License-Identifier: Apache-2.0
"""Turns the JSON files of ONE `make bench` run into one result file, and that file into
docs/benchmarks.md (scripts/run_bench.sh).

  report.py --dir WORKDIR --out OUT.json --parts "local growth s3 refresh ray"
            --git-commit HASH --dirty true|false --timestamp ISO
            --load-before "a b c" --load-after "a b c"
            [--part-seconds local=N,growth=N,...] [--total-seconds N]
      writes OUT.json from what this run measured, and only that: no key is ever taken
      from an earlier file. A part that did not run has no keys; a benchmark process that
      failed (WORKDIR/NAME.failed, written by run_bench.sh) is listed under "failures".
      Prints the aims.
  report.py --merge PARTIAL.json --into LATEST.json
      replaces the keys of the parts PARTIAL.json measured in LATEST.json with PARTIAL's
      (a part's earlier keys and failures go first), and records under "merged" which run
      (commit, time, load) each merged part came from: how `LANCE_BENCH_MERGE=1
      LANCE_BENCH_PARTS="azure gcs" scripts/run_bench.sh` adds a few parts to the full
      run's file without re-running the rest. The doc says which parts were merged.
  report.py --markdown OUT.json [--template bench/benchmarks.md.in]
      prints docs/benchmarks.md: the template (methodology) with every table and the aims
      filled in from OUT.json. `make bench` writes the doc this way, and
      tests/python/test_bench_report.py fails when the doc differs from this output for
      bench/results/latest.json.

The aims are computed here (AIMS) from the JSON's keys; the reason printed next to an aim
that is not met comes from REASONS (edit it, then regenerate the doc), prefixed with
"measured on a busy machine" when the load average before the run was above half the CPUs.

WORKDIR holds, per part: local: lance-cpp-write[-v22].json, pylance-write[-v22].json,
<engine>-scan-<dataset>[-v22].json (each engine's reads of each engine's dataset); growth:
lance-cpp-write-growth.json, pylance-write-growth.json, <engine>-scan-growth.json; s3:
s3.json (bench/s3_benchmark.cc), pylance-s3.json (pylance_bench.py s3),
s3-scan-pylance.json (s3_benchmark --scan-uri); refresh: refresh.json
(bench/refresh_benchmark.cc); ray: ray.json (bench/ray_bench.py); azure / gcs (NAME):
NAME.json (bench/cloud_benchmark.cc), pylance-NAME.json (bench/cloud_bench.py: pylance and
curl), NAME-scan-pylance.json (cloud_benchmark --scan-uri), gcs-proxy-write.json (lance-cpp's
writes through the translating proxy pylance writes through).
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATE = os.path.join(HERE, "benchmarks.md.in")

# ------------------------------------------------------------------------------------------
# Aims (issue 14, then the earlier issues' ones). Each: name -> (what, how). Kinds:
#   ("ratio", OURS, THEIRS, MIN): OURS / THEIRS >= MIN (both MB/s or rows/s keys).
#   ("ratio_every_rep", OURS, THEIRS, MIN, MIN_EVERY): as "ratio", and also on every
#       repetition: the throughput of OURS's slowest repetition (samples_s holds each
#       key's per-repetition seconds) / THEIRS (pylance's median) >= MIN_EVERY.
#   ("at_most", KEY, OTHER, MAX): KEY / OTHER <= MAX.
#   ("refresh",): refresh_p99_ms_background <= 1.2 x refresh_p99_ms_none and
#       refresh_failed_requests == 0.
_FILE_OF = {"local": "lance-cpp's", "pylance": "pylance's"}


def _on_file(aim, whose, version, what, criterion, check):
    """An aim measured with both engines on one engine's file of a format version: named
    AIM_on_WHOSE_file_vNN, described as "WHAT on <whose> VERSION file: CRITERION"."""
    return (f"{aim}_on_{whose}_file_v{version.replace('.', '')}",
            f"{what} on {_FILE_OF[whose]} {version} file: {criterion}", check)


_SCAN_EVERY_REP = ">= 1.2x pylance at the median, >= 1.0x on every repetition"
_COUNT = "count_rows(x > 1000.0), both"
_TAKE = "take of 10,000 rows, both"

AIMS = [
    _on_file("local_scan", "local", "2.0", "local scan, both engines", _SCAN_EVERY_REP,
             ("ratio_every_rep", "local_scan_mb_s", "pylance_scan_of_local_dataset_mb_s",
              1.2, 1.0)),
    _on_file("local_scan", "pylance", "2.0", "local scan, both engines", _SCAN_EVERY_REP,
             ("ratio_every_rep", "local_scan_of_pylance_dataset_mb_s", "pylance_scan_mb_s",
              1.2, 1.0)),
    _on_file("local_scan", "local", "2.2", "local scan, both engines", _SCAN_EVERY_REP,
             ("ratio_every_rep", "local_scan_v22_mb_s", "pylance_scan_v22_of_local_mb_s",
              1.2, 1.0)),
    _on_file("local_scan", "pylance", "2.2", "local scan, both engines", _SCAN_EVERY_REP,
             ("ratio_every_rep", "local_scan_v22_of_pylance_mb_s", "pylance_scan_v22_mb_s",
              1.2, 1.0)),
    ("local_write_v20", "local write, 2.0, lance-cpp with fsync (its default): >= 1.0x pylance",
     ("ratio", "local_write_mb_s", "pylance_write_mb_s", 1.0)),
    ("local_write_v22", "local write, 2.2, lance-cpp with fsync (its default): >= 1.0x pylance",
     ("ratio", "local_write_v22_mb_s", "pylance_write_v22_mb_s", 1.0)),
    ("s3_scan_on_local_dataset", "S3 scan, both engines on lance-cpp's dataset: >= 1.0x pylance",
     ("ratio", "s3_scan_mb_s", "pylance_s3_scan_of_local_mb_s", 1.0)),
    ("s3_scan_on_pylance_dataset", "S3 scan, both engines on pylance's dataset: >= 1.0x pylance",
     ("ratio", "s3_scan_of_pylance_mb_s", "pylance_s3_scan_mb_s", 1.0)),
    ("s3_scan_vs_curl", "S3 scan: >= 0.85x curl GET of the same objects",
     ("ratio", "s3_scan_mb_s", "curl_get_mb_s", 0.85)),
    ("s3_write", "S3 write: >= 1.0x pylance",
     ("ratio", "s3_write_mb_s", "pylance_s3_write_mb_s", 1.0)),
    ("s3_write_vs_curl", "S3 write: >= 0.85x curl PUT of the same objects",
     ("ratio", "s3_write_mb_s", "curl_put_mb_s", 0.85)),
    ("refresh", "refresh under load: background p99 <= 1.2x no refresh, zero failed requests",
     ("refresh",)),
    ("ray_write", "Ray write_lance through a namespace on RGW: >= 1.0x lance-ray",
     ("ratio", "ray_write_mb_s", "lance_ray_write_mb_s", 1.0)),
    ("ray_read", "Ray read_lance with a filter through a namespace on RGW: >= 1.0x lance-ray",
     ("ratio", "ray_read_mb_s", "lance_ray_read_mb_s", 1.0)),
    ("ray_same_rows", "Ray: each engine's read of each engine's table returns the same rows, "
     "and no vended secret is in lance_cpp's write tasks", ("ray_checks",)),
    # Earlier issues' aims, file format 2.2.
    _on_file("count", "local", "2.2", _COUNT, ">= 1.0x pylance",
             ("ratio", "local_count_filter_v22_mb_s", "pylance_count_filter_v22_of_local_mb_s",
              1.0)),
    _on_file("count", "pylance", "2.2", _COUNT, ">= 1.0x pylance",
             ("ratio", "local_count_filter_v22_of_pylance_mb_s", "pylance_count_filter_v22_mb_s",
              1.0)),
    _on_file("take", "local", "2.2", _TAKE, ">= 1.0x pylance",
             ("ratio", "local_take_v22_rows_s", "pylance_take_v22_of_local_rows_s", 1.0)),
    _on_file("take", "pylance", "2.2", _TAKE, ">= 1.0x pylance",
             ("ratio", "local_take_v22_of_pylance_rows_s", "pylance_take_v22_rows_s", 1.0)),
    ("file_size_v22", "2.2 data files: lance-cpp's <= 1.1x pylance's bytes",
     ("at_most", "local_v22_bytes", "pylance_v22_bytes", 1.1)),
]

# Why an aim is not met: aim name -> reason (from profiles and experiments; the lead keeps
# these current). Printed only for aims not met in the run.
REASONS = {
    "local_write_v20": "durability costs: lance-cpp fsyncs every data file, the manifest and "
                       "the directories, pylance fsyncs nothing (strace) and writes "
                       "{pylance_write_mb_s:.0f} MB/s into the page cache; without fsync "
                       "lance-cpp writes {local_write_nofsync_mb_s:.0f} MB/s, and this disk "
                       "writes the same bytes durably at {disk_sync_write_mb_s:.0f} MB/s alone "
                       "(dd conv=fdatasync, same run): the fsync'd write costs about the "
                       "encoding plus the disk, since writeback started during encoding "
                       "(sync_file_range every 8 MiB) overlaps only part of it",
    "local_write_v22": "durability costs: lance-cpp fsyncs, pylance does not; this disk writes "
                       "durably at {disk_sync_write_mb_s:.0f} MB/s (dd conv=fdatasync, same "
                       "run); without fsync lance-cpp writes {local_write_v22_nofsync_mb_s:.0f} "
                       "MB/s",
    "s3_write_vs_curl": "CPU-bound on one 2-core machine shared with the RGW: a write "
                        "encodes (2.2: FSST on the strings) and signs, {s3_write_cpu_client_s:.1f} "
                        "CPU-s in lance-cpp plus {s3_write_cpu_server_s:.1f} in the RGW, where a curl "
                        "PUT of the same bytes costs {curl_put_cpu_client_s:.1f} + "
                        "{curl_put_cpu_server_s:.1f}; pylance's write costs "
                        "{pylance_s3_write_cpu_client_s:.1f} CPU-s and runs at "
                        "{pylance_s3_write_mb_s:.0f} MB/s. Pages are encoded one after another "
                        "(parallel page encoding is not done yet)",
    "s3_write": "both engines are CPU-bound on encoding (lance-cpp "
                "{s3_write_cpu_client_s:.1f} CPU-s, pylance {pylance_s3_write_cpu_client_s:.1f}) "
                "on 2 cores shared with the RGW ({s3_write_cpu_server_s:.1f} CPU-s); lance-cpp "
                "encodes one page after another (parallel page encoding is not done yet)",
    "s3_scan_on_local_dataset": "not analysed beyond CPU: lance-cpp's scan takes "
                                "{s3_scan_cpu_client_s:.1f} CPU-s, pylance's "
                                "{pylance_s3_scan_cpu_client_s:.1f}, with the RGW on the same "
                                "2 cores ({s3_scan_cpu_server_s:.1f} CPU-s)",
    "s3_scan_on_pylance_dataset": "not analysed beyond CPU: lance-cpp's scan takes "
                                  "{s3_scan_cpu_client_s:.1f} CPU-s, pylance's "
                                  "{pylance_s3_scan_cpu_client_s:.1f}, with the RGW on the same "
                                  "2 cores ({s3_scan_cpu_server_s:.1f} CPU-s)",
    "s3_scan_vs_curl": "CPU-bound on one 2-core machine shared with the RGW: a scan decodes, "
                       "{s3_scan_cpu_client_s:.1f} CPU-s in lance-cpp plus "
                       "{s3_scan_cpu_server_s:.1f} in the RGW, where curl GETs of the same bytes "
                       "cost {curl_get_cpu_client_s:.1f} + {curl_get_cpu_server_s:.1f}",
}
REASONS["ray_read"] = (
    "the per-fragment S3 scan underneath: lance-cpp decodes with more CPU than pylance "
    "(one extra copy where a read spans read-ahead blocks, plus the curl receive), on 2 "
    "cores shared by the RGW and the Ray workers; the namespace calls are not the cost "
    "({ray_describe_calls:.0f} describes per job, each a local directory lookup)")
REASONS["ray_write"] = (
    "both engines are CPU-bound on encoding on 2 cores shared with the RGW; lance-cpp "
    "encodes one page after another (parallel page encoding is not done yet)")
NO_REASON = "not analysed yet (add a reason to REASONS in bench/report.py)"


# ------------------------------------------------------------------------------------------
# Reading one run's files


class Missing(Exception):
    """A benchmark file this section needs is not there (its process failed or did not
    run)."""


def read(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


class RunDir:
    def __init__(self, d):
        self.d = d

    def need(self, name):
        v = read(os.path.join(self.d, name))
        if v is None:
            raise Missing(f"{name} missing")
        return v

    def optional(self, name):
        return read(os.path.join(self.d, name))

    def failures(self):
        out = {}
        for name in sorted(os.listdir(self.d)):
            if name.endswith(".failed"):
                with open(os.path.join(self.d, name)) as f:
                    out[name[:-len(".failed")]] = "; ".join(
                        line.strip() for line in f.read().splitlines() if line.strip())
        return out


def machine():
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    mem_kb = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem_kb = int(line.split()[1])
    return {"nproc": os.cpu_count(), "cpu_model": model,
            "memory_gib": round(mem_kb / 1024 / 1024, 1), "kernel": platform.release()}


def loads(text):
    return [float(x) for x in text.split()[:3]] if text else None


# ------------------------------------------------------------------------------------------
# The parts


def add(r, key, summary, samples_key=True, rss=True):
    """r[key] = the summary's MB/s; its per-repetition seconds and peak RSS beside."""
    r[key] = summary["mb_s"]
    if samples_key:
        r["samples_s"][key] = summary.get("samples_s")
    if rss and "peak_rss_mb" in summary:
        r[key.replace("_mb_s", "_peak_rss_mb").replace("_rows_s", "_peak_rss_mb")] = \
            summary["peak_rss_mb"]


# Readers and datasets of the local parts' scans, in the order of _both_engines' result.
_SCANS = (("lance-cpp", "lance-cpp"), ("pylance", "pylance"), ("lance-cpp", "pylance"),
          ("pylance", "lance-cpp"))


def _both_engines(run, suffix):
    """The local parts' files (suffix "" for 2.0, "-v22"): each engine's write, then the
    reads of each engine of each engine's dataset: cw, pw, cs, ps, cx, px."""
    writes = [run.need(f"{engine}-write{suffix}.json") for engine in ("lance-cpp", "pylance")]
    reads = [run.need(f"{reader}-scan-{dataset}{suffix}.json")["reads"]
             for reader, dataset in _SCANS]
    return (*writes, *reads)


def _raw_both_engines(cw, pw, cs, ps, cx, px):
    return {"lance_cpp_write": cw, "pylance_write": pw, "lance_cpp_reads_own": cs,
            "pylance_reads_own": ps, "lance_cpp_reads_pylance_dataset": cx,
            "pylance_reads_lance_cpp_dataset": px}


def local_part(run, r):
    """File format 2.0 (keys without v22), each engine on both datasets."""
    cw, pw, cs, ps, cx, px = _both_engines(run, "")
    if cw["logical_bytes"] != pw["logical_bytes"]:
        sys.exit(f"report.py: logical bytes differ: lance-cpp {cw['logical_bytes']}, "
                 f"pylance {pw['logical_bytes']}")
    add(r, "local_write_mb_s", cw["write"])
    add(r, "local_write_nofsync_mb_s", cw["write_nofsync"])
    add(r, "pylance_write_mb_s", pw["write"])
    add(r, "local_scan_mb_s", cs["scan"])
    add(r, "pylance_scan_mb_s", ps["scan"])
    add(r, "local_scan_of_pylance_dataset_mb_s", cx["scan"])
    add(r, "pylance_scan_of_local_dataset_mb_s", px["scan"])
    add(r, "local_count_filter_mb_s", cs["count_filter"], rss=False)
    add(r, "pylance_count_filter_mb_s", ps["count_filter"], rss=False)
    add(r, "local_count_filter_of_pylance_dataset_mb_s", cx["count_filter"], rss=False)
    add(r, "pylance_count_filter_of_local_dataset_mb_s", px["count_filter"], rss=False)
    disk = run.optional("disk-sync-write.json")
    if disk:  # the physical limit of a durable write of these bytes (run_bench.sh, dd)
        r["disk_sync_write_mb_s"] = disk["median_mb_s"]
        r["raw"]["disk_sync_write"] = disk
    pc = cs["page_cache_read"]
    r["page_cache_read_mb_s"] = pc["one_thread"]["best_mb_s"]
    r["page_cache_read_2t_mb_s"] = pc["two_threads"]["best_mb_s"]
    r["page_cache_read_into_memory_mb_s"] = pc["one_thread_into_memory"]["best_mb_s"]
    r["data"] = {
        "rows": cw["rows"], "logical_bytes": cw["logical_bytes"], "x_bytes": cw["x_bytes"],
        "filter": cs["count_filter"]["filter"], "filter_matches": cs["count_filter"]["result"],
        "lance_cpp_dataset_bytes": cs["disk_bytes"], "pylance_dataset_bytes": ps["disk_bytes"],
    }
    r["settings"]["reps"] = cw["reps"]
    r["settings"]["warmup"] = cw["warmup"]
    r["settings"]["pylance_version"] = pw["pylance_version"]
    r["settings"]["pyarrow_version"] = pw["pyarrow_version"]
    r["cpu_seconds_median"] = {
        "local_write": cw["write"]["cpu_median_s"], "pylance_write": pw["write"]["cpu_median_s"],
        "local_scan": cs["scan"]["cpu_median_s"], "pylance_scan": ps["scan"]["cpu_median_s"],
    }
    r["raw"]["local"] = _raw_both_engines(cw, pw, cs, ps, cx, px)


def v22_part(run, r):
    cw, pw, cs, ps, cx, px = _both_engines(run, "-v22")
    add(r, "local_write_v22_mb_s", cw["write"])
    add(r, "local_write_v22_nofsync_mb_s", cw["write_nofsync"])
    add(r, "pylance_write_v22_mb_s", pw["write"])
    add(r, "local_scan_v22_mb_s", cs["scan"])
    add(r, "pylance_scan_v22_mb_s", ps["scan"])
    add(r, "local_scan_v22_of_pylance_mb_s", cx["scan"])
    add(r, "pylance_scan_v22_of_local_mb_s", px["scan"])
    for key, d in (("local_count_filter_v22_mb_s", cs), ("pylance_count_filter_v22_mb_s", ps),
                   ("local_count_filter_v22_of_pylance_mb_s", cx),
                   ("pylance_count_filter_v22_of_local_mb_s", px)):
        add(r, key, d["count_filter"], rss=False)
    for key, d in (("local_take_v22_rows_s", cs), ("pylance_take_v22_rows_s", ps),
                   ("local_take_v22_of_pylance_rows_s", cx),
                   ("pylance_take_v22_of_local_rows_s", px)):
        r[key] = d["take"]["rows_s"]
        r["samples_s"][key] = d["take"]["samples_s"]
    r["local_v22_bytes"] = cs["data_file_bytes"]
    r["pylance_v22_bytes"] = ps["data_file_bytes"]
    r["v22_bytes_ratio"] = r["local_v22_bytes"] / r["pylance_v22_bytes"]
    r["data_v22"] = {"logical_bytes": cw["logical_bytes"], "take_rows": cs["take"]["rows"]}
    r["raw"]["v22"] = _raw_both_engines(cw, pw, cs, ps, cx, px)


def growth_part(run, r):
    """The 2.0 write and own-dataset scan at the growth size (keys *_4m_*, named for the
    default 4M rows; data_growth.rows has the actual count)."""
    cw = run.need("lance-cpp-write-growth.json")
    pw = run.need("pylance-write-growth.json")
    cs = run.need("lance-cpp-scan-growth.json")["reads"]
    ps = run.need("pylance-scan-growth.json")["reads"]
    add(r, "local_write_4m_mb_s", cw["write"])
    add(r, "pylance_write_4m_mb_s", pw["write"])
    add(r, "local_scan_4m_mb_s", cs["scan"])
    add(r, "pylance_scan_4m_mb_s", ps["scan"])
    r["data_growth"] = {"rows": cw["rows"], "logical_bytes": cw["logical_bytes"],
                        "reps": cw["reps"]}
    r["raw"]["growth"] = {"lance_cpp_write": cw, "pylance_write": pw, "lance_cpp_scan": cs,
                          "pylance_scan": ps}


def s3_part(run, r):
    """Every S3 MB/s has the same numerator, the bytes of lance-cpp's data files, so that
    every ratio is a time ratio on the same rows."""
    s3 = run.need("s3.json")
    nbytes = s3["data_file_bytes"]

    def put(key, summary, rss=True):
        r[key] = nbytes / summary["median_s"] / 1e6
        r["samples_s"][key] = summary.get("samples_s") or [x["wall_s"] for x in summary["reps"]]
        if rss and "peak_rss_mb" in summary:
            r[key.replace("_mb_s", "_peak_rss_mb")] = summary["peak_rss_mb"]

    put("s3_write_mb_s", s3["write"])
    put("curl_put_mb_s", s3["curl_put"], rss=False)
    put("s3_scan_mb_s", s3["scan"])
    put("curl_get_mb_s", s3["curl_get"], rss=False)
    if "write_unsigned_payload" in s3:
        put("s3_write_unsigned_payload_mb_s", s3["write_unsigned_payload"], rss=False)
    r["data_s3"] = {"rows": s3["rows"], "logical_bytes": s3["logical_bytes"],
                    "data_files": s3["data_files"], "data_file_bytes": nbytes,
                    "endpoint": s3["endpoint"], "settings": s3["settings"]}
    r["raw"]["s3"] = {"lance_cpp": s3}
    py = run.need("pylance-s3.json")
    put("pylance_s3_write_mb_s", py["write"])
    put("pylance_s3_scan_mb_s", py["scan"])
    put("pylance_s3_scan_of_local_mb_s", py["scan_of_local"])
    r["data_s3"]["pylance_data_files"] = py["data_files"]
    r["data_s3"]["pylance_data_file_bytes"] = py["data_file_bytes"]
    r["raw"]["s3"]["pylance"] = py
    other = run.need("s3-scan-pylance.json")
    put("s3_scan_of_pylance_mb_s", other["scan_other"])
    r["raw"]["s3"]["lance_cpp_scan_of_pylance"] = other
    # CPU seconds (medians) of each side, for the reasons of the S3 aims: the client
    # process, and the RGW's processes (one machine, 2 cores shared by both).
    for key, summary, fields in (
            ("s3_write", s3["write"], ("cpu_self_median_s", "cpu_server_median_s")),
            ("s3_scan", s3["scan"], ("cpu_self_median_s", "cpu_server_median_s")),
            ("curl_put", s3["curl_put"], ("cpu_curl_median_s", "cpu_server_median_s")),
            ("curl_get", s3["curl_get"], ("cpu_curl_median_s", "cpu_server_median_s"))):
        if all(f in summary for f in fields):
            r[f"{key}_cpu_client_s"] = summary[fields[0]]
            r[f"{key}_cpu_server_s"] = summary[fields[1]]
    for key, summary in (("pylance_s3_write", py["write"]), ("pylance_s3_scan", py["scan"])):
        if "cpu_median_s" in summary:
            r[f"{key}_cpu_client_s"] = summary["cpu_median_s"]


def cloud_part(name):
    """The Azure / GCS part on its emulator. As for S3, every MB/s has the same numerator,
    the bytes of lance-cpp's data files (curl moves exactly those objects), so every ratio is
    a time ratio on the same rows. Keys: NAME_write_mb_s, NAME_scan_mb_s,
    NAME_scan_of_pylance_mb_s (lance-cpp); pylance_NAME_write_mb_s, pylance_NAME_scan_mb_s,
    pylance_NAME_scan_of_local_mb_s; NAME_curl_get_mb_s, NAME_curl_put_mb_s; gcs:
    gcs_proxy_write_mb_s (lance-cpp through pylance's proxy)."""
    def part(run, r):
        cpp = run.need(f"{name}.json")
        nbytes = cpp["data_file_bytes"]

        def put(key, summary, rss=True):
            r[key] = nbytes / summary["median_s"] / 1e6
            r["samples_s"][key] = summary["samples_s"]
            if rss and "peak_rss_mb" in summary:
                r[key.replace("_mb_s", "_peak_rss_mb")] = summary["peak_rss_mb"]

        put(f"{name}_write_mb_s", cpp["write"])
        put(f"{name}_scan_mb_s", cpp["scan"])
        d = {"rows": cpp["rows"], "logical_bytes": cpp["logical_bytes"],
             "data_files": cpp["data_files"], "data_file_bytes": nbytes,
             "data_file_sizes": cpp["data_file_sizes"], "store": cpp.get("store"),
             "settings": cpp["settings"]}
        r[f"data_{name}"] = d
        r["raw"][name] = {"lance_cpp": cpp}
        for key, summary in ((f"{name}_write", cpp["write"]), (f"{name}_scan", cpp["scan"])):
            r[f"{key}_cpu_client_s"] = summary["cpu_self_median_s"]
            r[f"{key}_cpu_server_s"] = summary["cpu_server_median_s"]
        proxied = run.optional("gcs-proxy-write.json") if name == "gcs" else None
        if proxied:
            put("gcs_proxy_write_mb_s", proxied["write"])
            r["raw"][name]["lance_cpp_proxy_write"] = proxied
        py = run.need(f"pylance-{name}.json")
        r["raw"][name]["pylance"] = py
        d.update({"endpoint": py["endpoint"], "curl_parallel": py["curl_parallel"],
                  "pylance_version": py.get("pylance_version"),
                  "data_storage_version": py.get("data_storage_version")})
        put(f"{name}_curl_get_mb_s", py["curl_get"], rss=False)
        put(f"{name}_curl_put_mb_s", py["curl_put"], rss=False)
        for key, summary in ((f"{name}_curl_get", py["curl_get"]),
                             (f"{name}_curl_put", py["curl_put"])):
            r[f"{key}_cpu_client_s"] = summary["cpu_curl_median_s"]
            r[f"{key}_cpu_server_s"] = summary["cpu_server_median_s"]
        put(f"pylance_{name}_scan_of_local_mb_s", py["scan_of_local"])
        if "write" not in py:
            d["pylance_write"] = py.get("write_skipped", "not measured")
            return
        d["pylance_write"] = py.get("write_via", "direct")
        d["pylance_data_file_bytes"] = py["data_file_bytes"]
        put(f"pylance_{name}_write_mb_s", py["write"])
        put(f"pylance_{name}_scan_mb_s", py["scan"])
        for key, summary in ((f"pylance_{name}_write", py["write"]),
                             (f"pylance_{name}_scan", py["scan"])):
            r[f"{key}_cpu_client_s"] = summary["cpu_median_s"]
        other = run.need(f"{name}-scan-pylance.json")
        put(f"{name}_scan_of_pylance_mb_s", other["scan_other"])
        r["raw"][name]["lance_cpp_scan_of_pylance"] = other
    return part


def refresh_part(run, r):
    ref = run.need("refresh.json")
    for k, v in ref.items():
        if k.startswith("refresh_"):
            r[k] = v
    r["raw"]["refresh"] = ref


def ray_part(run, r):
    """MB/s of write = the Ray Dataset's Arrow bytes, of read = the filtered result's
    Arrow bytes (equal for both engines: the run checks the rows), over each engine's
    median seconds; namespace calls per job (write + read), median over the repetitions."""
    ray = run.need("ray.json")
    for key, engine in (("ray", "lance_cpp"), ("lance_ray", "lance_ray")):
        e = ray[engine]
        for op, nbytes in (("write", ray["logical_bytes"]), ("read", ray["result_bytes"])):
            k = f"{key}_{op}_mb_s"
            r[k] = nbytes / e[op]["median_s"] / 1e6
            r["samples_s"][k] = e[op]["samples_s"]
        r[f"{key}_describe_calls"] = statistics.median(e["describe_calls_per_job"])
        r[f"{key}_declare_calls"] = statistics.median(e["declare_calls_per_job"])
    r["data_ray"] = {k: ray[k] for k in ("rows", "blocks", "reps", "logical_bytes", "filter",
                                         "result_rows", "result_bytes", "data_storage_version",
                                         "ray_cpus", "namespace", "versions",
                                         "cross_reads_equal", "mismatches",
                                         "secret_in_write_task") if k in ray}
    r["raw"]["ray"] = ray


PARTS = [("local", "local", local_part), ("local", "local_v22", v22_part),
         ("growth", "growth", growth_part), ("s3", "s3", s3_part),
         ("refresh", "refresh", refresh_part), ("ray", "ray", ray_part),
         ("azure", "azure", cloud_part("azure")), ("gcs", "gcs", cloud_part("gcs"))]
CLOUD_PARTS = ("azure", "gcs")


def part_owns(part, key):
    """Whether a top-level key of the result belongs to `part` (the Azure / GCS parts,
    whose keys all carry the part's name; what --merge may replace)."""
    return part in CLOUD_PARTS and (key.startswith(f"{part}_") or
                                    key.startswith(f"pylance_{part}_") or
                                    key == f"data_{part}")


def merge(partial_path, into_path):
    """Puts the Azure / GCS parts of one run (PARTIAL) into another's result (INTO): those
    parts' keys, samples, raw results and failures are replaced, everything else stays,
    and "merged" records the run each merged part came from."""
    new, r = read(partial_path), read(into_path)
    if new is None or r is None:
        sys.exit(f"report.py: --merge needs both {partial_path} and {into_path}")
    parts = new.get("parts") or []
    other = [p for p in parts if p not in CLOUD_PARTS]
    if other:
        sys.exit(f"report.py: --merge takes only the parts {', '.join(CLOUD_PARTS)}; "
                 f"{partial_path} has {', '.join(other)} (run those with the full bench)")
    for part in parts:
        for key in [k for k in r if part_owns(part, k)]:
            del r[key]
        for d in ("samples_s", "raw"):
            r.setdefault(d, {})
            for key in [k for k in r[d] if k == part or part_owns(part, k)]:
                del r[d][key]
        r["failures"] = {k: v for k, v in (r.get("failures") or {}).items()
                         if part not in failure_parts(k)}
        for key, v in new.items():
            if part_owns(part, key):
                r[key] = v
        for d in ("samples_s", "raw"):
            r[d].update({k: v for k, v in (new.get(d) or {}).items()
                         if k == part or part_owns(part, k)})
        r["failures"].update({k: v for k, v in (new.get("failures") or {}).items()
                              if part in failure_parts(k)})
        r.setdefault("merged", {})[part] = {
            k: new.get(k) for k in ("git_commit", "dirty", "timestamp", "timestamp_end",
                                    "load_before", "load_after", "machine")}
        r["merged"][part]["part_seconds"] = (new.get("part_seconds") or {}).get(part)
        if part not in r.setdefault("parts", []):
            r["parts"].append(part)
    r["aims"] = {a["name"]: {k: a[k] for k in ("met", "measured")} for a in aims(r)}
    tmp = into_path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(r, f, indent=2)
        f.write("\n")
    os.replace(tmp, into_path)


def build(args):
    run = RunDir(args.dir)
    parts = args.parts.split()
    r = {
        "git_commit": args.git_commit,
        "dirty": args.dirty == "true",
        # Set only when HEAD moved during the run (then the run is of no single commit).
        **({"git_commit_end": args.git_commit_end}
           if args.git_commit_end and args.git_commit_end != args.git_commit else {}),
        "timestamp": args.timestamp,
        "timestamp_end": datetime.datetime.now(datetime.timezone.utc).strftime(
            "%Y-%m-%dT%H:%M:%SZ"),
        "load_before": loads(args.load_before),
        "load_after": loads(args.load_after),
        "machine": machine(),
        "parts": parts,
        "part_seconds": {k: int(v) for k, v in
                         (kv.split("=") for kv in args.part_seconds.split(",") if kv)},
        "total_seconds": args.total_seconds,
        "statistic": "MB/s = 1e6 bytes / s at the median of the timed repetitions; "
                     "samples_s: each repetition's seconds; *_peak_rss_mb: the largest "
                     "peak RSS (VmHWM, reset before each repetition) of the process",
        "settings": {"lance_cpp_write_fsync": True},
        "samples_s": {},
        "failures": run.failures(),
        "raw": {},
    }
    for part, name, fn in PARTS:
        if part not in parts:
            continue
        try:
            fn(run, r)
        except Missing as e:
            r["failures"].setdefault(name, f"results incomplete: {e}")
    r["aims"] = {a["name"]: {k: a[k] for k in ("met", "measured")} for a in aims(r)}
    return r


# ------------------------------------------------------------------------------------------
# Aims


def busy(r):
    lb, n = r.get("load_before"), r.get("machine", {}).get("nproc")
    if lb and n and lb[0] > 0.5 * n:
        return f"measured on a busy machine (load average {lb[0]:.2f} before the run, {n} CPUs)"
    return None


def aim_part(name):
    if name.startswith("s3"):
        return "s3"
    if name.startswith("ray"):
        return "ray"
    return "refresh" if name == "refresh" else "local"


def failure_parts(step):
    """The parts a failed step (run_bench.sh's step name, or a section of build()) hurt."""
    if step == "rgw":
        return ("s3", "refresh", "ray")
    if step == "ray":
        return ("ray",)
    if "growth" in step:
        return ("growth",)
    for cloud in CLOUD_PARTS:
        if step.startswith(cloud) or step.startswith(f"pylance-{cloud}"):
            return (cloud,)
    if step.startswith("s3") or step.startswith("pylance-s3"):
        return ("s3",)
    if step == "refresh":
        return ("refresh",)
    return ("local",)


def fmt(v):
    if v is None:
        return "-"
    if abs(v) >= 100:
        return f"{v:,.0f}"
    return f"{v:.3g}"


def aims(r):
    """Each aim: name, what, met (True / False / None = not measured), measured (text),
    reason (text)."""
    out = []
    samples = r.get("samples_s", {})
    for name, what, how in AIMS:
        kind = how[0]
        met, measured, missing = None, "", []
        if kind in ("ratio", "ratio_every_rep", "at_most"):
            ours, theirs, lim = how[1], how[2], how[3]
            missing = [k for k in (ours, theirs) if r.get(k) is None]
            if not missing:
                ratio = r[ours] / r[theirs] if r[theirs] else float("inf")
                if kind == "at_most":
                    met = ratio <= lim
                    measured = f"{fmt(r[ours])} / {fmt(r[theirs])} = {ratio:.2f}x"
                else:
                    met = ratio >= lim
                    measured = f"{fmt(r[ours])} vs {fmt(r[theirs])} = {ratio:.2f}x"
                if kind == "ratio_every_rep":
                    ours_s = samples.get(ours)
                    if not ours_s:
                        missing = [f"samples_s.{ours}"]
                        met = None
                    else:
                        # Our slowest repetition's throughput (same bytes as our median's)
                        # against pylance's median on the same file.
                        slowest = r[ours] * statistics.median(ours_s) / max(ours_s)
                        worst = slowest / r[theirs] if r[theirs] else float("inf")
                        met = met and worst >= how[4]
                        measured += f"; slowest rep {fmt(slowest)} = {worst:.2f}x"
        elif kind == "refresh":
            keys = ["refresh_p99_ms_background", "refresh_p99_ms_none",
                    "refresh_failed_requests"]
            missing = [k for k in keys if r.get(k) is None]
            if not missing:
                bg, none, failed = (r[k] for k in keys)
                ratio = bg / none if none else float("inf")
                met = ratio <= 1.2 and failed == 0
                measured = (f"p99 {fmt(bg)} ms vs {fmt(none)} ms = {ratio:.2f}x; "
                            f"{failed} failed requests")
        elif kind == "ray_checks":
            d = r.get("data_ray") or {}
            if "cross_reads_equal" not in d or "secret_in_write_task" not in d:
                missing = ["data_ray"]
            else:
                leaks = d["secret_in_write_task"]
                met = bool(d["cross_reads_equal"]) and not leaks.get("lance_cpp", True)
                measured = ("same rows in all four reads" if d["cross_reads_equal"] else
                            "reads differ: " + "; ".join(d.get("mismatches", []))) + \
                    "; vended secret in write tasks: " + \
                    ", ".join(f"{k} {'yes' if v else 'no'}" for k, v in leaks.items())
        if met is None:
            part = aim_part(name)
            fails = {k: v for k, v in (r.get("failures") or {}).items()
                     if part in failure_parts(k)}
            why = "; ".join(f"{k}: {v}" for k, v in fails.items())
            if r.get("parts") is not None and part not in r["parts"]:
                reason = f"not measured (part {part} did not run)"
            else:
                reason = f"not measured ({', '.join(missing)} missing" + \
                    (f"; failures: {why})" if why else ")")
        elif met:
            reason = ""
        else:
            reason = REASONS.get(name, NO_REASON)
            try:  # a reason may cite the run's own numbers: "{disk_sync_write_mb_s:.0f}"
                reason = reason.format(**{k: v for k, v in r.items()
                                          if isinstance(v, (int, float))})
            except (KeyError, ValueError, IndexError):
                pass  # a number this run did not measure: the text stays as written
        b = busy(r)
        if b and met is not None:
            reason = f"{b}; {reason}" if reason else b
        out.append({"name": name, "what": what, "met": met, "measured": measured,
                    "reason": reason})
    return out


# ------------------------------------------------------------------------------------------
# Markdown


def md_table(header, rows, numeric=None):
    """A Markdown table; columns in `numeric` (default: all but the first and the last)
    are right-aligned."""
    if numeric is None:
        numeric = range(1, len(header) - 1)
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---:" if i in numeric else "---"
                          for i in range(len(header))) + "|"]
    out += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(out)


def pair_rows(r, pairs, unit_div=1.0):
    """Rows of (what, lance-cpp key, pylance key): values, ratio, keys."""
    rows = []
    for what, lk, pk in pairs:
        lv, pv = r.get(lk), r.get(pk)
        ratio = f"{lv / pv:.2f}x" if lv is not None and pv else "-"
        rows.append([what, fmt(lv), fmt(pv), ratio, f"`{lk}` / `{pk}`"])
    return rows


def section_or_absent(r, key, text_fn, part):
    if r.get(key) is None:
        return absent(r, part)
    return text_fn()


def absent(r, part):
    """Why a section has no numbers: its part did not run, or these steps failed."""
    if r.get("parts") is not None and part not in r["parts"]:
        return f"Not measured in this run (part `{part}` did not run)."
    f = {k: v for k, v in (r.get("failures") or {}).items() if part in failure_parts(k)}
    if not f:
        return "Not measured in this run."
    return ("Not measured in this run (failures: " +
            "; ".join(f"`{k}`: {v}" for k, v in f.items()) + ").")


def render_summary(r):
    m = r.get("machine", {})
    lb = r.get("load_before") or loads(m.get("loadavg_before", ""))
    la = r.get("load_after") or loads(m.get("loadavg_after", ""))
    dirty = r.get("dirty")
    moved = (f" **HEAD moved during the run, to `{r['git_commit_end']}`**;"
             if r.get("git_commit_end") else "")
    lines = [
        f"- Commit `{r.get('git_commit', 'unknown')}`" + moved +
        {True: " **with uncommitted changes** (`dirty`: true)", False: " (clean tree)",
         None: " (whether the tree was clean is not recorded)"}[dirty] +
        f"; run started {r.get('timestamp', 'unknown')}" +
        (f", took {r['total_seconds']} s" if r.get("total_seconds") else "") + ".",
        f"- Parts: {', '.join(r.get('parts') or ['not recorded'])}" +
        (" (" + ", ".join(f"{k} {v} s" for k, v in r["part_seconds"].items()) + ")"
         if r.get("part_seconds") else "") + ".",
        f"- Machine: {m.get('nproc', '?')} x {m.get('cpu_model', '?')}, "
        f"{m.get('memory_gib', '?')} GiB, kernel {m.get('kernel', '?')}; load average "
        f"(1, 5, 15 min) {show_load(lb)} before and {show_load(la)} after.",
    ]
    if "parts" not in r:
        old = r.get("s3", {}).get("git_commit")
        lines.append("- **This JSON predates the one-run format** (no `parts`, `dirty`, "
                     "`samples_s`): its parts may come from different runs" +
                     (f" (the S3 part from commit `{old}`)" if old else "") +
                     "; aims that need the newer keys show \"not measured\".")
    b = busy(dict(r, load_before=lb))
    if b:
        lines.append(f"- **{b[0].upper() + b[1:]}**: every time here is stretched and noisy.")
    if r.get("merged"):
        lines.append("- Parts merged from other runs (`report.py --merge`; each section "
                     "gives its run): " + ", ".join(r["merged"]) + ".")
    f = r.get("failures") or {}
    lines.append("- Failures: " + ("none." if not f else
                                   "; ".join(f"`{k}`: {v}" for k, v in f.items()) + "."))
    return "\n".join(lines)


def show_load(lb):
    return " ".join(f"{x:.2f}" for x in lb) if lb else "not recorded"


def render_aims(r):
    rows = []
    for a in aims(r):
        state = {True: "met", False: "**not met**", None: "not measured"}[a["met"]]
        rows.append([a["what"], state, a["measured"] or "-", a["reason"] or "-"])
    return md_table(["aim", "met?", "measured (lance-cpp vs pylance or curl)", "reason"], rows,
                    numeric=())


def render_local(r):
    def text():
        d = r.get("data", {})
        rows = pair_rows(r, [
            ("write (lance-cpp with fsync, its default)", "local_write_mb_s",
             "pylance_write_mb_s"),
            ("write (lance-cpp without fsync, like pylance)", "local_write_nofsync_mb_s",
             "pylance_write_mb_s"),
            ("scan to Arrow, each engine its own dataset", "local_scan_mb_s",
             "pylance_scan_mb_s"),
            ("scan to Arrow, both on lance-cpp's dataset", "local_scan_mb_s",
             "pylance_scan_of_local_dataset_mb_s"),
            ("scan to Arrow, both on pylance's dataset", "local_scan_of_pylance_dataset_mb_s",
             "pylance_scan_mb_s"),
            ("count_rows(x > 1000.0), own dataset", "local_count_filter_mb_s",
             "pylance_count_filter_mb_s"),
            ("count_rows, both on lance-cpp's dataset", "local_count_filter_mb_s",
             "pylance_count_filter_of_local_dataset_mb_s"),
            ("count_rows, both on pylance's dataset",
             "local_count_filter_of_pylance_dataset_mb_s", "pylance_count_filter_mb_s"),
        ])
        head = (f"{d.get('rows', 0):,} rows, {d.get('logical_bytes', 0):,} logical bytes; "
                f"median of {r.get('settings', {}).get('reps', '?')} after "
                f"{r.get('settings', {}).get('warmup', '?')} warm-up; MB/s (1e6 B/s).\n\n")
        pc = (f"\n\nPage-cache read of lance-cpp's data file (best of N): "
              f"{fmt(r.get('page_cache_read_mb_s'))} MB/s (1 thread, 8 MiB buffer), "
              f"{fmt(r.get('page_cache_read_2t_mb_s'))} MB/s (2 threads), "
              f"{fmt(r.get('page_cache_read_into_memory_mb_s'))} MB/s (into one buffer).")
        return head + md_table(["operation", "lance-cpp", "pylance", "ratio", "keys"],
                               rows) + pc
    return section_or_absent(r, "local_write_mb_s", text, "local")


def render_v22(r):
    def text():
        rows = pair_rows(r, [
            ("write (lance-cpp with fsync)", "local_write_v22_mb_s", "pylance_write_v22_mb_s"),
            ("write (lance-cpp without fsync)", "local_write_v22_nofsync_mb_s",
             "pylance_write_v22_mb_s"),
            ("scan, each its own dataset", "local_scan_v22_mb_s", "pylance_scan_v22_mb_s"),
            ("scan, both on lance-cpp's dataset", "local_scan_v22_mb_s",
             "pylance_scan_v22_of_local_mb_s"),
            ("scan, both on pylance's dataset", "local_scan_v22_of_pylance_mb_s",
             "pylance_scan_v22_mb_s"),
            ("count_rows, both on lance-cpp's dataset", "local_count_filter_v22_mb_s",
             "pylance_count_filter_v22_of_local_mb_s"),
            ("count_rows, both on pylance's dataset", "local_count_filter_v22_of_pylance_mb_s",
             "pylance_count_filter_v22_mb_s"),
            ("take 10,000 rows (rows/s), both on lance-cpp's dataset", "local_take_v22_rows_s",
             "pylance_take_v22_of_local_rows_s"),
            ("take 10,000 rows (rows/s), both on pylance's dataset",
             "local_take_v22_of_pylance_rows_s", "pylance_take_v22_rows_s"),
            ("data file bytes", "local_v22_bytes", "pylance_v22_bytes"),
        ])
        d = r.get("data_v22")
        head = (f"The 2.0 data plus columns `c`, `n`, `u`: {d['logical_bytes']:,} logical "
                f"bytes; take of {d['take_rows']:,} rows; median of "
                f"{r.get('settings', {}).get('reps', '?')}; MB/s (1e6 B/s) unless noted.\n\n"
                if d else "")
        return (head + md_table(["operation", "lance-cpp", "pylance", "ratio", "keys"], rows))
    return section_or_absent(r, "local_write_v22_mb_s", text, "local")


def render_growth(r):
    def text():
        g = r.get("data_growth", {})
        n1, n4 = r.get("data", {}).get("rows", 0), g.get("rows", 0)
        rows = []
        for op in ("write", "scan"):
            for eng, pre in (("lance-cpp", "local"), ("pylance", "pylance")):
                k1, k4 = f"{pre}_{op}_mb_s", f"{pre}_{op}_4m_mb_s"
                m1 = r.get(k1.replace("_mb_s", "_peak_rss_mb"))
                m4 = r.get(k4.replace("_mb_s", "_peak_rss_mb"))
                rows.append([f"{op}, {eng}", fmt(r.get(k1)), fmt(r.get(k4)), fmt(m1), fmt(m4),
                             f"`{k1}`, `{k4}`"])
        return (f"File format 2.0, each engine on its own dataset; {n1:,} rows (the local "
                f"part) and {n4:,} rows (the growth part, median of {g.get('reps', '?')}; "
                f"keys `*_4m_*`).\n\n" +
                md_table(["operation", f"MB/s, {n1:,} rows", f"MB/s, {n4:,} rows",
                          f"peak RSS MB, {n1:,}", f"peak RSS MB, {n4:,}", "keys"], rows))

    return section_or_absent(r, "local_write_4m_mb_s", text, "growth")


def render_memory(r):
    pairs = [("local write 2.0", "local_write_peak_rss_mb", "pylance_write_peak_rss_mb"),
             ("local scan 2.0, own dataset", "local_scan_peak_rss_mb",
              "pylance_scan_peak_rss_mb"),
             ("local write 2.2", "local_write_v22_peak_rss_mb", "pylance_write_v22_peak_rss_mb"),
             ("local scan 2.2, own dataset", "local_scan_v22_peak_rss_mb",
              "pylance_scan_v22_peak_rss_mb"),
             ("local write 2.0, growth size", "local_write_4m_peak_rss_mb",
              "pylance_write_4m_peak_rss_mb"),
             ("local scan 2.0, growth size", "local_scan_4m_peak_rss_mb",
              "pylance_scan_4m_peak_rss_mb"),
             ("S3 write", "s3_write_peak_rss_mb", "pylance_s3_write_peak_rss_mb"),
             ("S3 scan, own dataset", "s3_scan_peak_rss_mb", "pylance_s3_scan_peak_rss_mb")]
    if not any(r.get(k) is not None for _, k, _ in pairs):
        return absent(r, "local")
    return md_table(["operation", "lance-cpp MB", "pylance MB", "ratio", "keys"],
                    pair_rows(r, pairs))


def render_s3(r):
    def text():
        d = r.get("data_s3", {})
        rows = pair_rows(r, [
            ("write", "s3_write_mb_s", "pylance_s3_write_mb_s"),
            ("scan, each its own dataset", "s3_scan_mb_s", "pylance_s3_scan_mb_s"),
            ("scan, both on lance-cpp's dataset", "s3_scan_mb_s",
             "pylance_s3_scan_of_local_mb_s"),
            ("scan, both on pylance's dataset", "s3_scan_of_pylance_mb_s",
             "pylance_s3_scan_mb_s"),
        ])
        curl = pair_rows(r, [("lance-cpp write vs curl PUT", "s3_write_mb_s", "curl_put_mb_s"),
                             ("lance-cpp scan vs curl GET", "s3_scan_mb_s", "curl_get_mb_s")])
        return (f"{d.get('rows', 0):,} rows in {d.get('data_files', '?')} data files, "
                f"{d.get('data_file_bytes', 0):,} bytes (lance-cpp's; pylance's: "
                f"{d.get('pylance_data_file_bytes', 0):,}), on {d.get('endpoint', '?')}. "
                f"Every MB/s here is lance-cpp's data-file bytes / median wall time, so every "
                f"ratio is a time ratio.\n\n" +
                md_table(["operation", "lance-cpp", "pylance", "ratio", "keys"], rows) +
                "\n\n" + md_table(["operation", "lance-cpp", "curl", "ratio", "keys"], curl))
    return section_or_absent(r, "s3_write_mb_s", text, "s3")


def render_cloud(r):
    def one(name, title):
        d = r.get(f"data_{name}")
        if d is None:
            return f"### {title}\n\n" + absent(r, name)
        rows = pair_rows(r, [
            ("write", f"{name}_write_mb_s", f"pylance_{name}_write_mb_s"),
            ("scan, each its own dataset", f"{name}_scan_mb_s", f"pylance_{name}_scan_mb_s"),
            ("scan, both on lance-cpp's dataset", f"{name}_scan_mb_s",
             f"pylance_{name}_scan_of_local_mb_s"),
            ("scan, both on pylance's dataset", f"{name}_scan_of_pylance_mb_s",
             f"pylance_{name}_scan_mb_s"),
        ])
        if name == "gcs" and "gcs_proxy_write_mb_s" in r:
            rows.insert(1, pair_rows(r, [("write, both through the proxy",
                                          "gcs_proxy_write_mb_s",
                                          "pylance_gcs_write_mb_s")])[0])
        curl = pair_rows(r, [
            ("lance-cpp write vs curl PUT", f"{name}_write_mb_s", f"{name}_curl_put_mb_s"),
            ("lance-cpp scan vs curl GET", f"{name}_scan_mb_s", f"{name}_curl_get_mb_s")])
        cpu = md_table(["operation", "client CPU s", "server CPU s", "wall s"], [
            [op, fmt(r.get(f"{k}_cpu_client_s")), fmt(r.get(f"{k}_cpu_server_s")),
             fmt(d["data_file_bytes"] / r[f"{k}_mb_s"] / 1e6) if r.get(f"{k}_mb_s") else "-"]
            for op, k in (("lance-cpp write", f"{name}_write"),
                          ("lance-cpp scan", f"{name}_scan"),
                          ("curl PUT", f"{name}_curl_put"), ("curl GET", f"{name}_curl_get"))],
            numeric=(1, 2, 3))
        s = d.get("settings", {})
        return (f"### {title}\n\n"
                f"{d['rows']:,} rows in {d['data_files']} data files of "
                f"{', '.join(f'{x:,}' for x in d['data_file_sizes'])} bytes "
                f"({d['data_file_bytes']:,} in all, lance-cpp's; pylance's: "
                f"{d.get('pylance_data_file_bytes', 0):,}), file format "
                f"{d.get('data_storage_version', '?')}, on {d.get('endpoint', '?')}; median of "
                f"{s.get('reps', '?')} repetitions; curl runs {d.get('curl_parallel', '?')} "
                f"processes at a time, one per object. pylance's write: "
                f"{d.get('pylance_write', '?')}.\n\n" +
                md_table(["operation", "lance-cpp", "pylance", "ratio", "keys"], rows) +
                "\n\n" + md_table(["operation", "lance-cpp", "curl", "ratio", "keys"], curl) +
                "\n\nCPU seconds (medians) of the client (this process, or the curl processes) "
                "and of the emulator's process, next to the wall time:\n\n" + cpu)
    merged = r.get("merged") or {}
    head = ""
    if any(p in merged for p in CLOUD_PARTS):
        head = "".join(
            f"- **Part `{p}` merged from another run** (`report.py --merge`): commit "
            f"`{m.get('git_commit')}`" + (" with uncommitted changes" if m.get("dirty") else "")
            + f", run {m.get('timestamp')} to {m.get('timestamp_end')}, "
            f"{m.get('part_seconds')} s, load average {show_load(m.get('load_before'))} "
            f"before and {show_load(m.get('load_after'))} after.\n"
            for p, m in merged.items() if p in CLOUD_PARTS) + "\n"
    return head + one("azure", "Azure Blob Storage (Azurite)") + "\n\n" + one(
        "gcs", "Google Cloud Storage (fake-gcs-server)")


def render_refresh(r):
    def text():
        rows = []
        for mode in ("background", "inline", "none"):
            rows.append([mode] + [fmt(r.get(f"refresh_{q}_ms_{mode}"))
                                  for q in ("p50", "p99", "max")])
        return (md_table(["credential refresh", "p50 ms", "p99 ms", "max ms"], rows) +
                f"\n\nFailed requests (`refresh_failed_requests`): "
                f"{r.get('refresh_failed_requests')}.")
    return section_or_absent(r, "refresh_p99_ms_background", text, "refresh")


def render_ray(r):
    def text():
        d = r.get("data_ray", {})
        rows = pair_rows(r, [("write_lance (MB/s)", "ray_write_mb_s", "lance_ray_write_mb_s"),
                             ("read_lance with the filter (MB/s)", "ray_read_mb_s",
                              "lance_ray_read_mb_s"),
                             ("describe_table calls per job", "ray_describe_calls",
                              "lance_ray_describe_calls"),
                             ("declare_table calls per job", "ray_declare_calls",
                              "lance_ray_declare_calls")])
        leaks = d.get("secret_in_write_task", {})
        versions = d.get("versions", {})
        return (f"{d.get('rows', 0):,} generated rows ({d.get('logical_bytes', 0):,} bytes in "
                f"Ray, {d.get('blocks', '?')} blocks), file format "
                f"{d.get('data_storage_version', '?')}, a local Ray of {d.get('ray_cpus', '?')} "
                f"CPUs (Ray {versions.get('ray', '?')}, lance-ray {versions.get('lance_ray', '?')}"
                f", pylance {versions.get('pylance', '?')}); filter `{d.get('filter', '?')}` "
                f"keeps {d.get('result_rows', 0):,} rows ({d.get('result_bytes', 0):,} bytes). "
                f"Median of {d.get('reps', '?')} after a warm-up. Same rows in every engine's "
                f"read of every engine's table: "
                f"{'yes' if d.get('cross_reads_equal') else 'NO'}. The vended secret in what "
                f"a write task receives: lance_cpp "
                f"{'yes' if leaks.get('lance_cpp') else 'no'}, lance-ray "
                f"{'yes' if leaks.get('lance_ray') else 'no'}.\n\n" +
                md_table(["measure", "lance_cpp.ray", "lance-ray", "ratio", "keys"], rows))
    return section_or_absent(r, "ray_write_mb_s", text, "ray")


def markdown(path, template=TEMPLATE):
    r = read(path)
    if r is None:
        sys.exit(f"report.py: no {path}")
    with open(template) as f:
        body = f.read()
    fill = {"SOURCE": path,
            "SUMMARY": render_summary(r), "AIMS": render_aims(r), "LOCAL": render_local(r),
            "V22": render_v22(r), "GROWTH": render_growth(r), "MEMORY": render_memory(r),
            "S3": render_s3(r), "REFRESH": render_refresh(r), "RAY": render_ray(r),
            "CLOUD": render_cloud(r)}
    for k, v in fill.items():
        body = body.replace("@" + k + "@", v)
    return body


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--markdown", metavar="JSON", help="print docs/benchmarks.md from JSON")
    p.add_argument("--template", default=TEMPLATE)
    p.add_argument("--dir")
    p.add_argument("--out")
    p.add_argument("--parts", default="local growth s3 refresh ray azure gcs")
    p.add_argument("--merge", metavar="PARTIAL", help="merge PARTIAL's parts into --into")
    p.add_argument("--into", metavar="JSON")
    p.add_argument("--git-commit", default="unknown")
    p.add_argument("--git-commit-end", help="HEAD at the end of the run")
    p.add_argument("--dirty", choices=["true", "false"], default="false")
    p.add_argument("--timestamp", default="")
    p.add_argument("--load-before", default="")
    p.add_argument("--load-after", default="")
    p.add_argument("--part-seconds", default="")
    p.add_argument("--total-seconds", type=int)
    args = p.parse_args()
    if args.markdown:
        sys.stdout.write(markdown(args.markdown, args.template))
        return
    if args.merge:
        if not args.into:
            p.error("--merge needs --into")
        merge(args.merge, args.into)
        return
    if not args.dir or not args.out:
        p.error("--dir and --out are required (or --markdown JSON)")
    r = build(args)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(r, f, indent=2)
        f.write("\n")
    os.replace(tmp, args.out)
    for title, fn in (("local, file format 2.0", render_local), ("local, 2.2", render_v22),
                      ("growth", render_growth), ("peak RSS", render_memory),
                      ("S3", render_s3), ("refresh under load", render_refresh),
                      ("Ray", render_ray), ("Azure and GCS (emulators)", render_cloud)):
        print(f"\n== {title}\n{fn(r)}")
    print()
    print(render_summary(r))
    print()
    for a in aims(r):
        state = {True: "met", False: "NOT MET", None: "not measured"}[a["met"]]
        print(f"  {state:<13} {a['what']}: {a['measured']} {a['reason']}")
    print(f"  -> {args.out}")


if __name__ == "__main__":
    main()
