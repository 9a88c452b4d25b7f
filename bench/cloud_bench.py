# SPDX-License-Identifier: Apache-2.0
"""The Azure and GCS parts of `make bench` (scripts/run_bench.sh; docs/benchmarks.md,
"Azure and GCS (emulators)"): pylance's side and the raw curl baseline, on the emulator
next to bench/cloud_benchmark.cc (lance-cpp's side), in the same run.

  cloud_bench.py --cloud azure|gcs --cpp CPP.json --out OUT.json --workdir DIR
                 [--reps N] [--parallel P] [--server-pids P,...]
                 [--write-base-url URL --write-token T]

CPP.json is cloud_benchmark's result: its kept dataset (lance-cpp's last write) and the
keys and sizes of that dataset's data files. In order:

  1. curl baseline: the data files are fetched once (untimed) into DIR; then N times each,
     alternating: GET of every data file (P curl processes at a time, one per object, to
     /dev/null) and PUT of the same bytes as new objects (then deleted, untimed). Same
     objects, same sizes as the engines move.
  2. pylance scans lance-cpp's dataset N times (Dataset open + streamed scan of all
     columns, every value read: the sums of id, x, k and the length of s, checked).
  3. pylance writes the same rows (loaded from lance-cpp's dataset, untimed) N times to
     ROOT/pyI.lance (file format and rows per file as lance-cpp's); the copies are kept
     until the end (the emulators hold them in memory), then its own last copy is scanned
     N times. "dataset" in OUT.json names it, for cloud_benchmark --scan-uri.

Environment: azure: LANCE_AZURE_ENDPOINT, LANCE_AZURE_ACCOUNT, LANCE_AZURE_KEY,
LANCE_AZURE_CONTAINER (scripts/azurite.sh); pylance gets the account, the key and
azure_storage_use_emulator=true, and Azurite's address through AZURITE_BLOB_STORAGE_URL
(object_store ignores an endpoint option in emulator mode). curl authenticates with an
account SAS minted here from the emulator's published key. gcs: LANCE_GCS_ENDPOINT,
LANCE_GCS_BUCKET (scripts/gcs.sh); fake-gcs-server checks no credentials. pylance reads
straight from fake-gcs-server (google_base_url), but cannot write to it (it rejects
object_store's XML-API PUT: docs/gcs.md); with --write-base-url, pylance's writes go
through the tests' gcs_token_proxy --xml-writes there (run_bench.sh starts it), which
turns them into JSON-API uploads (a multipart upload is held by the proxy and sent as one
upload at completion), and are labelled so; without it there is no pylance write (and no
pylance dataset) on GCS.
"""

import argparse
import base64
import concurrent.futures
import datetime
import hashlib
import hmac
import json
import os
import resource
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pylance_bench import summarize, time_it, write_json  # noqa: E402

import lance  # noqa: E402
import pyarrow.compute as pc  # noqa: E402


def log(msg):
    print(f"[cloud_bench] {msg}", file=sys.stderr, flush=True)


def env(*names):
    missing = [n for n in names if not os.environ.get(n)]
    if missing:
        sys.exit(f"cloud_bench: {', '.join(missing)} not set (run scripts/run_bench.sh)")
    return [os.environ[n] for n in names]


def server_cpu(pids):
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                rest = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(rest[11]) + int(rest[12])) / tick  # utime, stime (fields 14, 15)
    return total


# ------------------------------------------------------------------------------------------
# The two emulators: URLs for curl, pylance's options, listing and deleting (untimed).


class Azure:
    def __init__(self):
        self.endpoint, self.account, key, self.container = env(
            "LANCE_AZURE_ENDPOINT", "LANCE_AZURE_ACCOUNT", "LANCE_AZURE_KEY",
            "LANCE_AZURE_CONTAINER")
        self.endpoint = self.endpoint.rstrip("/")
        # object_store reads Azurite's address from the environment in emulator mode.
        base = self.endpoint.rsplit("/", 1)[0]
        os.environ["AZURITE_BLOB_STORAGE_URL"] = base
        self.so = {"azure_storage_account_name": self.account,
                   "azure_storage_account_key": key, "azure_storage_use_emulator": "true"}
        self.root = f"az://{self.container}"
        self.sas = self._account_sas(key)
        self.write_so = self.so
        self.write_via = "direct"

    def _account_sas(self, key):
        """An account SAS (version 2019-12-12: blob service, all resource types, read /
        write / delete / list / add / create, valid 6 h), signed with the key."""
        exp = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=6))
        fields = {"sv": "2019-12-12", "ss": "b", "srt": "sco", "sp": "rwdlac",
                  "se": exp.strftime("%Y-%m-%dT%H:%M:%SZ")}
        to_sign = "\n".join([self.account, fields["sp"], fields["ss"], fields["srt"], "",
                             fields["se"], "", "", fields["sv"], ""])
        sig = base64.b64encode(hmac.new(base64.b64decode(key), to_sign.encode(),
                                        hashlib.sha256).digest()).decode()
        fields["sig"] = sig
        return urllib.parse.urlencode(fields)

    def url(self, key):
        return f"{self.endpoint}/{self.container}/{urllib.parse.quote(key)}?{self.sas}"

    def get_args(self, key):
        return [self.url(key)]

    def put_args(self, key, src):
        return ["-X", "PUT", "-H", "x-ms-blob-type: BlockBlob", "-H",
                "Content-Type: application/octet-stream", "-T", src, self.url(key)]

    def list(self, prefix):
        def page(marker):
            q = _page_query(f"restype=container&comp=list&prefix={urllib.parse.quote(prefix)}",
                            "marker", marker)
            with urllib.request.urlopen(
                    f"{self.endpoint}/{self.container}?{q}&{self.sas}") as r:
                root = ET.fromstring(r.read())
            return ([(b.findtext("Name"),
                      int(b.find("Properties").findtext("Content-Length")))
                     for b in root.iter("Blob")],
                    root.findtext("NextMarker") or "")
        return _list_pages(page)

    def delete(self, key):
        req = urllib.request.Request(self.url(key), method="DELETE")
        urllib.request.urlopen(req).read()


def _page_query(query, token_param, token):
    """`query` with the continuation token of a listing's next page, if any."""
    return f"{query}&{token_param}={urllib.parse.quote(token)}" if token else query


def _list_pages(page):
    """Every (name, size) of a paged listing: page(token) gives one page's (name, size)
    pairs and the next page's token ("" on the first call and after the last page)."""
    out, token = [], ""
    while True:
        items, token = page(token)
        out += items
        if not token:
            return out


class Gcs:
    def __init__(self, proxy_url, proxy_token):
        self.endpoint, self.bucket = env("LANCE_GCS_ENDPOINT", "LANCE_GCS_BUCKET")
        self.endpoint = self.endpoint.rstrip("/")
        # fake-gcs-server checks no token; object_store wants one to send.
        self.so = {"google_base_url": self.endpoint, "allow_http": "true",
                   "google_storage_token": "unused-by-fake-gcs-server"}
        self.root = f"gs://{self.bucket}"
        self.write_so, self.write_via = None, None
        if proxy_url:
            self.write_so = {"google_base_url": proxy_url, "allow_http": "true",
                             "google_storage_token": proxy_token}
            self.write_via = ("gcs_token_proxy --xml-writes (the tests' proxy: object_store's "
                              "XML-API PUT / multipart upload turned into JSON-API uploads)")

    def obj(self, key):
        return urllib.parse.quote(key, safe="")

    def get_args(self, key):
        return [f"{self.endpoint}/storage/v1/b/{self.bucket}/o/{self.obj(key)}?alt=media"]

    def put_args(self, key, src):
        return ["-X", "POST", "-H", "Content-Type: application/octet-stream",
                "--data-binary", f"@{src}",
                f"{self.endpoint}/upload/storage/v1/b/{self.bucket}/o?uploadType=media"
                f"&name={self.obj(key)}"]

    def list(self, prefix):
        def page(token):
            q = _page_query(f"prefix={urllib.parse.quote(prefix)}", "pageToken", token)
            with urllib.request.urlopen(
                    f"{self.endpoint}/storage/v1/b/{self.bucket}/o?{q}") as r:
                answer = json.load(r)
            return ([(o["name"], int(o["size"])) for o in answer.get("items", [])],
                    answer.get("nextPageToken", ""))
        return _list_pages(page)

    def delete(self, key):
        req = urllib.request.Request(
            f"{self.endpoint}/storage/v1/b/{self.bucket}/o/{self.obj(key)}", method="DELETE")
        urllib.request.urlopen(req).read()


# ------------------------------------------------------------------------------------------
# curl: one process per object, P at a time, every answer's status and size checked.


def curl_all(jobs, parallel, size_var):
    """jobs: (args, expected bytes, what). Dies on a failure or a size mismatch."""
    def one(job):
        args, expect, what = job
        p = subprocess.run(["curl", "-sS", "--fail", "-o", "/dev/null", "-w",
                            f"%{{http_code}} %{{{size_var}}}", *args],
                           capture_output=True, text=True)
        code, _, size = p.stdout.partition(" ")
        if p.returncode != 0 or not code.startswith("2") or int(size or -1) != expect:
            return f"curl {what}: exit {p.returncode}, {p.stdout!r}, expected {expect} " \
                   f"bytes; {p.stderr.strip()}"
        return None

    with concurrent.futures.ThreadPoolExecutor(parallel) as pool:
        errors = [e for e in pool.map(one, jobs) if e]
    if errors:
        sys.exit(f"cloud_bench: {errors[0]}")


def timed(fn, pids):
    """Wall seconds, curl's CPU seconds (children) and the server's CPU seconds of fn()."""
    k0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    s0 = server_cpu(pids)
    t0 = time.perf_counter()
    fn()
    wall = time.perf_counter() - t0
    k1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (k1.ru_utime + k1.ru_stime) - (k0.ru_utime + k0.ru_stime), server_cpu(pids) - s0


def curl_summary(samples, nbytes):
    med = statistics.median(s[0] for s in samples)
    return {"bytes": nbytes, "median_s": med, "mb_s": nbytes / med / 1e6,
            "samples_s": [s[0] for s in samples],
            "cpu_curl_median_s": statistics.median(s[1] for s in samples),
            "cpu_server_median_s": statistics.median(s[2] for s in samples)}


def run_curl(cloud, cpp, args, pids):
    keys, sizes = cpp["data_file_keys"], cpp["data_file_sizes"]
    nbytes = sum(sizes)
    src = os.path.join(args.workdir, f"curl-{args.cloud}")
    os.makedirs(src, exist_ok=True)
    files = [os.path.join(src, os.path.basename(k)) for k in keys]
    log(f"curl: fetching the {len(keys)} data files of {cpp['kept_dataset']} once (untimed)")
    for f, k, s in zip(files, keys, sizes):  # the PUT sources
        subprocess.run(["curl", "-sS", "--fail", "-o", f, *cloud.get_args(k)], check=True)
        if os.path.getsize(f) != s:
            sys.exit(f"cloud_bench: {k}: got {os.path.getsize(f)} bytes, expected {s}")
    gets, puts = [], []
    for rep in range(args.reps):
        get_jobs = [(cloud.get_args(k), s, f"GET {k}") for k, s in zip(keys, sizes)]
        gets.append(timed(lambda: curl_all(get_jobs, args.parallel, "size_download"), pids))
        put_keys = [f"curl-put{rep}/{os.path.basename(k)}" for k in keys]
        put_jobs = [(cloud.put_args(pk, f), s, f"PUT {pk}")
                    for pk, f, s in zip(put_keys, files, sizes)]
        puts.append(timed(lambda: curl_all(put_jobs, args.parallel, "size_upload"), pids))
        for pk in put_keys:
            cloud.delete(pk)
        log(f"curl rep {rep + 1}/{args.reps}: GET x{args.parallel} {gets[-1][0]:.2f} s, "
            f"PUT x{args.parallel} {puts[-1][0]:.2f} s")
    for f in files:
        os.unlink(f)
    return curl_summary(gets, nbytes), curl_summary(puts, nbytes)


# ------------------------------------------------------------------------------------------
# pylance


def stream_scan(uri, so):
    """Dataset open + a streamed scan of all columns, every value read (as
    cloud_benchmark's ScanOnce): (rows, sum of id, bytes of s)."""
    ds = lance.dataset(uri, storage_options=so)
    rows = id_sum = s_bytes = 0
    for b in ds.to_batches():
        rows += b.num_rows
        id_sum += pc.sum(b.column("id")).as_py() or 0
        pc.sum(b.column("x"))
        pc.sum(b.column("k"))
        s_bytes += pc.sum(pc.binary_length(b.column("s"))).as_py() or 0
    return rows, id_sum, s_bytes


def run_pylance(cloud, cpp, args, out):
    so = cloud.so
    t0 = time.perf_counter()
    src = lance.dataset(cpp["kept_dataset"], storage_options=so)
    version = src.data_storage_version
    table = src.to_table()
    expect = (table.num_rows, pc.sum(table.column("id")).as_py(),
              pc.sum(pc.binary_length(table.column("s"))).as_py())
    log(f"pylance: loaded {table.num_rows} rows (file format {version}) from "
        f"{cpp['kept_dataset']} in {time.perf_counter() - t0:.1f} s")
    out.update({"pylance_version": lance.__version__, "data_storage_version": version,
                "source": cpp["kept_dataset"]})

    def scan_of(uri):
        def run(_):
            got = stream_scan(uri, so)
            if got != expect:
                sys.exit(f"cloud_bench: pylance scan of {uri} returned {got}, expected {expect}")
        return run

    log(f"pylance: scan of lance-cpp's dataset x{args.reps}")
    out["scan_of_local"] = summarize(time_it(scan_of(cpp["kept_dataset"]), 0, args.reps),
                                     table.nbytes)
    if cloud.write_so is None:
        out["write_skipped"] = ("pylance cannot write to fake-gcs-server (it rejects "
                                "object_store's XML-API PUT; docs/gcs.md) and no "
                                "--write-base-url was given")
        log(out["write_skipped"])
        return
    uris = [f"{cloud.root}/py{i}.lance" for i in range(args.reps)]
    rows_per_file = cpp["settings"]["rows_per_file"]

    def write(i):
        lance.write_dataset(table, uris[i], storage_options=cloud.write_so,
                            data_storage_version=version, max_rows_per_file=rows_per_file)

    log(f"pylance: write x{args.reps} ({cloud.write_via})")
    out["write"] = summarize(time_it(write, 0, args.reps), table.nbytes)
    out["write_via"] = cloud.write_via
    own = uris[-1]
    prefix = own.split("://", 1)[1].split("/", 1)[1] + "/data/"
    files = cloud.list(prefix)
    out["data_files"] = len(files)
    out["data_file_bytes"] = sum(s for _, s in files)
    if not lance.dataset(own, storage_options=so).to_table().equals(table):
        sys.exit(f"cloud_bench: {own} differs from {cpp['kept_dataset']}")
    log(f"pylance: scan of its own dataset {own} x{args.reps}")
    out["scan"] = summarize(time_it(scan_of(own), 0, args.reps), table.nbytes)
    out["dataset"] = own


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cloud", choices=["azure", "gcs"], required=True)
    p.add_argument("--cpp", required=True, help="cloud_benchmark's JSON")
    p.add_argument("--out", required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--parallel", type=int, default=4)
    p.add_argument("--write-base-url",
                   help="GCS: pylance's writes go to this gcs_token_proxy --xml-writes")
    p.add_argument("--write-token", default="", help="the token that proxy accepts")
    p.add_argument("--server-pids", default="")
    args = p.parse_args()
    with open(args.cpp) as f:
        cpp = json.load(f)
    pids = [int(x) for x in args.server_pids.split(",") if x]
    cloud = Azure() if args.cloud == "azure" else Gcs(args.write_base_url, args.write_token)
    out = {"engine": "pylance", "cloud": args.cloud, "reps": args.reps,
           "curl_parallel": args.parallel, "endpoint": cloud.endpoint}
    out["curl_get"], out["curl_put"] = run_curl(cloud, cpp, args, pids)
    run_pylance(cloud, cpp, args, out)
    write_json(args.out, out)
    log(" ".join(f"{k} {out[k]['median_s']:.2f} s" for k in
                 ("curl_get", "curl_put", "scan_of_local", "write", "scan") if k in out))


if __name__ == "__main__":
    main()
