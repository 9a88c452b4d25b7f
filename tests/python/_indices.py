# SPDX-License-Identifier: Apache-2.0
"""Index listings of lance_cpp against pylance's, for tests/python and tests/interop (whose
conftest loads this file by path)."""

import warnings


def assert_same_indices(cpp, pl):
    """Both handles see indices and list the same ones; pylance gives each index's
    fragment_ids as a list, lance_cpp as a set. Returns lance_cpp's listing."""
    assert cpp.has_index is pl.has_index is True
    with warnings.catch_warnings():
        # pylance deprecates list_indices (describe_indices); lance_cpp mirrors it.
        warnings.simplefilter("ignore", DeprecationWarning)
        expected = pl.list_indices()
        got = cpp.list_indices()
    for index in expected:
        index["fragment_ids"] = set(index["fragment_ids"])
    assert got == expected
    return got
