# SPDX-License-Identifier: Apache-2.0
"""The argument handling that lance_cpp.dataset and lance_cpp.fragment share: pylance's
keyword checks, storage versions, locations and the namespace-backed storage options
provider (one place, so that fragment.py need not reach into dataset.py's privates)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Tuple

import pyarrow as pa

from . import _lance_cpp
from ._convert import conform_to


def _storage_version(requested: Optional[str], use_legacy_format: Optional[bool] = None) -> str:
    """The data_storage_version to write; the C++ core validates it (2.0, 2.1, 2.2,
    stable; legacy and next are refused with a clear error)."""
    if use_legacy_format:
        raise _lance_cpp.LanceNotImplementedError(
            "use_legacy_format=True (file format 0.1) is not supported by lance_cpp: it reads "
            "legacy files but writes 2.0, 2.1 or 2.2"
        )
    if requested is None:
        return "2.2"
    return str(requested).lower()


# pylance's defaults of options that are not None/False by default.
_PYLANCE_DEFAULTS = {"external_blob_mode": "reference", "detached": False}


def _check_kwargs(where: str, kwargs: Dict[str, Any], known: Iterable[str]) -> None:
    """TypeError for a keyword argument pylance does not have either (a typo)."""
    unknown = sorted(set(kwargs) - set(known))
    if unknown:
        raise TypeError(f"{where}() got an unexpected keyword argument {unknown[0]!r}")


def _reject_unsupported(where: str, **given: Any) -> None:
    """NotImplementedError naming the first pylance option set to a non-default value."""
    for name, value in given.items():
        if value is None or value is False or _PYLANCE_DEFAULTS.get(name, object()) == value:
            continue
        raise _lance_cpp.LanceNotImplementedError(
            f"{where}: the argument {name}={value!r} is not supported by lance_cpp")


def _uri_of(uri: Any) -> Optional[str]:
    if uri is None:
        return None
    from .dataset import LanceDataset  # a dataset names its own location

    if isinstance(uri, LanceDataset):
        return uri.uri
    if isinstance(uri, Path):
        return str(uri)
    if isinstance(uri, os.PathLike):
        return os.fspath(uri)
    if isinstance(uri, str):
        return uri
    raise TypeError(f"uri must be a str or Path, got {type(uri).__name__}")


def _check_blob_mode(blob_mode: str) -> None:
    """pylance's to_pandas blob_mode values (lance_cpp reads blobs as bytes whatever)."""
    if blob_mode not in ("lazy", "bytes", "descriptions"):
        raise ValueError(f"blob_mode must be 'lazy', 'bytes' or 'descriptions', "
                         f"got {blob_mode!r}")


def _int_list(values: Any, where: str, what: str, each: Optional[str] = None) -> List[int]:
    """Integers as pylance takes them (a list, a pyarrow or numpy array of ints); `what`
    names them in errors. With `each` (the name of one), each must be a uint64 too."""
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        if values.null_count:
            raise ValueError(f"{where}: {what} must not contain nulls")
        values = values.to_pylist()
    elif hasattr(values, "tolist") and not isinstance(values, (list, tuple)):
        values = values.tolist()
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"{where}: {what} must be integers, got {type(v).__name__}")
        if each is not None and (v < 0 or v >= 1 << 64):
            raise OverflowError(f"{where}: {each} {v} is not a uint64")
        out.append(v)
    return out


def _storage_of(target: Any, storage_options: Optional[Dict[str, str]],
                provider: Any) -> Tuple[Optional[Dict[str, str]], Any]:
    """The storage options and provider to write `target` with: a dataset as the target
    (e.g. opened through a namespace) lends its own where none are given."""
    from .dataset import LanceDataset

    if isinstance(target, LanceDataset):
        if storage_options is None:
            storage_options = target._storage_options
        if provider is None:
            provider = target._storage_options_provider
    return storage_options, provider


def _namespace_provider(where: str, ns: Any, table_id: Any, provider: Any) -> Any:
    """pylance's (namespace_client, table_id) next to a location: the table's storage
    options are refreshed from the namespace (describe_table) when they expire; the
    storage_options given seed them, so nothing is fetched up front."""
    if ns is None:
        if table_id is not None:
            raise ValueError(f"{where}: table_id needs namespace_client")
        return provider
    if not table_id:
        raise ValueError(f"{where}: table_id is required with namespace_client")
    if provider is not None:
        return provider
    from .namespace import LanceNamespaceStorageOptionsProvider

    return LanceNamespaceStorageOptionsProvider(ns, list(table_id))


def _conform_to_existing(reader, uri, storage_options, provider):
    """Appending: cast layout-only type differences (pandas' large_string vs a dataset's
    string) to the dataset's schema, as pylance does; a missing dataset is created."""
    try:
        existing = _lance_cpp._open_dataset(uri, None, storage_options, provider, None, None)
    except _lance_cpp.LanceNotFoundError:
        return reader
    return conform_to(reader, existing.schema)
