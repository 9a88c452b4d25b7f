#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Scans the logs and outputs of a test run for the secrets the tests used.

    scan_secrets.py scan --ledger FILE [--summary FILE] [--min-entries N] PATH...
    scan_secrets.py control            the positive control (see control())

The ledger (LANCE_SECRETS_LEDGER, written by the tests: tests/testing/secret_ledger.cc,
tests/python/_secret_ledger.py, tests/cli/cli_test.sh, scripts/run_tests.sh) has one
``<label>\\t<secret>`` line per secret. Every file under each PATH is searched for every
secret in each form it could be written in: as is, URL-encoded (%XX and '+'), JSON-escaped
('/' as '\\/'), and base64 (standard and URL-safe alphabets, at each of the three byte
alignments it can have inside a longer encoded text). A hit is reported as file:line and
the secret's label (a redacted key id), never the secret itself; any hit fails the scan.

The search itself is `grep -F -f` (Aho-Corasick over all patterns at once): the patterns
go to grep through a private temporary file, the matches come back through a pipe and are
never printed.

Standard library only (runs with any python3).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import secrets as pysecrets
import subprocess
import sys
import tempfile
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

# Shorter secrets are not searched (their encodings would match by chance in binary
# data); the tests' secrets are 16 characters and more.
MIN_SECRET_LEN = 8

# Files that hold secrets by design, skipped wherever they appear under a scanned path.
# None of them is a log or an output of the code under test:
EXCLUDED_NAMES = {
    "ceph.conf": "the test RGW's own configuration (rgw sts key)",
    "keyring": "the test RGW's cephx keyring",
    "ledger.tsv": "the secrets ledger itself",
    "rgw.env": "the RGW environment file (export LANCE_S3_SECRET_KEY=...)",
    "secrets-summary.json": "this scan's own summary (labels and counts only)",
}
EXCLUDED_DIRS = {
    "rgw": "the test RGW's data, conf and daemon logs (they log the keys they manage)",
    "secrets": "the directory of the ledger",
}
# Bulk data in the pytest folders that no secret can reach, skipped to keep the scan
# within its budget (~1 GB of a full run's 1.2 GB): the rows the tests write (Lance data
# files under data/, Arrow IPC inputs and exchanges made from the tests' own arrays) and
# the throw-away venv of python_install_test (third-party packages, the built wheel).
# Everything that could hold an option or a message is scanned: logs, manifests,
# transactions, JSON, text.
DATA_SUFFIXES = (".arrow", ".arrows", ".feather", ".ipc", ".parquet", ".whl")
DATA_DIRS = {"site-packages"}


def _bulk_data(path: Path) -> bool:
    if path.name.endswith(DATA_SUFFIXES):
        return True
    return path.suffix == ".lance" and path.parent.name == "data"


@dataclass
class Secret:
    label: str
    value: str


@dataclass
class Hit:
    path: str
    line: int
    label: str
    form: str


@dataclass
class Report:
    files: int = 0
    bytes: int = 0
    secrets: int = 0
    skipped_short: int = 0
    skipped_data_files: int = 0
    skipped_data_bytes: int = 0
    patterns: int = 0
    hits: List[Hit] = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> Dict[str, object]:
        return {"files_scanned": self.files, "bytes_scanned": self.bytes,
                "data_files_skipped": self.skipped_data_files,
                "data_bytes_skipped": self.skipped_data_bytes,
                "secrets": self.secrets, "secrets_too_short": self.skipped_short,
                "patterns": self.patterns, "hits": len(self.hits),
                "seconds": round(self.seconds, 2)}


def ledger_labels(path: Path) -> List[str]:
    return [line.partition("\t")[0] for line in
            path.read_text(encoding="utf-8", errors="replace").splitlines() if line]


def read_ledger(path: Path) -> Tuple[List[Secret], int]:
    """Distinct secrets of the ledger (first label wins) and how many were too short."""
    seen: Dict[str, Secret] = {}
    short = 0
    for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if not raw.strip():
            continue
        label, sep, value = raw.partition("\t")
        if not sep:
            label, value = "", raw
        if value in seen:
            continue
        if len(value) < MIN_SECRET_LEN:
            short += 1
            seen[value] = Secret(label, "")
            continue
        seen[value] = Secret(label or (value[:4] + "***"), value)
    return [s for s in seen.values() if s.value], short


def _b64_forms(data: bytes, urlsafe: bool) -> List[str]:
    """The base64 characters that depend only on `data`, at each of the 3 alignments
    `data` can have inside a longer encoded text."""
    out = []
    n = len(data)
    for k in range(3):
        padded = b"\0" * k + data + b"\0" * 2
        enc = (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(padded).decode()
        keep = []
        for i, ch in enumerate(enc):
            group, j = divmod(i, 4)
            first = 3 * group + (6 * j) // 8
            last = 3 * group + (6 * j + 5) // 8
            keep.append(ch if k <= first and last < k + n else None)
        # The longest run of fully determined characters.
        best, cur = "", ""
        for ch in keep:
            if ch is None:
                cur = ""
            else:
                cur += ch
                if len(cur) > len(best):
                    best = cur
        if len(best) >= MIN_SECRET_LEN:
            out.append(best)
    return out


def forms(secret: str) -> Dict[str, str]:
    """pattern -> name of the form, for every way `secret` could be written."""
    result: Dict[str, str] = {}

    def add(pattern: str, name: str) -> None:
        if len(pattern) >= MIN_SECRET_LEN and pattern not in result:
            result[pattern] = name

    add(secret, "raw")
    add(urllib.parse.quote(secret, safe=""), "url")
    add(urllib.parse.quote(secret, safe="").lower(), "url")  # %2f as well as %2F
    add(urllib.parse.quote_plus(secret, safe=""), "form-url")
    add(json.dumps(secret)[1:-1].replace("/", "\\/"), "json")
    data = secret.encode()
    for p in _b64_forms(data, urlsafe=False):
        add(p, "base64")
    for p in _b64_forms(data, urlsafe=True):
        add(p, "base64url")
    return result


def _excluded(path: Path) -> Optional[str]:
    if path.name in EXCLUDED_NAMES:
        return EXCLUDED_NAMES[path.name]
    for part in path.parts[:-1]:
        if part in EXCLUDED_DIRS:
            return EXCLUDED_DIRS[part]
    return None


def list_files(paths: Sequence[str], report: Optional["Report"] = None
               ) -> Tuple[List[Path], int]:
    files: List[Path] = []
    size = 0
    for p in paths:
        root = Path(p)
        if root.is_file():
            candidates = [root]
        elif root.is_dir():
            candidates = []
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames[:] = [d for d in dirnames
                               if d not in EXCLUDED_DIRS and d not in DATA_DIRS]
                candidates.extend(Path(dirpath) / f for f in filenames)
        else:
            continue  # a directory this run did not make (e.g. no pytest suite ran)
        for f in candidates:
            if _excluded(f) or f.is_symlink() or not f.is_file():
                continue
            if _bulk_data(f) and root.is_dir():
                if report is not None:
                    report.skipped_data_files += 1
                    report.skipped_data_bytes += f.stat().st_size
                continue
            files.append(f)
            size += f.stat().st_size
    return files, size


def scan(ledger: Path, paths: Sequence[str]) -> Report:
    started = time.monotonic()
    report = Report()
    secrets, report.skipped_short = read_ledger(ledger)
    report.secrets = len(secrets)
    by_pattern: Dict[str, Tuple[str, str]] = {}
    for s in secrets:
        for pattern, name in forms(s.value).items():
            by_pattern.setdefault(pattern, (s.label, name))
    report.patterns = len(by_pattern)
    files, report.bytes = list_files(paths, report)
    report.files = len(files)
    if not files or not by_pattern:
        report.seconds = time.monotonic() - started
        return report
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", prefix="scan-patterns-",
                                     delete=True) as pats:
        os.chmod(pats.name, 0o600)
        pats.write("\n".join(by_pattern) + "\n")
        pats.flush()
        # -a: binary files as text (a secret in a data file is a leak too); -Z: a NUL after
        # the file name; -o: only the matched pattern (to name the secret).
        cmd = ["xargs", "-0", "grep", "-F", "-a", "-n", "-o", "-H", "-Z", "-f", pats.name,
               "--"]
        proc = subprocess.run(cmd, input=b"\0".join(os.fsencode(f) for f in files),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # grep: 0 = matches, 1 = none; xargs reports 123 when any grep exited 1..125.
    if proc.returncode not in (0, 1, 123):
        raise RuntimeError(f"grep failed (exit {proc.returncode}): "
                           f"{proc.stderr.decode(errors='replace')[-500:]}")
    for line in proc.stdout.split(b"\n"):
        if not line:
            continue
        name, _, rest = line.partition(b"\0")
        lineno, _, match = rest.partition(b":")
        label, form = by_pattern.get(match.decode(errors="replace"), ("?", "?"))
        report.hits.append(Hit(os.fsdecode(name), int(lineno or 0), label, form))
    report.seconds = time.monotonic() - started
    return report


def print_report(report: Report, out=sys.stdout) -> None:
    s = report.summary()
    print(f"[secrets] scanned {s['files_scanned']} files, {s['bytes_scanned']} bytes "
          f"(skipped {s['data_files_skipped']} bulk data files, {s['data_bytes_skipped']} "
          f"bytes), for "
          f"{s['secrets']} secrets ({s['patterns']} patterns; {s['secrets_too_short']} "
          f"too short to search) in {s['seconds']} s: {s['hits']} hits", file=out)
    for h in report.hits[:200]:
        print(f"[secrets] LEAK {h.path}:{h.line}: {h.label} ({h.form})", file=out)
    if len(report.hits) > 200:
        print(f"[secrets] ... and {len(report.hits) - 200} more hits", file=out)


# -- the positive control -----------------------------------------------------------------

def control(verbose: bool = True) -> List[str]:
    """Plants a canary secret in temporary logs, in every form the scan looks for, and
    checks that each is found, and that its redacted form (first 4 chars + ***) and an
    unrelated log are not. \\return the failures (empty: the scanner works)."""
    failures: List[str] = []
    # Characters that URL- and JSON-encoding change, so every form differs from the raw.
    canary = "CANARY" + pysecrets.token_hex(12) + "/+=" + pysecrets.token_urlsafe(9)
    with tempfile.TemporaryDirectory(prefix="scan-secrets-control-") as tmp:
        root = Path(tmp)
        ledger = root / "secrets" / "ledger.tsv"  # under an excluded directory name
        ledger.parent.mkdir()
        ledger.write_text(f"canary\t{canary}\nshort\tabc\n", encoding="utf-8")
        logs = root / "logs"
        logs.mkdir()
        b64 = base64.b64encode(canary.encode()).decode()
        b64url = base64.urlsafe_b64encode(canary.encode()).decode()
        inside = base64.b64encode(b"Authorization: " + canary.encode() + b"\n").decode()
        planted = {
            "raw.log": f"line one\nGET /x?secret={canary} HTTP/1.1\n",
            "url.log": "x\ny\nX-Amz-Security-Token=" + urllib.parse.quote(canary, safe=""),
            "url-lower.log": urllib.parse.quote(canary, safe="").lower(),
            "form.log": urllib.parse.quote_plus(canary, safe=""),
            "json.log": json.dumps({"token": canary}),
            "base64.log": f"blob {b64}\n",
            "base64url.log": f"blob {b64url}\n",
            "base64-inside.log": f"{inside}\n",
        }
        expected_lines = {"raw.log": 2, "url.log": 3}
        for name, text in planted.items():
            (logs / name).write_text(text, encoding="utf-8")
        (logs / "binary.bin").write_bytes(b"\0\1\2" + canary.encode() + b"\xff")
        planted["binary.bin"] = ""
        clean = {
            "redacted.log": f"access_key_id={canary[:4]}*** secret=<redacted> "
                            f"{canary[:4]}***\n",
            "unrelated.log": "nothing to see\n" * 100,
        }
        for name, text in clean.items():
            (logs / name).write_text(text, encoding="utf-8")
        # Files that hold secrets by design are not scanned.
        (logs / "ceph.conf").write_text(canary, encoding="utf-8")
        (logs / "rgw").mkdir()
        (logs / "rgw" / "rgw.log").write_text(canary, encoding="utf-8")

        report = scan(ledger, [str(logs)])
        hit_files = {Path(h.path).name: h for h in report.hits}
        for name in planted:
            if name not in hit_files:
                failures.append(f"the canary planted in {name} was not found")
        for name, line in expected_lines.items():
            if name in hit_files and hit_files[name].line != line:
                failures.append(f"{name}: hit on line {hit_files[name].line}, want {line}")
        for name in list(clean) + ["ceph.conf", "rgw.log"]:
            if name in hit_files:
                failures.append(f"{name} is reported but holds no secret to report")
        if any(h.label != "canary" for h in report.hits):
            failures.append("a hit is not labelled 'canary'")
        if report.secrets != 1 or report.skipped_short != 1:
            failures.append(f"ledger read as {report.secrets} secrets, "
                            f"{report.skipped_short} short; want 1 and 1")
        # The report never shows the secret.
        import io
        buf = io.StringIO()
        print_report(report, buf)
        if canary in buf.getvalue() or canary[6:18] in buf.getvalue():
            failures.append("the report shows the secret")
    if verbose:
        state = "ok" if not failures else "FAILED: " + "; ".join(failures)
        print(f"[secrets] positive control ({len(planted)} planted forms, "
              f"{len(clean) + 2} clean files): {state}")
    return failures


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    sc = sub.add_parser("scan")
    sc.add_argument("--ledger", required=True, type=Path)
    sc.add_argument("--summary", type=Path)
    sc.add_argument("--min-entries", type=int, default=0,
                    help="fail when the ledger has fewer distinct secrets")
    sc.add_argument("--require-label", action="append", default=[],
                    help="fail unless some ledger label contains this text (e.g. a "
                         "minted key's 'secret of'); repeatable")
    sc.add_argument("paths", nargs="*")
    sub.add_parser("control")
    args = parser.parse_args(argv)

    if args.cmd == "control":
        return 1 if control() else 0

    if not args.ledger.is_file():
        print(f"[secrets] no ledger at {args.ledger}: the tests recorded nothing",
              file=sys.stderr)
        return 2
    report = scan(args.ledger, args.paths)
    print_report(report)
    status = 0
    if report.secrets < args.min_entries:
        print(f"[secrets] the ledger holds {report.secrets} secrets, fewer than "
              f"{args.min_entries}: the tests did not record what they used",
              file=sys.stderr)
        status = 2
    labels = ledger_labels(args.ledger)
    for wanted in args.require_label:
        if not any(wanted in label for label in labels):
            print(f"[secrets] no ledger entry labelled '{wanted}': the tests that obtain "
                  "such secrets did not record them", file=sys.stderr)
            status = 2
    if report.hits:
        status = 1
    if args.summary:
        summary = dict(report.summary(), ok=status == 0,
                       leaks=[{"file": h.path, "line": h.line, "secret": h.label,
                               "form": h.form} for h in report.hits[:200]])
        args.summary.parent.mkdir(parents=True, exist_ok=True)
        args.summary.write_text(json.dumps(summary) + "\n", encoding="utf-8")
    return status


if __name__ == "__main__":
    sys.exit(main())
