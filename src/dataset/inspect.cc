// SPDX-License-Identifier: Apache-2.0
// Read-only inspection of a dataset version: Head, Sample, TakeRowAddresses, data
// statistics (bytes on disk per field), dataset statistics, max_field_id, index summaries
// and Validate. Their option and result types are in lance/dataset/statistics.h.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "dataset/dataset_internal.h"
#include "dataset/fragment_reader.h"
#include "lance/dataset/dataset.h"
#include "lance/macros.h"
#include "table/deletion.h"
#include "table/manifest.h"
#include "table/roaring.h"

namespace lance {
namespace {

namespace ti = table_internal;
namespace pb = table_internal::pb;

// -- a minimal protobuf wire reader ----------------------------------------------------
// The dataset layer may not include format's generated headers, and only a few fields of
// ColumnMetadata (file2.proto) and IndexSection (table.proto) are needed here, so they
// are read straight from the wire format.

enum class Wire : uint8_t { kVarint = 0, kFixed64 = 1, kBytes = 2, kFixed32 = 5 };

class WireReader {
 public:
  WireReader(std::string_view bytes, const std::string& what)
      : rest_(bytes), what_(what) {}

  bool done() const { return rest_.empty(); }

  Result<uint64_t> Varint() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (rest_.empty()) return Truncated();
      const auto byte = static_cast<uint8_t>(rest_.front());
      rest_.remove_prefix(1);
      value |= static_cast<uint64_t>(byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    return Status::Corrupt(what_, ": a varint longer than 10 bytes");
  }

  Result<std::string_view> Bytes() {
    LANCE_ASSIGN_OR_RAISE(uint64_t length, Varint());
    if (length > rest_.size()) return Truncated();
    std::string_view out = rest_.substr(0, length);
    rest_.remove_prefix(length);
    return out;
  }

  /// \brief Calls `fn(payload)` for every length-delimited occurrence of `field`,
  /// skipping all else: the walk each reader of a repeated message field here needs.
  template <typename Fn>
  Status ForEachBytes(uint64_t field, Fn&& fn) {
    while (!done()) {
      LANCE_ASSIGN_OR_RAISE(auto tag, Tag());
      if (tag.first != field || tag.second != Wire::kBytes) {
        LANCE_RETURN_NOT_OK(Skip(tag.second));
        continue;
      }
      LANCE_ASSIGN_OR_RAISE(std::string_view payload, Bytes());
      LANCE_RETURN_NOT_OK(fn(payload));
    }
    return Status::OK();
  }

  /// \brief The next (field number, wire type).
  Result<std::pair<uint64_t, Wire>> Tag() {
    LANCE_ASSIGN_OR_RAISE(uint64_t tag, Varint());
    const uint64_t type = tag & 7;
    if (type != 0 && type != 1 && type != 2 && type != 5) {
      return Status::Corrupt(what_, ": unsupported protobuf wire type ", type);
    }
    return std::make_pair(tag >> 3, static_cast<Wire>(type));
  }

  Status Skip(Wire type) {
    switch (type) {
      case Wire::kVarint:
        return Varint().status();
      case Wire::kBytes:
        return Bytes().status();
      case Wire::kFixed64:
        return Advance(8);
      case Wire::kFixed32:
        return Advance(4);
    }
    return Status::OK();
  }

  /// \brief A repeated varint field: packed (one length-delimited run) or not (one
  /// varint per tag); appends to `out`.
  Status RepeatedVarint(Wire type, std::vector<uint64_t>* out) {
    if (type == Wire::kVarint) {
      LANCE_ASSIGN_OR_RAISE(uint64_t v, Varint());
      out->push_back(v);
      return Status::OK();
    }
    if (type != Wire::kBytes) {
      return Status::Corrupt(what_, ": a repeated integer with wire type ",
                             static_cast<int>(type));
    }
    LANCE_ASSIGN_OR_RAISE(std::string_view packed, Bytes());
    WireReader inner(packed, what_);
    while (!inner.done()) {
      LANCE_ASSIGN_OR_RAISE(uint64_t v, inner.Varint());
      out->push_back(v);
    }
    return Status::OK();
  }

 private:
  Status Truncated() const {
    return Status::Corrupt(what_, ": truncated protobuf message");
  }
  Status Advance(size_t n) {
    if (n > rest_.size()) return Truncated();
    rest_.remove_prefix(n);
    return Status::OK();
  }

  std::string_view rest_;
  const std::string& what_;
};

// ColumnMetadata { repeated Page pages = 2; } Page { repeated uint64 buffer_sizes = 2; }:
// the bytes of every page buffer of one column (what Lance's `file_statistics` sums;
// column-level buffers are not counted).
Result<uint64_t> ColumnPageBytes(std::string_view column_metadata,
                                 const std::string& what) {
  uint64_t total = 0;
  WireReader column(column_metadata, what);
  LANCE_RETURN_NOT_OK(column.ForEachBytes(2, [&](std::string_view page_bytes) -> Status {
    WireReader page(page_bytes, what);
    std::vector<uint64_t> sizes;
    while (!page.done()) {
      LANCE_ASSIGN_OR_RAISE(auto page_tag, page.Tag());
      if (page_tag.first == 2) {
        LANCE_RETURN_NOT_OK(page.RepeatedVarint(page_tag.second, &sizes));
      } else {
        LANCE_RETURN_NOT_OK(page.Skip(page_tag.second));
      }
    }
    for (uint64_t size : sizes) total += size;
    return Status::OK();
  }));
  return total;
}

template <typename T>
T LoadLittleEndian(const uint8_t* p) {
  // Lance files are little endian, as every platform this library builds for.
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

// Reads [offset, offset + length) of `file`, all of it.
Result<BufferPtr> ReadFully(io::RandomAccessReader& file, int64_t offset, int64_t length,
                            const std::string& what) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, file.ReadAt(offset, length));
  if (bytes->size() != length) {
    return Status::Corrupt(what, ": short read of ", length, " bytes at offset ", offset);
  }
  return bytes;
}

// Page bytes per column of one v2.x data file (empty for a legacy 0.1/0.2 file, which
// Lance's statistics skip). Reads the footer, the column metadata offsets and the column
// metadata: the file's tail, in one or two reads.
Result<std::vector<uint64_t>> ColumnBytesOfFile(const DatasetImpl& ds,
                                                const pb::DataFile& file) {
  constexpr int64_t kFooterSize = 40;
  constexpr int64_t kTailRead = 64 * 1024;
  const std::string key = ds.dir.Key("data/" + file.path());
  const std::string what = "DataStats: data file " + ds.dir.store()->DisplayPath(key);
  Result<std::shared_ptr<io::RandomAccessReader>> opened =
      file.file_size_bytes() > 0 &&
              file.file_size_bytes() <= static_cast<uint64_t>(INT64_MAX)
          ? ds.dir.store()->OpenReaderWithSize(
                key, static_cast<int64_t>(file.file_size_bytes()))
          : ds.dir.store()->OpenReader(key);
  if (!opened.ok()) {
    return opened.status().WithContext("reading data statistics of " +
                                       ds.dir.store()->DisplayPath(key));
  }
  io::RandomAccessReader& reader = **opened;
  const int64_t size = reader.size();
  if (size < 16) return Status::Corrupt(what, ": only ", size, " bytes");
  const int64_t tail_start = std::max<int64_t>(0, size - kTailRead);
  LANCE_ASSIGN_OR_RAISE(BufferPtr tail,
                        ReadFully(reader, tail_start, size - tail_start, what));
  const uint8_t* end = tail->data() + tail->size();
  if (std::memcmp(end - 4, "LANC", 4) != 0) {
    return Status::Corrupt(what, ": no Lance magic at the end of the file");
  }
  const auto major = LoadLittleEndian<uint16_t>(end - 8);
  const auto minor = LoadLittleEndian<uint16_t>(end - 6);
  if (major == 0 && (minor == 1 || minor == 2)) return std::vector<uint64_t>{};
  if (size < kFooterSize) return Status::Corrupt(what, ": only ", size, " bytes");
  const uint8_t* footer = end - kFooterSize;
  const auto column_meta_start = LoadLittleEndian<uint64_t>(footer);
  const auto cmo_start = LoadLittleEndian<uint64_t>(footer + 8);
  const auto num_columns = LoadLittleEndian<uint32_t>(footer + 28);
  const auto limit = static_cast<uint64_t>(size - kFooterSize);
  if (column_meta_start > cmo_start || cmo_start > limit ||
      static_cast<uint64_t>(num_columns) * 16 > limit - cmo_start) {
    return Status::Corrupt(what, ": column metadata [", column_meta_start, ", ",
                           cmo_start, ") and ", num_columns, " offsets do not fit in ",
                           size, " bytes");
  }
  // The region from the first column metadata to the end of the offsets table.
  const auto region_start = static_cast<int64_t>(column_meta_start);
  const int64_t region_end = static_cast<int64_t>(cmo_start) + int64_t{num_columns} * 16;
  BufferPtr region_holder;
  const uint8_t* region = nullptr;
  if (region_start >= tail_start) {
    region = tail->data() + (region_start - tail_start);
  } else {
    LANCE_ASSIGN_OR_RAISE(
        region_holder, ReadFully(reader, region_start, region_end - region_start, what));
    region = region_holder->data();
  }
  const uint8_t* cmo = region + (static_cast<int64_t>(cmo_start) - region_start);
  std::vector<uint64_t> out;
  out.reserve(num_columns);
  for (uint32_t c = 0; c < num_columns; ++c) {
    const auto pos = LoadLittleEndian<uint64_t>(cmo + size_t{c} * 16);
    const auto len = LoadLittleEndian<uint64_t>(cmo + size_t{c} * 16 + 8);
    if (pos < column_meta_start || pos > cmo_start || len > cmo_start - pos) {
      return Status::Corrupt(what, ": metadata of column ", c, " at [", pos, ", +", len,
                             ") lies outside [", column_meta_start, ", ", cmo_start, ")");
    }
    const std::string column_what = what + " column " + std::to_string(c);
    LANCE_ASSIGN_OR_RAISE(
        uint64_t bytes,
        ColumnPageBytes(std::string_view(reinterpret_cast<const char*>(region) +
                                             (static_cast<int64_t>(pos) - region_start),
                                         len),
                        column_what));
    out.push_back(bytes);
  }
  return out;
}

std::string UuidText(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (bytes.size() == 16 && (i == 4 || i == 6 || i == 8 || i == 10)) out += '-';
    const auto b = static_cast<uint8_t>(bytes[i]);
    out += kHex[b >> 4];
    out += kHex[b & 0xF];
  }
  return out;
}

// IndexMetadata { UUID uuid = 1; repeated int32 fields = 2; string name = 3;
// uint64 dataset_version = 4; bytes fragment_bitmap = 5; Any index_details = 6; ... }.
Result<IndexSummary> ParseIndexMetadata(std::string_view bytes, const std::string& what) {
  IndexSummary out;
  WireReader r(bytes, what);
  while (!r.done()) {
    LANCE_ASSIGN_OR_RAISE(auto tag, r.Tag());
    const auto [number, type] = tag;
    if (number == 2) {
      std::vector<uint64_t> ids;
      LANCE_RETURN_NOT_OK(r.RepeatedVarint(type, &ids));
      for (uint64_t id : ids) out.fields.push_back(static_cast<int32_t>(id));
    } else if (number == 4 && type == Wire::kVarint) {
      LANCE_ASSIGN_OR_RAISE(out.dataset_version, r.Varint());
    } else if ((number == 1 || number == 3 || number == 5 || number == 6) &&
               type == Wire::kBytes) {
      LANCE_ASSIGN_OR_RAISE(std::string_view value, r.Bytes());
      if (number == 3) {
        out.name.assign(value);
      } else if (number == 5) {
        LANCE_ASSIGN_OR_RAISE(
            std::vector<uint32_t> ids,
            ti::DeserializeRoaring(value, uint64_t{1} << 32, what + " fragment bitmap"));
        out.fragment_ids = std::move(ids);
      } else {
        // UUID { bytes uuid = 1; } and Any { string type_url = 1; bytes value = 2; }.
        WireReader inner(value, what);
        const bool is_uuid = number == 1;  // a structured binding cannot be captured
        LANCE_RETURN_NOT_OK(inner.ForEachBytes(1, [&](std::string_view v) -> Status {
          if (is_uuid) {
            out.uuid = UuidText(v);
          } else {
            out.details_type_url.assign(v);
          }
          return Status::OK();
        }));
      }
    } else {
      LANCE_RETURN_NOT_OK(r.Skip(type));
    }
  }
  return out;
}

// Dotted path of every field of `schema`, by id (the ids pair with a pre-order walk).
void CollectPaths(const FieldPtr& field, const std::string& prefix,
                  const std::vector<int32_t>& ids, size_t* next,
                  std::map<int32_t, std::string>* out) {
  const std::string path = prefix.empty() ? field->name() : prefix + "." + field->name();
  if (*next < ids.size()) (*out)[ids[(*next)++]] = path;
  for (const FieldPtr& child : field->type()->fields()) {
    CollectPaths(child, path, ids, next, out);
  }
}

}  // namespace

Result<TablePtr> Dataset::Head(int64_t num_rows, ScanOptions options) const {
  if (num_rows < 0) {
    return Status::Invalid("Head: num_rows must not be negative, got ", num_rows);
  }
  options.limit = num_rows;
  return ToTable(options);
}

Result<TablePtr> Dataset::Sample(int64_t num_rows, const SampleOptions& options) const {
  LANCE_ASSIGN_OR_RAISE(int64_t total, CountRows());
  if (num_rows < 0 || num_rows > total) {
    return Status::Invalid("Sample: cannot choose ", num_rows, " of the ", total,
                           " rows of dataset ", impl_->uri);
  }
  std::mt19937_64 rng(options.seed ? *options.seed : std::random_device{}());
  // Floyd's algorithm: num_rows distinct positions, then shuffled (it draws them in a
  // biased order).
  std::unordered_set<int64_t> chosen;
  std::vector<int64_t> indices;
  indices.reserve(static_cast<size_t>(num_rows));
  for (int64_t j = total - num_rows; j < total; ++j) {
    const int64_t t = std::uniform_int_distribution<int64_t>(0, j)(rng);
    const int64_t pick = chosen.insert(t).second ? t : j;
    if (pick == j) chosen.insert(j);
    indices.push_back(pick);
  }
  if (options.randomize_order) {
    std::shuffle(indices.begin(), indices.end(), rng);
  } else {
    std::sort(indices.begin(), indices.end());
  }
  TakeOptions take;
  take.columns = options.columns;
  return Take(indices, take);
}

Result<TablePtr> Dataset::TakeRowAddresses(const std::vector<uint64_t>& row_addresses,
                                           const TakeOptions& options) const {
  struct FragmentRows {
    const pb::DataFragment* fragment = nullptr;
    int64_t start = 0;  // live rows before this fragment
    int64_t physical = 0;
    bool loaded = false;
    ti::DeletionVector deleted;
  };
  std::map<uint64_t, FragmentRows> by_id;
  int64_t start = 0;
  for (const pb::DataFragment& fragment : impl_->proto().fragments()) {
    FragmentRows rows;
    rows.fragment = &fragment;
    rows.start = start;
    LANCE_ASSIGN_OR_RAISE(rows.physical, ti::FragmentPhysicalRows(*impl_, fragment));
    LANCE_ASSIGN_OR_RAISE(int64_t live, ti::FragmentLiveRows(*impl_, fragment));
    start += live;
    by_id.emplace(fragment.id(), std::move(rows));
  }
  std::vector<int64_t> positions;
  positions.reserve(row_addresses.size());
  for (uint64_t address : row_addresses) {
    const uint64_t fragment_id = address >> 32;
    const auto offset = static_cast<int64_t>(address & 0xFFFFFFFFULL);
    auto it = by_id.find(fragment_id);
    if (it == by_id.end()) {
      return Status::Invalid("TakeRowAddresses: row address ", address,
                             " names fragment ", fragment_id, ", which version ",
                             version(), " of dataset ", impl_->uri, " does not have");
    }
    FragmentRows& rows = it->second;
    if (offset >= rows.physical) {
      return Status::Invalid("TakeRowAddresses: row address ", address, " names row ",
                             offset, " of fragment ", fragment_id, ", which has ",
                             rows.physical, " rows, in dataset ", impl_->uri);
    }
    if (!rows.loaded) {
      LANCE_ASSIGN_OR_RAISE(rows.deleted, ti::LoadDeletions(*impl_, *rows.fragment));
      rows.loaded = true;
    }
    const auto before = std::lower_bound(rows.deleted.begin(), rows.deleted.end(),
                                         static_cast<uint32_t>(offset));
    if (before != rows.deleted.end() && *before == static_cast<uint32_t>(offset))
      continue;
    positions.push_back(rows.start + offset - (before - rows.deleted.begin()));
  }
  return Take(positions, options);
}

Result<DataStatistics> Dataset::DataStats() const {
  const std::vector<int32_t>& ids = impl_->schema.field_ids();
  std::map<int32_t, uint64_t> bytes;
  for (int32_t id : ids) bytes[id] = 0;
  // Lance skips datasets of legacy files altogether, and legacy files in mixed ones.
  if (impl_->data_storage_version != "0.1") {
    for (const pb::DataFragment& fragment : impl_->proto().fragments()) {
      for (const pb::DataFile& file : fragment.files()) {
        if (file.file_major_version() == 0 && file.file_minor_version() < 3) continue;
        // Lance opens only the files holding a field of the schema.
        const bool relevant = std::any_of(file.fields().begin(), file.fields().end(),
                                          [&](int32_t f) { return bytes.count(f) > 0; });
        if (!relevant) continue;
        LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> columns,
                              ColumnBytesOfFile(*impl_, file));
        std::map<int64_t, int32_t> field_of_column;
        const int n = std::min(file.fields_size(), file.column_indices_size());
        for (int i = 0; i < n; ++i) {
          if (file.column_indices(i) >= 0) {
            field_of_column[file.column_indices(i)] = file.fields(i);
          }
        }
        // As Lance: a column no field maps to continues the field before it (a field
        // spanning several columns); counting starts at field 0.
        int32_t current = 0;
        for (size_t c = 0; c < columns.size(); ++c) {
          auto mapped = field_of_column.find(static_cast<int64_t>(c));
          if (mapped != field_of_column.end()) current = mapped->second;
          auto slot = bytes.find(current);
          if (slot != bytes.end()) slot->second += columns[c];
        }
      }
    }
  }
  DataStatistics out;
  out.fields.reserve(ids.size());
  for (int32_t id : ids) out.fields.push_back(FieldStatistics{id, bytes[id]});
  return out;
}

Result<DatasetStatistics> Dataset::Stats(int64_t max_rows_per_group) const {
  DatasetStatistics out;
  for (const pb::DataFragment& fragment : impl_->proto().fragments()) {
    LANCE_ASSIGN_OR_RAISE(int64_t physical, ti::FragmentPhysicalRows(*impl_, fragment));
    LANCE_ASSIGN_OR_RAISE(int64_t live, ti::FragmentLiveRows(*impl_, fragment));
    out.num_deleted_rows += static_cast<uint64_t>(physical - live);
    ++out.num_fragments;
    if (physical < max_rows_per_group) ++out.num_small_files;
  }
  return out;
}

int32_t Dataset::max_field_id() const {
  int32_t out = impl_->schema.max_field_id();
  for (const pb::DataFragment& fragment : impl_->proto().fragments()) {
    for (const pb::DataFile& file : fragment.files()) {
      for (int32_t id : file.fields()) out = std::max(out, id);
    }
  }
  return out;
}

Result<std::vector<IndexSummary>> Dataset::Indices() const {
  std::vector<IndexSummary> out;
  const std::string what = "Index section of manifest " + impl_->manifest_uri();
  WireReader section(impl_->manifest.index_section, what);
  LANCE_RETURN_NOT_OK(section.ForEachBytes(1, [&](std::string_view bytes) -> Status {
    LANCE_ASSIGN_OR_RAISE(IndexSummary summary, ParseIndexMetadata(bytes, what));
    out.push_back(std::move(summary));
    return Status::OK();
  }));
  if (!out.empty()) {
    std::map<int32_t, std::string> paths;
    size_t next = 0;
    const SchemaPtr& schema = impl_->schema.schema();
    for (int i = 0; i < schema->num_fields(); ++i) {
      CollectPaths(schema->field(i), "", impl_->schema.field_ids(), &next, &paths);
    }
    for (IndexSummary& index : out) {
      for (int32_t id : index.fields) {
        auto it = paths.find(id);
        index.field_names.push_back(it != paths.end() ? it->second : std::to_string(id));
      }
    }
  }
  return out;
}

Status Dataset::Validate(std::optional<uint64_t> fragment_id) const {
  const auto& fragments = impl_->proto().fragments();
  bool found = !fragment_id.has_value();
  for (int i = 0; i < fragments.size(); ++i) {
    const pb::DataFragment& fragment = fragments[i];
    if (i > 0 && fragment.id() <= fragments[i - 1].id()) {
      return Status::Corrupt("Manifest ", impl_->manifest_uri(), ": fragment id ",
                             fragment.id(), " follows ", fragments[i - 1].id(),
                             " (ids must be unique and ascending)");
    }
    if (fragment_id && fragment.id() != *fragment_id) continue;
    found = true;
    LANCE_ASSIGN_OR_RAISE(int64_t rows, ti::FragmentPhysicalRows(*impl_, fragment));
    for (const pb::DataFile& file : fragment.files()) {
      LANCE_ASSIGN_OR_RAISE(auto reader, ti::OpenDataFile(*impl_, fragment, file));
      if (reader->num_rows() != rows) {
        return Status::Corrupt("Data file ", reader->path(), " of fragment ",
                               fragment.id(), " holds ", reader->num_rows(),
                               " rows, the manifest says ", rows);
      }
    }
    LANCE_RETURN_NOT_OK(ti::LoadDeletions(*impl_, fragment).status());
  }
  if (!found) {
    return Status::NotFound("Validate: no fragment ", *fragment_id, " in version ",
                            version(), " of dataset ", impl_->uri);
  }
  LANCE_ASSIGN_OR_RAISE(std::vector<IndexSummary> indices, Indices());
  std::set<std::string> uuids;
  for (const IndexSummary& index : indices) {
    if (!uuids.insert(index.uuid).second) {
      return Status::Corrupt("Manifest ", impl_->manifest_uri(), ": index UUID ",
                             index.uuid, " appears twice");
    }
  }
  return Status::OK();
}

}  // namespace lance
