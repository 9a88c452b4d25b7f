# SPDX-License-Identifier: Apache-2.0
"""The crash harness: runs tests/crash/crash_writer, kills it with SIGKILL at seeded random
moments or at a chosen store step (--kill-at-store-op), and after every kill checks that
the dataset is exactly one committed version -- the one after the last `done` of the
writer's ledger, or the one after the op in flight -- with lance_cpp and real Lance
(pylance), both in this one process. Used by test_crash.py (make test) and
scripts/soak.sh (make soak, through `python -m` of this file's main()).

The model: op k of seed s writes ids k*1e6 + i (i < n_k) with opk = k, v = id / 4,
s = "row-<id>"; n_k, op kinds and delete ranges come from the hash H below, the same as
crash_writer.cc's.
"""

import json
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from typing import Dict, List, Optional, Set, Tuple

import pyarrow as pa
import pyarrow.compute as pc

MASK = (1 << 64) - 1
ID_STRIDE = 1000000


def _mix(x: int) -> int:
    x = (x + 0x9E3779B97F4A7C15) & MASK
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return (z ^ (z >> 31)) & MASK


def H(seed: int, k: int, salt: int) -> int:
    return _mix(_mix(seed) ^ ((k * 1315423911 + salt) & MASK))


def rows_of(seed: int, k: int, kind: str, large_rows: int) -> int:
    if kind == "append_large":
        return large_rows
    return 1 + H(seed, k, 2) % 60


def delete_range(seed: int, k: int) -> Tuple[int, int]:
    j = H(seed, k, 3) % k
    lo = j * ID_STRIDE + H(seed, k, 4) % 50
    return lo, lo + 1 + H(seed, k, 5) % 30


def apply_op(ids: Set[int], seed: int, k: int, kind: str, large_rows: int) -> Set[int]:
    """The ids after op k on `ids` (a new set)."""
    new = range(k * ID_STRIDE, k * ID_STRIDE + rows_of(seed, k, kind, large_rows))
    if kind in ("create", "overwrite"):
        return set(new)
    if kind in ("append", "append_large", "fragments"):
        out = set(ids)
        out.update(new)
        return out
    if kind == "delete":
        lo, hi = delete_range(seed, k)
        return {i for i in ids if not lo <= i < hi}
    raise ValueError(f"unknown op kind {kind}")


def expected_table(ids: Set[int]) -> pa.Table:
    srt = pa.array(sorted(ids), pa.int64())
    return pa.table({
        "id": srt,
        "opk": pc.cast(pc.divide(srt, ID_STRIDE), pa.int32()),
        "v": pc.divide(pc.cast(srt, pa.float64()), 4.0),
        "s": pc.binary_join_element_wise("row-", pc.cast(srt, pa.string()), ""),
    })


class Mismatch(AssertionError):
    pass


def _same(actual: pa.Table, expected: pa.Table, what: str) -> None:
    actual = actual.sort_by("id")
    if actual.column_names != expected.column_names:
        raise Mismatch(f"{what}: columns {actual.column_names} != {expected.column_names}")
    if actual.num_rows != expected.num_rows:
        raise Mismatch(f"{what}: {actual.num_rows} rows, expected {expected.num_rows}")
    for name in expected.column_names:
        if not actual.column(name).combine_chunks().equals(expected.column(name).combine_chunks()):
            raise Mismatch(f"{what}: column {name} differs from the model")


class Engines:
    """lance_cpp and pylance, imported once (the verifier of every kill)."""

    def __init__(self):
        import lance
        import lance_cpp

        self.lance = lance
        self.cpp = lance_cpp

    def open_both(self, uri: str, opts: Optional[dict]):
        """(cpp, py) datasets at the latest version, or (None, None) when neither finds
        one. Raises when only one does."""
        cpp = py = None
        cpp_err = py_err = None
        try:
            cpp = self.cpp.dataset(uri, storage_options=opts)
        except self.cpp.LanceNotFoundError as e:
            cpp_err = e
        try:
            py = self.lance.dataset(uri, storage_options=opts)
        except ValueError as e:
            if "not found" not in str(e).lower():
                raise
            py_err = e
        if (cpp is None) != (py is None):
            raise Mismatch(f"only one engine opens {uri}: lance_cpp {cpp_err}, pylance {py_err}")
        return cpp, py


class Track:
    """One dataset written by successive writers, each killed; the model follows."""

    def __init__(self, h: "Harness", name: str, uri: str, seed: int):
        self.h = h
        self.name = name
        self.uri = uri
        self.seed = seed
        self.ledger = os.path.join(h.workdir, f"{name}.ledger")
        self.ledger_pos = 0
        self.ids: Set[int] = set()
        self.version = 0
        self.next_op = 0
        self.expected_cache: Optional[Tuple[int, pa.Table]] = None

    # -- running ------------------------------------------------------------------------
    def run_writer(self, ops: int, delay: Optional[float] = None, force_kind: str = "",
                   kill_at: int = 0, kill_mode: str = "kill") -> int:
        cmd = [self.h.writer, "--uri", self.uri, "--seed", str(self.seed), "--ops", str(ops),
               "--first-op", str(self.next_op), "--ledger", self.ledger,
               "--large-rows", str(self.h.large_rows), "--fsync", "1" if self.h.fsync else "0"]
        if force_kind:
            cmd += ["--force-kind", force_kind]
        if kill_at:
            cmd += ["--kill-at-store-op", str(kill_at), "--kill-mode", kill_mode]
        size0 = os.path.getsize(self.ledger) if os.path.exists(self.ledger) else 0
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                env=self.h.env)
        if delay is not None:
            # The delay counts from the first intent, not from the exec: a loaded machine
            # would otherwise spend most kills on process start-up.
            deadline = time.monotonic() + 10
            while (proc.poll() is None and time.monotonic() < deadline and
                   (not os.path.exists(self.ledger) or os.path.getsize(self.ledger) == size0)):
                time.sleep(0.002)
            try:
                proc.wait(timeout=delay)
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        rc = proc.returncode
        if rc not in (0, -signal.SIGKILL):
            raise AssertionError(f"{self.name}: writer failed (rc {rc}): {err.decode()[-2000:]}")
        return rc

    def read_ledger(self):
        if not os.path.exists(self.ledger):  # killed before it opened the ledger
            return []
        with open(self.ledger) as f:
            f.seek(self.ledger_pos)
            text = f.read()
        # Only whole lines: a kill cannot tear one (a single write), but be strict.
        end = text.rfind("\n") + 1
        self.ledger_pos += len(text[:end].encode())
        return [line.split() for line in text[:end].splitlines()]

    # -- checking -----------------------------------------------------------------------
    def settle(self, killed: bool) -> Tuple[str, str]:
        """Applies the ledger to the model and checks the dataset after a writer ended.
        Returns (op kind in flight or "between", store step killed or "")."""
        inflight = None
        step = ""
        for parts in self.read_ledger():
            if parts[0] == "intent":
                inflight = (int(parts[1]), parts[2])
            elif parts[0] == "done":
                k, v = int(parts[1]), int(parts[3])
                assert inflight and inflight[0] == k, f"{self.name}: done {k} without intent"
                self.ids = apply_op(self.ids, self.seed, k, inflight[1], self.h.large_rows)
                if v != self.version + 1:
                    raise Mismatch(f"{self.name}: op {k} committed version {v}, "
                                   f"expected {self.version + 1}")
                self.version = v
                self.next_op = k + 1
                inflight = None
            elif parts[0] == "kill":
                step = parts[1]
        self.verify(inflight)
        return (inflight[1] if inflight else "between"), step

    def verify(self, inflight: Optional[Tuple[int, str]]) -> None:
        h = self.h
        cpp, py = h.engines.open_both(self.uri, h.opts)
        # On S3 a request the killed writer had fully sent (its manifest PUT) can still
        # land at the server after the process died: both engines then read committed
        # versions, but at two moments. Wait (at most 10 s) until they agree; a version
        # that is neither the model's nor the one in flight still fails below.
        deadline = time.monotonic() + 10.0
        while (h.opts is not None and cpp is not None and py is not None
               and cpp.version != py.version and time.monotonic() < deadline):
            time.sleep(0.2)
            cpp, py = h.engines.open_both(self.uri, h.opts)
        if cpp is None:
            if self.version != 0:
                raise Mismatch(f"{self.name}: dataset gone, model at version {self.version}")
            h.versions_verified += 1
            return
        if cpp.version != py.version:
            raise Mismatch(f"{self.name}: lance_cpp at version {cpp.version}, "
                           f"pylance at {py.version}")
        got = cpp.version
        if got == self.version:
            ids = self.ids
        elif inflight is not None and got == self.version + 1:
            k, kind = inflight
            ids = apply_op(self.ids, self.seed, k, kind, h.large_rows)
        else:
            raise Mismatch(f"{self.name}: dataset at version {got}, model at {self.version}"
                           f" (in flight: {inflight})")
        if self.expected_cache and self.expected_cache[0] == got:
            expected = self.expected_cache[1]
        else:
            expected = expected_table(ids)
            self.expected_cache = (got, expected)
        _same(cpp.to_table(), expected, f"{self.name} v{got} lance_cpp")
        _same(py.to_table(), expected, f"{self.name} v{got} pylance")
        want = list(range(1, got + 1))
        for engine, ds in (("lance_cpp", cpp), ("pylance", py)):
            listed = sorted(v["version"] for v in ds.versions())
            if listed != want:
                raise Mismatch(f"{self.name}: {engine} lists versions {listed}, want {want}")
        h.versions_verified += 1
        h.pylance_checks += 1
        if got != self.version:
            self.ids = ids
            self.version = got
            self.next_op = inflight[0] + 1


class Harness:
    def __init__(self, writer: str, workdir: str, seed: int, opts: Optional[dict] = None,
                 large_rows: int = 600000, env: Optional[dict] = None, fsync: bool = True):
        self.writer = writer
        self.workdir = workdir
        self.seed = seed
        self.rng = random.Random(seed)
        self.opts = opts
        self.large_rows = large_rows
        self.fsync = fsync
        self.env = env if env is not None else os.environ.copy()
        self.engines = Engines()
        self.kills = 0
        self.runs = 0
        self.by_kind: Counter = Counter()
        self.by_step: Counter = Counter()
        self.versions_verified = 0
        self.pylance_checks = 0
        self.tracks: List[Track] = []

    def track(self, base_uri: str, name: str) -> Track:
        t = Track(self, name, f"{base_uri}/{name}.lance", self.rng.randrange(1 << 62))
        self.tracks.append(t)
        return t

    def _record(self, t: Track, rc: int, kind_hint: str = "") -> None:
        self.runs += 1
        kind, step = t.settle(killed=rc != 0)
        if rc != 0:
            self.kills += 1
            self.by_kind[kind_hint or kind] += 1
            self.by_step[step or "random"] += 1

    def random_kills(self, t: Track, n: int, max_delay: float, ops: int = 40) -> None:
        """Writers on track t, each killed after a seeded random delay, until n of them
        were killed: a writer that finished its ops before its delay ran out is verified
        like the others but is no kill, and how many finish depends on the machine's speed
        (at most 4n writers)."""
        target = self.kills + n
        for _ in range(4 * n):
            if self.kills >= target:
                break
            rc = t.run_writer(ops, delay=self.rng.uniform(0.0, max_delay))
            self._record(t, rc)

    def sweep(self, t: Track, kind: str, modes=("kill", "tear", "after")) -> int:
        """Kills one op of `kind` at each of its store steps in turn, for each mode.
        Returns the number of steps of the op."""
        steps = 0
        for mode in modes:
            n = 1
            while True:
                rc = t.run_writer(1, force_kind=kind, kill_at=n, kill_mode=mode)
                self._record(t, rc, kind)
                if rc == 0:
                    break
                n += 1
            steps = max(steps, n - 1)
        return steps

    def sweep_create(self, base_uri: str, modes=("kill", "tear", "after"),
                     prefix: str = "create") -> int:
        """Kills the creating writer at every store step (a fresh dataset each time)."""
        steps = 0
        for mode in modes:
            n = 1
            while True:
                t = self.track(base_uri, f"{prefix}-{mode}-{n}")
                rc = t.run_writer(1, kill_at=n, kill_mode=mode)
                self._record(t, rc, "create")
                # Leftovers of a killed create never block a new one.
                if rc != 0 and t.version == 0:
                    self._record(t, t.run_writer(1))
                    if t.version != 1:
                        raise Mismatch(f"{t.name}: re-create did not commit")
                if rc == 0:
                    break
                n += 1
            steps = max(steps, n - 1)
        return steps

    def summary(self, started: float, **extra) -> dict:
        out = {
            "kills": self.kills,
            "writer_runs": self.runs,
            "kill_points_by_op_kind": dict(sorted(self.by_kind.items())),
            "kill_points_by_store_step": dict(sorted(self.by_step.items())),
            "versions_verified": self.versions_verified,
            "pylance_checks": self.pylance_checks,
            "seconds": round(time.monotonic() - started, 1),
        }
        out.update(extra)
        return out


def write_summary(summary: dict) -> None:
    line = json.dumps(summary, sort_keys=False)
    print(line, flush=True)
    log_dir = os.environ.get("LANCE_TEST_LOG_DIR")
    if log_dir:
        os.makedirs(log_dir, exist_ok=True)
        with open(os.path.join(log_dir, "crash-summary.json"), "a") as f:
            f.write(line + "\n")


def s3_options() -> Optional[dict]:
    env = os.environ
    if not env.get("LANCE_S3_ENDPOINT"):
        return None
    return {"aws_endpoint": env["LANCE_S3_ENDPOINT"], "aws_region": env["LANCE_S3_REGION"],
            "aws_access_key_id": env["LANCE_S3_ACCESS_KEY"],
            "aws_secret_access_key": env["LANCE_S3_SECRET_KEY"], "allow_http": "true"}


def s3_base() -> str:
    return f"s3://{os.environ['LANCE_S3_BUCKET']}/crash-{uuid.uuid4().hex[:12]}"


def _referenced(engines: Engines, uri: str, version: int) -> Set[str]:
    """The data and deletion files version `version`'s manifest references (pylance)."""
    ds = engines.lance.dataset(uri, version=version)
    out: Set[str] = set()
    for frag in ds.get_fragments():
        for f in frag.metadata.files:
            out.add("data/" + f.path)
        deletion = frag.deletion_file()
        if deletion:
            out.add(deletion if deletion.startswith("_deletions/") else "_deletions/" + deletion)
    return out


def _files(root: str) -> Set[str]:
    out = set()
    for d, _, names in os.walk(root):
        for n in names:
            out.add(os.path.relpath(os.path.join(d, n), root))
    return out


def check_orphans(h: Harness, t: Track, cli: str) -> dict:
    """After the kills on a local track: lance-cpp cleanup --dry-run lists only files no
    kept manifest references, lists every data file of a killed, uncommitted write,
    deletes nothing; the real cleanup then removes exactly what the dry run listed and
    both engines still read the model's rows."""
    root = t.uri
    versions = sorted(v["version"] for v in h.engines.lance.dataset(root).versions())
    refs = {v: _referenced(h.engines, root, v) for v in versions}
    ever = set().union(*refs.values())
    before = _files(root)
    orphans = {p for p in before if p.startswith("data/") and p.endswith(".lance")} - ever
    hidden_tmp = sorted(p for p in before if os.path.basename(p).startswith(".lance-tmp-"))

    def run(*args):
        proc = subprocess.run([cli, "cleanup", root, *args], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    # Keep the newest 3 versions: nothing they reference may be listed.
    keep3 = run("--retain-versions", "3", "--delete-unverified", "--dry-run")
    kept3 = set().union(*(refs[v] for v in versions[-3:]))
    assert keep3["dry_run"] is True
    assert not set(keep3["paths"]) & kept3, set(keep3["paths"]) & kept3
    assert orphans <= set(keep3["paths"]), orphans - set(keep3["paths"])
    assert _files(root) == before, "a dry run deleted or wrote files"

    dry = run("--older-than", "0", "--delete-unverified", "--dry-run")
    listed = set(dry["paths"])
    assert not listed & refs[versions[-1]], listed & refs[versions[-1]]
    assert orphans <= listed, orphans - listed
    assert dry["data_files_removed"] == len([p for p in listed if p.startswith("data/")])
    assert dry["old_versions"] == len(versions) - 1
    assert _files(root) == before

    real = run("--older-than", "0", "--delete-unverified")
    assert "paths" not in real
    removed = before - _files(root)
    assert removed == listed, (removed ^ listed)
    for key in ("old_versions", "data_files_removed", "deletion_files_removed",
                "transaction_files_removed", "bytes_removed"):
        assert real[key] == dry[key], key
    expected = expected_table(t.ids)
    cpp, py = h.engines.open_both(root, None)
    assert cpp.version == py.version == t.version
    _same(cpp.to_table(), expected, f"{t.name} after cleanup, lance_cpp")
    _same(py.to_table(), expected, f"{t.name} after cleanup, pylance")
    assert [v["version"] for v in cpp.versions()] == [t.version]
    assert [v["version"] for v in py.versions()] == [t.version]
    return {"orphan_data_files": len(orphans), "dry_run_paths": len(listed),
            "hidden_temp_files": len(hidden_tmp)}


def main(argv=None) -> int:
    """scripts/soak.sh: LANCE_CRASH_KILLS random kills on local disk (plus the store-step
    sweeps), LANCE_CRASH_S3_KILLS on RGW when LANCE_S3_* is set."""
    import tempfile

    seed = int(os.environ.get("LANCE_CRASH_SEED", str(int(time.time()))))
    kills = int(os.environ.get("LANCE_CRASH_KILLS", "3000"))
    s3_kills = int(os.environ.get("LANCE_CRASH_S3_KILLS", "200"))
    sweeps = int(os.environ.get("LANCE_CRASH_SWEEPS", "3"))
    writer = os.environ["LANCE_CRASH_WRITER"]
    cli = os.environ["LANCE_CPP_BIN"]
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="lance-soak-") as work:
        h = Harness(writer, work, seed,
                    fsync=os.environ.get("LANCE_CRASH_FSYNC", "1") != "0")
        for i in range(sweeps):
            h.sweep_create(work, prefix=f"create{i}")
            t = h.track(work, f"sweep{i}")
            t.run_writer(3)
            h._record(t, 0)
            for kind in ("append", "overwrite", "delete", "fragments"):
                h.sweep(t, kind)
        orphan: Dict[str, int] = Counter()
        per_track = 300
        for i in range((kills + per_track - 1) // per_track):
            t = h.track(work, f"random{i}")
            h.random_kills(t, min(per_track, kills - i * per_track), 0.3)
            orphan.update(check_orphans(h, t, cli))
        write_summary(h.summary(started, seed=seed, store="local", **orphan))
        opts = s3_options()
        if opts and s3_kills:
            s3_started = time.monotonic()
            s3 = Harness(writer, work, seed + 1, opts=opts)
            base = s3_base()
            big = s3.track(base, "large")
            big.run_writer(1)
            s3._record(big, 0)
            for _ in range(sweeps):
                s3.sweep(big, "append_large", modes=("kill", "tear", "after"))
            t = s3.track(base, "small")
            t.run_writer(2)
            s3._record(t, 0)
            for kind in ("append", "overwrite", "delete", "fragments"):
                s3.sweep(t, kind, modes=("kill", "tear"))
            s3.random_kills(t, s3_kills, 1.0, ops=10)
            write_summary(s3.summary(s3_started, seed=seed + 1, store="rgw"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
