# SPDX-License-Identifier: Apache-2.0
"""Turning the data pylance accepts into a pyarrow stream the native core imports.

Accepted, as pylance accepts them: pyarrow Table / RecordBatch / RecordBatchReader /
Dataset-like objects, a list of RecordBatches, pandas DataFrames, dicts of lists, lists
of dicts, and anything implementing the Arrow PyCapsule protocol (``__arrow_c_stream__``
or ``__arrow_c_array__``: polars, duckdb results, nanoarrow, ...). Types the native core
has no layout for (string/binary views, which polars exports) are cast to their plain
large equivalents on the way.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import pyarrow as pa

__all__ = ["conform_to", "to_reader", "to_schema"]


def _rebuilt(t: pa.DataType, value: Callable[[pa.Field], Any],
             field: Callable[[pa.Field], pa.Field],
             large_list: Callable[[Any], pa.DataType]) -> Optional[pa.DataType]:
    """A struct, fixed-size list, list (or list view) or large list (or view) `t` rebuilt
    from field(each struct field) and value(a list's value field; the result is its item:
    a field or a type), large lists by `large_list`; None for any other type."""
    if pa.types.is_struct(t):
        return pa.struct([field(t.field(i)) for i in range(t.num_fields)])
    if pa.types.is_fixed_size_list(t):
        return pa.list_(value(t.value_field), t.list_size)
    if pa.types.is_list(t) or pa.types.is_list_view(t):
        return pa.list_(value(t.value_field))
    if pa.types.is_large_list(t) or pa.types.is_large_list_view(t):
        return large_list(value(t.value_field))
    return None


def _plain_type(t: pa.DataType) -> pa.DataType:
    """`t` with view types replaced by the equivalent the core stores."""
    if t == pa.string_view():
        return pa.large_string()
    if t == pa.binary_view():
        return pa.large_binary()
    nested = _rebuilt(t, _plain_field, _plain_field, pa.large_list)
    if nested is not None:
        return nested
    if pa.types.is_map(t):
        return pa.map_(_plain_field(t.key_field), _plain_field(t.item_field),
                       keys_sorted=t.keys_sorted)
    if pa.types.is_dictionary(t):
        return pa.dictionary(t.index_type, _plain_type(t.value_type), t.ordered)
    return t


def _plain_field(f: pa.Field) -> pa.Field:
    return f.with_type(_plain_type(f.type))


def _plain_schema(schema: pa.Schema) -> pa.Schema:
    return pa.schema([_plain_field(f) for f in schema], metadata=schema.metadata)


def to_schema(schema: Any) -> Optional[pa.Schema]:
    """A pyarrow.Schema from a pyarrow.Schema or any ``__arrow_c_schema__`` object."""
    if schema is None or isinstance(schema, pa.Schema):
        return schema
    if hasattr(schema, "__arrow_c_schema__"):
        return pa.schema(schema)
    raise TypeError(f"schema must be a pyarrow.Schema, got {type(schema).__name__}")


def _cast_reader(reader: pa.RecordBatchReader, schema: pa.Schema) -> pa.RecordBatchReader:
    if reader.schema.equals(schema, check_metadata=True):
        return reader
    return reader.cast(schema)


def to_reader(data: Any, schema: Any = None) -> pa.RecordBatchReader:
    """A pyarrow.RecordBatchReader over `data`, cast to `schema` when one is given.

    Raises TypeError for data of an unknown kind (as pylance does).
    """
    schema = to_schema(schema)
    reader = _to_reader(data, schema)
    target = _plain_schema(schema if schema is not None else reader.schema)
    return _cast_reader(reader, target)


def _to_reader(data: Any, schema: Optional[pa.Schema]) -> pa.RecordBatchReader:
    # Our own dataset (or pylance's): stream its rows.
    if hasattr(data, "scanner") and hasattr(data, "to_batches") and hasattr(data, "schema"):
        try:
            return data.scanner().to_reader()
        except AttributeError:
            pass
    if isinstance(data, pa.Table):
        return data.to_reader()
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data]).to_reader()
    if isinstance(data, pa.RecordBatchReader):
        return data
    if _is_pandas(data):
        table = pa.Table.from_pandas(data, schema=schema, preserve_index=False)
        return table.to_reader()
    if isinstance(data, dict):
        return pa.Table.from_pydict(data, schema=schema).to_reader()
    if isinstance(data, (list, tuple)):
        if data and all(isinstance(b, pa.RecordBatch) for b in data):
            return pa.Table.from_batches(list(data), schema=schema).to_reader()
        if all(isinstance(row, dict) for row in data):
            if not data and schema is None:
                raise ValueError("an empty list of rows needs a schema")
            return pa.Table.from_pylist(list(data), schema=schema).to_reader()
    if hasattr(data, "__arrow_c_stream__"):
        return pa.RecordBatchReader.from_stream(data)
    if hasattr(data, "__arrow_c_array__"):
        batch = pa.record_batch(data)
        return pa.Table.from_batches([batch]).to_reader()
    raise TypeError(
        f"Unknown data type {type(data)}: expected a pyarrow Table, RecordBatch or "
        "RecordBatchReader, a pandas DataFrame, a dict of lists, a list of dicts, or an "
        "object with __arrow_c_stream__ / __arrow_c_array__"
    )


def _is_pandas(data: Any) -> bool:
    module = type(data).__module__
    if not module.startswith("pandas"):
        return False
    import pandas as pd

    return isinstance(data, pd.DataFrame)


def _offset_free(t: pa.DataType) -> pa.DataType:
    """`t` with every string/binary/list width and view variant mapped to one type, so
    that two types equal here differ only in layout (and cast losslessly)."""
    t = _plain_type(t)
    if t == pa.large_string():
        return pa.string()
    if t == pa.large_binary():
        return pa.binary()
    # A list's item by its type alone (its field's name and nullability do not count).
    nested = _rebuilt(t, lambda item: _offset_free(item.type),
                      lambda f: f.with_type(_offset_free(f.type)), pa.list_)
    return t if nested is None else nested


def conform_to(reader: pa.RecordBatchReader, target: pa.Schema) -> pa.RecordBatchReader:
    """`reader` with the columns whose type differs from `target`'s column of the same
    name only in layout (string vs large_string, list vs large_list, views) cast to the
    target's type -- what appending pandas (large_string) to a dataset of strings needs.
    Other differences are left for the core to report."""
    fields = []
    changed = False
    for f in reader.schema:
        idx = target.get_field_index(f.name)
        if idx >= 0:
            want = target.field(idx).type
            if want != f.type and _offset_free(want) == _offset_free(f.type):
                f = f.with_type(want)
                changed = True
        fields.append(f)
    if not changed:
        return reader
    return reader.cast(pa.schema(fields, metadata=reader.schema.metadata))
