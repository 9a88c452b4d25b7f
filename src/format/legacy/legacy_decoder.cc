// SPDX-License-Identifier: Apache-2.0
// Decoding pieces of legacy (v0.1 / v0.2) pages.
//
// Every piece becomes a small state machine (a Job) per field. A round asks every
// unfinished job which bytes it needs next, fetches all of them in one coalesced
// FetchRanges call, then lets each job look at what arrived: fixed-width values are done
// after one round; var-binary needs its positions, then the bytes they point at; a list
// needs its offsets, then runs a job for its item field over the items they cover.
// Structs have no bytes of their own and simply carry their children's jobs; null
// fields have none at all. Dictionary indices are fetched like fixed-width values and
// checked against the dictionary read at open.
//
// Every position and offset read from the file is checked before it is used: positions
// must not decrease and must stay inside the file, list offsets must stay inside the
// item field's page of the same batch (whose size was checked at open).

#include <algorithm>
#include <limits>
#include <utility>

#include "format/legacy/legacy_file.h"
#include "format/v2_container.h"
#include "lance/macros.h"

namespace lance::format::legacy {

using internal::CorruptFile;
using internal::RangeRequest;

LegacyPage LegacyFile::page(int32_t field_id, int64_t batch) const {
  const int64_t row = static_cast<int64_t>(field_id - min_field_id) * num_batches + batch;
  const uint8_t* entry = page_table->data() + row * 16;
  return {LoadLE<uint64_t>(entry), LoadLE<uint64_t>(entry + 8)};
}

int64_t LegacyFile::ValueCount(const LegacyField& node, int64_t batch) const {
  const LegacyField* n = &node;
  while (n->layout == Layout::kStruct) n = &n->children[0];
  const auto length = static_cast<int64_t>(page(n->id, batch).length);
  return n->layout == Layout::kList ? length - 1 : length;
}

Result<ArrayDataPtr> MakeBinaryFromPositions(const DataTypePtr& type, int64_t count,
                                             const uint8_t* positions, BufferPtr bytes,
                                             bool empty_is_null) {
  const bool large =
      type->id() == TypeId::kLargeUtf8 || type->id() == TypeId::kLargeBinary;
  const uint64_t base = LoadLE<uint64_t>(positions);
  LANCE_ASSIGN_OR_RAISE(BufferPtr offsets,
                        Buffer::Allocate((count + 1) * (large ? 8 : 4)));
  for (int64_t i = 0; i <= count; ++i) {
    const uint64_t relative = LoadLE<uint64_t>(positions + i * 8) - base;
    if (large) {
      offsets->mutable_data_as<int64_t>()[i] = static_cast<int64_t>(relative);
    } else {
      // The callers checked that the bytes fit 32-bit offsets.
      offsets->mutable_data_as<int32_t>()[i] = static_cast<int32_t>(relative);
    }
  }
  BufferPtr validity;
  int64_t null_count = 0;
  if (empty_is_null) {
    LANCE_ASSIGN_OR_RAISE(validity, Buffer::Allocate(bit_util::BytesForBits(count)));
    for (int64_t i = 0; i < count; ++i) {
      if (LoadLE<uint64_t>(positions + (i + 1) * 8) !=
          LoadLE<uint64_t>(positions + i * 8)) {
        bit_util::SetBit(validity->mutable_data(), i);
      } else {
        ++null_count;
      }
    }
    if (null_count == 0) validity = nullptr;
  }
  return ArrayData::Make(type, count,
                         {std::move(validity), std::move(offsets), std::move(bytes)},
                         null_count);
}

namespace {

struct Job {
  const LegacyField* node = nullptr;
  int64_t batch = 0;
  int64_t start = 0;
  int64_t count = 0;
  /// kFixed, kDictionary: 0 nothing asked, 1 values asked. kNull: always 0.
  /// kBinary: 0, 1 positions asked, 2 positions checked, 3 bytes asked.
  /// kList: 0, 1 offsets asked, 2 item job running.
  int stage = 0;
  /// Set when this round's fetch fills `first` or `second`.
  bool awaiting = false;
  /// Fixed values / binary positions / list offsets.
  BufferPtr first;
  /// Binary bytes.
  BufferPtr second;
  /// kFixed, bit-packed values: the bit of `first` where the piece starts.
  int64_t bit_shift = 0;
  /// Struct members, or the one item job of a list (created once offsets arrived).
  std::vector<Job> children;
};

Job MakeJob(const LegacyField* node, int64_t batch, int64_t start, int64_t count) {
  Job job;
  job.node = node;
  job.batch = batch;
  job.start = start;
  job.count = count;
  if (node->layout == Layout::kStruct) {
    for (const LegacyField& child : node->children) {
      job.children.push_back(MakeJob(&child, batch, start, count));
    }
  }
  return job;
}

class Decoder {
 public:
  explicit Decoder(const LegacyFile& file) : file_(file) {}

  // Asks for bytes [offset, offset + size) into *out; the job waits for them in its next
  // stage.
  static void Fetch(Job* job, uint64_t offset, uint64_t size, BufferPtr* out,
                    std::vector<RangeRequest>* requests) {
    requests->push_back({offset, size, out});
    ++job->stage;
    job->awaiting = true;
  }

  // Asks for the count + 1 positions (of `width` bytes) from slot start on of the job's
  // page.
  void FetchPositions(Job* job, uint64_t width,
                      std::vector<RangeRequest>* requests) const {
    const uint64_t position = file_.page(job->node->id, job->batch).position;
    Fetch(job, position + static_cast<uint64_t>(job->start) * width,
          static_cast<uint64_t>(job->count + 1) * width, &job->first, requests);
  }

  void Plan(Job* job, std::vector<RangeRequest>* requests) const {
    const LegacyField& node = *job->node;
    switch (node.layout) {
      case Layout::kStruct:
        for (Job& child : job->children) Plan(&child, requests);
        return;
      case Layout::kNull:
        return;  // nothing stored
      case Layout::kFixed:
      case Layout::kDictionary: {
        if (job->stage != 0) return;
        const uint64_t position = file_.page(node.id, job->batch).position;
        // Sizes were checked at open: (start + count) * bits fits the page.
        const uint64_t bit_start = static_cast<uint64_t>(job->start) * node.bits;
        const uint64_t bit_end =
            bit_start + static_cast<uint64_t>(job->count) * node.bits;
        const uint64_t byte_start = bit_start / 8;
        const uint64_t byte_end = (bit_end + 7) / 8;
        job->bit_shift = static_cast<int64_t>(bit_start % 8);
        Fetch(job, position + byte_start, byte_end - byte_start, &job->first, requests);
        return;
      }
      case Layout::kBinary:
        if (job->stage == 0) {
          FetchPositions(job, 8, requests);
        } else if (job->stage == 2) {
          const uint64_t begin = LoadLE<uint64_t>(job->first->data());
          const uint64_t end = LoadLE<uint64_t>(job->first->data() + job->count * 8);
          Fetch(job, begin, end - begin, &job->second, requests);
        }
        return;
      case Layout::kList:
        if (job->stage == 0) {
          FetchPositions(job, static_cast<uint64_t>(node.width), requests);
        } else if (job->stage == 2) {
          Plan(&job->children[0], requests);
        }
        return;
    }
  }

  /// Looks at what the last fetch brought.
  Status Advance(Job* job) const {
    const LegacyField& node = *job->node;
    switch (node.layout) {
      case Layout::kStruct:
        for (Job& child : job->children) LANCE_RETURN_NOT_OK(Advance(&child));
        return Status::OK();
      case Layout::kFixed:
      case Layout::kDictionary:
      case Layout::kNull:
        job->awaiting = false;
        return Status::OK();
      case Layout::kBinary:
        if (job->awaiting && job->stage == 1) {
          LANCE_RETURN_NOT_OK(CheckPositions(*job));
          job->stage = 2;
        }
        job->awaiting = false;
        return Status::OK();
      case Layout::kList:
        if (job->awaiting && job->stage == 1) {
          job->awaiting = false;
          LANCE_ASSIGN_OR_RAISE(auto items, CheckOffsets(*job));
          job->children.push_back(
              MakeJob(&node.children[0], job->batch, items.first, items.second));
          job->stage = 2;
          return Status::OK();
        }
        if (job->stage == 2) return Advance(&job->children[0]);
        return Status::OK();
    }
    return Status::OK();
  }

  bool Done(const Job& job) const {
    switch (job.node->layout) {
      case Layout::kStruct:
        return std::all_of(job.children.begin(), job.children.end(),
                           [this](const Job& c) { return Done(c); });
      case Layout::kFixed:
      case Layout::kDictionary:
        return job.stage == 1 && !job.awaiting;
      case Layout::kNull:
        return true;
      case Layout::kBinary:
        return job.stage == 3 && !job.awaiting;
      case Layout::kList:
        return job.stage == 2 && Done(job.children[0]);
    }
    return false;
  }

  Result<ArrayDataPtr> Finish(const Job& job) const {
    const LegacyField& node = *job.node;
    const DataTypePtr& type = node.field->type();
    switch (node.layout) {
      case Layout::kStruct: {
        std::vector<ArrayDataPtr> children;
        for (const Job& child : job.children) {
          LANCE_ASSIGN_OR_RAISE(ArrayDataPtr data, Finish(child));
          children.push_back(std::move(data));
        }
        // Legacy files store no struct validity.
        return ArrayData::Make(type, job.count, {nullptr}, 0, 0, std::move(children));
      }
      case Layout::kFixed:
        return FinishFixed(job);
      case Layout::kDictionary:
        return FinishDictionary(job);
      case Layout::kNull:
        // Arrow's null layout: one buffer slot, always absent; every slot is null.
        return ArrayData::Make(type, job.count, {nullptr}, job.count);
      case Layout::kBinary:
        return FinishBinary(job);
      case Layout::kList:
        return FinishList(job);
    }
    return Status::NotImplemented("internal: unknown legacy layout");
  }

 private:
  std::string Where(const Job& job) const {
    return "field '" + job.node->field->name() + "' (id " + std::to_string(job.node->id) +
           ") batch " + std::to_string(job.batch);
  }

  Status CheckPositions(const Job& job) const {
    const uint8_t* p = job.first->data();
    uint64_t previous = LoadLE<uint64_t>(p);
    for (int64_t i = 1; i <= job.count; ++i) {
      const uint64_t next = LoadLE<uint64_t>(p + i * 8);
      if (next < previous) {
        return CorruptFile(file_.context.path,
                           Where(job) + " has decreasing value positions");
      }
      previous = next;
    }
    // Positions are i64; a negative one reads as a huge u64 and fails here too.
    if (previous > file_.data_limit) {
      return CorruptFile(file_.context.path,
                         Where(job) + " has value positions outside the file");
    }
    const uint64_t bytes = previous - LoadLE<uint64_t>(p);
    const TypeId id = job.node->field->type()->id();
    if ((id == TypeId::kUtf8 || id == TypeId::kBinary) &&
        bytes > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
      return Status::Invalid("Lance file '", file_.context.path, "': ", Where(job),
                             " holds ", bytes,
                             " bytes in the requested rows, more than 32-bit offsets "
                             "allow; read with a smaller batch_size");
    }
    return Status::OK();
  }

  /// The item range [first, first + count) the list rows cover.
  Result<std::pair<int64_t, int64_t>> CheckOffsets(const Job& job) const {
    const uint8_t* p = job.first->data();
    const bool large = job.node->width == 8;
    auto load = [&](int64_t i) -> int64_t {
      return large ? LoadLE<int64_t>(p + i * 8) : LoadLE<int32_t>(p + i * 4);
    };
    const int64_t items = file_.ValueCount(job.node->children[0], job.batch);
    int64_t previous = load(0);
    if (previous < 0) {
      return CorruptFile(file_.context.path, Where(job) + " has a negative list offset");
    }
    for (int64_t i = 1; i <= job.count; ++i) {
      const int64_t next = load(i);
      if (next < previous) {
        return CorruptFile(file_.context.path,
                           Where(job) + " has decreasing list offsets");
      }
      previous = next;
    }
    if (previous > items) {
      return CorruptFile(file_.context.path, Where(job) + " has list offsets past its " +
                                                 std::to_string(items) + " items");
    }
    const int64_t first = load(0);
    return std::make_pair(first, previous - first);
  }

  /// The fetched fixed-width values of a kFixed or kDictionary job, aligned and starting
  /// at bit 0.
  static Result<BufferPtr> FixedValues(const Job& job) {
    const int64_t bits = job.count * job.node->bits;
    if (job.bit_shift == 0 && bits % 8 == 0 &&
        reinterpret_cast<uintptr_t>(job.first->data()) % kBufferAlignment == 0) {
      return job.first;
    }
    if (job.bit_shift == 0 && bits % 8 == 0) {
      // Coalesced reads hand out slices at any address; typed access wants alignment.
      return Buffer::CopyFrom(job.first->data(), bits / 8);
    }
    LANCE_ASSIGN_OR_RAISE(BufferPtr values,
                          Buffer::Allocate(bit_util::BytesForBits(bits)));
    bit_util::CopyBits(job.first->data(), job.bit_shift, bits, values->mutable_data(), 0);
    return values;
  }

  Result<ArrayDataPtr> FinishFixed(const Job& job) const {
    LANCE_ASSIGN_OR_RAISE(BufferPtr values, FixedValues(job));
    return WrapFlat(job.node->field->type(), job.count, std::move(values));
  }

  Result<ArrayDataPtr> FinishDictionary(const Job& job) const {
    const LegacyField& node = *job.node;
    const DataTypePtr& type = node.field->type();
    LANCE_ASSIGN_OR_RAISE(BufferPtr values, FixedValues(job));
    // The page is Arrow's index buffer as it was, without its validity: a null row kept
    // whatever index Arrow had under it (0 for every array pyarrow builds), so it reads
    // as that dictionary value, exactly as Lance reads it. Nothing in the file tells such
    // a row from a real index 0; the only nulls are those of the dictionary values.
    ArrayDataPtr indices =
        ArrayData::Make(type->index_type(), job.count, {nullptr, values}, 0);
    const int64_t size = node.dictionary->length;
    for (int64_t i = 0; i < job.count; ++i) {
      // Unsigned indices past INT64_MAX read as -1: out of range too.
      const int64_t index = IntegerValueAt(*indices, i);
      if (index < 0 || index >= size) {
        // Lance writes the dictionary of the first batch it sees into every file of a
        // write; batches that came with other dictionaries leave indices that do not fit
        // it (Lance fails on them the same way).
        return CorruptFile(file_.context.path,
                           Where(job) + " row " + std::to_string(job.start + i) +
                               " has dictionary index " + std::to_string(index) +
                               ", outside its " + std::to_string(size) +
                               " dictionary values");
      }
    }
    return ArrayData::Make(type, job.count, {nullptr, std::move(values)}, 0, 0, {},
                           node.dictionary);
  }

  /// `count` values of `type` over flat `values`: fixed-size lists (nested to any depth)
  /// are their items back to back, without validity.
  static ArrayDataPtr WrapFlat(const DataTypePtr& type, int64_t count, BufferPtr values) {
    if (type->id() != TypeId::kFixedSizeList) {
      return ArrayData::Make(type, count, {nullptr, std::move(values)}, 0);
    }
    ArrayDataPtr items =
        WrapFlat(type->value_type(), count * type->fixed_size(), std::move(values));
    return ArrayData::Make(type, count, {nullptr}, 0, 0, {std::move(items)});
  }

  Result<ArrayDataPtr> FinishBinary(const Job& job) const {
    const LegacyField& node = *job.node;
    // Lance's legacy reader turns every empty value of a nullable field into a null.
    return MakeBinaryFromPositions(node.field->type(), job.count, job.first->data(),
                                   job.second, node.field->nullable());
  }

  Result<ArrayDataPtr> FinishList(const Job& job) const {
    const LegacyField& node = *job.node;
    LANCE_ASSIGN_OR_RAISE(ArrayDataPtr items, Finish(job.children[0]));
    const uint8_t* p = job.first->data();
    LANCE_ASSIGN_OR_RAISE(BufferPtr offsets,
                          Buffer::Allocate((job.count + 1) * node.width));
    if (node.width == 8) {
      const int64_t base = LoadLE<int64_t>(p);
      for (int64_t i = 0; i <= job.count; ++i) {
        offsets->mutable_data_as<int64_t>()[i] = LoadLE<int64_t>(p + i * 8) - base;
      }
    } else {
      const int32_t base = LoadLE<int32_t>(p);
      for (int64_t i = 0; i <= job.count; ++i) {
        offsets->mutable_data_as<int32_t>()[i] = LoadLE<int32_t>(p + i * 4) - base;
      }
    }
    return ArrayData::Make(node.field->type(), job.count, {nullptr, std::move(offsets)},
                           0, 0, {std::move(items)});
  }

  const LegacyFile& file_;
};

}  // namespace

Result<std::vector<ArrayDataPtr>> DecodePieces(const LegacyFile& file,
                                               const std::vector<PieceRequest>& pieces) {
  Decoder decoder(file);
  std::vector<Job> jobs;
  jobs.reserve(pieces.size());
  for (const PieceRequest& piece : pieces) {
    jobs.push_back(MakeJob(piece.node, piece.batch, piece.start, piece.count));
  }
  // Each round moves every unfinished job at least one stage; nesting is bounded
  // (kMaxNestingDepth), so this ends.
  while (true) {
    std::vector<RangeRequest> requests;
    for (Job& job : jobs) decoder.Plan(&job, &requests);
    if (requests.empty()) break;
    LANCE_RETURN_NOT_OK(internal::FetchRanges(file.context, std::move(requests)));
    for (Job& job : jobs) LANCE_RETURN_NOT_OK(decoder.Advance(&job));
  }
  std::vector<ArrayDataPtr> out;
  out.reserve(jobs.size());
  for (const Job& job : jobs) {
    if (!decoder.Done(job)) {
      return Status::Invalid("internal: a legacy page job of Lance file '",
                             file.context.path, "' did not finish");
    }
    LANCE_ASSIGN_OR_RAISE(ArrayDataPtr data, decoder.Finish(job));
    out.push_back(std::move(data));
  }
  return out;
}

}  // namespace lance::format::legacy
