// SPDX-License-Identifier: Apache-2.0
// Encoding Lance file format v2.0 with the plain encodings real Lance writes.
//
// Every Lance field gets one column, in pre-order: a struct gets a header column before
// its children's, a list an offsets column before its item's (whose pages count items).
// Each column buffers one page worth of encoded bytes; the container (file_writer.cc)
// decides when to flush and always feeds whole top-level rows.

#include <algorithm>
#include <limits>
#include <utility>

#include "format/proto/encodings_v2_0.pb.h"
#include "format/v2_container.h"
#include "format/writer_internal.h"
#include "lance/core/builder.h"
#include "lance/macros.h"

namespace lance::format::internal {

namespace {

namespace pb = lance::encodings;
using internal::kPadByte;
using internal::kPageAlignment;

// ---------------------------------------------------------------------------------------
// Encoding protobuf helpers

void SetFlat(pb::ArrayEncoding* enc, uint64_t bits, uint32_t buffer_index) {
  auto* flat = enc->mutable_flat();
  flat->set_bits_per_value(bits);
  // Real Lance leaves buffer 0 as an empty Buffer message; set_buffer_index(0) does too.
  flat->mutable_buffer()->set_buffer_index(buffer_index);
}

/// Validity handling shared by every nullable value page: the validity bitmap (if
/// any) takes the next buffer, then the values.
struct NullabilityPlan {
  int64_t length = 0;
  int64_t null_count = 0;
  bool all_null() const { return length > 0 && null_count == length; }
  bool some_null() const { return null_count > 0 && null_count < length; }
};

/// Fills `enc` with nullable{...} and returns the encoding where the values go (nullptr
/// for all_nulls). Appends the validity buffer to `buffers` when there are some nulls.
pb::ArrayEncoding* WrapNullable(pb::ArrayEncoding* enc, const NullabilityPlan& plan,
                                BufferPtr validity, std::vector<BufferPtr>* buffers) {
  auto* nullable = enc->mutable_nullable();
  if (plan.all_null()) {
    nullable->mutable_all_nulls();
    return nullptr;
  }
  if (plan.some_null()) {
    auto* some = nullable->mutable_some_nulls();
    SetFlat(some->mutable_validity(), 1, static_cast<uint32_t>(buffers->size()));
    buffers->push_back(std::move(validity));
    return some->mutable_values();
  }
  return nullable->mutable_no_nulls()->mutable_values();
}

/// True when slot `i` (relative to data.offset) is valid and not masked out by an
/// ancestor struct's nulls.
inline bool SlotValid(const ArrayData& data, int64_t i, const uint8_t* mask,
                      int64_t mask_index) {
  if (mask != nullptr && !bit_util::GetBit(mask, mask_index)) return false;
  return data.IsValid(i);
}

Status AppendValidity(const ArrayData& data, int64_t offset, int64_t length,
                      const uint8_t* mask, int64_t mask_offset, BitmapBuilder* validity,
                      int64_t* null_count) {
  const uint8_t* bits =
      data.buffers.empty() || !data.buffers[0] ? nullptr : data.buffers[0]->data();
  const int64_t before = validity->false_count();
  if (mask == nullptr && bits == nullptr) {
    LANCE_RETURN_NOT_OK(validity->AppendN(length, true));
  } else if (mask == nullptr) {
    LANCE_RETURN_NOT_OK(validity->AppendBits(bits, data.offset + offset, length));
  } else {
    LANCE_RETURN_NOT_OK(validity->Reserve(length));
    for (int64_t i = 0; i < length; ++i) {
      LANCE_RETURN_NOT_OK(
          validity->Append(SlotValid(data, offset + i, mask, mask_offset + i)));
    }
  }
  *null_count += validity->false_count() - before;
  return Status::OK();
}

// ---------------------------------------------------------------------------------------
// Columns: one page of encoded data each

// A page as the container takes it, with its encoding still a message: serialized into
// encoding_value when the page is handed over.
struct V20Page : EncodedPage {
  pb::ArrayEncoding encoding;
};

class ColumnWriter {
 public:
  virtual ~ColumnWriter() = default;
  /// Bytes buffered for the current page.
  virtual int64_t buffered_bytes() const = 0;
  /// Values (rows, or items under a list) buffered for the current page.
  virtual int64_t buffered_length() const = 0;
  /// Encodes the buffered page and starts a new one.
  virtual Result<V20Page> FinishPage() = 0;
};

/// Appends a range of values to a field tree; each node feeds its own column.
class FieldEncoder {
 public:
  virtual ~FieldEncoder() = default;
  /// Appends slots [offset, offset + length) of `data` (relative to data.offset). Slot
  /// offset + i is additionally null where `mask` (if any) has bit mask_offset + i clear.
  virtual Status Append(const ArrayData& data, int64_t offset, int64_t length,
                        const uint8_t* mask, int64_t mask_offset) = 0;
};

/// The values of one page of a fixed-width column -- flat values, or fixed-size lists of
/// them, nested to any depth -- with their validity at every level.
class Accumulator {
 public:
  virtual ~Accumulator() = default;
  virtual Status Append(const ArrayData& data, int64_t offset, int64_t length,
                        const uint8_t* mask, int64_t mask_offset) = 0;
  virtual int64_t length() const = 0;
  virtual int64_t bytes() const = 0;
  /// Writes nullable{...} into `enc`, appending its buffers in pre-order; resets.
  virtual Status Finish(pb::ArrayEncoding* enc, std::vector<BufferPtr>* buffers) = 0;
};

/// Fixed-width values (bool as bits) plus validity: the data of one nullable+flat page.
class FixedWidthAccumulator : public Accumulator {
 public:
  explicit FixedWidthAccumulator(int bits) : bits_(bits) {}

  Status Append(const ArrayData& data, int64_t offset, int64_t length,
                const uint8_t* mask, int64_t mask_offset) override {
    LANCE_RETURN_NOT_OK(AppendValidity(data, offset, length, mask, mask_offset,
                                       &validity_, &null_count_));
    const Buffer* values = data.buffers.size() > 1 ? data.buffers[1].get() : nullptr;
    if (bits_ == 1) {
      if (values == nullptr) {
        LANCE_RETURN_NOT_OK(bit_values_.AppendN(length, false));
      } else {
        LANCE_RETURN_NOT_OK(
            bit_values_.AppendBits(values->data(), data.offset + offset, length));
      }
    } else {
      const int64_t width = bits_ / 8;
      if (values == nullptr) {
        LANCE_RETURN_NOT_OK(byte_values_.AppendZeros(length * width));
      } else {
        LANCE_RETURN_NOT_OK(byte_values_.Append(
            values->data() + (data.offset + offset) * width, length * width));
      }
    }
    length_ += length;
    return Status::OK();
  }

  int64_t length() const override { return length_; }
  int64_t bytes() const override {
    return bit_util::BytesForBits(validity_.length()) +
           (bits_ == 1 ? bit_util::BytesForBits(bit_values_.length())
                       : byte_values_.length());
  }

  Status Finish(pb::ArrayEncoding* enc, std::vector<BufferPtr>* buffers) override {
    NullabilityPlan plan{length_, null_count_};
    LANCE_ASSIGN_OR_RAISE(BufferPtr validity, validity_.Finish());
    BufferPtr values;
    if (bits_ == 1) {
      LANCE_ASSIGN_OR_RAISE(values, bit_values_.Finish());
    } else {
      LANCE_ASSIGN_OR_RAISE(values, byte_values_.Finish());
    }
    pb::ArrayEncoding* inner = WrapNullable(enc, plan, std::move(validity), buffers);
    if (inner != nullptr) {
      SetFlat(inner, static_cast<uint64_t>(bits_),
              static_cast<uint32_t>(buffers->size()));
      buffers->push_back(values ? values : Buffer::FromString(""));
    }
    length_ = 0;
    null_count_ = 0;
    return Status::OK();
  }

 private:
  int bits_;
  int64_t length_ = 0;
  int64_t null_count_ = 0;
  BitmapBuilder validity_;
  BitmapBuilder bit_values_;
  BufferBuilder byte_values_;
};

/// fixed_size_list<T, N> values: nullable{fixed_size_list{dimension, items:
/// nullable{...}}} where T is fixed-width or a fixed-size list itself (Lance nests them
/// the same way).
class FixedSizeListAccumulator : public Accumulator {
 public:
  FixedSizeListAccumulator(int32_t dimension, std::unique_ptr<Accumulator> items)
      : dimension_(dimension), items_(std::move(items)) {}

  Status Append(const ArrayData& data, int64_t offset, int64_t length,
                const uint8_t* mask, int64_t mask_offset) override {
    LANCE_RETURN_NOT_OK(AppendValidity(data, offset, length, mask, mask_offset,
                                       &validity_, &null_count_));
    if (data.children.size() != 1 || !data.children[0]) {
      return Status::Invalid("fixed_size_list array without its child array");
    }
    LANCE_RETURN_NOT_OK(items_->Append(*data.children[0],
                                       (data.offset + offset) * dimension_,
                                       length * dimension_, nullptr, 0));
    length_ += length;
    return Status::OK();
  }
  int64_t length() const override { return length_; }
  int64_t bytes() const override {
    return bit_util::BytesForBits(validity_.length()) + items_->bytes();
  }

  Status Finish(pb::ArrayEncoding* enc, std::vector<BufferPtr>* buffers) override {
    NullabilityPlan plan{length_, null_count_};
    LANCE_ASSIGN_OR_RAISE(BufferPtr validity, validity_.Finish());
    pb::ArrayEncoding* inner = WrapNullable(enc, plan, validity, buffers);
    if (inner != nullptr) {
      auto* fsl = inner->mutable_fixed_size_list();
      fsl->set_dimension(static_cast<uint32_t>(dimension_));
      LANCE_RETURN_NOT_OK(items_->Finish(fsl->mutable_items(), buffers));
    } else {
      // All lists null: their items are not stored at all.
      std::vector<BufferPtr> discard;
      pb::ArrayEncoding unused;
      LANCE_RETURN_NOT_OK(items_->Finish(&unused, &discard));
    }
    length_ = 0;
    null_count_ = 0;
    return Status::OK();
  }

 private:
  int32_t dimension_;
  std::unique_ptr<Accumulator> items_;
  int64_t length_ = 0;
  int64_t null_count_ = 0;
  BitmapBuilder validity_;
};

int FixedBits(const DataType& type) {
  return type.id() == TypeId::kBool ? 1 : type.bit_width();
}

std::unique_ptr<Accumulator> MakeAccumulator(const DataType& type) {
  if (type.id() == TypeId::kFixedSizeList) {
    return std::make_unique<FixedSizeListAccumulator>(
        type.fixed_size(), MakeAccumulator(*type.value_type()));
  }
  return std::make_unique<FixedWidthAccumulator>(FixedBits(type));
}

/// A column of fixed-width values or fixed-size lists of them: one page per flush.
class FixedWidthColumn : public ColumnWriter, public FieldEncoder {
 public:
  explicit FixedWidthColumn(const DataType& type) : values_(MakeAccumulator(type)) {}
  Status Append(const ArrayData& data, int64_t offset, int64_t length,
                const uint8_t* mask, int64_t mask_offset) override {
    return values_->Append(data, offset, length, mask, mask_offset);
  }
  int64_t buffered_bytes() const override { return values_->bytes(); }
  int64_t buffered_length() const override { return values_->length(); }
  Result<V20Page> FinishPage() override {
    V20Page page;
    page.length = values_->length();
    LANCE_RETURN_NOT_OK(values_->Finish(&page.encoding, &page.buffers));
    return page;
  }

 private:
  std::unique_ptr<Accumulator> values_;
};

/// A column whose pages carry no buffers, only their length and encoding.
class BufferlessColumn : public ColumnWriter, public FieldEncoder {
 public:
  int64_t buffered_bytes() const override { return 0; }
  int64_t buffered_length() const override { return length_; }
  Result<V20Page> FinishPage() override {
    V20Page page;
    page.length = length_;
    SetEncoding(&page.encoding);
    length_ = 0;
    return page;
  }

 protected:
  virtual void SetEncoding(pb::ArrayEncoding* encoding) const = 0;

  int64_t length_ = 0;
};

/// The null type: every page is nullable{all_nulls{}} without buffers, as Lance writes
/// it.
class NullColumn : public BufferlessColumn {
 public:
  Status Append(const ArrayData&, int64_t, int64_t length, const uint8_t*,
                int64_t) override {
    length_ += length;
    return Status::OK();
  }

 protected:
  void SetEncoding(pb::ArrayEncoding* encoding) const override {
    encoding->mutable_nullable()->mutable_all_nulls();
  }
};

/// The end offsets and validity of an offset layout (binary, lists) as v2.0 writes them:
/// u64 ends relative to the page's first value. A null's end is the previous end plus
/// the page's null adjustment (its value count + 1), which tells it apart from an empty
/// value.
class EndOffsets {
 public:
  explicit EndOffsets(bool large_offsets) : large_offsets_(large_offsets) {}

  /// Slots [offset, offset + length) of `data` (under `mask`). The values [start, end)
  /// of each run of valid slots are handed to `copy_values` in one go; null slots hold
  /// no values, even if the Arrow array has some under them.
  template <typename CopyValues>
  Status Append(const ArrayData& data, int64_t offset, int64_t length,
                const uint8_t* mask, int64_t mask_offset, const CopyValues& copy_values) {
    const uint8_t* raw_offsets = data.buffers[1] ? data.buffers[1]->data() : nullptr;
    auto value_offset = [&](int64_t i) -> int64_t {
      if (raw_offsets == nullptr) return 0;
      const int64_t slot = data.offset + i;
      return large_offsets_ ? reinterpret_cast<const int64_t*>(raw_offsets)[slot]
                            : reinterpret_cast<const int32_t*>(raw_offsets)[slot];
    };
    LANCE_RETURN_NOT_OK(ends_.Reserve(length * 8));
    LANCE_RETURN_NOT_OK(validity_.Reserve(length));
    int64_t i = 0;
    while (i < length) {
      const bool valid = SlotValid(data, offset + i, mask, mask_offset + i);
      int64_t j = i + 1;
      while (j < length && SlotValid(data, offset + j, mask, mask_offset + j) == valid)
        ++j;
      if (valid) {
        const int64_t start = value_offset(offset + i);
        const int64_t end = value_offset(offset + j);
        if (end > start) LANCE_RETURN_NOT_OK(copy_values(start, end));
        const int64_t base = values_in_page_ - start;
        for (int64_t k = i; k < j; ++k) {
          LANCE_RETURN_NOT_OK(ends_.AppendValue<uint64_t>(
              static_cast<uint64_t>(value_offset(offset + k + 1) + base)));
        }
        values_in_page_ += end - start;
        LANCE_RETURN_NOT_OK(validity_.AppendN(j - i, true));
      } else {
        for (int64_t k = i; k < j; ++k) {
          LANCE_RETURN_NOT_OK(
              ends_.AppendValue<uint64_t>(static_cast<uint64_t>(values_in_page_)));
        }
        LANCE_RETURN_NOT_OK(validity_.AppendN(j - i, false));
        null_count_ += j - i;
      }
      i = j;
    }
    length_ += length;
    return Status::OK();
  }

  int64_t length() const { return length_; }
  int64_t values_in_page() const { return values_in_page_; }
  int64_t buffered_bytes() const {
    return ends_.length() + bit_util::BytesForBits(validity_.length());
  }
  uint64_t null_adjustment() const { return static_cast<uint64_t>(values_in_page_) + 1; }

  /// The page's ends buffer (never null), nulls adjusted; starts the next page.
  Result<BufferPtr> FinishPage() {
    LANCE_ASSIGN_OR_RAISE(BufferPtr validity, validity_.Finish());
    if (null_count_ > 0) {
      const uint64_t adjustment = null_adjustment();
      auto* ends = reinterpret_cast<uint64_t*>(ends_.mutable_data());
      for (int64_t i = 0; i < length_; ++i) {
        if (!bit_util::GetBit(validity->data(), i)) ends[i] += adjustment;
      }
    }
    LANCE_ASSIGN_OR_RAISE(BufferPtr ends, ends_.Finish());
    length_ = 0;
    null_count_ = 0;
    values_in_page_ = 0;
    return ends ? ends : Buffer::FromString("");
  }

 private:
  bool large_offsets_;
  int64_t length_ = 0;
  int64_t null_count_ = 0;
  int64_t values_in_page_ = 0;
  BitmapBuilder validity_;
  BufferBuilder ends_;
};

/// utf8/binary (either offset width): binary{u64 end offsets, bytes, null_adjustment}.
class BinaryColumn : public ColumnWriter, public FieldEncoder {
 public:
  explicit BinaryColumn(bool large_offsets) : ends_(large_offsets) {}

  Status Append(const ArrayData& data, int64_t offset, int64_t length,
                const uint8_t* mask, int64_t mask_offset) override {
    if (data.buffers.size() < 3)
      return Status::Invalid("binary array without its buffers");
    const uint8_t* bytes = data.buffers[2] ? data.buffers[2]->data() : nullptr;
    return ends_.Append(data, offset, length, mask, mask_offset,
                        [&](int64_t start, int64_t end) {
                          return data_.Append(bytes + start, end - start);
                        });
  }
  int64_t buffered_bytes() const override {
    return ends_.buffered_bytes() + data_.length();
  }
  int64_t buffered_length() const override { return ends_.length(); }

  Result<V20Page> FinishPage() override {
    V20Page page;
    page.length = ends_.length();
    const uint64_t adjustment = ends_.null_adjustment();
    LANCE_ASSIGN_OR_RAISE(BufferPtr ends, ends_.FinishPage());
    LANCE_ASSIGN_OR_RAISE(BufferPtr data, data_.Finish());
    auto* binary = page.encoding.mutable_binary();
    SetFlat(binary->mutable_indices()
                ->mutable_nullable()
                ->mutable_no_nulls()
                ->mutable_values(),
            64, 0);
    SetFlat(binary->mutable_bytes(), 8, 1);
    binary->set_null_adjustment(adjustment);
    page.buffers.push_back(std::move(ends));
    page.buffers.push_back(data ? data : Buffer::FromString(""));
    return page;
  }

 private:
  EndOffsets ends_;  // the data's bytes are its values
  BufferBuilder data_;
};

/// The struct "header" column: no data, one page with a length; children follow.
class StructColumn : public BufferlessColumn {
 public:
  explicit StructColumn(std::vector<FieldEncoder*> children)
      : children_(std::move(children)) {}

  Status Append(const ArrayData& data, int64_t offset, int64_t length,
                const uint8_t* mask, int64_t mask_offset) override {
    // v2.0 cannot store struct validity. Pushing the struct's nulls down into its
    // children makes a null struct read back as a struct of nulls, as with real Lance.
    const uint8_t* own =
        data.buffers.empty() || !data.buffers[0] ? nullptr : data.buffers[0]->data();
    const uint8_t* child_mask = mask;
    int64_t child_mask_offset = mask_offset;
    BufferPtr combined;
    if (own != nullptr) {
      BitmapBuilder bits;
      int64_t ignored = 0;
      LANCE_RETURN_NOT_OK(
          AppendValidity(data, offset, length, mask, mask_offset, &bits, &ignored));
      LANCE_ASSIGN_OR_RAISE(combined, bits.Finish());
      child_mask = combined ? combined->data() : nullptr;
      child_mask_offset = 0;
    }
    if (data.children.size() != children_.size()) {
      return Status::Invalid("struct array with ", data.children.size(), " children for ",
                             children_.size(), " fields");
    }
    for (size_t c = 0; c < children_.size(); ++c) {
      LANCE_RETURN_NOT_OK(children_[c]->Append(*data.children[c], data.offset + offset,
                                               length, child_mask, child_mask_offset));
    }
    length_ += length;
    return Status::OK();
  }

 protected:
  void SetEncoding(pb::ArrayEncoding* encoding) const override {
    encoding->mutable_struct_();
  }

 private:
  std::vector<FieldEncoder*> children_;
};

/// list / large_list offsets column: list{offsets: u64 end offsets relative to the
/// page's first item, null_offset_adjustment, num_items}. Items go to the child.
class ListColumn : public ColumnWriter, public FieldEncoder {
 public:
  ListColumn(bool large_offsets, FieldEncoder* items)
      : ends_(large_offsets), items_(items) {}

  Status Append(const ArrayData& data, int64_t offset, int64_t length,
                const uint8_t* mask, int64_t mask_offset) override {
    if (data.buffers.size() < 2 || data.children.size() != 1) {
      return Status::Invalid("list array without its offsets or child");
    }
    return ends_.Append(
        data, offset, length, mask, mask_offset, [&](int64_t start, int64_t end) {
          return items_->Append(*data.children[0], start, end - start, nullptr, 0);
        });
  }
  int64_t buffered_bytes() const override { return ends_.buffered_bytes(); }
  int64_t buffered_length() const override { return ends_.length(); }

  Result<V20Page> FinishPage() override {
    V20Page page;
    page.length = ends_.length();
    const uint64_t adjustment = ends_.null_adjustment();
    const auto num_items = static_cast<uint64_t>(ends_.values_in_page());
    LANCE_ASSIGN_OR_RAISE(BufferPtr ends, ends_.FinishPage());
    auto* list = page.encoding.mutable_list();
    SetFlat(
        list->mutable_offsets()->mutable_nullable()->mutable_no_nulls()->mutable_values(),
        64, 0);
    list->set_null_offset_adjustment(adjustment);
    list->set_num_items(num_items);
    page.buffers.push_back(std::move(ends));
    return page;
  }

 private:
  EndOffsets ends_;  // the items are its values
  FieldEncoder* items_;
};

class V20Encoder : public FileEncoder {
 public:
  explicit V20Encoder(LanceSchema schema) : schema_(std::move(schema)) {}

  Status Init() {
    for (const auto& f : schema_.schema()->fields()) {
      const int first = static_cast<int>(columns_.size());
      LANCE_ASSIGN_OR_RAISE(FieldEncoder * enc, MakeEncoder(*f->type()));
      top_level_.push_back({enc, first, static_cast<int>(columns_.size())});
    }
    return Status::OK();
  }

  int num_columns() const override { return static_cast<int>(columns_.size()); }
  std::pair<int, int> columns_of(int field) const override {
    return {top_level_[field].first_column, top_level_[field].end_column};
  }
  Status Append(int field, const ArrayData& data, int64_t offset,
                int64_t length) override {
    return top_level_[field].encoder->Append(data, offset, length, nullptr, 0);
  }
  int64_t buffered_bytes(int column) const override {
    return columns_[column]->buffered_bytes();
  }
  bool has_buffered(int column) const override {
    return columns_[column]->buffered_length() > 0;
  }
  Result<EncodedPage> FinishPage(int column) override {
    LANCE_ASSIGN_OR_RAISE(V20Page page, columns_[column]->FinishPage());
    page.encoding_url = std::string(kArrayEncodingUrl);
    page.encoding_value = page.encoding.SerializeAsString();
    return EncodedPage(std::move(page));
  }
  // v2.0: every field, parents included, is a column in pre-order.
  std::vector<int32_t> DataFileFields() const override { return schema_.field_ids(); }
  std::pair<uint16_t, uint16_t> FooterVersion() const override {
    return {kV20FooterMajor, kV20FooterMinor};
  }
  std::pair<uint32_t, uint32_t> DataFileVersion() const override { return {2, 0}; }

 private:
  struct TopLevel {
    FieldEncoder* encoder;
    int first_column;
    int end_column;
  };

  template <typename T, typename... Args>
  T* AddColumn(Args&&... args) {
    auto column = std::make_unique<T>(std::forward<Args>(args)...);
    T* raw = column.get();
    columns_.push_back(std::move(column));
    return raw;
  }

  // Builds the encoder tree in pre-order so that column i is the i-th Lance field.
  Result<FieldEncoder*> MakeEncoder(const DataType& type) {
    switch (type.id()) {
      case TypeId::kUtf8:
      case TypeId::kBinary:
        return AddColumn<BinaryColumn>(false);
      case TypeId::kLargeUtf8:
      case TypeId::kLargeBinary:
        return AddColumn<BinaryColumn>(true);
      case TypeId::kFixedSizeList:
        return AddColumn<FixedWidthColumn>(type);
      case TypeId::kStruct: {
        // The header column precedes the children's columns.
        const size_t header = columns_.size();
        columns_.push_back(nullptr);
        std::vector<FieldEncoder*> children;
        for (const auto& child : type.fields()) {
          LANCE_ASSIGN_OR_RAISE(FieldEncoder * enc, MakeEncoder(*child->type()));
          children.push_back(enc);
        }
        auto column = std::make_unique<StructColumn>(std::move(children));
        StructColumn* raw = column.get();
        columns_[header] = std::move(column);
        return raw;
      }
      case TypeId::kList:
      case TypeId::kLargeList: {
        const size_t header = columns_.size();
        columns_.push_back(nullptr);
        LANCE_ASSIGN_OR_RAISE(FieldEncoder * items, MakeEncoder(*type.value_type()));
        auto column =
            std::make_unique<ListColumn>(type.id() == TypeId::kLargeList, items);
        ListColumn* raw = column.get();
        columns_[header] = std::move(column);
        return raw;
      }
      case TypeId::kNull:
        return AddColumn<NullColumn>();
      case TypeId::kDictionary:
        return Status::NotImplemented(
            "lance-cpp writes ", type.ToString(),
            " columns in file format 2.1 and 2.2 only; use data_storage_version 2.2 "
            "(the default)");
      case TypeId::kMap:
        return Status::NotImplemented(
            "lance-cpp writes ", type.ToString(),
            " columns in file format 2.2 only (pylance 14 refuses maps before 2.2); "
            "use data_storage_version 2.2 (the default)");
      default:
        if (FixedBits(type) <= 0) {
          return Status::NotImplemented("Lance file format 2.0 cannot store type ",
                                        type.ToString());
        }
        return AddColumn<FixedWidthColumn>(type);
    }
  }

  LanceSchema schema_;
  std::vector<std::unique_ptr<ColumnWriter>> columns_;
  std::vector<TopLevel> top_level_;
};

}  // namespace

Result<std::unique_ptr<FileEncoder>> MakeV20Encoder(const LanceSchema& schema,
                                                    const FileWriterOptions& options) {
  auto encoder = std::make_unique<V20Encoder>(schema);
  LANCE_RETURN_NOT_OK(encoder->Init());
  return std::unique_ptr<FileEncoder>(std::move(encoder));
}

}  // namespace lance::format::internal
