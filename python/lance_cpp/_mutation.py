# SPDX-License-Identifier: Apache-2.0
"""LanceDataset's mutation methods (a mixin of lance_cpp.dataset.LanceDataset).

``update``, ``merge_insert`` (a MergeInsertBuilder as pylance's), ``add_columns``,
``drop_columns`` and ``alter_columns``, on the native core (docs/mutations.md). Each
commits a new version and moves the dataset object to it, as in pylance.
"""
from __future__ import annotations

import os
import tempfile
from datetime import timedelta
from typing import Any, Callable, Dict, Iterable, List, Optional, Union

import pyarrow as pa

from . import _lance_cpp
from ._convert import to_reader


def _seconds(timeout: Union[timedelta, float, int]) -> float:
    if isinstance(timeout, timedelta):
        return timeout.total_seconds()
    return float(timeout)


def _where_arg(where: Any) -> Optional[str]:
    if where is None or isinstance(where, str):
        return where
    raise _lance_cpp.LanceNotImplementedError(
        f"where must be a SQL string in lance_cpp (got {type(where).__name__})")


def _is_materialized(data: Any) -> bool:
    return isinstance(data, (pa.Table, pa.RecordBatch, dict, list)) or (
        type(data).__module__.split(".")[0] in ("pandas", "polars"))


class _SpilledSource:
    """A one-shot stream copied batch by batch into a temporary Arrow IPC stream file, so a
    merge retried after a conflict can read it again without holding it in memory."""

    def __init__(self, reader: pa.RecordBatchReader):
        fd, self.path = tempfile.mkstemp(prefix="lance_cpp_merge_", suffix=".arrows")
        os.close(fd)
        with pa.OSFile(self.path, "wb") as sink, pa.ipc.new_stream(sink, reader.schema) as w:
            for batch in reader:
                w.write_batch(batch)

    def open(self) -> pa.RecordBatchReader:
        return pa.ipc.open_stream(pa.memory_map(self.path))

    def close(self) -> None:
        try:
            os.unlink(self.path)
        except OSError:
            pass


class MergeInsertBuilder:
    """pylance's ``MergeInsertBuilder``: configure with the ``when_*`` methods, then
    ``execute(data)``. Returns ``{"num_inserted_rows", "num_updated_rows",
    "num_deleted_rows"}``."""

    def __init__(self, dataset: Any, on: Union[str, Iterable[str]]):
        if isinstance(on, str):
            on = [on]
        self._dataset = dataset
        self._on = list(on)
        if not self._on:
            raise ValueError("A merge insert operation must specify at least one on key")
        self._when_matched = "do_nothing"
        self._matched_condition: Optional[str] = None
        self._insert_not_matched = False
        self._delete_by_source = False
        self._by_source_condition: Optional[str] = None
        self._conflict_retries = 10
        self._retry_timeout = 30.0

    def when_matched_update_all(self, condition: Optional[str] = None) -> "MergeInsertBuilder":
        """Replace matched target rows by the source rows (only where `condition`, over
        `source.col` / `target.col`, holds)."""
        self._when_matched = "update_all"
        self._matched_condition = condition
        return self

    def when_matched_delete(self) -> "MergeInsertBuilder":
        self._when_matched = "delete"
        return self

    def when_matched_fail(self) -> "MergeInsertBuilder":
        self._when_matched = "fail"
        return self

    def when_not_matched_insert_all(self) -> "MergeInsertBuilder":
        self._insert_not_matched = True
        return self

    def when_not_matched_by_source_delete(self, expr: Optional[str] = None
                                          ) -> "MergeInsertBuilder":
        self._delete_by_source = True
        self._by_source_condition = expr
        return self

    def conflict_retries(self, max_retries: int) -> "MergeInsertBuilder":
        self._conflict_retries = int(max_retries)
        return self

    def retry_timeout(self, timeout: timedelta) -> "MergeInsertBuilder":
        self._retry_timeout = _seconds(timeout)
        return self

    def execute(self, data_obj: Any, *, schema: Optional[pa.Schema] = None) -> Dict[str, int]:
        spilled = None
        if _is_materialized(data_obj):
            table = to_reader(data_obj, schema).read_all()

            def open_source() -> pa.RecordBatchReader:
                return table.to_reader()
        else:
            reader = to_reader(data_obj, schema)
            if self._conflict_retries > 0:
                spilled = _SpilledSource(reader)
                open_source = spilled.open
            else:
                used = []

                def open_source() -> pa.RecordBatchReader:
                    if used:
                        raise ValueError("the merge_insert source stream was already read")
                    used.append(True)
                    return reader
        try:
            stats = _lance_cpp._merge_insert(
                self._dataset._native, self._on, self._when_matched, self._matched_condition,
                self._insert_not_matched, self._delete_by_source, self._by_source_condition,
                self._conflict_retries, self._retry_timeout, open_source)
        finally:
            if spilled is not None:
                spilled.close()
        return {k: stats[k] for k in ("num_inserted_rows", "num_updated_rows",
                                      "num_deleted_rows")}


def _as_batch(obj: Any) -> Any:
    if isinstance(obj, (pa.RecordBatch, pa.Table)):
        return obj
    if type(obj).__module__.split(".")[0] == "pandas":
        return pa.RecordBatch.from_pandas(obj, preserve_index=False)
    return to_reader(obj).read_all()


def _table_to_batch(table: pa.Table) -> pa.RecordBatch:
    table = table.combine_chunks()
    batches = table.to_batches()
    if not batches:
        return pa.RecordBatch.from_pylist([], schema=table.schema)
    return batches[0]


class _ReaderColumns:
    """Adapts a stream of new column values (in dataset row order) to per-batch calls."""

    def __init__(self, reader: pa.RecordBatchReader):
        self._reader = reader
        self._pending: Optional[pa.Table] = None

    def __call__(self, rows: pa.Table) -> pa.Table:
        n = rows.num_rows
        parts = []
        have = 0
        while have < n:
            if self._pending is None or self._pending.num_rows == 0:
                try:
                    self._pending = pa.Table.from_batches([self._reader.read_next_batch()])
                except StopIteration:
                    raise ValueError("add_columns: the reader ran out of rows before the "
                                     "dataset did") from None
            take = min(n - have, self._pending.num_rows)
            parts.append(self._pending.slice(0, take))
            self._pending = self._pending.slice(take)
            have += take
        if not parts:
            return self._reader.schema.empty_table()
        return pa.concat_tables(parts)


class _MutationMixin:
    """Methods mixed into LanceDataset; `self._native` is the native Dataset."""

    def update(self, updates: Dict[str, str], where: Optional[str] = None,
               conflict_retries: int = 10, retry_timeout: timedelta = timedelta(seconds=30),
               data_storage_version: Optional[str] = None) -> Dict[str, int]:
        """``UPDATE t SET col = expr, ... WHERE where``: returns {"num_rows_updated": n}."""
        if not isinstance(updates, dict) or not updates:
            raise ValueError("update needs a non-empty dict of column -> SQL expression")
        if data_storage_version is not None:
            raise _lance_cpp.LanceNotImplementedError(
                "update(data_storage_version=...) is not supported by lance_cpp")
        return _lance_cpp._update(self._native, list(updates.items()), _where_arg(where),
                                  int(conflict_retries), _seconds(retry_timeout))

    def merge_insert(self, on: Union[str, Iterable[str]]) -> MergeInsertBuilder:
        """A merge-insert (upsert) builder on the key column(s) `on`."""
        return MergeInsertBuilder(self, on)

    def add_columns(self, transforms: Any, read_columns: Optional[List[str]] = None,
                    reader_schema: Optional[pa.Schema] = None,
                    batch_size: Optional[int] = None) -> None:
        """Adds columns: a dict of name -> SQL expression, a function of a batch of the
        existing rows returning the new columns, a reader of the new values (in row
        order), or pyarrow fields / a schema (all-null columns, metadata only)."""
        if isinstance(transforms, dict):
            _lance_cpp._add_columns_sql(self._native, list(transforms.items()), batch_size)
            return
        if isinstance(transforms, pa.Field):
            transforms = [transforms]
        if isinstance(transforms, list) and all(isinstance(f, pa.Field) for f in transforms):
            transforms = pa.schema(transforms)
        if isinstance(transforms, pa.Schema):
            _lance_cpp._add_null_columns(self._native, transforms)
            return
        if callable(transforms) and not hasattr(transforms, "__arrow_c_stream__"):
            func = getattr(transforms, "func", transforms)
            schema = getattr(transforms, "output_schema", None)
            if schema is None:
                sample = self._native.to_table(
                    _lance_cpp._ScanOptions(columns=read_columns, limit=1))
                schema = _as_batch(func(_table_to_batch(sample))).schema

            def call(rows: pa.Table) -> Any:
                return _as_batch(func(_table_to_batch(rows)))
            _lance_cpp._add_columns_fn(self._native, schema, call, read_columns, batch_size)
            return
        reader = to_reader(transforms, reader_schema)
        first = [self.schema.names[0]]
        _lance_cpp._add_columns_fn(self._native, reader.schema, _ReaderColumns(reader),
                                   first, batch_size)

    def drop_columns(self, columns: List[str]) -> None:
        """Removes columns (metadata only; the data stays in the files until compacted)."""
        if isinstance(columns, str):
            columns = [columns]
        _lance_cpp._drop_columns(self._native, list(columns))

    def alter_columns(self, *alterations: Dict[str, Any]) -> None:
        """Renames (``name``), changes nullability (``nullable``) or casts
        (``data_type``) columns given by ``path``."""
        out = []
        for a in alterations:
            if "path" not in a:
                raise ValueError("each alteration needs a 'path'")
            unknown = set(a) - {"path", "name", "nullable", "data_type"}
            if unknown:
                raise ValueError(f"unknown alteration keys: {sorted(unknown)}")
            dtype = a.get("data_type")
            out.append((a["path"], a.get("name"), a.get("nullable"),
                        pa.schema([pa.field("t", dtype)]) if dtype is not None else None))
        _lance_cpp._alter_columns(self._native, out)
