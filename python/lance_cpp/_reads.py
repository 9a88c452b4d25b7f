# SPDX-License-Identifier: Apache-2.0
"""LanceDataset's reads beyond scans (a mixin of lance_cpp.dataset.LanceDataset): sampling,
pandas, slices, take by row address, statistics and the cheap read-only properties of
pylance 14's LanceDataset; plus the LanceScanner and LanceFragment methods pylance has
beyond ours.

What needs indices, vector search or features lance_cpp does not have raises
NotImplementedError naming the method (pylance's own NotImplementedError where pylance
raises one too)."""
from __future__ import annotations

import random
import warnings
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional

import pyarrow as pa

from . import _lance_cpp
from ._args import _check_blob_mode, _int_list


@dataclass
class FieldStatistics:
    """Statistics about a field in the dataset (pylance's ``lance.FieldStatistics``)."""

    id: int  #: id of the field
    bytes_on_disk: int  #: (possibly compressed) bytes on disk used to store the field


@dataclass
class DataStatistics:
    """Statistics about the data in the dataset (pylance's ``lance.DataStatistics``)."""

    fields: List[FieldStatistics]  #: one per field of the schema, in pre-order


class LanceStats:
    """``LanceDataset.stats`` (pylance's ``lance.dataset.LanceStats``)."""

    def __init__(self, dataset: Any):
        self._ds = dataset

    def dataset_stats(self, max_rows_per_group: int = 1024) -> Dict[str, int]:
        """{"num_deleted_rows", "num_fragments", "num_small_files"}: small files are
        fragments with fewer physical rows than `max_rows_per_group`."""
        return dict(_lance_cpp._dataset_stats(self._ds._native, int(max_rows_per_group)))

    def credential_stats(self) -> Optional[Dict[str, int]]:
        """The refresh counters of the dataset's storage options provider (fetches,
        failures, waits, latencies; docs/credentials.md), or None without a provider.
        lance_cpp's own (pylance has no such call)."""
        return self._ds.credential_stats()

    def index_stats(self, index_name: str) -> Dict[str, Any]:
        raise _lance_cpp.LanceNotImplementedError(
            f"stats.index_stats({index_name!r}): indices are not supported by lance_cpp")

    def data_stats(self) -> DataStatistics:
        """Bytes on disk per field (every field of the schema, nested ones included),
        computed from the data files' column metadata as Lance does."""
        return DataStatistics(fields=[FieldStatistics(id=i, bytes_on_disk=b)
                                      for i, b in _lance_cpp._data_stats(self._ds._native)])


def _refuses(reason: str):
    """Marks a method that exists for pylance's sake but always raises
    NotImplementedError; scripts/python_api_coverage.py lists it as missing, with
    `reason`."""

    def mark(fn):
        fn.__lance_cpp_unsupported__ = reason
        return fn

    return mark


def _not_supported(method: str, why: str) -> "_lance_cpp.LanceNotImplementedError":
    return _lance_cpp.LanceNotImplementedError(
        f"{method} is not supported by lance_cpp: {why}")


# pylance's to_pandas keyword arguments that belong to the scan (the rest go to
# pyarrow.Table.to_pandas).
_SCAN_ARGS = ("columns", "filter", "limit", "offset", "nearest", "batch_size",
              "batch_readahead", "fragment_readahead", "scan_in_order", "prefilter",
              "with_row_id", "with_row_address", "use_stats", "fast_search",
              "full_text_query", "io_buffer_size", "late_materialization",
              "use_scalar_index", "include_deleted_rows", "order_by",
              "disable_scoring_autoprojection")


# IndexMetadata.index_details message -> pylance's index "type" (scalar indices, whose
# details name the type alone).
_SCALAR_INDEX_TYPES = {
    "BTreeIndexDetails": "BTree",
    "BitmapIndexDetails": "Bitmap",
    "LabelListIndexDetails": "LabelList",
    "NGramIndexDetails": "NGram",
    "ZoneMapIndexDetails": "ZoneMap",
    "BloomFilterIndexDetails": "BloomFilter",
}


class _ReadMixin:
    """Methods mixed into LanceDataset; `self._native` is the native Dataset."""

    # -- reads ------------------------------------------------------------------------
    def sample(self, num_rows: int, columns: Optional[List[str]] = None,
               randomize_order: bool = True, **kwargs: Any) -> pa.Table:
        """`num_rows` distinct rows chosen at random, as pylance: the positions come from
        Python's ``random.sample`` (so ``random.seed`` makes them repeatable, and the
        same seed picks the same rows in pylance), sorted when not `randomize_order`,
        then read with ``take``."""
        total = self.count_rows()
        indices = random.sample(range(total), num_rows)
        if not randomize_order:
            indices = sorted(indices)
        return self.take(indices, columns, **kwargs)

    def slice(self, start: int, end: int, columns: Optional[List[str]] = None) -> pa.Table:
        """Rows [start, end) by position, as an offset/limit scan (pylance's ``slice``)."""
        if start < 0:
            raise ValueError(f"start must be non-negative, got {start}")
        if end < start:
            raise ValueError(f"end ({end}) must be >= start ({start})")
        return self.scanner(offset=start, limit=end - start, columns=columns).to_table()

    def to_pandas(self, columns=None, filter=None, limit=None, offset=None, nearest=None,
                  batch_size=None, batch_readahead=None, fragment_readahead=None,
                  scan_in_order=None, *, blob_mode: str = "lazy", **kwargs: Any):
        """The scan as a pandas DataFrame: scan arguments as ``to_table``, other keyword
        arguments go to ``pyarrow.Table.to_pandas`` (pylance's ``to_pandas``)."""
        _check_blob_mode(blob_mode)
        scan = {k: kwargs.pop(k) for k in list(kwargs) if k in _SCAN_ARGS}
        table = self.to_table(columns=columns, filter=filter, limit=limit, offset=offset,
                              nearest=nearest, batch_size=batch_size,
                              batch_readahead=batch_readahead,
                              fragment_readahead=fragment_readahead,
                              scan_in_order=scan_in_order, **scan)
        return table.to_pandas(**kwargs)

    def _take_rows(self, row_ids: Any, columns: Optional[List[str]] = None, *,
                   ignore_deletions: bool = False, **kwargs: Any) -> pa.Table:
        """The rows at row ids -- row addresses ((fragment id << 32) | offset) here, as
        lance_cpp has no stable row ids -- in the order given; deleted rows are left out
        (also with `ignore_deletions`, which pylance allows to do either)."""
        if isinstance(columns, dict):
            raise _not_supported("_take_rows(columns={...})",
                                 "columns as SQL expressions")
        with_row_id = bool(kwargs.pop("with_row_id", False))
        unknown = sorted(set(kwargs) - {"use_stats", "io_buffer_size", "batch_readahead",
                                        "fragment_readahead", "scan_in_order"})
        if unknown:
            raise TypeError(f"_take_rows() got an unexpected keyword argument {unknown[0]!r}")
        cols = None if columns is None else list(columns)
        addresses = _int_list(row_ids, "_take_rows", "row ids", "row id")
        if cols is None or "_rowaddr" not in cols or "_rowaddr" in self.schema.names:
            return _lance_cpp._take_rows(self._native, addresses, cols, with_row_id)
        # Row addresses are the row ids here: take "_rowid" once, name it as asked.
        request = list(dict.fromkeys("_rowid" if c == "_rowaddr" else c for c in cols))
        table = _lance_cpp._take_rows(self._native, addresses, request, with_row_id)
        picked = {n: table.column(n) for n in table.column_names}
        out = [picked["_rowid"] if c == "_rowaddr" else picked[c]
               for c in dict.fromkeys(cols)]
        names = list(dict.fromkeys(cols))
        if with_row_id and "_rowid" not in names:
            out.append(picked["_rowid"])
            names.append("_rowid")
        return pa.table(out, names=names)

    # -- statistics and read-only properties ------------------------------------------
    @property
    def stats(self) -> LanceStats:
        return LanceStats(self)

    @property
    def max_field_id(self) -> int:
        """The largest field id of the schema or of any data file (the manifest's)."""
        return _lance_cpp._max_field_id(self._native)

    @property
    def has_stable_row_ids(self) -> bool:
        # lance_cpp refuses to open datasets with stable row ids and never writes them.
        return False

    @property
    def has_index(self) -> bool:
        """Whether the manifest records indices (built by Lance; lance_cpp keeps them on
        appends and deletes but neither builds nor uses them)."""
        return len(_lance_cpp._indices(self._native)) > 0

    def describe_indices(self) -> list:
        if _lance_cpp._indices(self._native):
            raise _not_supported("describe_indices", "this dataset has indices (built "
                                 "by Lance), which lance_cpp keeps but cannot describe; "
                                 "list_indices() lists scalar ones")
        return []

    def list_indices(self) -> List[Dict[str, Any]]:
        """pylance's (deprecated) index list: {"name", "type", "uuid", "fields",
        "version", "fragment_ids", "base_id"} per index, read from the manifest.
        "fragment_ids" is a set here (a Bitmap in pylance). Vector and other indices
        whose type lance_cpp cannot name raise NotImplementedError."""
        warnings.warn(
            "The 'list_indices' method is deprecated. It may be removed in a future "
            "version. Use describe_indices() instead.", DeprecationWarning)
        out = []
        # pylance lists them by name (segments of one index in manifest order).
        for index in sorted(_lance_cpp._indices(self._native), key=lambda i: i["name"]):
            details = index["details_type_url"].rsplit(".", 1)[-1]
            kind = _SCALAR_INDEX_TYPES.get(details)
            if kind is None:
                raise _not_supported(
                    "list_indices", f"index {index['name']!r} has details {details!r}, "
                    "whose index type lance_cpp cannot name")
            fragments = index["fragment_ids"]
            out.append({"name": index["name"], "type": kind, "uuid": index["uuid"],
                        "fields": list(index["field_names"]),
                        "version": index["dataset_version"],
                        "fragment_ids": set(fragments) if fragments is not None else None,
                        "base_id": None})
        return out

    def fragment_ids(self) -> List[int]:
        """Ids of the fragments of this version, ascending (pylance returns a Bitmap;
        this list iterates, counts and tests membership alike)."""
        return sorted(f.id for f in self._native.fragments())

    def get_version(self) -> Dict[str, Any]:
        """This object's version as ``versions()`` describes it ({"version",
        "timestamp", "metadata"}), as pylance's ``get_version``."""
        for v in self.versions():
            if v["version"] == self.version:
                return v
        raise _lance_cpp.LanceNotFoundError(
            f"get_version: version {self.version} of {self.uri} is not listed")

    @property
    def initial_storage_options(self) -> Optional[Dict[str, str]]:
        return self._storage_options

    @property
    def schema_metadata(self) -> Dict[str, str]:
        metadata = self.schema.metadata or {}
        return {k.decode(): v.decode() for k, v in metadata.items()}

    @property
    def partition_expression(self):
        raise NotImplementedError("partitioning not yet supported")

    def replace_schema(self, schema: Any):
        raise NotImplementedError(
            "Cannot replace the schema of a dataset.  This method exists for backwards"
            " compatibility with pyarrow.  Use replace_schema_metadata or "
            "replace_field_metadata to change the metadata")

    def validate(self) -> None:
        """Checks the version as Lance's ``validate`` does (fragment ids unique and
        ascending, every data file holds the fragment's rows, deletion files decode,
        index UUIDs unique); raises naming what is wrong."""
        _lance_cpp._validate(self._native, None)

    def checkout_latest(self) -> None:
        """Moves this object to the latest version (pylance's ``checkout_latest``)."""
        self._native = self._native.checkout_version(self._native.latest_version())


class _ScannerReads:
    """LanceScanner methods pylance has beyond lance_cpp.dataset.LanceScanner's own;
    installed by _add_read_methods (LanceScanner is defined in dataset.py)."""

    def to_pandas(self, *, blob_mode: str = "lazy", **kwargs: Any):
        _check_blob_mode(blob_mode)
        return self.to_table().to_pandas(**kwargs)

    def head(self, num_rows: int) -> pa.Table:
        return self.to_table()[:num_rows]

    def take(self, indices: Any):
        raise NotImplementedError("take")

    @property
    def dataset_schema(self) -> pa.Schema:
        return self._ds.schema

    def scan_batches(self) -> List[pa.RecordBatch]:
        return list(self.to_reader())

    @_refuses("no query plans (no DataFusion planner)")
    def explain_plan(self, verbose: bool = False) -> str:
        raise _not_supported("LanceScanner.explain_plan", "no query plans")

    @_refuses("no query plans (no DataFusion planner)")
    def analyze_plan(self, count_rows: bool = False) -> str:
        raise _not_supported("LanceScanner.analyze_plan", "no query plans")

    @staticmethod
    def from_dataset(*args: Any, **kwargs: Any):
        raise NotImplementedError("from dataset")

    @staticmethod
    def from_fragment(*args: Any, **kwargs: Any):
        raise NotImplementedError("from fragment")

    @staticmethod
    def from_batches(*args: Any, **kwargs: Any):
        raise NotImplementedError("from batches")


def _add_missing(cls: type, source: type) -> None:
    """Gives `cls` the attributes of `source` it does not define itself."""
    for name, value in vars(source).items():
        if name.startswith("__") or hasattr(cls, name):
            continue
        setattr(cls, name, value)


def _add_read_methods(scanner_cls: type, fragment_cls: type, fragment_reads: type) -> None:
    """LanceScanner and LanceFragment live in dataset.py; the read methods they lack
    are added here (a class's own methods win, as with the LanceDataset mixin)."""
    _add_missing(scanner_cls, _ScannerReads)
    _add_missing(fragment_cls, fragment_reads)


__all__: Iterable[str] = ("DataStatistics", "FieldStatistics", "LanceStats")
