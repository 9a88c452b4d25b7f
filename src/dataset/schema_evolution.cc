// SPDX-License-Identifier: Apache-2.0
// Schema evolution: AddColumns (Lance's `Merge`: a new data file per fragment beside the
// old ones), DropColumns and renames / nullability (Lance's `Project`: the schema only),
// casts (a `Merge` with the column rewritten under a new field id). Field ids follow
// Lance: new columns get ids above every id in use (schema and data files), renames
// keep theirs, a cast column gets a new one.
#include <set>

#include "dataset/fragment_reader.h"
#include "dataset/mutation_internal.h"
#include "format/schema_proto.h"
#include "lance/core/cast.h"
#include "lance/core/compute.h"
#include "lance/core/concatenate.h"
#include "lance/macros.h"
#include "table/deletion.h"
#include "table/predicate/value_expression.h"

namespace lance {
namespace table_internal {
namespace {

// A whole LanceSchema from `fields` (top level) and the pre-order ids of each.
Result<format::LanceSchema> BuildSchema(const std::vector<FieldPtr>& fields,
                                        const std::vector<std::vector<int32_t>>& ids,
                                        const KeyValueMetadata& metadata) {
  std::vector<int32_t> preorder;
  for (const auto& subtree : ids)
    preorder.insert(preorder.end(), subtree.begin(), subtree.end());
  return format::LanceSchema::Make(std::make_shared<Schema>(fields, metadata),
                                   std::move(preorder));
}

// The ids of each top-level field of `schema`.
std::vector<std::vector<int32_t>> TopLevelIds(const format::LanceSchema& schema) {
  std::vector<std::vector<int32_t>> out;
  out.reserve(static_cast<size_t>(schema.schema()->num_fields()));
  for (int i = 0; i < schema.schema()->num_fields(); ++i)
    out.push_back(schema.SubtreeIds(i));
  return out;
}

// Computes new column values for the rows of one fragment (all physical rows, deleted
// ones included, so that the new file lines up with the old ones).
using BatchMapper = std::function<Result<std::vector<ArrayPtr>>(const RecordBatch&)>;

// Writes one new data file per fragment holding the columns of `new_columns` (their own
// ids), computed by `mapper` from `read_columns`; returns every fragment with its new
// file appended. `saw_nulls[i]` tells whether column i got a null anywhere.
Result<std::vector<pb::DataFragment>> WriteNewColumnFiles(
    const DatasetImpl& ds, const format::LanceSchema& new_columns,
    const std::vector<int>& read_columns, int64_t batch_size, const BatchMapper& mapper,
    std::vector<bool>* saw_nulls) {
  LANCE_ASSIGN_OR_RAISE(format::LanceFileVersion version,
                        WritableVersion(ds, "Adding columns"));
  const SchemaPtr& out_schema = new_columns.schema();
  saw_nulls->assign(static_cast<size_t>(out_schema->num_fields()), false);
  // A fragment's rows must all go into one file.
  MutationWriteParams params;
  params.max_rows_per_file = INT64_MAX;
  std::vector<int> columns = read_columns;
  if (columns.empty()) columns.push_back(0);  // for the row count only
  std::vector<pb::DataFragment> out;
  for (const pb::DataFragment& frag : ds.proto().fragments()) {
    FragmentSink sink(ds.dir, new_columns, version, SinkSizes(params));
    LANCE_ASSIGN_OR_RAISE(
        auto reader,
        FragmentReader::Open(ds, frag, columns, std::max<int64_t>(1, batch_size)));
    LANCE_ASSIGN_OR_RAISE(DeletionVector deleted, LoadDeletions(ds, frag));
    const std::set<uint32_t> gone(deleted.begin(), deleted.end());
    while (true) {
      LANCE_ASSIGN_OR_RAISE(auto next, reader->Next());
      if (!next) break;
      // As Lance: the mapper sees the live rows only; deleted rows get nulls in the new
      // file, which keeps it aligned with the fragment's other files.
      const RecordBatch& all = *next->batch;
      std::vector<int64_t> live;
      std::vector<int64_t> scatter;  // per physical row: its live position, or -1
      for (int64_t r = 0; r < all.num_rows(); ++r) {
        if (gone.count(static_cast<uint32_t>(next->start_row + r)) != 0) {
          scatter.push_back(-1);
        } else {
          scatter.push_back(static_cast<int64_t>(live.size()));
          live.push_back(r);
        }
      }
      RecordBatchPtr input = next->batch;
      if (static_cast<int64_t>(live.size()) != all.num_rows()) {
        LANCE_ASSIGN_OR_RAISE(input, compute::TakeBatch(all, live));
      }
      LANCE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> values, mapper(*input));
      for (size_t i = 0; i < values.size(); ++i) {
        if (values[i]->null_count() > 0) (*saw_nulls)[i] = true;
        if (static_cast<int64_t>(live.size()) == all.num_rows()) continue;
        // Put the nulls of the deleted rows back: take from values plus one null slot.
        LANCE_ASSIGN_OR_RAISE(ArrayPtr null_slot, MakeNullArray(values[i]->type(), 1));
        LANCE_ASSIGN_OR_RAISE(ArrayPtr padded, Concatenate({values[i], null_slot}));
        std::vector<int64_t> indices;
        indices.reserve(scatter.size());
        for (int64_t pos : scatter) {
          indices.push_back(pos < 0 ? static_cast<int64_t>(live.size()) : pos);
        }
        LANCE_ASSIGN_OR_RAISE(values[i], compute::Take(*padded, indices));
      }
      LANCE_ASSIGN_OR_RAISE(
          auto batch,
          RecordBatch::Make(out_schema, next->batch->num_rows(), std::move(values)));
      LANCE_RETURN_NOT_OK(sink.Write(*batch));
    }
    LANCE_ASSIGN_OR_RAISE(std::vector<pb::DataFragment> written, sink.Finish());
    pb::DataFragment updated = frag;
    for (const pb::DataFragment& w : written) {
      for (const pb::DataFile& file : w.files()) *updated.add_files() = file;
    }
    out.push_back(std::move(updated));
  }
  return out;
}

Status FillSchema(const format::LanceSchema& schema,
                  google::protobuf::RepeatedPtrField<lance::file::Field>* out) {
  return format::SchemaToProtoFields(schema, out);
}

// Commits a Merge of `fragments` under `schema`.
Result<std::shared_ptr<DatasetImpl>> CommitMerge(
    const DatasetImpl& ds, const format::LanceSchema& schema,
    std::vector<pb::DataFragment> fragments) {
  pb::Transaction txn;
  txn.set_read_version(ds.proto().version());
  pb::Transaction::Merge* op = txn.mutable_merge();
  // Data files left without any field of the schema leave the manifest (Lance).
  const std::set<int32_t> ids(schema.field_ids().begin(), schema.field_ids().end());
  for (pb::DataFragment& frag : fragments) {
    pb::DataFragment* target = op->add_fragments();
    *target = std::move(frag);
    google::protobuf::RepeatedPtrField<pb::DataFile> kept;
    for (pb::DataFile& file : *target->mutable_files()) {
      bool used = false;
      for (int32_t id : file.fields()) used = used || ids.count(id) != 0;
      if (used) *kept.Add() = std::move(file);
    }
    target->mutable_files()->Swap(&kept);
  }
  LANCE_RETURN_NOT_OK(FillSchema(schema, op->mutable_schema()));
  *op->mutable_schema_metadata() = ds.proto().schema_metadata();
  op->set_preserves_nullability(true);
  return CommitMutation(ds, std::move(txn));
}

Result<std::shared_ptr<DatasetImpl>> CommitProject(const DatasetImpl& ds,
                                                   const format::LanceSchema& schema,
                                                   bool preserves_nullability) {
  pb::Transaction txn;
  txn.set_read_version(ds.proto().version());
  pb::Transaction::Project* op = txn.mutable_project();
  LANCE_RETURN_NOT_OK(FillSchema(schema, op->mutable_schema()));
  op->set_preserves_nullability(preserves_nullability);
  return CommitMutation(ds, std::move(txn));
}

Status CheckNewNames(const DatasetImpl& ds, const std::vector<std::string>& names) {
  std::set<std::string> seen;
  for (const std::string& name : names) {
    if (name.empty())
      return Status::Invalid("add_columns: a new column has an empty name");
    if (ds.schema.schema()->GetFieldIndex(name) >= 0) {
      return Status::Invalid("add_columns: column ", name,
                             " already exists in the dataset");
    }
    if (!seen.insert(name).second) {
      return Status::Invalid("add_columns: column ", name, " is added twice");
    }
  }
  return Status::OK();
}

// The dataset schema plus `added` (ids assigned above every id in use), nullability of
// each added field as given.
Result<format::LanceSchema> ExtendSchema(const DatasetImpl& ds,
                                         const std::vector<FieldPtr>& added,
                                         format::LanceSchema* added_only) {
  LANCE_ASSIGN_OR_RAISE(*added_only,
                        format::LanceSchema::Assign(std::make_shared<Schema>(added),
                                                    MaxFieldIdInUse(ds) + 1));
  std::vector<FieldPtr> fields = ds.schema.schema()->fields();
  std::vector<std::vector<int32_t>> ids = TopLevelIds(ds.schema);
  for (int i = 0; i < added_only->schema()->num_fields(); ++i) {
    fields.push_back(added_only->schema()->field(i));
    ids.push_back(added_only->SubtreeIds(i));
  }
  return BuildSchema(fields, ids, ds.schema.schema()->metadata());
}

// Lance's is_upcast_downcast: casts stay within a family.
bool CastAllowed(const DataType& from, const DataType& to) {
  auto string = [](const DataType& t) {
    return t.id() == TypeId::kUtf8 || t.id() == TypeId::kLargeUtf8;
  };
  auto binary = [](const DataType& t) {
    return t.id() == TypeId::kBinary || t.id() == TypeId::kLargeBinary;
  };
  if (from.is_integer()) return to.is_integer();
  if (from.is_floating()) return to.is_floating();
  if (from.is_temporal()) return to.is_temporal();
  if (from.id() == TypeId::kBool) return to.id() == TypeId::kBool;
  if (string(from)) return string(to);
  if (binary(from)) return binary(to);
  return false;
}

}  // namespace
}  // namespace table_internal

namespace ti = table_internal;
namespace pb = ::lance::table;

Status Dataset::AddColumns(
    const std::vector<std::pair<std::string, std::string>>& expressions,
    const AddColumnsOptions& options) {
  const std::shared_ptr<DatasetImpl> ds = impl_;
  if (expressions.empty()) return Status::Invalid("add_columns: no column to add");
  std::vector<std::string> names;
  names.reserve(expressions.size());
  for (const auto& e : expressions) names.push_back(e.first);
  LANCE_RETURN_NOT_OK(ti::CheckNewNames(*ds, names));
  const SchemaPtr& schema = ds->schema.schema();
  std::vector<std::shared_ptr<const table::ValueExpression>> exprs;
  std::vector<FieldPtr> added;
  std::set<std::string> read;
  bool any_nullable_input = false;
  std::vector<bool> nullable_input;
  for (const auto& [name, text] : expressions) {
    auto expr = table::ValueExpression::Parse(text, *schema);
    if (!expr.ok()) {
      return expr.status().WithContext(
          StrCat("add_columns: the expression for column '", name, "' (", text, ")"));
    }
    DataTypePtr type = (*expr)->type();
    if (!type || type->id() == TypeId::kNull) {
      return Status::Invalid("add_columns: the expression for column '", name, "' (",
                             text,
                             ") has no type (a bare NULL); CAST it to the type wanted");
    }
    bool nullable = false;
    for (const std::string& column : (*expr)->ReferencedColumns()) {
      read.insert(column);
      const int index = schema->GetFieldIndex(column);
      if (index >= 0 && schema->field(index)->nullable()) nullable = true;
    }
    any_nullable_input = any_nullable_input || nullable;
    nullable_input.push_back(nullable);
    added.push_back(field(name, type, true));
    exprs.push_back(std::move(*expr));
  }
  (void)any_nullable_input;
  LANCE_ASSIGN_OR_RAISE(
      std::vector<int> columns,
      ti::ColumnIndices(*ds, std::vector<std::string>(read.begin(), read.end()),
                        "add_columns"));
  format::LanceSchema added_only;
  LANCE_ASSIGN_OR_RAISE(format::LanceSchema full,
                        ti::ExtendSchema(*ds, added, &added_only));
  std::vector<bool> saw_nulls;
  LANCE_ASSIGN_OR_RAISE(
      auto fragments,
      ti::WriteNewColumnFiles(
          *ds, added_only, columns, options.batch_size,
          [&](const RecordBatch& batch) -> Result<std::vector<ArrayPtr>> {
            std::vector<ArrayPtr> out;
            for (size_t i = 0; i < exprs.size(); ++i) {
              LANCE_ASSIGN_OR_RAISE(ArrayPtr values, exprs[i]->Evaluate(batch));
              LANCE_ASSIGN_OR_RAISE(values,
                                    ti::ConformColumn(values, *added[i], "add_columns"));
              out.push_back(std::move(values));
            }
            return out;
          },
          &saw_nulls));
  // As DataFusion infers it: a new column is nullable when an input column is, or when
  // it came out with nulls.
  std::vector<FieldPtr> final_fields = full.schema()->fields();
  const size_t first_new = final_fields.size() - added.size();
  for (size_t i = 0; i < added.size(); ++i) {
    final_fields[first_new + i] =
        added[i]->WithNullable(nullable_input[i] || saw_nulls[i]);
  }
  LANCE_ASSIGN_OR_RAISE(
      format::LanceSchema final_schema,
      format::LanceSchema::Make(
          std::make_shared<Schema>(final_fields, schema->metadata()), full.field_ids()));
  LANCE_ASSIGN_OR_RAISE(impl_, ti::CommitMerge(*ds, final_schema, std::move(fragments)));
  return Status::OK();
}

Status Dataset::AddColumns(const SchemaPtr& new_fields, const AddColumnsFunction& fn,
                           const AddColumnsOptions& options) {
  const std::shared_ptr<DatasetImpl> ds = impl_;
  if (!new_fields || new_fields->num_fields() == 0) {
    return Status::Invalid("add_columns: no column to add");
  }
  std::vector<std::string> names;
  for (const FieldPtr& f : new_fields->fields()) names.push_back(f->name());
  LANCE_RETURN_NOT_OK(ti::CheckNewNames(*ds, names));
  std::vector<std::string> read = options.read_columns;
  if (read.empty()) {
    for (const FieldPtr& f : ds->schema.schema()->fields()) read.push_back(f->name());
  }
  LANCE_ASSIGN_OR_RAISE(std::vector<int> columns,
                        ti::ColumnIndices(*ds, read, "add_columns"));
  format::LanceSchema added_only;
  LANCE_ASSIGN_OR_RAISE(format::LanceSchema full,
                        ti::ExtendSchema(*ds, new_fields->fields(), &added_only));
  std::vector<bool> saw_nulls;
  LANCE_ASSIGN_OR_RAISE(
      auto fragments,
      ti::WriteNewColumnFiles(
          *ds, added_only, columns, options.batch_size,
          [&](const RecordBatch& batch) -> Result<std::vector<ArrayPtr>> {
            LANCE_ASSIGN_OR_RAISE(RecordBatchPtr produced, fn(batch));
            if (!produced || produced->num_rows() != batch.num_rows()) {
              return Status::Invalid("add_columns: the function returned ",
                                     produced ? produced->num_rows() : 0,
                                     " rows for a batch of ", batch.num_rows());
            }
            std::vector<ArrayPtr> out;
            for (const FieldPtr& f : new_fields->fields()) {
              ArrayPtr column = produced->GetColumnByName(f->name());
              if (!column) {
                return Status::Invalid(
                    "add_columns: the function did not return column '", f->name(), "'");
              }
              LANCE_ASSIGN_OR_RAISE(column, ti::ConformColumn(column, *f, "add_columns"));
              out.push_back(std::move(column));
            }
            if (produced->num_columns() != new_fields->num_fields()) {
              return Status::Invalid("add_columns: the function returned ",
                                     produced->num_columns(), " columns, expected ",
                                     new_fields->num_fields());
            }
            return out;
          },
          &saw_nulls));
  LANCE_ASSIGN_OR_RAISE(impl_, ti::CommitMerge(*ds, full, std::move(fragments)));
  return Status::OK();
}

Status Dataset::AddNullColumns(const SchemaPtr& new_fields) {
  const std::shared_ptr<DatasetImpl> ds = impl_;
  if (!new_fields || new_fields->num_fields() == 0) {
    return Status::Invalid("add_columns: no column to add");
  }
  std::vector<std::string> names;
  for (const FieldPtr& f : new_fields->fields()) {
    if (!f->nullable()) {
      return Status::Invalid("add_columns: all-null columns must be nullable ('",
                             f->name(), "' is not)");
    }
    names.push_back(f->name());
  }
  LANCE_RETURN_NOT_OK(ti::CheckNewNames(*ds, names));
  format::LanceSchema added_only;
  LANCE_ASSIGN_OR_RAISE(format::LanceSchema full,
                        ti::ExtendSchema(*ds, new_fields->fields(), &added_only));
  std::vector<pb::DataFragment> fragments(ds->proto().fragments().begin(),
                                          ds->proto().fragments().end());
  LANCE_ASSIGN_OR_RAISE(impl_, ti::CommitMerge(*ds, full, std::move(fragments)));
  return Status::OK();
}

Status Dataset::DropColumns(const std::vector<std::string>& columns) {
  const std::shared_ptr<DatasetImpl> ds = impl_;
  const SchemaPtr& schema = ds->schema.schema();
  std::set<std::string> drop;
  for (const std::string& name : columns) {
    if (schema->GetFieldIndex(name) < 0) {
      if (name.find('.') != std::string::npos) {
        return Status::NotImplemented("drop_columns: dropping the nested field ", name,
                                      " is not supported yet");
      }
      return Status::Invalid("Column ", name, " does not exist in the dataset");
    }
    drop.insert(name);
  }
  std::vector<std::string> keep;
  for (const FieldPtr& f : schema->fields()) {
    if (drop.count(f->name()) == 0) keep.push_back(f->name());
  }
  if (keep.empty()) return Status::Invalid("Cannot drop all columns from a dataset");
  LANCE_ASSIGN_OR_RAISE(format::LanceSchema projected, ds->schema.Project(keep));
  LANCE_ASSIGN_OR_RAISE(impl_, ti::CommitProject(*ds, projected, true));
  return Status::OK();
}

Status Dataset::AlterColumns(const std::vector<ColumnAlteration>& alterations) {
  const std::shared_ptr<DatasetImpl> ds = impl_;
  const SchemaPtr& schema = ds->schema.schema();
  std::vector<FieldPtr> fields = schema->fields();
  std::vector<std::vector<int32_t>> ids = ti::TopLevelIds(ds->schema);
  int32_t next_id = ti::MaxFieldIdInUse(*ds) + 1;
  std::vector<int> cast_columns;  // top-level indices
  std::vector<int> check_nulls;   // made non-nullable: must hold no null
  bool preserves_nullability = true;
  if (alterations.empty()) return Status::Invalid("alter_columns: nothing to alter");
  for (const ColumnAlteration& a : alterations) {
    const int index = schema->GetFieldIndex(a.path);
    if (index < 0) {
      if (a.path.find('.') != std::string::npos) {
        return Status::NotImplemented("alter_columns: altering the nested field ", a.path,
                                      " is not supported yet");
      }
      return Status::Invalid("Column \"", a.path, "\" does not exist in the dataset");
    }
    FieldPtr& f = fields[static_cast<size_t>(index)];
    if (a.rename) {
      if (a.rename->empty()) return Status::Invalid("alter_columns: empty new name");
      for (size_t j = 0; j < fields.size(); ++j) {
        if (static_cast<int>(j) != index && fields[j]->name() == *a.rename) {
          return Status::Invalid("alter_columns: cannot rename ", a.path, " to ",
                                 *a.rename, ": a column of that name exists");
        }
      }
      f = f->WithName(*a.rename);
    }
    if (a.nullable) {
      if (f->nullable() && !*a.nullable) {
        check_nulls.push_back(index);
        preserves_nullability = false;
      }
      f = f->WithNullable(*a.nullable);
    }
    if (a.data_type) {
      const DataTypePtr& from = schema->field(index)->type();
      if (!ti::CastAllowed(*from, *a.data_type)) {
        return Status::Invalid("Cannot cast column \"", a.path, "\" from ",
                               from->ToString(), " to ", a.data_type->ToString());
      }
      f = f->WithType(a.data_type);
      std::vector<int32_t> new_ids;
      for (int n = format::CountLanceFields(*a.data_type); n > 0; --n)
        new_ids.push_back(next_id++);
      ids[static_cast<size_t>(index)] = std::move(new_ids);
      cast_columns.push_back(index);
    }
  }
  // Making a column non-nullable is allowed when it holds no null (as pylance 14).
  for (int index : check_nulls) {
    ScanOptions scan;
    scan.columns = {schema->field(index)->name()};
    scan.filter = StrCat("`", schema->field(index)->name(), "` IS NULL");
    LANCE_ASSIGN_OR_RAISE(int64_t nulls, CountRows(scan.filter));
    if (nulls > 0) {
      return Status::Invalid("Column \"", schema->field(index)->name(), "\" holds ",
                             nulls, " nulls and thus cannot be made non-nullable");
    }
  }
  LANCE_ASSIGN_OR_RAISE(format::LanceSchema altered,
                        ti::BuildSchema(fields, ids, schema->metadata()));
  if (cast_columns.empty()) {
    LANCE_ASSIGN_OR_RAISE(impl_, ti::CommitProject(*ds, altered, preserves_nullability));
    return Status::OK();
  }
  // The cast columns, under their new ids, are written into one new file per fragment.
  std::vector<FieldPtr> cast_fields;
  std::vector<std::vector<int32_t>> cast_ids;
  for (int index : cast_columns) {
    cast_fields.push_back(fields[static_cast<size_t>(index)]);
    cast_ids.push_back(ids[static_cast<size_t>(index)]);
  }
  LANCE_ASSIGN_OR_RAISE(format::LanceSchema cast_schema,
                        ti::BuildSchema(cast_fields, cast_ids, {}));
  std::vector<bool> saw_nulls;
  LANCE_ASSIGN_OR_RAISE(
      auto fragments, ti::WriteNewColumnFiles(
                          *ds, cast_schema, cast_columns, 8192,
                          [&](const RecordBatch& batch) -> Result<std::vector<ArrayPtr>> {
                            std::vector<ArrayPtr> out;
                            for (size_t i = 0; i < cast_fields.size(); ++i) {
                              LANCE_ASSIGN_OR_RAISE(
                                  ArrayPtr values,
                                  compute::Cast(batch.column(static_cast<int>(i)),
                                                cast_fields[i]->type()));
                              out.push_back(ti::Relabel(values, cast_fields[i]->type()));
                            }
                            return out;
                          },
                          &saw_nulls));
  LANCE_ASSIGN_OR_RAISE(impl_, ti::CommitMerge(*ds, altered, std::move(fragments)));
  return Status::OK();
}

}  // namespace lance
