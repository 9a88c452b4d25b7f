// SPDX-License-Identifier: Apache-2.0
// Internals shared by the Arrow IPC reader and writer: format constants, schema <->
// flatbuffers conversion, message framing and record batch decoding.

#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <vector>

#include "ipc/arrow_format_generated.h"
#include "lance/core/buffer.h"
#include "lance/core/byte_order.h"
#include "lance/core/record_batch.h"
#include "lance/core/type.h"
#include "lance/result.h"

namespace lance::ipc::internal {

namespace fb = ::lance::ipc::fb;

/// \brief First word of every framed message since Arrow 0.15.
inline constexpr uint32_t kContinuationMarker = 0xFFFFFFFFu;
/// \brief Alignment of messages and of every buffer inside a message body.
inline constexpr int64_t kIpcAlignment = 8;
/// \brief "ARROW1", at both ends of an IPC file (the leading copy padded to 8 bytes).
inline constexpr char kArrowMagic[] = {'A', 'R', 'R', 'O', 'W', '1'};
inline constexpr int64_t kArrowMagicSize = 6;
/// \brief Deepest type nesting accepted when decoding (the flatbuffers verifier limits
/// table depth too; this gives a clearer message).
inline constexpr int kMaxNestingDepth = 48;

/// \brief `n` rounded up to a multiple of kIpcAlignment.
inline int64_t PaddedLength(int64_t n) {
  return (n + kIpcAlignment - 1) & ~(kIpcAlignment - 1);
}

// ---- Schema ---------------------------------------------------------------------------

/// \brief The dictionary-encoded fields of a schema.
///
/// Fields are numbered ("dictionary ordinals") in depth-first pre-order over the whole
/// type tree, descending into the value types of dictionaries, so that the fields of a
/// record batch and of a dictionary's values can be matched to their ids by position.
struct DictionaryLayout {
  /// \brief The dictionary id of each ordinal.
  std::vector<int64_t> ids;
  struct Entry {
    DataTypePtr value_type;
    /// \brief Ordinal of the first field using the id (its values' own dictionary fields
    /// follow it).
    int64_t ordinal = 0;
  };
  std::map<int64_t, Entry> by_id;
};

/// \brief The current dictionary (values) of each id.
using DictionaryMemo = std::map<int64_t, ArrayDataPtr>;

/// \brief Number of dictionary ordinals in the subtree of a field of `type` (itself
/// included).
int64_t CountDictionaryFields(const DataType& type);

/// \brief Serializes `schema` (fields, nested children, field and schema metadata).
/// Dictionary-encoded fields get their ordinal as id.
/// \return NotImplemented for a dictionary whose values are themselves a dictionary
/// (IPC cannot describe it).
Result<flatbuffers::Offset<fb::Schema>> SchemaToFlatbuffer(
    flatbuffers::FlatBufferBuilder* fbb, const Schema& schema);

struct DecodedSchema {
  SchemaPtr schema;
  DictionaryLayout dictionaries;
};

/// \brief Decodes a verified Schema table.
/// \return Corrupt for malformed types (or one dictionary id used with two value
/// types), NotImplemented for types lance does not have or big-endian data.
Result<DecodedSchema> SchemaFromFlatbuffer(const fb::Schema* schema);

// ---- Messages -------------------------------------------------------------------------

/// \brief `buffer`, or an aligned copy when its address is not 8-byte aligned, so that
/// typed loads (flatbuffers scalars, array values) are aligned.
Result<BufferPtr> EnsureAligned(BufferPtr buffer);

/// \brief One framed message located in a byte buffer.
struct MessageView {
  /// \brief The flatbuffer bytes (possibly an aligned copy); owns what `message` points
  /// to.
  BufferPtr metadata;
  const fb::Message* message = nullptr;
  /// \brief Zero-copy slice holding the message body.
  BufferPtr body;
  /// \brief Offset just past the message (past the marker for end-of-stream).
  int64_t end_offset = 0;
  /// \brief True for the end-of-stream marker; `message` is null then.
  bool end_of_stream = false;
};

/// \brief Decodes the message framed at `offset`, reading nothing at or past `limit`.
///
/// Accepts the continuation-marker framing and the pre-0.15 one (bare int32 length).
/// \return Corrupt if the framing, the flatbuffer or the body length is malformed;
/// NotImplemented for metadata versions older than V4.
Result<MessageView> ReadMessageAt(const BufferPtr& bytes, int64_t offset, int64_t limit);

/// \brief Verifies `*footer` (made aligned in place) as a Footer flatbuffer.
Result<const fb::Footer*> VerifyFooter(BufferPtr* footer);

/// \brief "Schema", "RecordBatch", ... for messages about unexpected headers.
const char* MessageHeaderName(fb::MessageHeader header);

/// \brief Decodes the record batch `message` (header RecordBatch) with its `body`;
/// dictionary-encoded columns get their dictionary from `memo`.
/// \return Corrupt if nodes, buffers or compressed data do not fit `schema`, a
/// dictionary was never sent or an index lies outside its dictionary.
Result<RecordBatchPtr> RecordBatchFromMessage(const fb::Message& message,
                                              const DecodedSchema& schema,
                                              const DictionaryMemo& memo,
                                              const BufferPtr& body);

/// \brief Applies the DictionaryBatch `message` to `memo`: the values replace the id's
/// dictionary, or are appended to it when the batch is a delta.
/// \return Corrupt for an unknown id or values that do not decode.
Status ReadDictionaryBatch(const fb::Message& message, const DecodedSchema& schema,
                           const BufferPtr& body, DictionaryMemo* memo);

}  // namespace lance::ipc::internal
