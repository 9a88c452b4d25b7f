// SPDX-License-Identifier: Apache-2.0
// Writing Lance file formats 2.1 and 2.2.
//
// Each leaf column shreds the rows it is fed into levels and values (shred.h); when the
// container flushes a page, the page gets the layout Lance would give it:
//   1. no valid value: the constant layout without a value (2.1's all-null layout),
//      with the levels when nulls differ in kind (raw u16 in 2.1, compressed in 2.2);
//   2. 2.2 only: every valid value equal: the constant layout with the value (inline up
//      to 32 bytes) and raw u16 levels;
//   3. dictionary encoding when the strategy says so (mini-block with a dictionary);
//   4. values shorter than 256 bytes: mini-block; otherwise full-zip.
// The compressive encodings come from the CompressionStrategy (compression.h); the byte
// layouts are described in pages.cc.

#include <google/protobuf/repeated_field.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "format/structural/blocks.h"
#include "format/structural/compression.h"
#include "format/structural/field_tree.h"
#include "format/structural/shred.h"
#include "format/v2_container.h"
#include "format/writer_internal.h"
#include "lance/macros.h"

namespace lance::format::internal {

namespace {

using codecs::DataBlock;
using structural::CompressionStrategy;
using structural::LeafShredder;
using structural::NodeKind;
namespace pb21 = lance::encodings21;

constexpr size_t kMiniBlockAlignment = 8;
constexpr uint8_t kFillByte = 0xFE;
constexpr std::string_view kPageLayoutUrl = "/lance.encodings21.PageLayout";
/// Values at least this long go to full-zip pages.
constexpr int64_t kMiniBlockMaxValueBytes = 256;
/// Constant values up to this size are stored in the page layout itself.
constexpr size_t kInlineValueMaxBytes = 32;

inline size_t Pad8(size_t n) { return (n + 7) & ~size_t{7}; }

void AppendLE16(std::string* out, uint16_t v) {
  out->append(reinterpret_cast<const char*>(&v), 2);
}
void AppendLE32(std::string* out, uint32_t v) {
  out->append(reinterpret_cast<const char*>(&v), 4);
}
void AppendLE64(std::string* out, uint64_t v) {
  out->append(reinterpret_cast<const char*>(&v), 8);
}

/// Bits needed to hold `max` (0 for 0).
uint32_t BitsFor(uint64_t max) {
  uint32_t bits = 0;
  while (max > 0) {
    ++bits;
    max >>= 1;
  }
  return bits;
}

/// Largest value length in bits (fixed: the width). In bits so that a fixed_size_list of
/// booleans counts its items as bits, as Lance sizes it (300 booleans fit a mini-block).
int64_t MaxValueBits(const DataBlock& block) {
  switch (block.kind) {
    case DataBlock::Kind::kFixed:
      return static_cast<int64_t>(block.bits_per_value);
    case DataBlock::Kind::kVariable:
      return block.MaxValueLength() * 8;
    case DataBlock::Kind::kFixedSizeList:
      return static_cast<int64_t>(block.dimension) * MaxValueBits(block.children[0]);
    case DataBlock::Kind::kStruct: {
      int64_t total = 0;
      for (const auto& c : block.children) total += MaxValueBits(c);
      return total;
    }
    case DataBlock::Kind::kAllNull:
      return 0;
  }
  return 0;
}

/// Largest value length in bytes, rounded up.
int64_t MaxValueBytes(const DataBlock& block) { return (MaxValueBits(block) + 7) / 8; }

void SetLayers(const std::vector<pb21::RepDefLayer>& layers,
               google::protobuf::RepeatedField<int>* out) {
  for (auto layer : layers) out->Add(layer);
}

/// The page's values, with the item nulls of fixed_size_list slots that are null
/// themselves dropped: nothing reads them, and without them the items need no validity.
Result<ArrayDataPtr> DropHiddenItemNulls(const structural::LeafShredder::Page& page) {
  const ArrayDataPtr& values = page.data.values;
  if (values->type->id() != TypeId::kFixedSizeList || values->children.empty())
    return values;
  const ArrayData& child = *values->children[0];
  if (child.buffers.empty() || !child.buffers[0] || child.null_count == 0) return values;
  const int64_t dim = values->type->fixed_size();
  // Valid visible items: def 0 (every item without definition levels).
  std::vector<char> slot_valid(static_cast<size_t>(values->length), 1);
  if (!page.data.def.empty()) {
    int64_t v = 0;
    for (uint16_t d : page.data.def) {
      if (d > page.levels.max_visible_def) continue;
      slot_valid[static_cast<size_t>(v++)] = d == 0;
    }
  }
  for (int64_t i = 0; i < values->length; ++i) {
    if (!slot_valid[static_cast<size_t>(i)]) continue;
    for (int64_t k = 0; k < dim; ++k) {
      if (!child.IsValid((values->offset + i) * dim + k)) return values;
    }
  }
  auto stripped_child = std::make_shared<ArrayData>(child);
  stripped_child->buffers[0] = nullptr;
  stripped_child->null_count = 0;
  auto out = std::make_shared<ArrayData>(*values);
  out->children[0] = std::move(stripped_child);
  return out;
}

/// One leaf column being written.
struct Column {
  int leaf = 0;
  std::unique_ptr<LeafShredder> shredder;
  FieldPtr field;  // the leaf field (its metadata carries Lance's encoding hints)
};

class StructuralEncoder : public FileEncoder {
 public:
  StructuralEncoder(LanceSchema schema, FileWriterOptions options)
      : schema_(std::move(schema)),
        options_(options),
        v22_(options.version == LanceFileVersion::kV2_2),
        strategy_(structural::MakeCompressionStrategy(options.version)) {}

  Status Init() {
    if (!v22_) {
      // Lance 2.1 has no map layout (pylance refuses to write one); refusing keeps 2.1
      // files readable by every Lance that reads 2.1.
      for (const auto& f : schema_.schema()->fields()) {
        if (const Field* map = FindMap(*f)) {
          return Status::NotImplemented("field '" + map->name() +
                                        "': the map type needs file format 2.2 or later");
        }
      }
    }
    LANCE_ASSIGN_OR_RAISE(
        tree_, structural::FieldTree::Make(*schema_.schema(), "Lance file writer"));
    for (size_t f = 0; f < tree_.top_level.size(); ++f) {
      const int first = static_cast<int>(columns_.size());
      LANCE_RETURN_NOT_OK(AddColumns(tree_.top_level[f], {}, {}));
      ranges_.push_back({first, static_cast<int>(columns_.size())});
    }
    // DataFile.fields: the leaves' field ids (pre-order, parents left out).
    std::vector<int32_t> leaf_ids;
    size_t pos = 0;
    for (const auto& f : schema_.schema()->fields()) {
      CollectLeafIds(*f, &pos, &leaf_ids, /*is_leaf_parent=*/false);
    }
    if (leaf_ids.size() != columns_.size()) {
      return Status::Invalid("Lance file writer: ", leaf_ids.size(), " leaf ids for ",
                             columns_.size(), " columns");
    }
    leaf_ids_ = std::move(leaf_ids);
    return Status::OK();
  }

  int num_columns() const override { return static_cast<int>(columns_.size()); }
  std::pair<int, int> columns_of(int field) const override { return ranges_[field]; }

  Status Append(int field, const ArrayData& data, int64_t offset,
                int64_t length) override {
    for (int c = ranges_[field].first; c < ranges_[field].second; ++c) {
      LANCE_RETURN_NOT_OK(columns_[c].shredder->Append(data, offset, length));
    }
    return Status::OK();
  }
  int64_t buffered_bytes(int column) const override {
    return columns_[column].shredder->buffered_bytes();
  }
  bool has_buffered(int column) const override {
    return columns_[column].shredder->rows() > 0;
  }

  Result<EncodedPage> FinishPage(int column) override;

  std::vector<int32_t> DataFileFields() const override { return leaf_ids_; }
  std::pair<uint16_t, uint16_t> FooterVersion() const override {
    return {2, static_cast<uint16_t>(v22_ ? 2 : 1)};
  }
  std::pair<uint32_t, uint32_t> DataFileVersion() const override {
    return {2, v22_ ? 2u : 1u};
  }

 private:
  Status AddColumns(const structural::FieldNode& node, std::vector<NodeKind> path,
                    std::vector<int> child_index) {
    switch (node.kind) {
      case structural::FieldNode::Kind::kStruct:
        path.push_back(NodeKind::kItem);
        for (size_t c = 0; c < node.children.size(); ++c) {
          auto ci = child_index;
          ci.push_back(static_cast<int>(c));
          LANCE_RETURN_NOT_OK(AddColumns(node.children[c], path, ci));
        }
        return Status::OK();
      case structural::FieldNode::Kind::kList:
        path.push_back(NodeKind::kList);
        child_index.push_back(0);
        return AddColumns(node.children[0], path, child_index);
      case structural::FieldNode::Kind::kLeaf:
        path.push_back(NodeKind::kItem);
        child_index.push_back(0);
        columns_.push_back(
            {node.leaf,
             std::make_unique<LeafShredder>(std::move(path), std::move(child_index)),
             node.field});
        return Status::OK();
    }
    return Status::OK();
  }

  /// Pre-order walk of the Lance fields: the ids of leaves (fields with no Lance
  /// children, packed structs, empty structs).
  void CollectLeafIds(const Field& f, size_t* pos, std::vector<int32_t>* out,
                      bool) const {
    const int32_t id = schema_.field_ids()[(*pos)++];
    const DataType& type = *f.type();
    const bool is_struct = type.id() == TypeId::kStruct;
    const bool is_list = type.id() == TypeId::kList || type.id() == TypeId::kLargeList ||
                         type.id() == TypeId::kMap;
    if (is_struct && (type.num_fields() == 0 || structural::IsPackedStruct(f))) {
      out->push_back(id);
      // A packed struct's children are Lance fields too, but not columns.
      for (const auto& child : type.fields()) SkipIds(*child, pos);
      return;
    }
    if (is_struct || is_list) {
      for (const auto& child : type.fields()) CollectLeafIds(*child, pos, out, false);
      return;
    }
    out->push_back(id);
  }
  void SkipIds(const Field& f, size_t* pos) const {
    ++*pos;
    for (const auto& child : f.type()->fields()) {
      if (f.type()->id() == TypeId::kStruct || f.type()->id() == TypeId::kList ||
          f.type()->id() == TypeId::kLargeList || f.type()->id() == TypeId::kMap) {
        SkipIds(*child, pos);
      }
    }
  }

  Result<EncodedPage> Layout(const pb21::PageLayout& layout,
                             std::vector<BufferPtr> buffers, int64_t rows) const {
    EncodedPage page;
    page.buffers = std::move(buffers);
    page.encoding_url = std::string(kPageLayoutUrl);
    page.encoding_value = layout.SerializeAsString();
    page.length = rows;
    return page;
  }

  Result<EncodedPage> AllNull(const LeafShredder::Page& page);
  static const Field* FindMap(const Field& field) {
    if (field.type()->id() == TypeId::kMap) return &field;
    for (const auto& child : field.type()->fields()) {
      if (const Field* found = FindMap(*child)) return found;
    }
    return nullptr;
  }
  Result<EncodedPage> PackedStructPage(const LeafShredder::Page& page,
                                       const ArrayData& stored, const DataBlock& block,
                                       const Field& field);
  Result<EncodedPage> DictionaryPage(const LeafShredder::Page& page, const Field& field);
  Result<std::optional<EncodedPage>> TryConstant(const LeafShredder::Page& page);
  Result<EncodedPage> MiniBlock(const LeafShredder::Page& page, const DataBlock& values,
                                const Field& field,
                                const std::optional<DataBlock>& dictionary);
  Result<EncodedPage> FullZip(const LeafShredder::Page& page, const DataBlock& values,
                              const Field& field);

  LanceSchema schema_;
  FileWriterOptions options_;
  bool v22_;
  std::unique_ptr<CompressionStrategy> strategy_;
  structural::FieldTree tree_;
  std::vector<Column> columns_;
  std::vector<std::pair<int, int>> ranges_;
  std::vector<int32_t> leaf_ids_;
};

Result<EncodedPage> StructuralEncoder::FinishPage(int column) {
  Column& col = columns_[column];
  LANCE_ASSIGN_OR_RAISE(LeafShredder::Page page, col.shredder->Finish());
  const Field& field = *col.field;
  const int64_t values = page.data.values ? page.data.values->length : 0;
  const bool empty_struct =
      field.type()->id() == TypeId::kStruct && field.type()->num_fields() == 0;
  if (empty_struct) {
    // An empty struct has no values to carry levels, and Lance stores it as an all-null
    // page whose levels readers ignore: nulls or list nesting would be lost, so refuse
    // them as pylance does.
    const bool nulls = std::any_of(page.data.def.begin(), page.data.def.end(),
                                   [](uint16_t d) { return d != 0; });
    if (nulls || !page.data.rep.empty()) {
      return Status::NotImplemented(
          "field '", field.name(),
          "': an empty struct with nulls or inside a list cannot be stored in Lance file "
          "format 2.1/2.2 (nor does pylance store one)");
    }
  }
  if (page.valid_values == 0 || empty_struct) return AllNull(page);
  if (v22_) {
    LANCE_ASSIGN_OR_RAISE(auto constant, TryConstant(page));
    if (constant) return std::move(*constant);
  }
  if (field.type()->id() == TypeId::kDictionary) return DictionaryPage(page, field);
  LANCE_ASSIGN_OR_RAISE(ArrayDataPtr stored, DropHiddenItemNulls(page));
  LANCE_ASSIGN_OR_RAISE(DataBlock block, structural::ArrayToBlock(*stored));
  if (block.num_values != values)
    return Status::Invalid("internal: value count mismatch");
  if (block.kind == DataBlock::Kind::kStruct)
    return PackedStructPage(page, *stored, block, field);
  const std::string hint = [&] {
    for (const auto& [k, v] : field.metadata()) {
      if (k == "lance-encoding:structural-encoding") return v;
    }
    return std::string();
  }();
  if (hint.empty()) {
    LANCE_ASSIGN_OR_RAISE(auto dictionary, strategy_->TryDictionary(block, field));
    if (dictionary) {
      auto mini = MiniBlock(page, dictionary->indices, field, dictionary->items);
      if (mini.ok()) return mini;
    }
  }
  // Fixed-size lists of booleans go to mini-blocks whatever their size, as pylance
  // sends them (full-zip cannot hold their item validity bits); too wide for a chunk,
  // they fall back to full-zip below.
  const DataBlock* inner = &block;
  while (inner->kind == DataBlock::Kind::kFixedSizeList) inner = &inner->children[0];
  const bool bit_vectors = inner != &block && inner->kind == DataBlock::Kind::kFixed &&
                           inner->bits_per_value == 1;
  const bool narrow = bit_vectors || MaxValueBytes(block) < kMiniBlockMaxValueBytes;
  if (hint == "miniblock" || (hint.empty() && narrow)) {
    auto mini = MiniBlock(page, block, field, std::nullopt);
    if (mini.ok() || hint == "miniblock") return mini;
    // A page whose rows carry too many levels for one chunk goes to full-zip, as Lance.
  }
  return FullZip(page, block, field);
}

// An Arrow dictionary array is stored as Lance stores it: a mini-block page of its
// indices with its dictionary as the page dictionary.
Result<EncodedPage> StructuralEncoder::DictionaryPage(const LeafShredder::Page& page,
                                                      const Field& field) {
  const ArrayData& values = *page.data.values;
  if (!values.dictionary)
    return Status::Invalid("dictionary array without its dictionary");
  const int width = values.type->index_type()->bit_width() / 8;
  const int64_t n = values.length;
  // Indices of items that are not valid may point anywhere: store 0 for them.
  std::vector<char> valid(static_cast<size_t>(n), 1);
  if (!page.data.def.empty()) {
    int64_t v = 0;
    for (uint16_t d : page.data.def) {
      if (d > page.levels.max_visible_def) continue;
      valid[static_cast<size_t>(v++)] = d == 0;
    }
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr indices, Buffer::Allocate(n * width));
  const uint8_t* src = values.buffers[1]->data() + values.offset * width;
  for (int64_t i = 0; i < n; ++i) {
    if (valid[static_cast<size_t>(i)]) {
      std::memcpy(indices->mutable_data() + i * width, src + i * width,
                  static_cast<size_t>(width));
    }
  }
  // Lance's indices are unsigned integers of the index width.
  const DataBlock index_block =
      DataBlock::Fixed(static_cast<uint64_t>(width) * 8, n, indices);
  LANCE_ASSIGN_OR_RAISE(DataBlock items, structural::ArrayToBlock(*values.dictionary));
  return MiniBlock(page, index_block, field, items);
}

// A packed struct as Lance stores it: fixed-width children as a PackedStruct mini-block
// (2.1 and 2.2), any other children as 2.2's VariablePackedStruct full-zip. Lance keeps
// no validity for the children, so a null child value inside a valid struct is refused.
Result<EncodedPage> StructuralEncoder::PackedStructPage(const LeafShredder::Page& page,
                                                        const ArrayData& stored,
                                                        const DataBlock& block,
                                                        const Field& field) {
  for (size_t c = 0; c < stored.children.size(); ++c) {
    const ArrayDataPtr child = stored.children[c]->Slice(stored.offset, stored.length);
    if (child->GetNullCount() == 0) continue;
    for (int64_t i = 0; i < stored.length; ++i) {
      if (stored.IsValid(i) && !child->IsValid(i)) {
        return Status::NotImplemented(
            "packed struct field '" + field.name() + "': child '" +
            field.type()->fields()[c]->name() +
            "' has nulls, which Lance's packed structs cannot store");
      }
    }
  }
  bool fixed_only = true;
  for (size_t c = 0; c < block.children.size(); ++c) {
    const DataBlock& child = block.children[c];
    if (child.kind == DataBlock::Kind::kFixed && child.bits_per_value % 8 != 0) {
      return Status::NotImplemented("packed struct field '" + field.name() +
                                    "': child '" + field.type()->fields()[c]->name() +
                                    "' of type " +
                                    field.type()->fields()[c]->type()->ToString() +
                                    " is not whole bytes wide, which Lance cannot pack");
    }
    fixed_only &= child.kind == DataBlock::Kind::kFixed;
  }
  if (fixed_only) return MiniBlock(page, block, field, std::nullopt);
  if (!v22_) {
    return Status::NotImplemented("packed struct field '", field.name(),
                                  "' has variable-width or list children: that packing "
                                  "(VariablePackedStruct) needs "
                                  "file format 2.2");
  }
  return FullZip(page, block, field);
}

Result<EncodedPage> StructuralEncoder::AllNull(const LeafShredder::Page& page) {
  pb21::PageLayout layout;
  auto* c = layout.mutable_constant_layout();
  SetLayers(page.layers, c->mutable_layers());
  std::vector<BufferPtr> buffers;
  const bool simple = page.layers.size() == 1 && page.data.rep.empty();
  if (!simple || page.layers[0] != pb21::NULLABLE_ITEM) {
    // The levels tell apart the kinds of null (and empty lists).
    if (!simple || !page.data.def.empty()) {
      auto raw = [](const std::vector<uint16_t>& levels) -> Result<BufferPtr> {
        if (levels.empty()) return Buffer::FromString("");
        return Buffer::CopyFrom(levels.data(), static_cast<int64_t>(levels.size()) * 2);
      };
      if (v22_) {
        for (int which = 0; which < 2; ++which) {
          const std::vector<uint16_t>& levels =
              which == 0 ? page.data.rep : page.data.def;
          if (levels.empty()) {
            buffers.push_back(Buffer::FromString(""));
            continue;
          }
          LANCE_ASSIGN_OR_RAISE(auto compressor, strategy_->Levels(levels));
          LANCE_ASSIGN_OR_RAISE(
              BufferPtr data,
              compressor->Compress(levels.data(), static_cast<int64_t>(levels.size())));
          buffers.push_back(std::move(data));
          if (which == 0) {
            *c->mutable_rep_compression() = compressor->encoding();
            c->set_num_rep_values(levels.size());
          } else {
            *c->mutable_def_compression() = compressor->encoding();
            c->set_num_def_values(levels.size());
          }
        }
      } else {
        LANCE_ASSIGN_OR_RAISE(BufferPtr rep, raw(page.data.rep));
        LANCE_ASSIGN_OR_RAISE(BufferPtr def, raw(page.data.def));
        buffers = {std::move(rep), std::move(def)};
      }
    }
  }
  return Layout(layout, std::move(buffers), page.rows);
}

Result<std::optional<EncodedPage>> StructuralEncoder::TryConstant(
    const LeafShredder::Page& page) {
  const ArrayData& values = *page.data.values;
  const DataType& type = *values.type;
  const TypeId id = type.id();
  const bool binary = id == TypeId::kUtf8 || id == TypeId::kBinary ||
                      id == TypeId::kLargeUtf8 || id == TypeId::kLargeBinary;
  const int bits = type.bit_width();
  if (!binary && (bits <= 0 || id == TypeId::kFixedSizeList || id == TypeId::kStruct)) {
    return std::optional<EncodedPage>();
  }
  // Which visible items are valid: def 0 (all of them without definition levels).
  std::vector<int64_t> valid;
  {
    int64_t v = 0;
    if (page.data.def.empty()) {
      for (int64_t i = 0; i < values.length; ++i) valid.push_back(i);
    } else {
      for (uint16_t d : page.data.def) {
        if (d > page.levels.max_visible_def) continue;
        if (d == 0) valid.push_back(v);
        ++v;
      }
    }
  }
  if (valid.empty()) return std::optional<EncodedPage>();
  std::string scalar;  // the bytes of the first valid value
  auto bytes_of = [&](int64_t i) -> std::string_view {
    const int64_t slot = values.offset + i;
    if (binary) {
      const bool large = id == TypeId::kLargeUtf8 || id == TypeId::kLargeBinary;
      const int64_t b = large ? values.buffers[1]->data_as<int64_t>()[slot]
                              : values.buffers[1]->data_as<int32_t>()[slot];
      const int64_t e = large ? values.buffers[1]->data_as<int64_t>()[slot + 1]
                              : values.buffers[1]->data_as<int32_t>()[slot + 1];
      return {reinterpret_cast<const char*>(values.buffers[2]->data()) + b,
              static_cast<size_t>(e - b)};
    }
    if (bits == 1) {
      static const char kTrue = 1, kFalse = 0;
      return {bit_util::GetBit(values.buffers[1]->data(), slot) ? &kTrue : &kFalse, 1};
    }
    return {reinterpret_cast<const char*>(values.buffers[1]->data()) + slot * (bits / 8),
            static_cast<size_t>(bits / 8)};
  };
  const std::string_view first = bytes_of(valid[0]);
  for (int64_t i : valid) {
    if (bytes_of(i) != first) return std::optional<EncodedPage>();
  }
  scalar.assign(first);
  pb21::PageLayout layout;
  auto* c = layout.mutable_constant_layout();
  SetLayers(page.layers, c->mutable_layers());
  std::vector<BufferPtr> buffers;
  if (!binary && scalar.size() <= kInlineValueMaxBytes) {
    c->set_inline_value(scalar);
  } else {
    // u32 buffer count, u32 lengths, the Arrow buffers of a length-1 array.
    std::string value;
    if (binary) {
      const bool large = id == TypeId::kLargeUtf8 || id == TypeId::kLargeBinary;
      std::string offsets;
      if (large) {
        AppendLE64(&offsets, 0);
        AppendLE64(&offsets, scalar.size());
      } else {
        AppendLE32(&offsets, 0);
        AppendLE32(&offsets, static_cast<uint32_t>(scalar.size()));
      }
      AppendLE32(&value, 2);
      AppendLE32(&value, static_cast<uint32_t>(offsets.size()));
      AppendLE32(&value, static_cast<uint32_t>(scalar.size()));
      value += offsets;
      value += scalar;
    } else {
      AppendLE32(&value, 1);
      AppendLE32(&value, static_cast<uint32_t>(scalar.size()));
      value += scalar;
    }
    buffers.push_back(Buffer::FromString(std::move(value)));
  }
  if (!page.data.rep.empty() || !page.data.def.empty()) {
    auto raw = [](const std::vector<uint16_t>& levels) -> Result<BufferPtr> {
      if (levels.empty()) return Buffer::FromString("");
      return Buffer::CopyFrom(levels.data(), static_cast<int64_t>(levels.size()) * 2);
    };
    LANCE_ASSIGN_OR_RAISE(BufferPtr rep, raw(page.data.rep));
    LANCE_ASSIGN_OR_RAISE(BufferPtr def, raw(page.data.def));
    buffers.push_back(std::move(rep));
    buffers.push_back(std::move(def));
  }
  LANCE_ASSIGN_OR_RAISE(EncodedPage out, Layout(layout, std::move(buffers), page.rows));
  return std::optional<EncodedPage>(std::move(out));
}

// The levels of a mini-block chunk starting at level `level`: through its last value
// (invisible items after it go to the next chunk); the last chunk takes the rest.
Result<size_t> ChunkLevelEnd(const std::vector<uint16_t>& def, bool has_def,
                             uint16_t max_rep, uint16_t max_visible, size_t num_levels,
                             size_t level, int64_t num_values, bool last) {
  size_t level_end = level;
  if (last) {
    level_end = num_levels;
  } else if (!has_def || max_rep == 0) {
    level_end = level + static_cast<size_t>(num_values);
  } else {
    int64_t taken = 0;
    while (taken < num_values && level_end < num_levels) {
      if (def[level_end] <= max_visible) ++taken;
      ++level_end;
    }
  }
  if (level_end - level > std::numeric_limits<uint16_t>::max()) {
    return Status::Invalid("a mini-block chunk would hold ", level_end - level,
                           " levels");
  }
  return level_end;
}

// Repetition index: rows ending in the chunk, items after the last row start.
void AppendRepetitionIndex(const uint16_t* r, size_t chunk_levels, uint16_t max_rep,
                           bool first, bool last, std::vector<uint64_t>* rep_index) {
  uint64_t ends = 0;
  for (size_t i = 1; i < chunk_levels; ++i) ends += r[i] == max_rep ? 1 : 0;
  uint64_t leftovers = 0;
  if (!last) {
    size_t pos = chunk_levels;
    while (pos > 0 && r[pos - 1] != max_rep) --pos;
    leftovers = pos == 0 ? chunk_levels : chunk_levels - pos + 1;
  }
  if (!first && chunk_levels > 0 && r[0] == max_rep && rep_index->back() != 0) {
    // The previous chunk's "leftover" row was complete after all.
    (*rep_index)[rep_index->size() - 2] += 1;
    rep_index->back() = 0;
  }
  if (last) ends += 1;
  rep_index->push_back(ends);
  rep_index->push_back(leftovers);
}

// Appends one chunk (its header, then its level and value buffers, each padded to 8
// bytes) to `data`; returns the chunk's size in bytes. `rep_buf` / `def_buf` are NULL
// when the page has no such levels.
Result<size_t> AppendMiniBlockChunk(size_t chunk_levels, const BufferPtr& rep_buf,
                                    const BufferPtr& def_buf,
                                    const std::vector<BufferPtr>& value_buffers, bool v22,
                                    std::string* data) {
  const size_t start = data->size();
  AppendLE16(data, static_cast<uint16_t>(chunk_levels));
  if (rep_buf) {
    if (rep_buf->size() > std::numeric_limits<uint16_t>::max()) {
      return Status::Invalid("mini-block repetition levels too large");
    }
    AppendLE16(data, static_cast<uint16_t>(rep_buf->size()));
  }
  if (def_buf) {
    if (def_buf->size() > std::numeric_limits<uint16_t>::max()) {
      return Status::Invalid("mini-block definition levels too large");
    }
    AppendLE16(data, static_cast<uint16_t>(def_buf->size()));
  }
  for (const auto& b : value_buffers) {
    if (v22) {
      AppendLE32(data, static_cast<uint32_t>(b->size()));
    } else {
      if (b->size() > std::numeric_limits<uint16_t>::max()) {
        return Status::Invalid("mini-block buffer too large for 2.1");
      }
      AppendLE16(data, static_cast<uint16_t>(b->size()));
    }
  }
  auto pad = [&] {
    data->append(Pad8(data->size()) - data->size(), static_cast<char>(kFillByte));
  };
  pad();
  if (rep_buf) {
    data->append(rep_buf->ToStringView());
    pad();
  }
  if (def_buf) {
    data->append(def_buf->ToStringView());
    pad();
  }
  for (const auto& b : value_buffers) {
    data->append(b->ToStringView());
    pad();
  }
  const size_t bytes = data->size() - start;
  if (!v22 && bytes > 32 * 1024) {
    return Status::Invalid("a 2.1 mini-block chunk of ", bytes, " bytes");
  }
  return bytes;
}

// The metadata word of a chunk of `bytes` bytes and `num_values` values.
Status AppendMiniBlockMeta(size_t bytes, int64_t num_values, bool last, bool v22,
                           std::string* meta) {
  uint64_t log = 0;
  if (!last) {
    const int64_t n = num_values;
    if (n <= 1 || (n & (n - 1)) != 0 || n > 32768) {
      return Status::Invalid("internal: mini-block chunk of ", n, " values");
    }
    while ((int64_t{1} << log) < n) ++log;
  }
  const uint64_t word = ((bytes / kMiniBlockAlignment - 1) << 4) | log;
  if (v22) {
    AppendLE32(meta, static_cast<uint32_t>(word));
  } else {
    AppendLE16(meta, static_cast<uint16_t>(word));
  }
  return Status::OK();
}

// The chunks of a mini-block page, laid out.
struct MiniBlockChunks {
  std::string data;
  std::string meta;
  std::vector<uint64_t> rep_index;  // (rows ending, leftover items) per chunk
};

// Lays out the chunks of `compressed`, each with its share of the page's levels;
// `rep_comp` / `def_comp` are NULL when the page has no such levels.
Result<MiniBlockChunks> LayOutMiniBlockChunks(
    const structural::MiniBlockValues& compressed, const LeafShredder::Page& page,
    structural::LevelCompressor* rep_comp, structural::LevelCompressor* def_comp,
    bool v22) {
  const auto& rep = page.data.rep;
  const auto& def = page.data.def;
  const bool has_rep = !rep.empty();
  const bool has_def = !def.empty();
  const uint16_t max_rep = static_cast<uint16_t>(page.levels.max_rep);
  const uint16_t max_visible = page.levels.max_visible_def;
  const size_t num_levels = has_rep ? rep.size() : def.size();
  const size_t nb = compressed.chunks.empty() ? 0 : compressed.chunks[0].buffers.size();

  MiniBlockChunks out;
  size_t level = 0;  // next level to place
  const size_t n_chunks = compressed.chunks.size();
  for (size_t ci = 0; ci < n_chunks; ++ci) {
    const auto& chunk = compressed.chunks[ci];
    if (chunk.buffers.size() != nb)
      return Status::Invalid("internal: chunk buffer count");
    const bool last = ci + 1 == n_chunks;
    size_t level_end = level;
    if (has_rep || has_def) {
      LANCE_ASSIGN_OR_RAISE(
          level_end, ChunkLevelEnd(def, has_def, max_rep, max_visible, num_levels, level,
                                   chunk.num_values, last));
    }
    const size_t chunk_levels = level_end - level;
    BufferPtr rep_buf, def_buf;
    if (has_rep) {
      LANCE_ASSIGN_OR_RAISE(
          rep_buf,
          rep_comp->Compress(rep.data() + level, static_cast<int64_t>(chunk_levels)));
      AppendRepetitionIndex(rep.data() + level, chunk_levels, max_rep, ci == 0, last,
                            &out.rep_index);
    }
    if (has_def) {
      LANCE_ASSIGN_OR_RAISE(
          def_buf,
          def_comp->Compress(def.data() + level, static_cast<int64_t>(chunk_levels)));
    }
    level = level_end;
    LANCE_ASSIGN_OR_RAISE(const size_t bytes,
                          AppendMiniBlockChunk(chunk_levels, rep_buf, def_buf,
                                               chunk.buffers, v22, &out.data));
    LANCE_RETURN_NOT_OK(
        AppendMiniBlockMeta(bytes, chunk.num_values, last, v22, &out.meta));
  }
  if ((has_rep || has_def) && level != num_levels) {
    return Status::Invalid("internal: levels left after the last chunk");
  }
  return out;
}

Result<EncodedPage> StructuralEncoder::MiniBlock(
    const LeafShredder::Page& page, const DataBlock& values, const Field& field,
    const std::optional<DataBlock>& dictionary) {
  LANCE_ASSIGN_OR_RAISE(structural::MiniBlockValues compressed,
                        strategy_->MiniBlock(values, field));
  const auto& rep = page.data.rep;
  const auto& def = page.data.def;
  const bool has_rep = !rep.empty();
  const bool has_def = !def.empty();
  std::unique_ptr<structural::LevelCompressor> rep_comp, def_comp;
  if (has_rep) {
    LANCE_ASSIGN_OR_RAISE(rep_comp, strategy_->Levels(rep));
  }
  if (has_def) {
    LANCE_ASSIGN_OR_RAISE(def_comp, strategy_->Levels(def));
  }
  const size_t nb = compressed.chunks.empty() ? 0 : compressed.chunks[0].buffers.size();
  LANCE_ASSIGN_OR_RAISE(
      MiniBlockChunks chunks,
      LayOutMiniBlockChunks(compressed, page, rep_comp.get(), def_comp.get(), v22_));

  pb21::PageLayout layout;
  auto* mb = layout.mutable_mini_block_layout();
  if (has_rep) *mb->mutable_rep_compression() = rep_comp->encoding();
  if (has_def) *mb->mutable_def_compression() = def_comp->encoding();
  *mb->mutable_value_compression() = compressed.encoding;
  SetLayers(page.layers, mb->mutable_layers());
  mb->set_num_buffers(nb);
  mb->set_num_items(static_cast<uint64_t>(values.num_values));
  if (v22_) mb->set_has_large_chunk(true);
  std::vector<BufferPtr> buffers = {Buffer::FromString(std::move(chunks.meta)),
                                    Buffer::FromString(std::move(chunks.data))};
  if (dictionary) {
    LANCE_ASSIGN_OR_RAISE(structural::CompressedBlock dict,
                          strategy_->DictionaryItems(*dictionary, field));
    *mb->mutable_dictionary() = dict.encoding;
    mb->set_num_dictionary_items(static_cast<uint64_t>(dictionary->num_values));
    buffers.push_back(dict.data);
  }
  if (has_rep) {
    mb->set_repetition_index_depth(1);
    std::string index;
    for (uint64_t v : chunks.rep_index) AppendLE64(&index, v);
    buffers.push_back(Buffer::FromString(std::move(index)));
  }
  return Layout(layout, std::move(buffers), page.rows);
}

Result<EncodedPage> StructuralEncoder::FullZip(const LeafShredder::Page& page,
                                               const DataBlock& values,
                                               const Field& field) {
  LANCE_ASSIGN_OR_RAISE(structural::PerValueValues compressed,
                        strategy_->FullZip(values, field));
  const auto& rep = page.data.rep;
  const auto& def = page.data.def;
  const uint32_t bits_rep = BitsFor(static_cast<uint64_t>(page.levels.max_rep));
  const uint32_t bits_def = rep.empty() && def.empty() ? 0 : BitsFor(page.levels.max_def);
  const uint32_t bits_def_used = def.empty() ? 0 : bits_def;
  const uint32_t total = bits_rep + bits_def_used;
  const size_t cw = total == 0 ? 0 : (total <= 8 ? 1 : (total <= 16 ? 2 : 4));
  const uint16_t max_rep = static_cast<uint16_t>(page.levels.max_rep);
  const uint16_t max_visible = page.levels.max_visible_def;
  const bool fixed = compressed.values.kind == DataBlock::Kind::kFixed;
  const DataBlock& v = compressed.values;
  const size_t value_bytes = fixed ? static_cast<size_t>(v.bits_per_value / 8) : 0;
  const bool wide = !fixed && v.offset_bits == 64;
  auto offset_at = [&](int64_t i) -> uint64_t {
    return wide ? v.offsets->data_as<uint64_t>()[i] : v.offsets->data_as<uint32_t>()[i];
  };
  const int64_t num_levels =
      !rep.empty() ? static_cast<int64_t>(rep.size())
                   : (!def.empty() ? static_cast<int64_t>(def.size()) : page.rows);
  std::string data;
  std::vector<uint64_t> row_starts;
  const bool need_index = !rep.empty() || !fixed;
  int64_t value = 0;
  for (int64_t i = 0; i < num_levels; ++i) {
    const uint16_t r = rep.empty() ? max_rep : rep[i];
    const uint16_t d = def.empty() ? 0 : def[i];
    if (need_index && r == max_rep) row_starts.push_back(data.size());
    if (cw > 0) {
      const uint32_t word =
          (static_cast<uint32_t>(rep.empty() ? 0 : r) << bits_def_used) | d;
      data.append(reinterpret_cast<const char*>(&word), cw);
    }
    if (d > max_visible) continue;
    if (fixed) {
      data.append(reinterpret_cast<const char*>(v.data->data()) + value * value_bytes,
                  value_bytes);
    } else if (d == 0) {
      const uint64_t b = offset_at(value), e = offset_at(value + 1);
      if (wide) {
        AppendLE64(&data, e - b);
      } else {
        AppendLE32(&data, static_cast<uint32_t>(e - b));
      }
      data.append(reinterpret_cast<const char*>(v.data->data()) + b, e - b);
    }
    ++value;
  }
  if (value != v.num_values)
    return Status::Invalid("internal: full-zip value count mismatch");
  pb21::PageLayout layout;
  auto* fz = layout.mutable_full_zip_layout();
  fz->set_bits_rep(bits_rep);
  fz->set_bits_def(bits_def_used);
  if (fixed) {
    fz->set_bits_per_value(static_cast<uint32_t>(v.bits_per_value));
  } else {
    fz->set_bits_per_offset(wide ? 64 : 32);
  }
  fz->set_num_items(static_cast<uint32_t>(num_levels));
  fz->set_num_visible_items(static_cast<uint32_t>(v.num_values));
  *fz->mutable_value_compression() = compressed.encoding;
  SetLayers(page.layers, fz->mutable_layers());
  std::vector<BufferPtr> buffers = {Buffer::FromString(std::move(data))};
  if (need_index) {
    const uint64_t end = buffers[0]->size();
    row_starts.push_back(end);
    const int width =
        end <= 0xFF ? 1 : (end <= 0xFFFF ? 2 : (end <= 0xFFFFFFFFull ? 4 : 8));
    std::string index;
    index.reserve(row_starts.size() * static_cast<size_t>(width));
    for (uint64_t s : row_starts) index.append(reinterpret_cast<const char*>(&s), width);
    buffers.push_back(Buffer::FromString(std::move(index)));
  }
  return Layout(layout, std::move(buffers), page.rows);
}

}  // namespace

Result<std::unique_ptr<FileEncoder>> MakeStructuralEncoder(
    const LanceSchema& schema, const FileWriterOptions& options) {
  auto encoder = std::make_unique<StructuralEncoder>(schema, options);
  LANCE_RETURN_NOT_OK(encoder->Init());
  return std::unique_ptr<FileEncoder>(std::move(encoder));
}

}  // namespace lance::format::internal
