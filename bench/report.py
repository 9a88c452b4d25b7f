# SPDX-License-Identifier: Apache-2.0
"""Combines the JSON of one `make bench` run into bench/results/latest.json and prints a
table (scripts/run_bench.sh; docs/benchmarks.md).

  report.py --dir WORKDIR --out bench/results/latest.json [--load-before "..."] [--s3-only]
            [--local-seconds N]
  report.py --markdown-v22 bench/results/latest.json [--doc docs/benchmarks.md]
      prints the file format 2.2 results of that JSON as the Markdown of
      docs/benchmarks.md ("File format 2.2"), so that the doc's numbers are the JSON's;
      with --doc, puts it between the doc's DOC_BEGIN and DOC_END lines instead.

WORKDIR holds lance-cpp-write.json, pylance-write.json (the writes) and
<engine>-scan-<dataset>.json (the reads of each engine on each dataset: lance-cpp.lance,
pylance.lance; the reads of the other engine's dataset are optional), the same for file
format 2.2 with "-v22" before ".json" (lance-cpp-write-v22.json, ...,
pylance-scan-lance-cpp-v22.json; all required), and s3.json (the S3 part,
bench/s3_benchmark.cc). A part that did not run keeps its keys from the existing --out;
with --s3-only only the S3 part ran.
"""

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys


def read(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def git_commit(repo):
    try:
        commit = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
    except (subprocess.CalledProcessError, FileNotFoundError):
        return "unknown (no commit)"
    dirty = subprocess.run(["git", "-C", repo, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return commit + ("-dirty" if dirty else "")


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
    return {
        "nproc": os.cpu_count(),
        "cpu_model": model,
        "memory_gib": round(mem_kb / 1024 / 1024, 1),
        "kernel": platform.release(),
    }


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def local_report(args, repo):
    """The local part (lance-cpp vs pylance): the result dict; prints its table."""
    def need(name):
        d = read(os.path.join(args.dir, name))
        if d is None:
            sys.exit(f"report.py: missing {name} in {args.dir}")
        return d

    cw = need("lance-cpp-write.json")
    pw = need("pylance-write.json")
    cs = need("lance-cpp-scan-lance-cpp.json")["reads"]  # each engine on its own dataset
    ps = need("pylance-scan-pylance.json")["reads"]
    cx = read(os.path.join(args.dir, "lance-cpp-scan-pylance.json"))  # on the other's
    px = read(os.path.join(args.dir, "pylance-scan-lance-cpp.json"))
    cx = cx["reads"] if cx else None
    px = px["reads"] if px else None
    if cw["logical_bytes"] != pw["logical_bytes"]:
        sys.exit(f"report.py: logical bytes differ: lance-cpp {cw['logical_bytes']}, "
                 f"pylance {pw['logical_bytes']}")

    pc = cs["page_cache_read"]
    r = {
        "git_commit": git_commit(repo),
        "timestamp": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        # The required keys (logical MB/s, MB = 1e6 bytes, median of the timed repetitions).
        "local_write_mb_s": cw["write"]["mb_s"],
        "local_scan_mb_s": cs["scan"]["mb_s"],
        "local_count_filter_mb_s": cs["count_filter"]["mb_s"],
        "pylance_write_mb_s": pw["write"]["mb_s"],
        "pylance_scan_mb_s": ps["scan"]["mb_s"],
        "pylance_count_filter_mb_s": ps["count_filter"]["mb_s"],
        # Best of N single-threaded pread passes (8 MiB buffer) over lance-cpp's data file.
        "page_cache_read_mb_s": pc["one_thread"]["best_mb_s"],
    }
    extra = {
        "local_write_nofsync_mb_s": cw["write_nofsync"]["mb_s"],
        "page_cache_read_2t_mb_s": pc["two_threads"]["best_mb_s"],
        "page_cache_read_into_memory_mb_s": pc["one_thread_into_memory"]["best_mb_s"],
        "best_of_n": {
            "local_write_mb_s": cw["write"]["best_mb_s"],
            "local_write_nofsync_mb_s": cw["write_nofsync"]["best_mb_s"],
            "local_scan_mb_s": cs["scan"]["best_mb_s"],
            "local_count_filter_mb_s": cs["count_filter"]["best_mb_s"],
            "pylance_write_mb_s": pw["write"]["best_mb_s"],
            "pylance_scan_mb_s": ps["scan"]["best_mb_s"],
            "pylance_count_filter_mb_s": ps["count_filter"]["best_mb_s"],
        },
        # The first call in a fresh process (the untimed warm-up run), MB/s.
        "first_call": {
            "local_scan_mb_s": cs["scan"]["bytes"] / cs["scan"]["warmup_samples_s"][0] / 1e6,
            "pylance_scan_mb_s": ps["scan"]["bytes"] / ps["scan"]["warmup_samples_s"][0] / 1e6,
            "local_count_filter_mb_s":
                cs["count_filter"]["bytes"] / cs["count_filter"]["warmup_samples_s"][0] / 1e6,
            "pylance_count_filter_mb_s":
                ps["count_filter"]["bytes"] / ps["count_filter"]["warmup_samples_s"][0] / 1e6,
        } if cs["scan"]["warmup_samples_s"] and ps["scan"]["warmup_samples_s"] else {},
    }
    if cx:
        extra["local_scan_of_pylance_dataset_mb_s"] = cx["scan"]["mb_s"]
        extra["local_count_filter_of_pylance_dataset_mb_s"] = cx["count_filter"]["mb_s"]
        extra["page_cache_read_pylance_dataset_mb_s"] = \
            cx["page_cache_read"]["one_thread"]["best_mb_s"]
    if px:
        extra["pylance_scan_of_local_dataset_mb_s"] = px["scan"]["mb_s"]
        extra["pylance_count_filter_of_local_dataset_mb_s"] = px["count_filter"]["mb_s"]
    r.update(extra)
    r["aims"] = {
        "write_at_least_pylance": r["local_write_mb_s"] >= r["pylance_write_mb_s"],
        "scan_at_least_pylance": r["local_scan_mb_s"] >= r["pylance_scan_mb_s"],
        "count_filter_at_least_pylance":
            r["local_count_filter_mb_s"] >= r["pylance_count_filter_mb_s"],
        "scan_at_least_half_page_cache": r["local_scan_mb_s"] >= 0.5 * r["page_cache_read_mb_s"],
    }
    r["data"] = {
        "rows": cw["rows"],
        "logical_bytes": cw["logical_bytes"],
        "x_bytes": cw["x_bytes"],
        "columns": "id int64 = row number, x float64 uniform [0,2000), s utf8 (16 random "
                   "lowercase letters), v fixed_size_list<float32,128> uniform [0,1); "
                   "numpy default_rng(42); 8 record batches of 131072 rows",
        "filter": cs["count_filter"]["filter"],
        "filter_matches": cs["count_filter"]["result"],
        "lance_cpp_dataset_bytes": cs["disk_bytes"],
        "pylance_dataset_bytes": ps["disk_bytes"],
        "data_file_bytes_page_cache_read": pc["data_file_bytes"],
    }
    r["settings"] = {
        "reps": cw["reps"],
        "warmup": cw["warmup"],
        "statistic": "median of reps (best_of_n: fastest rep; first_call: the warm-up run)",
        "data_storage_version": "2.0",
        "max_rows_per_file": 1024 * 1024,
        "max_rows_per_group": 1024,
        "lance_cpp_write_fsync": True,
        "pylance_version": pw["pylance_version"],
        "pyarrow_version": pw["pyarrow_version"],
    }
    r["settings"]["local_seconds"] = args.local_seconds
    r["machine"] = machine()
    r["machine"]["loadavg_before"] = args.load_before
    r["machine"]["loadavg_after"] = loadavg()
    r["cpu_seconds_median"] = {
        "local_write": cw["write"]["cpu_median_s"],
        "local_write_nofsync": cw["write_nofsync"]["cpu_median_s"],
        "local_scan": cs["scan"]["cpu_median_s"],
        "local_count_filter": cs["count_filter"]["cpu_median_s"],
        "pylance_write": pw["write"]["cpu_median_s"],
        "pylance_scan": ps["scan"]["cpu_median_s"],
        "pylance_count_filter": ps["count_filter"]["cpu_median_s"],
    }
    r["raw"] = {"lance_cpp_write": cw, "pylance_write": pw, "lance_cpp_reads_own": cs,
                "pylance_reads_own": ps, "lance_cpp_reads_pylance_dataset": cx,
                "pylance_reads_lance_cpp_dataset": px}

    # ---- table
    def row(name, local, pyl, lb=None, pb=None):
        ratio = f"{local / pyl:5.2f}x" if pyl else ""
        best = f"{lb:9.0f} {pb:9.0f}" if lb is not None else ""
        return f"  {name:<34}{local:10.0f} {pyl:10.0f}  {ratio:>6}   {best}"

    b = extra["best_of_n"]
    cpu = r["cpu_seconds_median"]
    print()
    print(f"lance-cpp vs pylance {pw['pylance_version']}: {cw['rows']:,} rows, "
          f"{cw['logical_bytes'] / 1e6:.0f} MB logical, file format 2.0, "
          f"median of {cw['reps']} (after {cw['warmup']} warm-up), MB/s (1e6 B/s)")
    print(f"  {'':<34}{'lance-cpp':>10} {'pylance':>10}  {'ratio':>6}   {'best-cpp':>9} {'best-py':>9}")
    print(row("write (fsync on in lance-cpp)", r["local_write_mb_s"], r["pylance_write_mb_s"],
              b["local_write_mb_s"], b["pylance_write_mb_s"]))
    print(row("write (fsync off in lance-cpp)", r["local_write_nofsync_mb_s"],
              r["pylance_write_mb_s"], b["local_write_nofsync_mb_s"], b["pylance_write_mb_s"]))
    print(row("scan to Arrow (own dataset)", r["local_scan_mb_s"], r["pylance_scan_mb_s"],
              b["local_scan_mb_s"], b["pylance_scan_mb_s"]))
    print(row("count_rows(x > 1000.0) (own)", r["local_count_filter_mb_s"],
              r["pylance_count_filter_mb_s"], b["local_count_filter_mb_s"],
              b["pylance_count_filter_mb_s"]))
    fc = extra["first_call"]
    if fc:
        print(row("scan, first call in a process", fc["local_scan_mb_s"], fc["pylance_scan_mb_s"]))
        print(row("count, first call in a process", fc["local_count_filter_mb_s"],
                  fc["pylance_count_filter_mb_s"]))
    if cx and px:
        print(row("scan of the other's dataset", extra["local_scan_of_pylance_dataset_mb_s"],
                  extra["pylance_scan_of_local_dataset_mb_s"]))
        print(row("count of the other's dataset",
                  extra["local_count_filter_of_pylance_dataset_mb_s"],
                  extra["pylance_count_filter_of_local_dataset_mb_s"]))
    print(f"  page-cache read of the data file (best of N): {r['page_cache_read_mb_s']:.0f} MB/s "
          f"(1 thread, 8 MiB buffer), {r['page_cache_read_2t_mb_s']:.0f} MB/s (2 threads), "
          f"{r['page_cache_read_into_memory_mb_s']:.0f} MB/s (1 thread, into a file-sized buffer)")
    print(f"  lance-cpp scan / page-cache read = "
          f"{r['local_scan_mb_s'] / r['page_cache_read_mb_s']:.2f}")
    print(f"  CPU seconds (median, all threads): write {cpu['local_write']:.2f} vs "
          f"{cpu['pylance_write']:.2f}, scan {cpu['local_scan']:.2f} vs {cpu['pylance_scan']:.2f}, "
          f"count {cpu['local_count_filter']:.3f} vs {cpu['pylance_count_filter']:.3f}")
    print(f"  datasets on disk: lance-cpp {r['data']['lance_cpp_dataset_bytes']:,} B, "
          f"pylance {r['data']['pylance_dataset_bytes']:,} B")
    print("  aims: " + ", ".join(f"{k}={'yes' if v else 'NO'}" for k, v in r["aims"].items()))
    m = r["machine"]
    print(f"  machine: {m['nproc']} x {m['cpu_model']}, {m['memory_gib']} GiB, kernel "
          f"{m['kernel']}, load average before {m['loadavg_before']} / after "
          f"{m['loadavg_after']}")
    v22_report(args, r)
    return r


# ---- file format 2.2

# The lance-cpp / pylance ratios whose aim is >= 1.0: name -> (lance-cpp key, pylance key,
# what is compared). Reads are compared on the same file: the pair "on lance-cpp's file"
# is both engines reading lance-cpp's dataset, "on pylance's file" both reading pylance's.
V22_RATIOS = {
    "write": ("local_write_v22_mb_s", "pylance_write_v22_mb_s",
              "write, lance-cpp with fsync (its default)"),
    "write_nofsync": ("local_write_v22_nofsync_mb_s", "pylance_write_v22_mb_s",
                      "write, lance-cpp without fsync (like pylance)"),
    "scan_own": ("local_scan_v22_mb_s", "pylance_scan_v22_mb_s",
                 "scan to Arrow, each engine its own dataset"),
    "scan_on_local_file": ("local_scan_v22_mb_s", "pylance_scan_v22_of_local_mb_s",
                           "scan to Arrow, both on lance-cpp's dataset"),
    "scan_on_pylance_file": ("local_scan_v22_of_pylance_mb_s", "pylance_scan_v22_mb_s",
                             "scan to Arrow, both on pylance's dataset"),
    "count_own": ("local_count_filter_v22_mb_s", "pylance_count_filter_v22_mb_s",
                  "count_rows(x > 1000.0), each its own dataset"),
    "count_on_local_file": ("local_count_filter_v22_mb_s",
                            "pylance_count_filter_v22_of_local_mb_s",
                            "count_rows(x > 1000.0), both on lance-cpp's dataset"),
    "count_on_pylance_file": ("local_count_filter_v22_of_pylance_mb_s",
                              "pylance_count_filter_v22_mb_s",
                              "count_rows(x > 1000.0), both on pylance's dataset"),
    "take_own": ("local_take_v22_rows_s", "pylance_take_v22_rows_s",
                 "take 10,000 random rows, each its own dataset"),
    "take_on_local_file": ("local_take_v22_rows_s", "pylance_take_v22_of_local_rows_s",
                           "take 10,000 random rows, both on lance-cpp's dataset"),
    "take_on_pylance_file": ("local_take_v22_of_pylance_rows_s", "pylance_take_v22_rows_s",
                             "take 10,000 random rows, both on pylance's dataset"),
}
V22_MAX_SIZE_RATIO = 1.1
V22_COLUMNS = ("id int64 = row number, x float64 uniform [0,2000), s utf8 (16 random "
               "lowercase letters), v fixed_size_list<float32,128> uniform [0,1) (as the "
               "2.0 data, numpy default_rng(42)); then, from default_rng(43): c utf8, one "
               "of 16 words (dictionary), n int32 uniform [0,1000) with 10% nulls "
               "(bit-packing, nulls), u utf8 \"https://example.com/<word>/<word>?id=<0..99999>\" "
               "of 12 words (FSST); 8 record batches of 131072 rows")


def v22_report(args, r):
    """The file format 2.2 part of the local report: adds its keys to `r`, prints its
    table."""
    def need(name):
        d = read(os.path.join(args.dir, name))
        if d is None:
            sys.exit(f"report.py: missing {name} in {args.dir}")
        return d

    cw = need("lance-cpp-write-v22.json")
    pw = need("pylance-write-v22.json")
    cs = need("lance-cpp-scan-lance-cpp-v22.json")["reads"]   # lance-cpp on its own
    ps = need("pylance-scan-pylance-v22.json")["reads"]       # pylance on its own
    cx = need("lance-cpp-scan-pylance-v22.json")["reads"]     # lance-cpp on pylance's
    px = need("pylance-scan-lance-cpp-v22.json")["reads"]     # pylance on lance-cpp's
    if cw["logical_bytes"] != pw["logical_bytes"]:
        sys.exit(f"report.py: 2.2 logical bytes differ: lance-cpp {cw['logical_bytes']}, "
                 f"pylance {pw['logical_bytes']}")
    for who, d in (("lance-cpp's", cs), ("pylance's", ps), ("lance-cpp's", px),
                   ("pylance's", cx)):
        if d["data_storage_version"] != "2.2":
            sys.exit(f"report.py: {who} 2.2 dataset reads as data_storage_version "
                     f"{d['data_storage_version']}")
    if cs["take"]["rows"] != ps["take"]["rows"]:
        sys.exit("report.py: the engines took different numbers of rows")

    keys = {
        "local_write_v22_mb_s": cw["write"]["mb_s"],
        "pylance_write_v22_mb_s": pw["write"]["mb_s"],
        "local_write_v22_nofsync_mb_s": cw["write_nofsync"]["mb_s"],
        "local_scan_v22_mb_s": cs["scan"]["mb_s"],
        "pylance_scan_v22_mb_s": ps["scan"]["mb_s"],
        "local_scan_v22_of_pylance_mb_s": cx["scan"]["mb_s"],
        "pylance_scan_v22_of_local_mb_s": px["scan"]["mb_s"],
        "local_count_filter_v22_mb_s": cs["count_filter"]["mb_s"],
        "pylance_count_filter_v22_mb_s": ps["count_filter"]["mb_s"],
        "local_count_filter_v22_of_pylance_mb_s": cx["count_filter"]["mb_s"],
        "pylance_count_filter_v22_of_local_mb_s": px["count_filter"]["mb_s"],
        "local_take_v22_rows_s": cs["take"]["rows_s"],
        "pylance_take_v22_rows_s": ps["take"]["rows_s"],
        "local_take_v22_of_pylance_rows_s": cx["take"]["rows_s"],
        "pylance_take_v22_of_local_rows_s": px["take"]["rows_s"],
        # Total bytes of the data files (data/*.lance) of each engine's 2.2 dataset.
        "local_v22_bytes": cs["data_file_bytes"],
        "pylance_v22_bytes": ps["data_file_bytes"],
    }
    keys["v22_bytes_ratio"] = keys["local_v22_bytes"] / keys["pylance_v22_bytes"]
    r.update(keys)

    ratios = {name: r[lk] / r[pk] for name, (lk, pk, _) in V22_RATIOS.items()}
    aims = r.setdefault("aims", {})
    for name, v in ratios.items():
        aims[f"v22_{name}_at_least_pylance"] = v >= 1.0
    aims["v22_file_size_at_most_1_1_pylance"] = r["v22_bytes_ratio"] <= V22_MAX_SIZE_RATIO

    def first(d, op, per_row=False):
        w = d[op]["warmup_samples_s"]
        if not w:
            return None
        return (d[op]["rows"] if per_row else d[op]["bytes"]) / w[0] / (1 if per_row else 1e6)

    # Per column: the bytes of each engine's data file (both counted by pylance's
    # LanceFileReader.file_statistics: pylance's scan of each dataset) and the encodings.
    def column_table(files):
        cols = {}
        for f in files:
            for c in f["columns"]:
                e = cols.setdefault(str(c["column"]), {"bytes": 0, "encodings": []})
                e["bytes"] += c["bytes"]
                for enc in c["encodings"]:
                    if enc not in e["encodings"]:
                        e["encodings"].append(enc)
        return cols
    lc_cols = column_table(px["data_files"])
    py_cols = column_table(ps["data_files"])
    logical = pw.get("column_bytes", {})
    columns = {name: {"logical_bytes": logical.get(name),
                      "local_bytes": lc_cols[name]["bytes"],
                      "pylance_bytes": py_cols.get(name, {}).get("bytes"),
                      "ratio": lc_cols[name]["bytes"] / py_cols[name]["bytes"]
                      if py_cols.get(name, {}).get("bytes") else None,
                      "local_encodings": lc_cols[name]["encodings"],
                      "pylance_encodings": py_cols.get(name, {}).get("encodings")}
               for name in lc_cols}

    pc = cs["page_cache_read"]
    r["v22"] = {
        "ratios": ratios,
        "max_size_ratio": V22_MAX_SIZE_RATIO,
        "best_of_n": {
            "local_write_v22_mb_s": cw["write"]["best_mb_s"],
            "local_write_v22_nofsync_mb_s": cw["write_nofsync"]["best_mb_s"],
            "pylance_write_v22_mb_s": pw["write"]["best_mb_s"],
            "local_scan_v22_mb_s": cs["scan"]["best_mb_s"],
            "pylance_scan_v22_mb_s": ps["scan"]["best_mb_s"],
            "local_scan_v22_of_pylance_mb_s": cx["scan"]["best_mb_s"],
            "pylance_scan_v22_of_local_mb_s": px["scan"]["best_mb_s"],
            "local_count_filter_v22_mb_s": cs["count_filter"]["best_mb_s"],
            "pylance_count_filter_v22_mb_s": ps["count_filter"]["best_mb_s"],
            "local_count_filter_v22_of_pylance_mb_s": cx["count_filter"]["best_mb_s"],
            "pylance_count_filter_v22_of_local_mb_s": px["count_filter"]["best_mb_s"],
            "local_take_v22_rows_s": cs["take"]["best_rows_s"],
            "pylance_take_v22_rows_s": ps["take"]["best_rows_s"],
            "local_take_v22_of_pylance_rows_s": cx["take"]["best_rows_s"],
            "pylance_take_v22_of_local_rows_s": px["take"]["best_rows_s"],
        },
        # The first call on the opened dataset in a fresh process (the warm-up run).
        "first_call": {
            "local_scan_v22_mb_s": first(cs, "scan"),
            "pylance_scan_v22_mb_s": first(ps, "scan"),
            "local_take_v22_rows_s": first(cs, "take", True),
            "pylance_take_v22_rows_s": first(ps, "take", True),
        },
        "cpu_seconds_median": {
            "local_write": cw["write"]["cpu_median_s"],
            "local_write_nofsync": cw["write_nofsync"]["cpu_median_s"],
            "pylance_write": pw["write"]["cpu_median_s"],
            "local_scan": cs["scan"]["cpu_median_s"],
            "pylance_scan": ps["scan"]["cpu_median_s"],
            "local_count_filter": cs["count_filter"]["cpu_median_s"],
            "pylance_count_filter": ps["count_filter"]["cpu_median_s"],
            "local_take": cs["take"]["cpu_median_s"],
            "pylance_take": ps["take"]["cpu_median_s"],
        },
        "page_cache_read_mb_s": pc["one_thread"]["best_mb_s"],
        "columns": columns,
        "data": {
            "rows": cw["rows"],
            "logical_bytes": cw["logical_bytes"],
            "x_bytes": cw["x_bytes"],
            "columns": V22_COLUMNS,
            "filter": cs["count_filter"]["filter"],
            "filter_matches": cs["count_filter"]["result"],
            "take_rows": cs["take"]["rows"],
            "take_indices": "distinct row numbers, numpy default_rng(7).choice(rows, 10000, "
                            "replace=False), in that (unsorted) order; all columns",
            "take_logical_bytes": cs["take"]["bytes"],
            "lance_cpp_data_files": len(px["data_files"]),
            "pylance_data_files": len(ps["data_files"]),
            "lance_cpp_dataset_bytes": cs["disk_bytes"],
            "pylance_dataset_bytes": ps["disk_bytes"],
        },
        "settings": {
            "data_storage_version": "2.2",
            "max_rows_per_file": 1024 * 1024,
            "max_rows_per_group": 1024,
            "lance_cpp_write_fsync": True,
            "reps": cw["reps"],
            "warmup": cw["warmup"],
        },
        "raw": {"lance_cpp_write": cw, "pylance_write": pw, "lance_cpp_reads_own": cs,
                "pylance_reads_own": ps, "lance_cpp_reads_pylance_dataset": cx,
                "pylance_reads_lance_cpp_dataset": px},
    }

    # ---- table
    b = r["v22"]["best_of_n"]

    def row(name, lk, pk, unit_fmt="{:10.0f}"):
        lv, pv = r[lk], r[pk]
        ratio = f"{lv / pv:5.2f}x" if pv else ""
        return (f"  {name:<54}{unit_fmt.format(lv)} {unit_fmt.format(pv)}  {ratio:>6}   "
                f"{b[lk]:9.0f} {b[pk]:9.0f}")

    print()
    print(f"file format 2.2: lance-cpp vs pylance {pw['pylance_version']}: {cw['rows']:,} rows, "
          f"{cw['logical_bytes'] / 1e6:.0f} MB logical (the 2.0 data + columns c, n, u), "
          f"median of {cw['reps']} (after {cw['warmup']} warm-up)")
    print(f"  {'MB/s (1e6 B/s); take: rows/s':<54}{'lance-cpp':>10} {'pylance':>10}  "
          f"{'ratio':>6}   {'best-cpp':>9} {'best-py':>9}")
    for name, (lk, pk, what) in V22_RATIOS.items():
        print(row(what, lk, pk))
    print(f"  data files: lance-cpp {r['local_v22_bytes']:,} B, pylance "
          f"{r['pylance_v22_bytes']:,} B, ratio {r['v22_bytes_ratio']:.3f} "
          f"(aim <= {V22_MAX_SIZE_RATIO})")
    print(f"  {'column':<8}{'logical B':>13}{'lance-cpp B':>14}{'pylance B':>14}{'ratio':>8}  "
          f"encodings lance-cpp | pylance")
    for name, c in columns.items():
        rt = f"{c['ratio']:.2f}" if c["ratio"] is not None else "-"
        print(f"  {name:<8}{c['logical_bytes'] or 0:>13,}{c['local_bytes']:>14,}"
              f"{c['pylance_bytes'] or 0:>14,}{rt:>8}  "
              f"{'; '.join(c['local_encodings'])} | {'; '.join(c['pylance_encodings'] or [])}")
    cpu = r["v22"]["cpu_seconds_median"]
    print(f"  CPU seconds (median, all threads): write {cpu['local_write']:.2f} vs "
          f"{cpu['pylance_write']:.2f}, scan {cpu['local_scan']:.2f} vs {cpu['pylance_scan']:.2f}, "
          f"count {cpu['local_count_filter']:.3f} vs {cpu['pylance_count_filter']:.3f}, "
          f"take {cpu['local_take']:.3f} vs {cpu['pylance_take']:.3f}")
    fc = r["v22"]["first_call"]
    if fc["local_scan_v22_mb_s"] and fc["pylance_scan_v22_mb_s"]:
        print(f"  first call in a process: scan {fc['local_scan_v22_mb_s']:.0f} vs "
              f"{fc['pylance_scan_v22_mb_s']:.0f} MB/s, take {fc['local_take_v22_rows_s']:.0f} "
              f"vs {fc['pylance_take_v22_rows_s']:.0f} rows/s")
    print(f"  page-cache read of lance-cpp's 2.2 data file (best of N, 1 thread): "
          f"{r['v22']['page_cache_read_mb_s']:.0f} MB/s")
    missed = [k for k, v in aims.items() if k.startswith("v22_") and not v]
    print("  2.2 aims not met: " + (", ".join(missed) if missed else "none"))


DOC_BEGIN = ("<!-- BEGIN generated by bench/report.py --markdown-v22 bench/results/latest.json "
             "--doc docs/benchmarks.md: do not edit by hand -->")
DOC_END = "<!-- END generated -->"


def markdown_v22(path, doc=None):
    """Prints the 2.2 results of a latest.json as Markdown for docs/benchmarks.md, or
    writes them into `doc` between DOC_BEGIN and DOC_END."""
    r = read(path)
    if r is None or "v22" not in r:
        sys.exit(f"report.py: {path} has no file format 2.2 results")
    v = r["v22"]
    m = r["machine"]
    out = []
    out.append(f"From `{os.path.relpath(path)}` of the run at {r['timestamp']} (commit "
               f"`{r['git_commit']}`).")
    out.append(f"Machine: {m['nproc']} x {m['cpu_model']}, load average "
               f"{m['loadavg_before']} before and {m['loadavg_after']} after the run"
               + (f"; the local part (2.0 and 2.2) took {r['settings']['local_seconds']} s"
                  if r["settings"].get("local_seconds") is not None else "") + ".")
    out.append(f"Median of {v['settings']['reps']} (after {v['settings']['warmup']} "
               f"warm-up); MB/s = 1e6 bytes/s of logical (Arrow) bytes, "
               f"{v['data']['logical_bytes']:,} per write or scan; take in rows/s of "
               f"{v['data']['take_rows']:,} rows.")
    out.append("")
    out.append("| measurement | key, lance-cpp | lance-cpp | key, pylance | pylance | "
               "lance-cpp / pylance | aim >= 1.0 met? | best rep / best rep |")
    out.append("|---|---|---:|---|---:|---:|---|---:|")
    b = v["best_of_n"]
    for name, (lk, pk, what) in V22_RATIOS.items():
        ok = r["aims"][f"v22_{name}_at_least_pylance"]
        out.append(f"| {what} | `{lk}` | {r[lk]:.0f} | `{pk}` | {r[pk]:.0f} | "
                   f"{v['ratios'][name]:.2f}x | {'yes' if ok else '**no**'} | "
                   f"{b[lk] / b[pk]:.2f}x |")
    ok = r["aims"]["v22_file_size_at_most_1_1_pylance"]
    out.append(f"| data file bytes | `local_v22_bytes` | {r['local_v22_bytes']:,} | "
               f"`pylance_v22_bytes` | {r['pylance_v22_bytes']:,} | "
               f"{r['v22_bytes_ratio']:.3f}x | aim <= {v['max_size_ratio']}: "
               f"{'yes' if ok else '**no**'} | |")
    out.append("")
    out.append("Per column (`v22.columns`: bytes of all pages and buffers of the column in "
               "the data file, from `LanceFileReader.file_statistics`; encodings: layout and "
               "compression names in the page encodings):")
    out.append("")
    out.append("| column | logical (Arrow) bytes | lance-cpp bytes | pylance bytes | "
               "lance-cpp / pylance | lance-cpp encoding | pylance encoding |")
    out.append("|---|---:|---:|---:|---:|---|---|")
    for name, c in v["columns"].items():
        rt = f"{c['ratio']:.2f}x" if c["ratio"] is not None else "-"
        lb = f"{c['logical_bytes']:,}" if c.get("logical_bytes") is not None else "-"
        out.append(f"| `{name}` | {lb} | {c['local_bytes']:,} | "
                   f"{c['pylance_bytes'] or 0:,} | {rt} | "
                   f"{'; '.join(c['local_encodings'])} | "
                   f"{'; '.join(c['pylance_encodings'] or [])} |")
    cols = v["columns"]
    if len(cols) > 1 and all(c["pylance_bytes"] for c in cols.values()):
        largest = max(cols, key=lambda n: cols[n]["pylance_bytes"])
        lb = sum(c["local_bytes"] for n, c in cols.items() if n != largest)
        pb = sum(c["pylance_bytes"] for n, c in cols.items() if n != largest)
        out.append("")
        out.append(f"All columns but the largest (`{largest}`): lance-cpp {lb:,} bytes, "
                   f"pylance {pb:,} bytes, {lb / pb:.2f}x.")
    fc, cpu = v["first_call"], v["cpu_seconds_median"]
    out.append("")
    if fc.get("local_scan_v22_mb_s") and fc.get("pylance_scan_v22_mb_s"):
        out.append(f"- First call in a fresh process, own dataset (`v22.first_call`): scan "
                   f"{fc['local_scan_v22_mb_s']:.0f} MB/s (lance-cpp) vs "
                   f"{fc['pylance_scan_v22_mb_s']:.0f} (pylance), take "
                   f"{fc['local_take_v22_rows_s']:.0f} rows/s vs "
                   f"{fc['pylance_take_v22_rows_s']:.0f}.")
    out.append(f"- CPU seconds per call, median, all threads (`v22.cpu_seconds_median`), "
               f"lance-cpp vs pylance, own dataset: write {cpu['local_write']:.2f} vs "
               f"{cpu['pylance_write']:.2f}, scan {cpu['local_scan']:.2f} vs "
               f"{cpu['pylance_scan']:.2f}, count {cpu['local_count_filter']:.3f} vs "
               f"{cpu['pylance_count_filter']:.3f}, take {cpu['local_take']:.3f} vs "
               f"{cpu['pylance_take']:.3f}.")
    out.append(f"- Page-cache read of lance-cpp's 2.2 data file, 1 thread, best of N "
               f"(`v22.page_cache_read_mb_s`): {v['page_cache_read_mb_s']:.0f} MB/s.")
    missed = [k for k, ok in r["aims"].items() if k.startswith("v22_") and not ok]
    out.append("")
    out.append("Aims not met in this run (`aims` keys that are false): " +
               (", ".join(f"`{k}`" for k in missed) if missed else "none") + ".")
    text = "\n".join(out)
    if doc is None:
        print(text)
        return
    with open(doc) as f:
        body = f.read()
    begin, end = body.find(DOC_BEGIN), body.find(DOC_END)
    if begin < 0 or end < begin:
        sys.exit(f"report.py: {doc} has no {DOC_BEGIN!r} ... {DOC_END!r} block")
    body = body[:begin + len(DOC_BEGIN)] + "\n" + text + "\n" + body[end:]
    with open(doc, "w") as f:
        f.write(body)
    print(f"  -> {doc}")


S3_KEYS = ["s3_write_mb_s", "curl_put_mb_s", "s3_scan_mb_s", "curl_get_mb_s"]
DIAG_KEYS = ["write", "write_unsigned_payload", "curl_put", "client_put",
             "client_put_unsigned_payload", "scan", "curl_get", "curl_get_1",
             "client_get"]


def s3_report(s3, r, repo, load_before):
    """Adds the S3 part (s3_benchmark's JSON) to `r`; prints its table."""
    ratio = lambda a, b: a / b if b else 0.0  # noqa: E731
    # The required keys: MB/s (1e6 B/s) of data-file bytes, median of the repetitions.
    r["s3_write_mb_s"] = s3["write"]["mb_s"]
    r["curl_put_mb_s"] = s3["curl_put"]["mb_s"]
    r["s3_scan_mb_s"] = s3["scan"]["mb_s"]
    r["curl_get_mb_s"] = s3["curl_get"]["mb_s"]
    aims = r.setdefault("aims", {})
    aims["s3_write_at_least_0_8_curl"] = r["s3_write_mb_s"] >= 0.8 * r["curl_put_mb_s"]
    aims["s3_scan_at_least_0_8_curl"] = r["s3_scan_mb_s"] >= 0.8 * r["curl_get_mb_s"]
    st = s3["settings"]
    scan_reqs = [x["requests"] for x in s3["scan"]["reps"]]
    scan_recv = [x["bytes_received"] for x in s3["scan"]["reps"]]
    write_reqs = [x["requests"] for x in s3["write"]["reps"]]
    wu = s3.get("write_unsigned_payload")
    detail = {
        "git_commit": git_commit(repo),
        "timestamp": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "endpoint": s3["endpoint"],
        "store": s3["store"],
        "rows": s3["rows"],
        "logical_bytes": s3["logical_bytes"],
        "data_files": s3["data_files"],
        "data_file_bytes": s3["data_file_bytes"],
        "columns": "id int64 = row number, x float64 uniform [0,2000), k int64 random, "
                   "s utf8 96..127 random lowercase letters (splitmix64 of the row number)",
        "statistic": "MB/s = data-file bytes / wall time, median of reps (min/max too)",
        "write_ratio": ratio(r["s3_write_mb_s"], r["curl_put_mb_s"]),
        "scan_ratio": ratio(r["s3_scan_mb_s"], r["curl_get_mb_s"]),
        "write_unsigned_payload_mb_s": wu["mb_s"] if wu else None,
        "curl_get_1_stream_mb_s": s3["curl_get_1"]["mb_s"],
        # Diagnostics: the S3 client alone (whole objects, P at a time, like curl).
        "client_put_mb_s": s3["client_put"]["mb_s"] if "client_put" in s3 else None,
        "client_put_unsigned_payload_mb_s": s3["client_put_unsigned_payload"]["mb_s"]
        if "client_put_unsigned_payload" in s3 else None,
        "client_get_mb_s": s3["client_get"]["mb_s"] if "client_get" in s3 else None,
        "min_max_mb_s": {k: [s3[k]["min_mb_s"], s3[k]["max_mb_s"]] for k in DIAG_KEYS
                         if k in s3},
        "scan_requests_median": sorted(scan_reqs)[len(scan_reqs) // 2],
        "scan_bytes_received_median": sorted(scan_recv)[len(scan_recv) // 2],
        "write_requests_median": sorted(write_reqs)[len(write_reqs) // 2],
        "cpu_seconds_median": {
            k: {"client": s3[k]["cpu_self_median_s"], "curl": s3[k]["cpu_curl_median_s"],
                "server": s3[k]["cpu_server_median_s"]}
            for k in DIAG_KEYS if k in s3},
        "settings": st,
        "machine": dict(machine(), loadavg_before=load_before, loadavg_after=loadavg()),
        "raw": s3,
    }
    r["s3"] = detail

    def row(name, key, base=None):
        if key not in s3:
            return f"  {name:<44}{'-':>8}"
        v = s3[key]
        rat = f"{v['mb_s'] / s3[base]['mb_s']:5.2f}x" if base else ""
        return (f"  {name:<44}{v['mb_s']:8.0f} {v['min_mb_s']:8.0f} {v['max_mb_s']:8.0f}"
                f"  {rat:>6}  {v['cpu_self_median_s'] + v['cpu_curl_median_s']:6.2f}"
                f" {v['cpu_server_median_s']:6.2f}")

    p = st["curl_parallel"]
    print()
    print(f"S3 (Ceph RGW on {s3['endpoint']}): {s3['data_files']} data files, "
          f"{s3['data_file_bytes'] / 1e6:.0f} MB ({s3['data_file_bytes'] / 2**30:.2f} GiB), "
          f"{s3['rows']:,} rows; median of {st['reps']}, MB/s (1e6 B/s)")
    print(f"  {'':<44}{'median':>8} {'min':>8} {'max':>8}  {'/curl':>6}  "
          f"{'cpu-cl':>6} {'cpu-sv':>6}")
    print(row("lance-cpp write (signed payload, default)", "write", "curl_put"))
    if wu:
        print(row("lance-cpp write (aws_unsigned_payload=true)", "write_unsigned_payload",
                  "curl_put"))
    print(row(f"curl PUT, {p} processes, UNSIGNED-PAYLOAD", "curl_put"))
    print(row(f"  S3Client::PutObject, {p} threads", "client_put", "curl_put"))
    print(row(f"  S3Client::PutObject, {p} thr, unsigned",
              "client_put_unsigned_payload", "curl_put"))
    print(row("lance-cpp scan (Open + stream all columns)", "scan", "curl_get"))
    print(row(f"curl GET, {p} processes", "curl_get"))
    print(row("curl GET, 1 process", "curl_get_1"))
    print(row(f"  S3Client::GetObjectInto, {p} threads", "client_get", "curl_get"))
    n = detail["scan_requests_median"]
    print(f"  scan requests: {n} (median), "
          f"{detail['scan_bytes_received_median'] / max(n, 1) / 2**20:.2f} MiB per request; "
          f"write requests {detail['write_requests_median']}; "
          f"multipart {st['multipart_part_size'] >> 20} MiB x {st['multipart_concurrency']}, "
          f"read chunk {st['read_chunk_size'] >> 20} MiB, {st['max_connections']} connections")
    print(f"  indented rows: the S3 client alone (whole objects, {p} threads), median of "
          f"{st.get('diag_reps', st['reps'])}")
    print("  cpu-cl: CPU s of lance-cpp or the curl processes; cpu-sv: of radosgw+osd+mon")
    print("  aims: " + ", ".join(f"{k}={'yes' if aims[k] else 'NO'}"
                               for k in ("s3_write_at_least_0_8_curl",
                                         "s3_scan_at_least_0_8_curl")))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dir")
    p.add_argument("--out")
    p.add_argument("--local-seconds", type=int,
                   help="wall time of the local part (both formats), recorded in settings")
    p.add_argument("--markdown-v22", metavar="JSON",
                   help="print the 2.2 results of JSON as Markdown (docs/benchmarks.md)")
    p.add_argument("--doc", help="with --markdown-v22: write into this doc's generated block")
    p.add_argument("--load-before", default="")
    p.add_argument("--s3-only", action="store_true",
                   help="only the S3 part ran: update its keys in --out, keep the others")
    args = p.parse_args()
    if args.markdown_v22:
        markdown_v22(args.markdown_v22, args.doc)
        return
    if not args.dir or not args.out:
        p.error("--dir and --out are required")
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    if args.s3_only:
        r = read(args.out) or {}
    else:
        r = local_report(args, repo)
    s3 = read(os.path.join(args.dir, "s3.json"))
    if s3 is not None:
        s3_report(s3, r, repo, args.load_before)
    elif args.s3_only:
        sys.exit(f"report.py: missing s3.json in {args.dir}")
    else:
        # The S3 part did not run: keep its results from the last run that had it.
        old = read(args.out) or {}
        for k in S3_KEYS + ["s3"]:
            if k in old:
                r[k] = old[k]
        for k, v in old.get("aims", {}).items():
            if k.startswith("s3_"):
                r["aims"][k] = v

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(r, f, indent=2)
        f.write("\n")
    print(f"  -> {args.out}")


if __name__ == "__main__":
    main()
