// SPDX-License-Identifier: Apache-2.0
// Bindings of the Dataset mutation operations (python/lance_cpp/_mutation.py wraps them):
// update, merge_insert, add_columns (SQL / function / all-null), drop_columns,
// alter_columns. Each takes the native Dataset and moves it to the committed version.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "gil.h"
#include "lance/dataset/dataset.h"
#include "lance/macros.h"

namespace lance::python {
namespace {

using DatasetPtr = std::shared_ptr<Dataset>;

MutationRetry MakeRetry(int conflict_retries, double retry_timeout_seconds) {
  MutationRetry retry;
  retry.conflict_retries = conflict_retries;
  retry.retry_timeout_seconds = retry_timeout_seconds;
  return retry;
}

// A Python exception raised inside a callback the core runs without the GIL: kept and
// re-raised once the core returns, so the caller sees the user's own exception.
struct PendingError {
  std::optional<py::error_already_set> error;

  Status Capture(py::error_already_set& e) {
    std::string what = e.what();
    error.emplace(std::move(e));
    return Status::Invalid("a Python callback raised: ", what);
  }
  void RaiseIfAny() {
    if (error) {
      py::error_already_set e = std::move(*error);
      error.reset();
      throw e;
    }
  }
};

// A RecordBatch of the rows of `obj` (a pyarrow RecordBatch / Table / reader).
Result<RecordBatchPtr> BatchFromPython(py::handle obj) {
  RecordBatchReaderPtr reader = FromPyArrowStream(obj);
  std::vector<RecordBatchPtr> batches;
  while (true) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, reader->Next());
    if (!b) break;
    batches.push_back(std::move(b));
  }
  LANCE_ASSIGN_OR_RAISE(auto table, Table::Make(reader->schema(), std::move(batches)));
  return table->CombineBatches();
}

py::dict UpdatePy(Dataset& ds,
                  const std::vector<std::pair<std::string, std::string>>& updates,
                  const std::optional<std::string>& where, int conflict_retries,
                  double retry_timeout_seconds) {
  UpdateOptions options;
  options.retry = MakeRetry(conflict_retries, retry_timeout_seconds);
  Result<UpdateResult> result =
      WithoutGil([&] { return ds.Update(updates, where.value_or(""), options); });
  UpdateResult r = ValueOrRaise(std::move(result));
  py::dict out;
  out["num_rows_updated"] = r.num_rows_updated;
  return out;
}

py::dict MergeInsertPy(Dataset& ds, std::vector<std::string> on,
                       const std::string& when_matched,
                       const std::optional<std::string>& matched_condition,
                       bool insert_not_matched, bool delete_not_matched_by_source,
                       const std::optional<std::string>& by_source_condition,
                       int conflict_retries, double retry_timeout_seconds,
                       const py::function& open_source) {
  MergeInsertBuilder builder = ds.MergeInsert(std::move(on));
  if (when_matched == "update_all") {
    builder.WhenMatchedUpdateAll(matched_condition.value_or(""));
  } else if (when_matched == "delete") {
    builder.WhenMatchedDelete();
  } else if (when_matched == "fail") {
    builder.WhenMatchedFail();
  } else if (when_matched == "do_nothing") {
    builder.WhenMatchedDoNothing();
  } else {
    throw py::value_error("unknown when_matched behaviour: " + when_matched);
  }
  if (insert_not_matched) {
    builder.WhenNotMatchedInsertAll();
  } else {
    builder.WhenNotMatchedDoNothing();
  }
  if (delete_not_matched_by_source) {
    builder.WhenNotMatchedBySourceDelete(by_source_condition.value_or(""));
  }
  builder.ConflictRetries(conflict_retries).RetryTimeout(retry_timeout_seconds);
  PendingError pending;
  MergeSourceFactory factory = [&]() -> Result<RecordBatchReaderPtr> {
    py::gil_scoped_acquire gil;
    try {
      return FromPyArrowStream(open_source());
    } catch (py::error_already_set& e) {
      return pending.Capture(e);
    }
  };
  Result<MergeInsertResult> result = WithoutGil([&] { return builder.Execute(factory); });
  pending.RaiseIfAny();
  MergeInsertResult r = ValueOrRaise(std::move(result));
  py::dict out;
  out["num_inserted_rows"] = r.num_inserted_rows;
  out["num_updated_rows"] = r.num_updated_rows;
  out["num_deleted_rows"] = r.num_deleted_rows;
  out["num_attempts"] = r.num_attempts;
  return out;
}

void AddColumnsSqlPy(Dataset& ds,
                     const std::vector<std::pair<std::string, std::string>>& expressions,
                     std::optional<int64_t> batch_size) {
  AddColumnsOptions options;
  if (batch_size) options.batch_size = *batch_size;
  Status st = WithoutGil([&] { return ds.AddColumns(expressions, options); });
  CheckStatus(st);
}

void AddColumnsFnPy(Dataset& ds, const py::object& new_schema, const py::function& fn,
                    std::optional<std::vector<std::string>> read_columns,
                    std::optional<int64_t> batch_size) {
  SchemaPtr schema = FromPyArrowSchema(new_schema);
  AddColumnsOptions options;
  if (read_columns) options.read_columns = *read_columns;
  if (batch_size) options.batch_size = *batch_size;
  PendingError pending;
  AddColumnsFunction call = [&](const RecordBatch& batch) -> Result<RecordBatchPtr> {
    py::gil_scoped_acquire gil;
    try {
      LANCE_ASSIGN_OR_RAISE(
          auto table,
          Table::Make(batch.schema(), {std::make_shared<RecordBatch>(batch)}));
      py::object produced = fn(ToPyArrowTable(table));
      return BatchFromPython(produced);
    } catch (py::error_already_set& e) {
      return pending.Capture(e);
    }
  };
  Status st = WithoutGil([&] { return ds.AddColumns(schema, call, options); });
  pending.RaiseIfAny();
  CheckStatus(st);
}

void AddNullColumnsPy(Dataset& ds, const py::object& new_schema) {
  SchemaPtr schema = FromPyArrowSchema(new_schema);
  Status st = WithoutGil([&] { return ds.AddNullColumns(schema); });
  CheckStatus(st);
}

void DropColumnsPy(Dataset& ds, const std::vector<std::string>& columns) {
  Status st = WithoutGil([&] { return ds.DropColumns(columns); });
  CheckStatus(st);
}

// `alterations`: (path, name or None, nullable or None, one-field pyarrow schema of the
// new type or None).
void AlterColumnsPy(Dataset& ds, const py::list& alterations) {
  std::vector<ColumnAlteration> out;
  for (py::handle item : alterations) {
    auto t = item.cast<py::tuple>();
    ColumnAlteration a;
    a.path = t[0].cast<std::string>();
    if (!t[1].is_none()) a.rename = t[1].cast<std::string>();
    if (!t[2].is_none()) a.nullable = t[2].cast<bool>();
    if (!t[3].is_none()) a.data_type = FromPyArrowSchema(t[3])->field(0)->type();
    out.push_back(std::move(a));
  }
  Status st = WithoutGil([&] { return ds.AlterColumns(out); });
  CheckStatus(st);
}

}  // namespace

void BindMutation(py::module_& m) {
  m.def("_update", &UpdatePy, py::arg("ds"), py::arg("updates"), py::arg("where"),
        py::arg("conflict_retries"), py::arg("retry_timeout_seconds"));
  m.def("_merge_insert", &MergeInsertPy, py::arg("ds"), py::arg("on"),
        py::arg("when_matched"), py::arg("matched_condition"),
        py::arg("insert_not_matched"), py::arg("delete_not_matched_by_source"),
        py::arg("by_source_condition"), py::arg("conflict_retries"),
        py::arg("retry_timeout_seconds"), py::arg("open_source"));
  m.def("_add_columns_sql", &AddColumnsSqlPy, py::arg("ds"), py::arg("expressions"),
        py::arg("batch_size"));
  m.def("_add_columns_fn", &AddColumnsFnPy, py::arg("ds"), py::arg("schema"),
        py::arg("fn"), py::arg("read_columns"), py::arg("batch_size"));
  m.def("_add_null_columns", &AddNullColumnsPy, py::arg("ds"), py::arg("schema"));
  m.def("_drop_columns", &DropColumnsPy, py::arg("ds"), py::arg("columns"));
  m.def("_alter_columns", &AlterColumnsPy, py::arg("ds"), py::arg("alterations"));
}

}  // namespace lance::python
