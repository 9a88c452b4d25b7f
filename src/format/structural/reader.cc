// SPDX-License-Identifier: Apache-2.0
// Reading Lance file formats 2.1 and 2.2 (work in progress).

#include "format/reader_internal.h"

namespace lance::format::internal {

namespace {

class StructuralReader : public VersionReader {
 public:
  explicit StructuralReader(std::shared_ptr<const FileContext> context)
      : context_(std::move(context)) {}

  Result<RecordBatchReaderPtr> Read(std::vector<int>, SchemaPtr, int64_t, int64_t,
                                    int64_t) const override {
    return NotYet();
  }
  Result<std::vector<ArrayPtr>> Take(const std::vector<int>&,
                                     const std::vector<int64_t>&) const override {
    return NotYet();
  }

 private:
  Status NotYet() const {
    return Status::NotImplemented("file '" + context_->path + "' is Lance file format " +
                                  std::string(FileVersionString(context_->version)) +
                                  ", which this build cannot read yet");
  }
  std::shared_ptr<const FileContext> context_;
};

}  // namespace

Result<std::shared_ptr<VersionReader>> MakeStructuralReader(
    std::shared_ptr<const FileContext> context) {
  return std::shared_ptr<VersionReader>(std::make_shared<StructuralReader>(std::move(context)));
}

}  // namespace lance::format::internal
