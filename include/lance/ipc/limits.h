// SPDX-License-Identifier: Apache-2.0
/// \file limits.h
/// \brief Caps on what an Arrow IPC stream may ask of a reader, checked from its
/// metadata alone, before anything is decompressed or built.
///
/// An IPC stream is small on the wire but may declare much more: a ZSTD body buffer's
/// 8-byte prefix may claim up to 65536 times its compressed size, a record batch may
/// declare 2^62 rows of a type that has no buffers, and a schema may nest thousands of
/// fields. A service decoding untrusted request bodies calls CheckIpcStreamLimits()
/// first (or reads with ReadIpcStream(bytes, limits), which does it), and answers a
/// refusal without having decoded anything:
///
/// \code
///   Status st = ipc::CheckIpcStreamLimits(body, limits);
///   if (const auto* cap = st.detail_as<ipc::IpcLimitDetail>()) {
///     return cap->is_size_limit() ? Reply(413, st.message()) : Reply(400, st.message());
///   }
///   if (!st.ok()) return Reply(400, st.message());  // Corrupt / NotImplemented
/// \endcode
///
/// The walk reads the stream's framing and verifies each message's flatbuffer exactly as
/// IpcStreamReader does; its cost is proportional to the metadata (never to the sizes
/// the metadata declares), and it allocates nothing proportional to a declared size.

#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "lance/result.h"
#include "lance/status.h"

namespace lance::ipc {

/// \brief Caps on an Arrow IPC stream, each compared with what the stream declares.
///
/// Every count saturates at INT64_MAX, so that lengths chosen to overflow still exceed
/// a cap. A cap of 0 refuses any stream that declares anything of that kind; a negative
/// cap is an invalid argument.
struct IpcLimits {
  /// \brief Bytes the reader would produce: the sum over every body buffer of every
  /// record and dictionary batch of its decoded length (uncompressed batches: the
  /// buffer's length; compressed: the length its 8-byte little-endian prefix declares,
  /// or the stored length after the prefix when the prefix is -1, "not compressed").
  /// A delta dictionary batch also counts the dictionary it extends, which the reader
  /// copies to append to it. 1 GiB by default.
  int64_t max_decoded_bytes = int64_t{1} << 30;
  /// \brief The sum of the lengths of all record batches. 64 Mi rows by default.
  int64_t max_rows = int64_t{1} << 26;
  /// \brief The length of any one array (any field node of a record or dictionary
  /// batch: a column, a nested child, a dictionary's values). Meant for arrays whose
  /// values take no bytes (null type, structs without children, zero-width fixed-size
  /// lists and binaries), which max_decoded_bytes does not bound but which cost work per
  /// value downstream. 4 Gi values by default: more than 1 GiB holds of any type with a
  /// byte or more per value.
  int64_t max_array_length = int64_t{1} << 32;
  /// \brief Fields of the schema counted at every nesting level (a struct with three
  /// children counts 4). 10000 by default.
  int64_t max_columns = 10000;
  /// \brief Depth of the schema's field tree (a top-level primitive field is 1, a list
  /// of int32 2). 64 by default. (The reader itself refuses types nested deeper than
  /// about 50 levels, and the flatbuffers verifier messages nested deeper than 64
  /// tables, as Corrupt.)
  int max_nesting_depth = 64;

  /// \brief The defaults above.
  static IpcLimits Defaults() { return {}; }
  /// \brief No cap at all (every field at its type's maximum): only framing is checked.
  static IpcLimits Unlimited();
};

/// \brief What an Arrow IPC stream declares, as IpcLimits counts it.
struct IpcStreamStats {
  /// \brief See IpcLimits::max_decoded_bytes (saturating).
  int64_t decoded_bytes = 0;
  /// \brief See IpcLimits::max_rows (saturating).
  int64_t rows = 0;
  /// \brief The longest field node of any batch (see IpcLimits::max_array_length).
  int64_t max_array_length = 0;
  /// \brief See IpcLimits::max_columns.
  int64_t columns = 0;
  /// \brief See IpcLimits::max_nesting_depth (0 for a schema without fields).
  int64_t nesting_depth = 0;
  /// \brief Record batch messages before the end of the stream.
  int64_t record_batches = 0;
  /// \brief Dictionary batch messages before the end of the stream.
  int64_t dictionary_batches = 0;
};

/// \brief A cap of IpcLimits that a stream exceeds: the typed detail of the Invalid
/// Status CheckIpcStreamLimits() returns, so that callers decide on fields, never on
/// the message.
class IpcLimitDetail final : public StatusDetail {
 public:
  /// \brief Which cap.
  enum class Kind {
    kDecodedBytes,  ///< IpcLimits::max_decoded_bytes
    kRows,          ///< IpcLimits::max_rows
    kArrayLength,   ///< IpcLimits::max_array_length
    kColumns,       ///< IpcLimits::max_columns
    kNestingDepth,  ///< IpcLimits::max_nesting_depth
  };

  /// \brief `limit`: the cap; `declared`: what the stream declares (over the cap).
  IpcLimitDetail(Kind kind, int64_t limit, int64_t declared)
      : kind_(kind), limit_(limit), declared_(declared) {}

  static constexpr std::string_view kTypeId = "lance::ipc::IpcLimitDetail";

  Kind kind() const { return kind_; }
  int64_t limit() const { return limit_; }
  int64_t declared() const { return declared_; }
  /// \brief True for the caps on the amount of data (decoded bytes, rows, array
  /// length: HTTP 413 Payload Too Large), false for those on the schema's shape
  /// (columns, nesting depth: HTTP 400).
  bool is_size_limit() const {
    return kind_ == Kind::kDecodedBytes || kind_ == Kind::kRows ||
           kind_ == Kind::kArrayLength;
  }

  std::string_view type_id() const override { return kTypeId; }
  /// \brief "max_rows: 1000 declared, limit 100".
  std::string ToString() const override;

 private:
  Kind kind_;
  int64_t limit_;
  int64_t declared_;
};

/// \brief The name of the IpcLimits field a kind stands for, e.g. "max_rows".
std::string_view IpcLimitKindName(IpcLimitDetail::Kind kind);

/// \brief Walks the messages of the Arrow IPC stream `stream_bytes` (the schema, then
/// dictionary and record batches up to the end-of-stream marker, a zero length or the
/// end of the bytes; continuation-marker and pre-0.15 framing) without decompressing
/// anything or building arrays, and adds up what they declare.
/// \return Corrupt if the framing, a flatbuffer, a buffer range, a compressed buffer's
/// prefix (shorter than 8 bytes, or negative other than -1) or a length is malformed, or
/// a dictionary batch has an id no field uses; NotImplemented for what the reader does
/// not support either (metadata before V4, an unknown compression codec or method).
Result<IpcStreamStats> MeasureIpcStream(std::string_view stream_bytes);

/// \brief MeasureIpcStream(), then every cap of `limits` checked against the result.
///
/// A stream that passes decodes (ReadIpcStream, IpcStreamReader) into buffers of about
/// `limits.max_decoded_bytes` at most (the decoded body buffers and the copies that
/// extend dictionaries; a validity bitmap the reader adds when concatenating may come
/// on top), plus allocations proportional to its metadata.
/// \return OK when every cap holds; Invalid carrying an IpcLimitDetail for the first cap
/// exceeded, in the order nesting depth, columns, array length, rows, decoded bytes,
/// whose message names the cap, the limit and what the stream declares ("the Arrow IPC
/// stream declares 17179869184 decoded bytes, over the limit of 1073741824
/// (max_decoded_bytes)"); Invalid without a detail for a negative cap; otherwise the
/// errors of MeasureIpcStream().
Status CheckIpcStreamLimits(std::string_view stream_bytes, const IpcLimits& limits);

/// \brief The caps of `limits` checked against `stats` (see CheckIpcStreamLimits()).
Status CheckIpcStreamLimits(const IpcStreamStats& stats, const IpcLimits& limits);

}  // namespace lance::ipc
