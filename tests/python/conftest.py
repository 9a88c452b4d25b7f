# SPDX-License-Identifier: Apache-2.0
"""Fixtures for the lance_cpp tests: every behaviour runs against real pylance (`import
lance`) and lance_cpp (`import lance_cpp as lance`), which must agree.

lance_cpp is imported from the build tree (PYTHONPATH=<build>/python, set by ctest);
a missing build is a failure, never a skip.
"""

import importlib
import os
import sys

import pytest

# Shared assertion helpers keep pytest's detailed assertion messages.
pytest.register_assert_rewrite("_indices")

import _secret_ledger  # noqa: E402

IMPLS = ("pylance", "lance_cpp")


def pytest_configure(config):
    # The secrets scan of the run (scripts/run_tests.sh, scan_secrets.sh): vended secrets
    # recorded, captured subprocess output kept in LANCE_TEST_LOG_DIR.
    _secret_ledger.install()


def _import_lance_cpp():
    build = os.environ.get("LANCE_PYTHON_BUILD_DIR")
    if build and build not in sys.path:
        sys.path.insert(0, build)
    try:
        return importlib.import_module("lance_cpp")
    except ImportError as e:  # a failure with a clear message, not a skip
        raise RuntimeError(
            "cannot import lance_cpp: build it (ninja _lance_cpp) and run with "
            f"PYTHONPATH=<build>/python (LANCE_PYTHON_BUILD_DIR={build!r}): {e}") from e


def load(name):
    """The module under test: real pylance or lance_cpp."""
    if name == "pylance":
        import lance

        return lance
    return _import_lance_cpp()


class Impl:
    """One implementation plus what differs in calling it: pylance is asked to write file
    format 2.0, so that these tests cover 2.0 files (test_v2x_table.py and the interop
    suite cover 2.1 and 2.2)."""

    def __init__(self, name):
        self.name = name
        self.mod = load(name)
        self.fragment = importlib.import_module(self.mod.__name__ + ".fragment")

    def write(self, data, uri, **kwargs):
        if self.name == "pylance":
            kwargs.setdefault("data_storage_version", "2.0")
        return self.mod.write_dataset(data, uri, **kwargs)

    def write_fragments(self, data, uri, **kwargs):
        if self.name == "pylance":
            kwargs.setdefault("data_storage_version", "2.0")
        return self.fragment.write_fragments(data, uri, **kwargs)

    def __repr__(self):
        return self.name


@pytest.fixture(params=IMPLS)
def impl(request):
    return Impl(request.param)


@pytest.fixture
def both():
    return {name: Impl(name) for name in IMPLS}


@pytest.fixture
def lance_cpp():
    return _import_lance_cpp()
