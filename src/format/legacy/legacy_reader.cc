// SPDX-License-Identifier: Apache-2.0
// Legacy (0.1 / 0.2) Lance files: opening (footer, metadata, embedded schema, page table,
// all validated against the file) and the LanceFileReader over them. Decoding of the
// pages lives in legacy_decoder.cc; the layout is described in legacy_file.h.
//
// Open reads at most three ranges beyond the 64 KiB tail the container already holds
// (metadata, embedded manifest, page table), plus two per dictionary field whose values
// lie before the tail; usually none: small files fit in the tail.

#include "format/legacy/legacy_reader.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <unordered_map>
#include <utility>

#include "format/legacy/legacy_file.h"
#include "format/proto/file.pb.h"
#include "format/reader_internal.h"
#include "format/schema_proto.h"
#include "format/v2_container.h"
#include "lance/core/builder.h"
#include "lance/core/compute.h"
#include "lance/core/concatenate.h"
#include "lance/macros.h"

namespace lance::format::legacy {

using internal::CorruptFile;
using internal::InFile;
using internal::RangeInside;

namespace {

/// Metadata blocks (metadata, manifest, page table) larger than this are taken as damage.
constexpr uint64_t kMaxMetadataBytes = uint64_t{256} << 20;

// ---------------------------------------------------------------------------------------
// Open

/// Reads ranges of the file's metadata area, from the tail when it holds them.
class MetadataSource {
 public:
  MetadataSource(const internal::FileContext& context, BufferPtr tail, int64_t tail_start,
                 uint64_t limit)
      : context_(context),
        tail_(std::move(tail)),
        tail_start_(static_cast<uint64_t>(tail_start)),
        limit_(limit) {}

  Result<BufferPtr> Read(uint64_t offset, uint64_t length,
                         const std::string& what) const {
    if (!RangeInside(offset, length, limit_)) {
      return CorruptFile(context_.path, what + " lies outside the file");
    }
    if (length > kMaxMetadataBytes) {
      return CorruptFile(context_.path, what + " is implausibly large (" +
                                            std::to_string(length) + " bytes)");
    }
    if (offset >= tail_start_) {
      return Buffer::Slice(tail_, static_cast<int64_t>(offset - tail_start_),
                           static_cast<int64_t>(length));
    }
    auto result =
        context_.file->ReadAt(static_cast<int64_t>(offset), static_cast<int64_t>(length));
    if (!result.ok()) return InFile(context_.path, result.status());
    if (static_cast<uint64_t>((*result)->size()) != length) {
      return CorruptFile(context_.path, "short read of " + what + " (file truncated?)");
    }
    return std::move(result).MoveValueUnsafe();
  }

  /// A u32 length followed by that many bytes of protobuf.
  Result<BufferPtr> ReadPrefixed(uint64_t offset, const std::string& what) const {
    LANCE_ASSIGN_OR_RAISE(BufferPtr prefix, Read(offset, 4, what + " length"));
    const uint32_t length = LoadLE<uint32_t>(prefix->data());
    return Read(offset + 4, length, what);
  }

 private:
  const internal::FileContext& context_;
  BufferPtr tail_;
  uint64_t tail_start_;
  uint64_t limit_;
};

/// A fixed-width value wider than this (256 MiB) is taken as damage; it also keeps
/// 32-bit width arithmetic on fixed_size_binary / fixed_size_list safe.
constexpr int64_t kMaxValueBits = std::numeric_limits<int32_t>::max();

/// Bits of one value of a fixed-width type; -1 for others. Computed in 64 bits: a
/// fixed_size_binary width read from a damaged file may be anything up to 2^31 - 1.
int64_t ValueBits(const DataType& type) {
  if (type.id() == TypeId::kFixedSizeBinary) return int64_t{8} * type.fixed_size();
  if (type.id() == TypeId::kFixedSizeList) {
    // Nested fixed-size lists are stored flat too; capping each level keeps the product
    // in 64 bits (the caller rejects anything over kMaxValueBits).
    const int64_t item = ValueBits(*type.value_type());
    if (item <= 0) return -1;
    return std::min(item, kMaxValueBits + 1) * type.fixed_size();
  }
  return type.bit_width();
}

/// Builds the decoder's view of a field, consuming its pre-order ids.
Result<LegacyField> BuildField(const FieldPtr& field, const std::vector<int32_t>& ids,
                               size_t* next, const std::string& path) {
  LegacyField node;
  node.field = field;
  node.id = ids[(*next)++];
  const DataType& type = *field->type();
  switch (type.id()) {
    case TypeId::kStruct:
      node.layout = Layout::kStruct;
      break;
    case TypeId::kList:
    case TypeId::kLargeList:
      node.layout = Layout::kList;
      node.width = type.id() == TypeId::kList ? 4 : 8;
      break;
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      node.layout = Layout::kBinary;
      break;
    case TypeId::kNull:
      node.layout = Layout::kNull;
      break;
    case TypeId::kDictionary: {
      // Lance stores dictionary values of these types only (var-binary or plain pages);
      // its writer refuses the others, and its reader too.
      const DataType& values = *type.value_type();
      const TypeId v = values.id();
      const bool binary = v == TypeId::kUtf8 || v == TypeId::kBinary ||
                          v == TypeId::kLargeUtf8 || v == TypeId::kLargeBinary;
      if (!binary && !values.is_integer()) {
        return Status::NotImplemented(
            "Lance file '" + path + "': legacy field '" + field->name() + "' has type " +
            type.ToString() + ": legacy files hold no dictionary values of type " +
            values.ToString());
      }
      node.layout = Layout::kDictionary;
      node.bits = type.index_type()->bit_width();
      break;
    }
    case TypeId::kFixedSizeList: {
      const int64_t item_bits = ValueBits(*type.value_type());
      if (item_bits <= 0) {
        return Status::NotImplemented("Lance file '" + path + "': legacy field '" +
                                      field->name() + "' of type " + type.ToString() +
                                      " has items that are not fixed-width");
      }
      node.layout = Layout::kFixed;
      node.width = type.fixed_size();
      // Both factors are below 2^31 once the item is checked: no overflow.
      node.bits = std::min(item_bits, kMaxValueBits + 1) * type.fixed_size();
      break;
    }
    default:
      if (ValueBits(type) <= 0) {
        return Status::NotImplemented("Lance file '" + path + "': legacy field '" +
                                      field->name() + "' has type " + type.ToString() +
                                      ", which this build cannot read from legacy files");
      }
      node.layout = Layout::kFixed;
      node.bits = ValueBits(type);
      break;
  }
  if (node.bits > kMaxValueBits) {
    return CorruptFile(path, "legacy field '" + field->name() + "' has values of " +
                                 std::to_string(node.bits / 8) +
                                 " bytes each, more than this build accepts");
  }
  if (node.layout == Layout::kStruct || node.layout == Layout::kList) {
    for (const FieldPtr& child : type.fields()) {
      LANCE_ASSIGN_OR_RAISE(LegacyField c, BuildField(child, ids, next, path));
      node.children.push_back(std::move(c));
    }
  }
  return node;
}

/// True when some page says how many values `node` has (structs borrow it from their
/// first child; a struct without fields has none).
bool HasValueCount(const LegacyField& node) {
  if (node.layout != Layout::kStruct) return true;
  return !node.children.empty() && HasValueCount(node.children[0]);
}

/// Checks the page of `node` in `batch` against the `expected` values and the file, then
/// its children's.
Status CheckPages(const LegacyFile& file, const LegacyField& node, int64_t batch,
                  int64_t expected) {
  const std::string& path = file.context.path;
  auto where = [&]() {
    return "field '" + node.field->name() + "' (id " + std::to_string(node.id) +
           ") batch " + std::to_string(batch);
  };
  if (node.layout == Layout::kStruct) {
    for (const LegacyField& child : node.children) {
      LANCE_RETURN_NOT_OK(CheckPages(file, child, batch, expected));
    }
    return Status::OK();
  }
  const LegacyPage page = file.page(node.id, batch);
  const uint64_t values = static_cast<uint64_t>(expected);
  const uint64_t want = node.layout == Layout::kList ? values + 1 : values;
  if (page.length != want) {
    return CorruptFile(path, where() + " has a page of " + std::to_string(page.length) +
                                 " values, expected " + std::to_string(want));
  }
  uint64_t bytes = 0;
  switch (node.layout) {
    case Layout::kFixed:
    case Layout::kDictionary: {
      uint64_t bits = 0;
      if (__builtin_mul_overflow(values, static_cast<uint64_t>(node.bits), &bits)) {
        return CorruptFile(path, where() + " has an implausible page size");
      }
      bytes = bits / 8 + (bits % 8 != 0 ? 1 : 0);
      break;
    }
    case Layout::kBinary:
      bytes = (values + 1) * 8;
      break;
    case Layout::kList:
      bytes = (values + 1) * static_cast<uint64_t>(node.width);
      break;
    case Layout::kStruct:
      break;
    case Layout::kNull:
      // No bytes, so the position means nothing (Lance does not look at it either).
      return Status::OK();
  }
  if (!RangeInside(page.position, bytes, file.data_limit)) {
    return CorruptFile(path, where() + " has a page outside the file");
  }
  if (node.layout == Layout::kList) {
    const LegacyField& item = node.children[0];
    // A list's items are counted by the item field's own page (or its first leaf's).
    const LegacyField* leaf = &item;
    while (leaf->layout == Layout::kStruct) leaf = &leaf->children[0];
    const uint64_t leaf_length = file.page(leaf->id, batch).length;
    if (leaf_length > internal::kMaxRows ||
        (leaf->layout == Layout::kList && leaf_length == 0)) {
      return CorruptFile(path, where() + " has an implausible item count");
    }
    return CheckPages(file, item, batch, file.ValueCount(item, batch));
  }
  return Status::OK();
}

/// Reads the values of every dictionary field in `node`'s subtree from where its
/// `dictionary {offset, length}` in the embedded schema (`protos`, by field id) says they
/// are: `length` values laid out like one page of the value type at `offset` (for
/// var-binary, `offset` is that of the positions). Lance reads them at open too.
Status LoadDictionaries(
    LegacyField* node,
    const std::unordered_map<int32_t, const lance::file::Field*>& protos,
    const MetadataSource& source, const std::string& path) {
  for (LegacyField& child : node->children) {
    LANCE_RETURN_NOT_OK(LoadDictionaries(&child, protos, source, path));
  }
  if (node->layout != Layout::kDictionary) return Status::OK();
  const std::string name =
      "field '" + node->field->name() + "' (id " + std::to_string(node->id) + ")";
  auto proto = protos.find(node->id);
  if (proto == protos.end() || !proto->second->has_dictionary()) {
    return CorruptFile(path, "legacy dictionary " + name +
                                 " does not say where its dictionary values are");
  }
  const lance::file::Dictionary& where = proto->second->dictionary();
  if (where.offset() < 0 || where.length() < 0) {
    return CorruptFile(path, "legacy dictionary " + name +
                                 " has a negative dictionary offset or length");
  }
  const auto offset = static_cast<uint64_t>(where.offset());
  const auto length = static_cast<uint64_t>(where.length());
  const DataTypePtr& type = node->field->type()->value_type();
  const std::string what = "the dictionary of " + name;
  if (type->is_integer()) {
    const auto width = static_cast<uint64_t>(type->byte_width());
    if (length > kMaxMetadataBytes / width) {
      return CorruptFile(
          path, what + " has implausibly many values (" + std::to_string(length) + ")");
    }
    LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, source.Read(offset, length * width, what));
    // Tail slices sit at any address; typed access wants alignment.
    LANCE_ASSIGN_OR_RAISE(BufferPtr values,
                          Buffer::CopyFrom(bytes->data(), bytes->size()));
    node->dictionary = ArrayData::Make(type, static_cast<int64_t>(length),
                                       {nullptr, std::move(values)}, 0);
    return Status::OK();
  }
  // Var-binary (BuildField let nothing else through): length + 1 positions, then the
  // bytes between the first and the last.
  if (length >= kMaxMetadataBytes / 8) {
    return CorruptFile(
        path, what + " has implausibly many values (" + std::to_string(length) + ")");
  }
  LANCE_ASSIGN_OR_RAISE(
      BufferPtr positions,
      source.Read(offset, (length + 1) * 8, "the position table of " + what));
  const uint8_t* p = positions->data();
  for (uint64_t i = 0; i < length; ++i) {
    if (LoadLE<uint64_t>(p + (i + 1) * 8) < LoadLE<uint64_t>(p + i * 8)) {
      return CorruptFile(path, "the positions of " + what + " decrease");
    }
  }
  const uint64_t begin = LoadLE<uint64_t>(p);
  const uint64_t end = LoadLE<uint64_t>(p + length * 8);
  // Read() rejects bytes outside the file and more than kMaxMetadataBytes of them, which
  // also keeps utf8 / binary offsets within 32 bits.
  LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, source.Read(begin, end - begin, what));
  // Lance reads every empty dictionary value as a null (legacy files keep no validity).
  // Under a non-nullable field that fails its own reads ("unmasked nulls"), so there
  // empty values stay empty, as a non-nullable field's plain var-binary values do.
  auto values = MakeBinaryFromPositions(type, static_cast<int64_t>(length), p,
                                        std::move(bytes), node->field->nullable());
  if (!values.ok()) return InFile(path, values.status());
  node->dictionary = std::move(values).MoveValueUnsafe();
  return Status::OK();
}

Status CheckListItems(const LegacyField& node, const std::string& path) {
  if (node.layout == Layout::kList && !HasValueCount(node.children[0])) {
    return Status::NotImplemented("Lance file '" + path + "': legacy field '" +
                                  node.field->name() +
                                  "' is a list of a struct without fields");
  }
  for (const LegacyField& child : node.children) {
    LANCE_RETURN_NOT_OK(CheckListItems(child, path));
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------------------
// Reading

/// A piece of rows [start, start + count) within `batch`.
struct RowPiece {
  int64_t batch;
  int64_t start;
  int64_t count;
};

/// Splits rows [begin, end) by batch.
std::vector<RowPiece> SplitRows(const LegacyFile& file, int64_t begin, int64_t end) {
  std::vector<RowPiece> pieces;
  const auto& offsets = file.batch_offsets;
  // The batch holding `begin`: the last one starting at or before it.
  int64_t b =
      std::upper_bound(offsets.begin(), offsets.end(), begin) - offsets.begin() - 1;
  for (int64_t row = begin; row < end && b < file.num_batches; ++b) {
    const int64_t batch_end = offsets[b + 1];
    if (batch_end <= row) continue;
    const int64_t stop = std::min(end, batch_end);
    pieces.push_back({b, row - offsets[b], stop - row});
    row = stop;
  }
  return pieces;
}

Result<ArrayPtr> EmptyArray(const DataTypePtr& type) {
  LANCE_ASSIGN_OR_RAISE(auto builder, MakeBuilder(type));
  return builder->Finish();
}

/// The columns `fields` (top-level indices) over `pieces`, one array per field.
Result<std::vector<ArrayPtr>> ReadPieces(const LegacyFile& file,
                                         const std::vector<int>& fields,
                                         const std::vector<RowPiece>& pieces) {
  std::vector<PieceRequest> requests;
  requests.reserve(fields.size() * pieces.size());
  for (int f : fields) {
    for (const RowPiece& piece : pieces) {
      requests.push_back({&file.top_level[f], piece.batch, piece.start, piece.count});
    }
  }
  LANCE_ASSIGN_OR_RAISE(std::vector<ArrayDataPtr> data, DecodePieces(file, requests));
  std::vector<ArrayPtr> out;
  size_t next = 0;
  for (int f : fields) {
    std::vector<ArrayPtr> parts;
    for (size_t p = 0; p < pieces.size(); ++p) parts.push_back(MakeArray(data[next++]));
    if (parts.empty()) {
      LANCE_ASSIGN_OR_RAISE(ArrayPtr empty, EmptyArray(file.top_level[f].field->type()));
      out.push_back(std::move(empty));
    } else if (parts.size() == 1) {
      out.push_back(std::move(parts[0]));
    } else {
      auto joined = Concatenate(parts);
      if (!joined.ok()) return InFile(file.context.path, joined.status());
      out.push_back(std::move(joined).MoveValueUnsafe());
    }
  }
  return out;
}

class LegacyStream : public internal::BatchedStream {
 public:
  LegacyStream(std::shared_ptr<const LegacyFile> file, std::vector<int> fields,
               SchemaPtr schema, int64_t begin, int64_t end, int64_t batch_size)
      : BatchedStream(std::move(schema), begin, end, batch_size),
        file_(std::move(file)),
        fields_(std::move(fields)) {}

 protected:
  Result<RecordBatchPtr> ReadRows(int64_t begin, int64_t n) override {
    LANCE_ASSIGN_OR_RAISE(
        auto columns, ReadPieces(*file_, fields_, SplitRows(*file_, begin, begin + n)));
    return RecordBatch::Make(schema_, n, std::move(columns));
  }

 private:
  std::shared_ptr<const LegacyFile> file_;
  std::vector<int> fields_;
};

class LegacyReader : public LanceFileReader {
 public:
  explicit LegacyReader(std::shared_ptr<const LegacyFile> file)
      : file_(std::move(file)) {}

  const LanceSchema& schema() const override { return file_->context.schema; }
  int64_t num_rows() const override { return file_->context.num_rows; }
  LanceFileVersion version() const override { return LanceFileVersion::kLegacy; }
  const std::string& path() const override { return file_->context.path; }

  Result<RecordBatchReaderPtr> Read(const FileReadOptions& options) const override {
    LANCE_ASSIGN_OR_RAISE(int64_t length,
                          internal::ResolveReadLength(path(), options, num_rows()));
    LANCE_ASSIGN_OR_RAISE(auto fields, ResolveFields(options.field_ids));
    return RecordBatchReaderPtr(
        new LegacyStream(file_, std::move(fields.first), std::move(fields.second),
                         options.offset, options.offset + length, options.batch_size));
  }

  Result<RecordBatchPtr> Take(const std::vector<int64_t>& indices,
                              const std::vector<int32_t>& field_ids) const override {
    return internal::TakeRows(
        file_->context, indices, field_ids,
        [this](const std::vector<int>& fields, const std::vector<int64_t>& sorted) {
          return ReadSorted(fields, sorted);
        });
  }

 private:
  Result<std::vector<ArrayPtr>> ReadSorted(const std::vector<int>& fields,
                                           const std::vector<int64_t>& sorted) const {
    // Runs of consecutive rows inside one batch become one piece each; the decoder
    // fetches the pages of all of them in shared, coalesced rounds.
    std::vector<RowPiece> pieces;
    for (int64_t row : sorted) {
      if (!pieces.empty()) {
        RowPiece& last = pieces.back();
        const int64_t last_row =
            file_->batch_offsets[last.batch] + last.start + last.count;
        if (row == last_row && row < file_->batch_offsets[last.batch + 1]) {
          ++last.count;
          continue;
        }
      }
      std::vector<RowPiece> one = SplitRows(*file_, row, row + 1);
      pieces.push_back(one.front());
    }
    return ReadPieces(*file_, fields, pieces);
  }

  Result<std::pair<std::vector<int>, SchemaPtr>> ResolveFields(
      const std::vector<int32_t>& field_ids) const {
    return internal::ResolveTopLevelFields(file_->context, field_ids);
  }

  std::shared_ptr<const LegacyFile> file_;
};

// Batch offsets: 0, then the running row count after each batch.
Status ReadBatchOffsets(const lance::file::Metadata& metadata, const std::string& p,
                        LegacyFile* lf) {
  const auto& offsets = metadata.batch_offsets();
  if (!offsets.empty() && offsets[0] != 0) {
    return CorruptFile(p, "the batch offsets do not start at 0");
  }
  for (int i = 0; i < offsets.size(); ++i) {
    if (i > 0 && offsets[i] < offsets[i - 1]) {
      return CorruptFile(p,
                         "the batch offsets decrease at batch " + std::to_string(i - 1));
    }
    lf->batch_offsets.push_back(offsets[i]);
  }
  if (lf->batch_offsets.empty()) lf->batch_offsets.push_back(0);
  lf->num_batches = static_cast<int64_t>(lf->batch_offsets.size()) - 1;
  lf->context.num_rows = lf->batch_offsets.back();
  return Status::OK();
}

// The schema comes from the manifest embedded in the file ("self-describing" files,
// which is how Lance writes every dataset file). Sets the context's schema and returns
// the schema proto (which, unlike the schema, keeps the dictionary locations).
Result<lance::file::Schema> ReadEmbeddedSchema(const lance::file::Metadata& metadata,
                                               const MetadataSource& source,
                                               internal::FileContext* ctx) {
  const std::string& p = ctx->path;
  if (metadata.manifest_position() == 0) {
    return Status::NotImplemented(
        "Lance file '" + p +
        "' is a legacy file without an embedded schema; it can only be read through "
        "the dataset that lists it");
  }
  LANCE_ASSIGN_OR_RAISE(
      BufferPtr manifest_bytes,
      source.ReadPrefixed(metadata.manifest_position(), "the embedded manifest"));
  // lance.table.Manifest keeps the schema in fields 1 (fields) and 5 (schema_metadata),
  // the same numbers and types as lance.file.Schema: parsing it as a Schema keeps just
  // those.
  lance::file::Schema schema_proto;
  if (!internal::ParseQuietly(&schema_proto, manifest_bytes->data(),
                              static_cast<size_t>(manifest_bytes->size()))) {
    return CorruptFile(p, "the embedded manifest does not parse");
  }
  auto schema = SchemaFromProto(schema_proto);
  if (!schema.ok()) return InFile(p, schema.status());
  ctx->schema = std::move(schema).MoveValueUnsafe();
  return schema_proto;
}

// The page table: one row of num_batches (position, length) pairs per field id from
// the smallest to the largest id of the schema.
Status ReadPageTable(const lance::file::Metadata& metadata, const MetadataSource& source,
                     LegacyFile* lf) {
  const std::string& p = lf->context.path;
  const std::vector<int32_t>& ids = lf->context.schema.field_ids();
  lf->page_table = Buffer::FromString("");
  if (ids.empty() || lf->num_batches <= 0) return Status::OK();
  const auto [min_it, max_it] = std::minmax_element(ids.begin(), ids.end());
  lf->min_field_id = *min_it;
  const auto columns = static_cast<uint64_t>(*max_it - *min_it) + 1;
  const auto batches = static_cast<uint64_t>(lf->num_batches);
  if (columns > lf->data_limit / 16 / batches) {
    return CorruptFile(p, "its page table (" + std::to_string(columns) + " fields x " +
                              std::to_string(batches) + " batches) exceeds the file");
  }
  LANCE_ASSIGN_OR_RAISE(
      lf->page_table, source.Read(metadata.page_table_position(), columns * batches * 16,
                                  "the page table"));
  for (const LegacyField& node : lf->top_level) {
    for (int64_t b = 0; b < lf->num_batches; ++b) {
      LANCE_RETURN_NOT_OK(
          CheckPages(*lf, node, b, lf->batch_offsets[b + 1] - lf->batch_offsets[b]));
    }
  }
  return Status::OK();
}

}  // namespace

Result<std::shared_ptr<LanceFileReader>> OpenLegacyFile(
    std::string path, std::shared_ptr<io::RandomAccessReader> file, bool remote,
    BufferPtr tail, int64_t tail_start) {
  auto lf = std::make_shared<LegacyFile>();
  internal::FileContext& ctx = lf->context;
  ctx.path = std::move(path);
  ctx.file = std::move(file);
  ctx.remote = remote;
  ctx.version = LanceFileVersion::kLegacy;
  const std::string& p = ctx.path;
  const int64_t size = ctx.file->size();
  if (size < kLegacyFooterSize || tail->size() < kLegacyFooterSize) {
    return CorruptFile(p, "too small for a legacy Lance file footer");
  }
  // Footer: i64 metadata position, u16 major, u16 minor, "LANC".
  const uint8_t* footer = tail->data() + tail->size() - kLegacyFooterSize;
  const uint64_t metadata_position = LoadLE<uint64_t>(footer);
  lf->minor_version = LoadLE<uint16_t>(footer + 10);
  lf->data_limit = static_cast<uint64_t>(size - kLegacyFooterSize);
  MetadataSource source(ctx, tail, tail_start, lf->data_limit);

  LANCE_ASSIGN_OR_RAISE(BufferPtr metadata_bytes,
                        source.ReadPrefixed(metadata_position, "the metadata block"));
  lance::file::Metadata metadata;
  if (!internal::ParseQuietly(&metadata, metadata_bytes->data(),
                              static_cast<size_t>(metadata_bytes->size()))) {
    return CorruptFile(p, "the metadata block does not parse");
  }
  LANCE_RETURN_NOT_OK(ReadBatchOffsets(metadata, p, lf.get()));
  LANCE_ASSIGN_OR_RAISE(lance::file::Schema schema_proto,
                        ReadEmbeddedSchema(metadata, source, &ctx));

  const std::vector<int32_t>& ids = ctx.schema.field_ids();
  // The schema keeps no dictionary locations: they come from the protos.
  std::unordered_map<int32_t, const lance::file::Field*> protos;
  for (const lance::file::Field& f : schema_proto.fields()) protos.emplace(f.id(), &f);
  size_t next = 0;
  for (const FieldPtr& f : ctx.schema.schema()->fields()) {
    LANCE_ASSIGN_OR_RAISE(LegacyField node, BuildField(f, ids, &next, p));
    LANCE_RETURN_NOT_OK(CheckListItems(node, p));
    LANCE_RETURN_NOT_OK(LoadDictionaries(&node, protos, source, p));
    lf->top_level.push_back(std::move(node));
  }
  LANCE_RETURN_NOT_OK(ReadPageTable(metadata, source, lf.get()));
  return std::shared_ptr<LanceFileReader>(std::make_shared<LegacyReader>(std::move(lf)));
}

}  // namespace lance::format::legacy
