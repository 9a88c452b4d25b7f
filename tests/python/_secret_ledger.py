# SPDX-License-Identifier: Apache-2.0
"""The test side of the secrets scan (scripts/scan_secrets.sh) for the pytest suites.

* ``record(secret)`` appends a secret the tests obtained (a key minted with radosgw-admin,
  an STS secret or session token, a secret vended in storage options) to the ledger named
  by LANCE_SECRETS_LEDGER (created by scripts/run_tests.sh, mode 600, outside every scanned
  directory): one ``<label>\\t<secret>`` line, appended with one write. Without the variable
  (a test run by hand) nothing is written.
* ``install()`` (called by the conftest of tests/python and tests/interop) hooks the test
  process so that what the tests see and capture is kept for the scan:
  - every ``describe_table`` / ``declare_table`` / ``create_empty_table`` answer of the
    namespace classes loaded (pylance's, lance_cpp's, lance_namespace's) has the secrets
    of its ``storage_options`` recorded;
  - the output of every subprocess whose output a test captures (``subprocess.run(...,
    capture_output=True)``, ``check_output``, ``Popen.communicate``) is appended to
    ``$LANCE_TEST_LOG_DIR/pytest-subprocess-<pid>.log``, because pytest keeps it nowhere
    once the test passed. The command line is not written: it holds the secrets the tests
    pass on purpose; only the program's name and its verb are.
Only test code is hooked: the library has no test hooks.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import threading
from typing import Any, Mapping, Optional

_LOCK = threading.Lock()
# Option keys whose values are secrets (the library's ClassifyOptionKey: "secret", "token",
# "password", "credential", "signature", "sas", or "key" not ending in "id").
_SECRET_MARKERS = ("secret", "token", "password", "passwd", "credential", "signature",
                   "sas")
_VERB = re.compile(r"^[a-z][a-z0-9_-]{0,30}$")


def is_secret_key(key: str) -> bool:
    lower = key.lower()
    if any(m in lower for m in _SECRET_MARKERS):
        return True
    return "key" in lower and not lower.endswith("id")


def record(secret: Optional[str], label: str = "") -> None:
    """Appends ``secret`` to the ledger (no-op when empty or without a ledger)."""
    path = os.environ.get("LANCE_SECRETS_LEDGER")
    if not secret or not path:
        return
    label = (label or (secret[:4] + "***")).replace("\t", " ").replace("\n", " ")
    line = f"{label}\t{secret}\n".encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line)  # one write: O_APPEND keeps concurrent lines whole
    finally:
        os.close(fd)


def record_options(options: Optional[Mapping[str, Any]]) -> None:
    """Records every secret-bearing value of vended storage options."""
    if not options:
        return
    key_id = str(options.get("aws_access_key_id", ""))[:4]
    for key, value in options.items():
        if isinstance(value, str) and is_secret_key(str(key)):
            record(value, f"{key} of {key_id}***")


# -- namespace answers ------------------------------------------------------------------

_VENDING_METHODS = ("describe_table", "declare_table", "create_empty_table")


def _recording(method):
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        response = method(self, *args, **kwargs)
        try:
            options = getattr(response, "storage_options", None)
            if options is None and isinstance(response, dict):
                options = response.get("storage_options")
            record_options(options)
        except Exception:  # noqa: BLE001 - recording never changes a test's outcome
            pass
        return response
    wrapper._records_secrets = True  # type: ignore[attr-defined]
    return wrapper


def _all_subclasses(cls):
    seen, todo = [], [cls]
    while todo:
        c = todo.pop()
        for sub in c.__subclasses__():
            if sub not in seen:
                seen.append(sub)
                todo.append(sub)
    return seen


def hook_namespaces() -> int:
    """Wraps the vending methods of every loaded LanceNamespace subclass that defines
    them. \\return how many methods were wrapped."""
    try:
        from lance_namespace import LanceNamespace
    except ImportError:
        return 0
    for module in ("lance.namespace", "lance_cpp.namespace"):
        try:
            __import__(module)
        except Exception:  # noqa: BLE001 - a missing build fails the tests themselves
            pass
    wrapped = 0
    for cls in _all_subclasses(LanceNamespace):
        for name in _VENDING_METHODS:
            method = cls.__dict__.get(name)
            if method is None or getattr(method, "_records_secrets", False):
                continue
            try:
                setattr(cls, name, _recording(method))
                wrapped += 1
            except (TypeError, AttributeError):
                pass  # a native type: its answers are recorded where the tests see them
    return wrapped


# -- captured subprocess output -----------------------------------------------------------

def _text(data) -> str:
    if data is None:
        return ""
    if isinstance(data, bytes):
        return data.decode("utf-8", "replace")
    return str(data)


def _program(args) -> str:
    if isinstance(args, (str, bytes, os.PathLike)):
        parts = [os.fsdecode(args).split(" ", 1)[0]]
    else:
        parts = [os.fsdecode(a) if isinstance(a, (bytes, os.PathLike)) else str(a)
                 for a in list(args)[:3]]
    if not parts:
        return "?"
    shown = [os.path.basename(parts[0])]
    # The verb ("count", "-m"...) helps find the run; nothing that could be a value.
    shown += [p for p in parts[1:] if _VERB.match(p)][:1]
    return " ".join(shown)


# Programs whose captured output is not kept: radosgw-admin prints the test user's record,
# every key and secret included, by design (the tests discard it, as the C++ helpers do).
_NOT_KEPT = {"radosgw-admin"}


def _keep_path(log_dir: str) -> str:
    return os.path.join(log_dir, f"pytest-subprocess-{os.getpid()}.log")


def keep(program: str, output) -> None:
    """Appends the output a test read from a long-running process (a server it stopped)
    to the kept log, for the scan; no-op without LANCE_TEST_LOG_DIR."""
    log_dir = os.environ.get("LANCE_TEST_LOG_DIR")
    if not log_dir:
        return
    test = os.environ.get("PYTEST_CURRENT_TEST", "?")
    os.makedirs(log_dir, exist_ok=True)
    with _LOCK, open(_keep_path(log_dir), "a", encoding="utf-8") as f:
        f.write(f"== {test}: {program} (output read by the test)\n{_text(output)}\n")


def hook_subprocess_output(log_dir: str) -> None:
    os.makedirs(log_dir, exist_ok=True)
    path = _keep_path(log_dir)
    original = subprocess.Popen.communicate
    if getattr(original, "_keeps_output", False):
        return

    @functools.wraps(original)
    def communicate(self, *args, **kwargs):
        out, err = original(self, *args, **kwargs)
        if (out is not None or err is not None) and _program(self.args).split(" ")[0] \
                not in _NOT_KEPT:
            try:
                test = os.environ.get("PYTEST_CURRENT_TEST", "?")
                block = (f"== {test}: {_program(self.args)} (exit {self.returncode})\n"
                         f"-- stdout\n{_text(out)}\n-- stderr\n{_text(err)}\n")
                with _LOCK, open(path, "a", encoding="utf-8") as f:
                    f.write(block)
            except Exception:  # noqa: BLE001 - keeping output never fails a test
                pass
        return out, err

    communicate._keeps_output = True  # type: ignore[attr-defined]
    subprocess.Popen.communicate = communicate  # type: ignore[method-assign]


def install() -> None:
    """Everything above, as the environment of the run asks (see scripts/run_tests.sh)."""
    # The root key of the test RGW, whoever reads it.
    record(os.environ.get("LANCE_S3_SECRET_KEY"), "LANCE_S3_SECRET_KEY")
    if os.environ.get("LANCE_SECRETS_LEDGER"):
        hook_namespaces()
    log_dir = os.environ.get("LANCE_TEST_LOG_DIR")
    if log_dir:
        hook_subprocess_output(log_dir)
