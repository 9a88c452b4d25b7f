// SPDX-License-Identifier: Apache-2.0
// Internal: the parsed metadata of one legacy (v0.1 / v0.2) Lance file and the decoder
// of its pages. Layout (all little endian):
//
//   [pages: plain values / var-binary bytes + positions / list offsets, per batch]
//   [page table: (max_id - min_id + 1) fields x B batches x (i64 position, i64 length)]
//   [statistics pages + their page table (ignored)]
//   [dictionary values] [embedded manifest: u32 length + lance.table.Manifest]
//   [metadata: u32 length + lance.file.Metadata]
//   [footer: i64 metadata position, u16 major (0), u16 minor (1 or 2), "LANC"]
//
// min_id / max_id are the smallest / largest field id of the file's schema (the schema
// of the embedded manifest); struct fields get (0, 0) rows. Page lengths count values:
// rows for fixed-width, var-binary, dictionary and null pages, rows + 1 for list
// offsets, items for the item field of a list.
//
// A dictionary field's pages hold only its indices, plain, index-width each. Its values
// are stored once per file, in the [dictionary values] area, laid out like one page of
// the value type (var-binary: bytes then positions; integers: plain); the field's
// `dictionary {offset, length}` in the embedded schema gives that page's position and
// value count. A null field's pages hold no bytes, only their length.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "format/reader_internal.h"
#include "lance/core/array_data.h"

namespace lance::format::legacy {

inline constexpr int64_t kLegacyFooterSize = 16;

/// How a field's values are laid out on disk.
enum class Layout {
  /// `bits` bits per value, back to back (bool: bit-packed; fixed_size_list: the items
  /// of each row, themselves fixed-width; fixed_size_binary: the bytes). No validity.
  kFixed,
  /// The bytes of every value back to back, then length + 1 i64 absolute file positions
  /// (the page position points at these). An empty value reads as null when the field
  /// is nullable (legacy files store no validity).
  kBinary,
  /// length i32 (list) or i64 (large_list) offsets into the item field's values of the
  /// same batch, starting at 0. No validity.
  kList,
  /// No page of its own; children share its rows. No validity.
  kStruct,
  /// Index-width (`bits`) indices, plain, into LegacyField::dictionary. No validity.
  kDictionary,
  /// A page with a length but no bytes: every value is null.
  kNull,
};

/// One field of the file schema with what the decoder needs.
struct LegacyField {
  FieldPtr field;
  int32_t id = 0;
  Layout layout = Layout::kFixed;
  /// kFixed: bits per value (a fixed_size_list row counts all its items); kDictionary:
  /// bits per index.
  int64_t bits = 0;
  /// kFixed fixed_size_list: items per row; kList: bytes per offset (4 or 8).
  int64_t width = 0;
  std::vector<LegacyField> children;
  /// kDictionary: the values, read at open (as Lance does) and shared by every piece.
  ArrayDataPtr dictionary;
};

struct LegacyPage {
  uint64_t position = 0;
  uint64_t length = 0;
};

/// Everything read at open time. Immutable afterwards; shared by all reads.
struct LegacyFile {
  /// Path, reader, remote flag, schema and row count (for FetchRanges and the API).
  internal::FileContext context;
  uint16_t minor_version = 0;
  /// batch_offsets[b] is the first row of batch b; the last entry is the row count.
  std::vector<int64_t> batch_offsets;
  std::vector<LegacyField> top_level;
  int32_t min_field_id = 0;
  int64_t num_batches = 0;
  /// The raw page table: field-major rows of num_batches (position, length) pairs.
  BufferPtr page_table;
  /// Pages end before this offset (the footer).
  uint64_t data_limit = 0;

  LegacyPage page(int32_t field_id, int64_t batch) const;
  /// The number of values `node` holds in `batch`: its page length, minus one for list
  /// offsets; a struct's is that of its first child. Validated at open.
  int64_t ValueCount(const LegacyField& node, int64_t batch) const;
};

/// A var-binary array of `type` (utf8, binary or their large forms) over `count` values
/// whose count + 1 absolute file positions (checked: not decreasing) are at `positions`
/// and whose bytes, from the first position to the last, are `bytes`. With
/// `empty_is_null`, empty values become null slots, as Lance's legacy reader makes them.
Result<ArrayDataPtr> MakeBinaryFromPositions(const DataTypePtr& type, int64_t count,
                                             const uint8_t* positions, BufferPtr bytes,
                                             bool empty_is_null);

/// One piece to decode: `count` values of `node` starting at value `start` of its page
/// in `batch` (rows for top-level fields).
struct PieceRequest {
  const LegacyField* node = nullptr;
  int64_t batch = 0;
  int64_t start = 0;
  int64_t count = 0;
};

/// Decodes every piece, fetching the bytes they need in as few rounds as the nesting
/// requires (one round for flat fields, one more per var-binary or list level), each
/// round one coalesced FetchRanges call over all pieces.
/// \return one ArrayData per piece, in order; Corrupt naming the file for inconsistent
/// positions or offsets.
Result<std::vector<ArrayDataPtr>> DecodePieces(const LegacyFile& file,
                                               const std::vector<PieceRequest>& pieces);

}  // namespace lance::format::legacy
