// SPDX-License-Identifier: Apache-2.0
/// \file c_data.h
/// \brief Zero-copy exchange with other Arrow implementations through the Arrow C Data
/// Interface (ArrowSchema, ArrowArray) and the C Stream Interface (ArrowArrayStream).
///
/// The three C structs are defined here exactly as the Arrow specification lays them out,
/// behind the specification's include guards (`ARROW_C_DATA_INTERFACE`,
/// `ARROW_C_STREAM_INTERFACE`), so this header coexists with any other header that
/// defines them (Arrow C++, nanoarrow, DuckDB, ...): whichever comes first wins and they
/// are identical.
///
/// ## Ownership, in one paragraph
///
/// *Export* functions fill a caller-provided struct. On success the caller owns it and
/// must eventually call its `release` callback (or hand it to a consumer that will). The
/// exported struct is self-contained: it keeps the exported lance buffers alive by
/// itself, so the lance objects it came from may be destroyed first. On error the output
/// struct is not written to and nothing leaks. *Import* functions always take ownership
/// of their input structs, whether they succeed or fail: on return the input's `release`
/// is NULL (marked released, so it cannot be imported or released twice). Imported arrays
/// are zero-copy: their lance Buffers point into the producer's memory and share one
/// guard per imported ArrowArray tree, which calls the producer's `release` exactly once,
/// when the last imported buffer (or array) is destroyed; on a failed import it is called
/// before the function returns.
///
/// ## Supported types
///
/// Every lance type (type.h) with its Arrow format string: `n` null, `b` bool, `c`/`C`
/// int8/uint8, `s`/`S` int16/uint16, `i`/`I` int32/uint32, `l`/`L` int64/uint64,
/// `e`/`f`/`g` float16/32/64, `d:P,S` decimal128 and `d:P,S,256` decimal256, `u`/`U`
/// utf8/large_utf8, `z`/`Z` binary/large_binary, `w:N` fixed_size_binary, `tdD`/`tdm`
/// date32/date64, `tts`/`ttm` time32, `ttu`/`ttn` time64, `tDs`/`tDm`/`tDu`/`tDn`
/// durations, `tss:`/`tsm:`/`tsu:`/`tsn:` + optional timezone for timestamps, `+l`, `+L`,
/// `+w:N` for list, large_list and fixed_size_list, `+s` for struct and `+m` for map
/// (ARROW_FLAG_MAP_KEYS_SORTED = keys_sorted; its single child is the entries struct).
///
/// Dictionary types are exported as the spec lays them out: the format and buffers of
/// the indices, the value type / values in the `dictionary` member, and
/// ARROW_FLAG_DICTIONARY_ORDERED for ordered dictionaries; import accepts any integer
/// index format. A null array has no buffers (n_buffers 0) and null_count = length.
///
/// Other Arrow formats (decimal32/64, intervals, unions, views, run-end-encoded) are
/// rejected with NotImplemented naming the format.

#pragma once

#include <cstdint>
#include <memory>

#include "lance/core/array.h"
#include "lance/core/record_batch.h"
#include "lance/core/type.h"
#include "lance/result.h"
#include "lance/status.h"

// ------------------------------------------------------------------------------------
// The C structs, as laid out by the Arrow C Data Interface and C Stream Interface specs.
// ------------------------------------------------------------------------------------

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  // Array type description
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;

  // Release callback
  void (*release)(struct ArrowSchema*);
  // Opaque producer-specific data
  void* private_data;
};

struct ArrowArray {
  // Array data description
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;

  // Release callback
  void (*release)(struct ArrowArray*);
  // Opaque producer-specific data
  void* private_data;
};

#endif  // ARROW_C_DATA_INTERFACE

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
  // Callbacks providing stream functionality
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
  const char* (*get_last_error)(struct ArrowArrayStream*);

  // Release callback
  void (*release)(struct ArrowArrayStream*);

  // Opaque producer-specific data
  void* private_data;
};

#endif  // ARROW_C_STREAM_INTERFACE

#ifdef __cplusplus
}  // extern "C"
#endif

namespace lance {

// ------------------------------------------------------------------------------------
// Export: lance -> C structs
// ------------------------------------------------------------------------------------

/// \brief Describes `type` as an ArrowSchema (name "", flags ARROW_FLAG_NULLABLE, no
/// metadata). Child fields of nested types keep their names, nullability and metadata.
///
/// On success `*out` is owned by the caller, who must call `out->release`. On error
/// `*out` is not written to.
Status ExportType(const DataType& type, ArrowSchema* out);

/// \brief Describes `field` as an ArrowSchema: name, type, ARROW_FLAG_NULLABLE when
/// nullable, and the field metadata in the spec's binary encoding (NULL when empty).
///
/// Ownership as for ExportType().
Status ExportField(const Field& field, ArrowSchema* out);

/// \brief Describes `schema` as a struct ArrowSchema (format "+s", name "", flags 0) with
/// one child per field; schema-level metadata goes into the root's `metadata`.
///
/// Ownership as for ExportType().
Status ExportSchema(const Schema& schema, ArrowSchema* out);

/// \brief Exports `array` without copying its data: `buffers[]` point straight into the
/// array's lance Buffers (NULL for an absent validity bitmap); offset, length and the
/// (computed) null count are passed through; children are exported recursively.
///
/// The exported ArrowArray holds shared references to the array's data, so `array` may
/// be destroyed before the consumer releases it. Releasing it releases every child that
/// has not been moved out (a consumer may move a child out by copying the child struct
/// and setting the original's `release` to NULL; the moved child is then released on its
/// own).
///
/// If `out_schema` is not null it receives ExportType(*array.type()).
///
/// On success the caller owns `*out` (and `*out_schema`) and must release them. On error
/// (e.g. an ArrayData whose buffers do not match its type) neither is written to.
Status ExportArray(const Array& array, ArrowArray* out,
                   ArrowSchema* out_schema = nullptr);

/// \brief Exports `batch` as a struct ArrowArray with no validity bitmap and null_count
/// 0, one child per column, zero-copy as ExportArray(). If `out_schema` is not null it
/// receives ExportSchema(*batch.schema()).
///
/// Ownership as for ExportArray().
Status ExportRecordBatch(const RecordBatch& batch, ArrowArray* out,
                         ArrowSchema* out_schema = nullptr);

// ------------------------------------------------------------------------------------
// Import: C structs -> lance. Every import function takes ownership of its inputs.
// ------------------------------------------------------------------------------------

/// \brief The type described by `schema`; the root's name, flags and metadata are
/// ignored (nested child fields keep theirs).
///
/// Takes ownership: `schema` is released (its `release` called and set to NULL) before
/// returning, on success and on error alike, since everything needed is copied out.
/// \return Invalid if `schema` is null, already released or malformed (e.g. a truncated
/// "w:", wrong child count, a decimal precision out of range, non-integer dictionary
/// indices, a map whose entries are not a non-nullable struct<key not null, value>);
/// NotImplemented naming the format string for an Arrow type lance does not have. Errors
/// in nested children say which child: "When importing ArrowSchema child 2 ('x'): ...".
Result<DataTypePtr> ImportType(ArrowSchema* schema);

/// \brief The field described by `schema`: name (NULL means ""), type, nullability from
/// ARROW_FLAG_NULLABLE and metadata. Ownership and errors as for ImportType().
Result<FieldPtr> ImportField(ArrowSchema* schema);

/// \brief The schema described by a struct ("+s") `schema`: one field per child, and
/// schema-level metadata from the root. Ownership and errors as for ImportType(); a
/// non-struct root is Invalid.
Result<SchemaPtr> ImportSchema(ArrowSchema* schema);

/// \brief Imports `array`, whose layout is described by `type`, without copying.
///
/// Takes ownership: the struct is moved into a shared guard and `array->release` is set
/// to NULL. The returned Array's buffers point into the producer's memory and keep the
/// guard alive; the producer's release callback runs exactly once, when the last of them
/// is destroyed. On error it runs before this function returns.
///
/// The C interface does not carry buffer sizes; they are derived from the type, offset
/// and length (offsets buffers: offset + length + 1 entries; binary data: the last
/// offset). \return Invalid if `array` is null or already released, `type` is null, or
/// the struct does not match the type (n_buffers, n_children, missing buffers for a
/// non-empty array, negative lengths, offsets out of range, short children, a missing
/// `dictionary` for a dictionary type or one for another type). Like offsets between the
/// first and the last, dictionary indices are not range-checked; call Array::Validate()
/// on data from an untrusted producer.
Result<ArrayPtr> ImportArray(ArrowArray* array, DataTypePtr type);

/// \brief Imports `array` described by `schema` (see ImportType()). Takes ownership of
/// both: `schema` is released before returning, `array` as for the overload above (also
/// when the schema cannot be imported).
Result<ArrayPtr> ImportArray(ArrowArray* array, ArrowSchema* schema);

/// \brief Imports a struct ArrowArray as a record batch with `schema` (one column per
/// field; the struct's offset is applied to the columns). Ownership as for ImportArray().
/// \return Invalid if the struct has nulls at the top level (null_count > 0) or does not
/// match the schema.
Result<RecordBatchPtr> ImportRecordBatch(ArrowArray* array, SchemaPtr schema);

/// \brief As above with the schema imported from a struct ArrowSchema. Takes ownership of
/// both structs, on success and on error.
Result<RecordBatchPtr> ImportRecordBatch(ArrowArray* array, ArrowSchema* schema);

// ------------------------------------------------------------------------------------
// C Stream Interface
// ------------------------------------------------------------------------------------

/// \brief Exposes `reader` as an ArrowArrayStream.
///
/// `get_schema` exports reader->schema(); `get_next` exports the next batch as by
/// ExportRecordBatch(), and at the end of the stream returns 0 with `out->release` set to
/// NULL (and keeps doing so). A failing reader makes the callback return an errno value
/// (EINVAL for Invalid, ENOSYS for NotImplemented, ENOMEM, ECANCELED, EIO otherwise) and
/// `get_last_error` returns the Status text, valid until the next callback call or the
/// release. Errors are sticky: once Next() failed, later get_next calls fail the same
/// way. Batches handed out are independent of the stream and may outlive it.
///
/// On success the caller owns `*out` and must call `out->release`, which drops the
/// stream's reference to `reader`. On error (`reader` or `out` null) `*out` is not
/// written to. The stream, like the reader, is for one consumer thread at a time.
Status ExportRecordBatchReader(std::shared_ptr<RecordBatchReader> reader,
                               ArrowArrayStream* out);

/// \brief Wraps an ArrowArrayStream as a RecordBatchReader.
///
/// Takes ownership: the stream is moved into the reader and `stream->release` set to
/// NULL; the reader calls the producer's release when destroyed. The schema is fetched
/// (get_schema) here. On error the stream is released before returning.
///
/// The reader's Next() returns nullptr at the end of the stream; a non-zero get_next
/// becomes IOError carrying the errno and the get_last_error text, and stays the answer
/// for later calls. Imported batches are zero-copy and may outlive the reader.
/// \return Invalid if `stream` is null or already released; IOError if get_schema fails;
/// the ImportSchema() error if the schema cannot be imported.
Result<std::unique_ptr<RecordBatchReader>> ImportRecordBatchReader(
    ArrowArrayStream* stream);

}  // namespace lance
