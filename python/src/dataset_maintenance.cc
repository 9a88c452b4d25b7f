// SPDX-License-Identifier: Apache-2.0
// Bindings of the Dataset maintenance operations (python/lance_cpp/_maintenance.py wraps
// them): compaction, cleanup, restore, tags, checkout by tag / timestamp, config and
// schema / field metadata.
#include <pybind11/stl.h>

#include "bindings.h"
#include "gil.h"
#include "lance/dataset/dataset.h"

namespace lance::python {

namespace {

using DatasetPtr = std::shared_ptr<Dataset>;
using StrMap = std::map<std::string, std::string>;

py::dict TagToDict(const TagInfo& t) {
  py::dict d;
  d["version"] = t.version;
  d["branch"] = t.branch ? py::object(py::str(*t.branch)) : py::object(py::none());
  d["manifest_size"] = t.manifest_size;
  d["created_at"] = t.created_at;
  d["updated_at"] = t.updated_at;
  d["metadata"] = t.metadata;
  return d;
}

}  // namespace

void BindMaintenance(py::module_& m) {
  m.def(
      "_compact_files",
      [](Dataset& ds, int64_t target_rows_per_fragment, int64_t max_rows_per_group,
         bool materialize_deletions, double materialize_deletions_threshold,
         std::optional<int64_t> num_threads, std::optional<int64_t> batch_size) {
        CompactionOptions o;
        o.target_rows_per_fragment = target_rows_per_fragment;
        o.max_rows_per_group = max_rows_per_group;
        o.materialize_deletions = materialize_deletions;
        o.materialize_deletions_threshold = materialize_deletions_threshold;
        o.num_threads = num_threads;
        o.batch_size = batch_size;
        const CompactionMetrics c = ValueWithoutGil([&] { return ds.CompactFiles(o); });
        return py::make_tuple(c.fragments_removed, c.fragments_added, c.files_removed,
                              c.files_added);
      },
      py::arg("ds"), py::arg("target_rows_per_fragment"), py::arg("max_rows_per_group"),
      py::arg("materialize_deletions"), py::arg("materialize_deletions_threshold"),
      py::arg("num_threads"), py::arg("batch_size"));
  m.def(
      "_cleanup_old_versions",
      [](Dataset& ds, std::optional<int64_t> older_than_ms,
         std::optional<int64_t> retain_versions, bool delete_unverified,
         bool error_if_tagged_old_versions) {
        CleanupOptions o;
        o.older_than_ms = older_than_ms;
        o.retain_versions = retain_versions;
        o.delete_unverified = delete_unverified;
        o.error_if_tagged_old_versions = error_if_tagged_old_versions;
        const CleanupStats s = ValueWithoutGil([&] { return ds.CleanupOldVersions(o); });
        py::dict d;
        d["bytes_removed"] = s.bytes_removed;
        d["old_versions"] = s.old_versions;
        d["data_files_removed"] = s.data_files_removed;
        d["transaction_files_removed"] = s.transaction_files_removed;
        d["index_files_removed"] = s.index_files_removed;
        d["deletion_files_removed"] = s.deletion_files_removed;
        d["failed_deletes"] = s.failed_deletes;
        return d;
      },
      py::arg("ds"), py::arg("older_than_ms"), py::arg("retain_versions"),
      py::arg("delete_unverified"), py::arg("error_if_tagged_old_versions"));
  m.def("_restore",
        [](Dataset& ds) { CheckStatus(WithoutGil([&] { return ds.Restore(); })); });
  m.def("_tags_list", [](const Dataset& ds) {
    const std::map<std::string, TagInfo> tags =
        ValueWithoutGil([&] { return ds.ListTags(); });
    py::dict out;
    for (const auto& [name, tag] : tags) out[py::str(name)] = TagToDict(tag);
    return out;
  });
  m.def("_tag_version", [](const Dataset& ds, const std::string& name) {
    return ValueWithoutGil([&] { return ds.TagVersion(name); });
  });
  m.def("_tag_create", [](Dataset& ds, const std::string& name, uint64_t version) {
    CheckStatus(WithoutGil([&] { return ds.CreateTag(name, version); }));
  });
  m.def("_tag_update", [](Dataset& ds, const std::string& name, uint64_t version) {
    CheckStatus(WithoutGil([&] { return ds.UpdateTag(name, version); }));
  });
  m.def("_tag_delete", [](Dataset& ds, const std::string& name) {
    CheckStatus(WithoutGil([&] { return ds.DeleteTag(name); }));
  });
  m.def("_checkout_tag", [](const Dataset& ds, const std::string& name) {
    return ValueWithoutGil([&] { return ds.CheckoutTag(name); });
  });
  m.def("_checkout_timestamp", [](const Dataset& ds, int64_t timestamp_ms) {
    return ValueWithoutGil([&] { return ds.CheckoutTimestamp(timestamp_ms); });
  });
  m.def("_config", [](const Dataset& ds) { return ds.Config(); });
  m.def("_update_config",
        [](Dataset& ds, const std::map<std::string, std::optional<std::string>>& values,
           bool replace) {
          CheckStatus(WithoutGil([&] { return ds.UpdateConfig(values, replace); }));
          return ds.Config();
        });
  m.def("_delete_config_keys", [](Dataset& ds, const std::vector<std::string>& keys) {
    CheckStatus(WithoutGil([&] { return ds.DeleteConfigKeys(keys); }));
  });
  m.def("_replace_schema_metadata", [](Dataset& ds, const StrMap& values) {
    CheckStatus(WithoutGil([&] { return ds.ReplaceSchemaMetadata(values); }));
  });
  m.def("_replace_field_metadata",
        [](Dataset& ds, const std::string& field, const StrMap& values) {
          CheckStatus(WithoutGil([&] { return ds.ReplaceFieldMetadata(field, values); }));
        });
}

}  // namespace lance::python
