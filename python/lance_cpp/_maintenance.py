# SPDX-License-Identifier: Apache-2.0
"""LanceDataset's maintenance methods (a mixin of lance_cpp.dataset.LanceDataset)."""
from __future__ import annotations


class _MaintenanceMixin:
    """Methods mixed into LanceDataset; `self._native` is the native Dataset."""
