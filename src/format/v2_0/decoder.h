// SPDX-License-Identifier: Apache-2.0
// Internal: decodes slices of Lance file format v2.0 pages
// (lance.encodings.ArrayEncoding).
//
// Every function decodes only the requested slots [start, start + count) of a page, so
// that reading a batch never materializes more than the batch, and validates every
// length and offset it uses against the page buffers before allocating anything.

#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "format/proto/encodings_v2_0.pb.h"
#include "lance/core/array_data.h"
#include "lance/core/buffer.h"
#include "lance/core/type.h"
#include "lance/result.h"

namespace lance::format::internal {

/// Largest buffer a single decode step may allocate (guards against lengths in damaged
/// files; legitimate batches stay far below it).
inline constexpr int64_t kMaxDecodedBytes = int64_t{1} << 32;
/// Largest buffer synthesized for an all-null page in one decode step: such pages have
/// no bytes in the file, so only their (possibly damaged) length bounds them.
inline constexpr int64_t kMaxSynthesizedBytes = int64_t{256} << 20;

/// The raw buffers of one page plus what has been decoded from them once and is reused
/// by later slices (decompressed buffers, dictionaries).
struct PageBuffers {
  std::vector<BufferPtr> buffers;
  std::map<const void*, BufferPtr> decompressed;
  std::map<const void*, ArrayDataPtr> dictionaries;
};

/// A slice of a v2.0 list offsets page.
struct ListSlice {
  /// count + 1 item positions relative to the page's first item: row i spans
  /// [offsets[i], offsets[i + 1]).
  std::vector<int64_t> offsets;
  /// Validity of the rows (bit 0 = first row); null when no row is null.
  BufferPtr validity;
  int64_t null_count = 0;
};

/// Decodes slices of one page. Not thread-safe (it fills the page's caches).
class PageDecoder {
 public:
  /// `context` names the file, column and page for error messages.
  PageDecoder(std::string context, PageBuffers* page)
      : context_(std::move(context)), page_(page) {}

  /// Slots [start, start + count) of a page of `type` (a fixed-width type, a
  /// binary-like type or fixed_size_list) holding `page_length` values.
  Result<ArrayDataPtr> DecodeLeaf(const lance::encodings::ArrayEncoding& encoding,
                                  const DataTypePtr& type, int64_t page_length,
                                  int64_t start, int64_t count);

  /// Rows [start, start + count) of a list offsets page.
  Result<ListSlice> DecodeListOffsets(const lance::encodings::ArrayEncoding& encoding,
                                      int64_t page_length, int64_t start, int64_t count);

 private:
  struct Fixed;
  struct Binary;
  struct EncodedEnds;

  Status Corrupt(const std::string& message) const;
  Result<BufferPtr> PageBuffer(const lance::encodings::Buffer& buffer) const;
  Result<BufferPtr> FlatBuffer(const lance::encodings::Flat& flat, int64_t page_length);
  Result<Fixed> DecodeFixed(const lance::encodings::ArrayEncoding& encoding,
                            int64_t page_length, int64_t start, int64_t count, int bits);
  Result<std::vector<uint64_t>> DecodeIntegers(
      const lance::encodings::ArrayEncoding& encoding, int64_t page_length, int64_t start,
      int64_t count, BufferPtr* validity);
  // The stored end offsets of an offsets page (binary, lists) for slots [start, start +
  // count), preceded by the end of slot start - 1 (the start of slot `start`) when
  // start > 0.
  Result<EncodedEnds> DecodeEnds(const lance::encodings::ArrayEncoding& encoding,
                                 uint64_t null_adjustment, int64_t page_length,
                                 int64_t start, int64_t count);
  Result<Binary> DecodeBinary(const lance::encodings::ArrayEncoding& encoding,
                              int64_t page_length, int64_t start, int64_t count);
  // The encodings DecodeBinary dispatches to.
  Result<Binary> DecodeNullableBinary(const lance::encodings::Nullable& nullable,
                                      int64_t page_length, int64_t start, int64_t count);
  Result<Binary> DecodeOffsetsBinary(const lance::encodings::Binary& binary,
                                     int64_t page_length, int64_t start, int64_t count);
  Result<Binary> DecodeDictionaryBinary(const lance::encodings::Dictionary& dictionary,
                                        int64_t page_length, int64_t start,
                                        int64_t count);
  Result<Binary> DecodeFixedSizeBinary(const lance::encodings::FixedSizeBinary& binary,
                                       int64_t page_length, int64_t start, int64_t count);
  // The items of a page's dictionary, decoded once per page.
  Result<ArrayDataPtr> DictionaryItems(const lance::encodings::Dictionary& dictionary,
                                       int64_t num_items);
  Result<ArrayDataPtr> AllNullFixedSizeLists(const DataTypePtr& type, int64_t count);
  Result<ArrayDataPtr> DecodeFixedSizeList(
      const lance::encodings::ArrayEncoding& encoding, const DataTypePtr& type,
      int64_t page_length, int64_t start, int64_t count);

  std::string context_;
  PageBuffers* page_;
};

}  // namespace lance::format::internal
