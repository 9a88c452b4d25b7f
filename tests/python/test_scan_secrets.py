# SPDX-License-Identifier: Apache-2.0
"""The secrets scan of `make test` (scripts/scan_secrets.py) and the ledger the tests fill
(tests/python/_secret_ledger.py): what it must find, what it must not, and what it must
never print."""

import base64
import importlib.util
import json
import os
import stat
import subprocess
import sys
import urllib.parse
from pathlib import Path

import pytest

import _secret_ledger

SOURCE = Path(__file__).resolve().parents[2]
SCRIPT = SOURCE / "scripts" / "scan_secrets.py"


def _load_scanner():
    spec = importlib.util.spec_from_file_location("scan_secrets", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["scan_secrets"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


scanner = _load_scanner()

SECRET = "tEsT/SeCrEt+Value=0123456789abcdefXYZ"


def _ledger(tmp_path: Path, *entries) -> Path:
    path = tmp_path / "ledger" / "ledger.tsv"
    path.parent.mkdir(exist_ok=True)
    path.write_text("".join(f"{label}\t{value}\n" for label, value in entries))
    return path


def _scan(tmp_path: Path, files: dict, entries=(("key AKID***", SECRET),)):
    logs = tmp_path / "logs"
    logs.mkdir()
    for name, content in files.items():
        target = logs / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content)
    return scanner.scan(_ledger(tmp_path, *entries), [str(logs)])


def test_the_positive_control_passes():
    assert scanner.control(verbose=False) == []


@pytest.mark.parametrize("encode", [
    lambda s: s,
    lambda s: urllib.parse.quote(s, safe=""),
    lambda s: urllib.parse.quote(s, safe="").lower(),
    lambda s: urllib.parse.quote_plus(s, safe=""),
    lambda s: json.dumps({"v": s}).replace("/", "\\/"),
    lambda s: base64.b64encode(s.encode()).decode(),
    lambda s: base64.urlsafe_b64encode(s.encode()).decode(),
    # Inside a longer base64 text, at each of the three byte alignments.
    lambda s: base64.b64encode(b"x" + s.encode() + b"y").decode(),
    lambda s: base64.b64encode(b"xx" + s.encode() + b"y").decode(),
    lambda s: base64.b64encode(b"Basic user:" + s.encode()).decode(),
], ids=["raw", "url", "url-lower", "form", "json", "b64", "b64url", "b64-off1", "b64-off2",
        "b64-inside"])
def test_every_encoding_is_found_on_its_line(tmp_path, encode):
    report = _scan(tmp_path, {"a.log": "first line\nsecond " + encode(SECRET) + " end\n"})
    assert [(Path(h.path).name, h.line, h.label) for h in report.hits] == \
        [("a.log", 2, "key AKID***")]


def test_redacted_forms_and_other_files_are_not_hits(tmp_path):
    report = _scan(tmp_path, {
        "redacted.log": f"aws_secret_access_key=<redacted> key={SECRET[:4]}***\n",
        "partial.log": SECRET[:scanner.MIN_SECRET_LEN - 1],
        "nested/other.txt": "no secret here\n" * 1000,
    })
    assert report.hits == []
    assert report.files == 3
    assert report.secrets == 1


def test_binary_files_and_nested_directories_are_scanned(tmp_path):
    report = _scan(tmp_path, {"d/e/data.bin": b"\x00\xff" + SECRET.encode() + b"\x00"})
    assert [Path(h.path).name for h in report.hits] == ["data.bin"]


def test_files_that_hold_secrets_by_design_are_skipped(tmp_path):
    report = _scan(tmp_path, {"ceph.conf": SECRET, "keyring": SECRET,
                              "rgw/log/rgw.log": SECRET, "secrets/ledger.tsv": SECRET,
                              "kept.log": "clean"})
    assert report.hits == []
    assert report.files == 1


def test_short_and_duplicate_ledger_entries(tmp_path):
    report = _scan(tmp_path, {"a.log": "abc " + SECRET},
                   entries=[("one", SECRET), ("again", SECRET), ("short", "abc")])
    assert (report.secrets, report.skipped_short) == (1, 1)
    assert [h.label for h in report.hits] == ["one"]


def _run_cli(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, timeout=120)


def test_the_command_reports_hits_without_the_secret_and_fails(tmp_path):
    ledger = _ledger(tmp_path, ("secret of LCTA***", SECRET), ("b", "another-secret-1"),
                     ("c", "another-secret-2"))
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "leak.log").write_text("ok\nok\nboom " + SECRET + "\n")
    summary = tmp_path / "summary.json"
    proc = _run_cli("scan", "--ledger", str(ledger), "--summary", str(summary),
                    "--min-entries", "3", str(logs))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"{logs / 'leak.log'}:3: secret of LCTA*** (raw)" in proc.stdout
    assert SECRET not in proc.stdout + proc.stderr
    data = json.loads(summary.read_text())
    assert (data["hits"], data["secrets"], data["files_scanned"], data["ok"]) == \
        (1, 3, 1, False)
    assert SECRET not in summary.read_text()


def test_the_command_passes_on_clean_logs_and_fails_on_a_thin_ledger(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "clean.log").write_text("nothing\n")
    ledger = _ledger(tmp_path, ("a", SECRET), ("b", "another-secret-1"),
                     ("c", "another-secret-2"))
    proc = _run_cli("scan", "--ledger", str(ledger), "--min-entries", "3", str(logs))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "scanned 1 files" in proc.stdout and ": 0 hits" in proc.stdout
    thin = _ledger(tmp_path, ("a", SECRET))
    proc = _run_cli("scan", "--ledger", str(thin), "--min-entries", "3", str(logs))
    assert proc.returncode == 2 and "fewer than 3" in proc.stderr
    proc = _run_cli("scan", "--ledger", str(tmp_path / "missing.tsv"), str(logs))
    assert proc.returncode == 2 and "no ledger" in proc.stderr


def test_the_ledger_module_appends_private_lines(tmp_path, monkeypatch):
    path = tmp_path / "l.tsv"
    monkeypatch.setenv("LANCE_SECRETS_LEDGER", str(path))
    _secret_ledger.record("first-secret-value", "label\twith tab")
    _secret_ledger.record("")  # nothing
    _secret_ledger.record_options({"aws_access_key_id": "AKIDXYZ",
                                   "aws_secret_access_key": "vended-secret",
                                   "aws_session_token": "vended-token",
                                   "aws_region": "us-east-1", "expires_at_millis": "1"})
    lines = path.read_text().splitlines()
    assert lines == ["label with tab\tfirst-secret-value",
                     "aws_secret_access_key of AKID***\tvended-secret",
                     "aws_session_token of AKID***\tvended-token"]
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    monkeypatch.delenv("LANCE_SECRETS_LEDGER")
    _secret_ledger.record("not-written-anywhere")
    assert len(path.read_text().splitlines()) == 3


def test_bulk_data_is_skipped_but_dataset_metadata_is_scanned(tmp_path):
    report = _scan(tmp_path, {
        "t.lance/data/0.lance": b"rows " + SECRET.encode(),
        "input.arrow": SECRET, "venv/lib/site-packages/pkg/mod.py": SECRET,
        "t.lance/_versions/1.manifest": b"\x00opts " + SECRET.encode(),
        "t.lance/_transactions/0-x.txn": "clean",
    })
    assert [Path(h.path).name for h in report.hits] == ["1.manifest"]
    assert (report.files, report.skipped_data_files) == (2, 2)


def test_the_command_fails_when_a_required_kind_of_secret_was_not_recorded(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    ledger = _ledger(tmp_path, ("LANCE_S3_SECRET_KEY", SECRET),
                     ("secret of LCTA***", "another-secret-1"))
    ok = _run_cli("scan", "--ledger", str(ledger), "--require-label", "LANCE_S3_SECRET_KEY",
                  "--require-label", "secret of", str(logs))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    missing = _run_cli("scan", "--ledger", str(ledger), "--require-label", "token of",
                       str(logs))
    assert missing.returncode == 2 and "'token of'" in missing.stderr
