// SPDX-License-Identifier: Apache-2.0
/// \file model_fields.h
/// \brief VisitFields(model, f): calls f("json_name", member) for every field of a
/// namespace request/response model, in the spec's order, with the spec's JSON names.
///
/// The one list of the models' wire names: the REST client and server (JSON) and the
/// Python binding (dicts of lance_namespace models) all convert through it, so a field
/// added to a model in namespace.h is added here once. Nested models (TagContents,
/// TableVersion, ...) have their own visitor; converters recurse into them.

#pragma once

#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "lance/namespace/namespace.h"

namespace lance::ns {

/// \brief The member shapes the models use besides scalars and models, for converters
/// that recurse through VisitFields (json_codec.h, the Python binding).
template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};
template <typename T>
struct IsStringMap : std::false_type {};
template <typename T>
struct IsStringMap<std::map<std::string, T>> : std::true_type {};

#define LANCE_NS_FIELDS(Type, ...)         \
  template <typename F>                    \
  void VisitFields(Type& s, F&& f) {       \
    __VA_ARGS__                            \
  }                                        \
  template <typename F>                    \
  void VisitFields(const Type& s, F&& f) { \
    __VA_ARGS__                            \
  }                                        \
  inline constexpr bool IsModel(const Type*) { return true; }

LANCE_NS_FIELDS(ListNamespacesRequest, f("id", s.id); f("page_token", s.page_token);
                f("limit", s.limit);)
LANCE_NS_FIELDS(ListNamespacesResponse, f("namespaces", s.namespaces);
                f("page_token", s.page_token);)
LANCE_NS_FIELDS(DescribeNamespaceRequest, f("id", s.id);)
LANCE_NS_FIELDS(DescribeNamespaceResponse, f("properties", s.properties);)
LANCE_NS_FIELDS(CreateNamespaceRequest, f("id", s.id); f("mode", s.mode);
                f("properties", s.properties);)
LANCE_NS_FIELDS(CreateNamespaceResponse, f("transaction_id", s.transaction_id);
                f("properties", s.properties);)
LANCE_NS_FIELDS(DropNamespaceRequest, f("id", s.id); f("mode", s.mode);
                f("behavior", s.behavior);)
LANCE_NS_FIELDS(DropNamespaceResponse, f("properties", s.properties);
                f("transaction_id", s.transaction_id);)
LANCE_NS_FIELDS(NamespaceExistsRequest, f("id", s.id);)
LANCE_NS_FIELDS(ListTablesRequest, f("id", s.id); f("page_token", s.page_token);
                f("limit", s.limit); f("include_declared", s.include_declared);)
LANCE_NS_FIELDS(ListTablesResponse, f("tables", s.tables); f("page_token", s.page_token);)
LANCE_NS_FIELDS(DescribeTableRequest, f("id", s.id); f("version", s.version);
                f("load_detailed_metadata", s.load_detailed_metadata);
                f("check_declared", s.check_declared);
                f("vend_credentials", s.vend_credentials);)
LANCE_NS_FIELDS(DescribeTableResponse, f("table", s.table); f("namespace", s.namespace_);
                f("version", s.version); f("location", s.location);
                f("table_uri", s.table_uri); f("storage_options", s.storage_options);
                f("properties", s.properties); f("metadata", s.metadata);
                f("is_only_declared", s.is_only_declared);)
LANCE_NS_FIELDS(DeclareTableRequest, f("id", s.id); f("location", s.location);
                f("vend_credentials", s.vend_credentials); f("properties", s.properties);)
LANCE_NS_FIELDS(DeclareTableResponse, f("transaction_id", s.transaction_id);
                f("location", s.location); f("storage_options", s.storage_options);
                f("properties", s.properties);)
LANCE_NS_FIELDS(CreateEmptyTableRequest, f("id", s.id); f("location", s.location);
                f("vend_credentials", s.vend_credentials); f("properties", s.properties);)
LANCE_NS_FIELDS(CreateEmptyTableResponse, f("transaction_id", s.transaction_id);
                f("location", s.location); f("storage_options", s.storage_options);
                f("properties", s.properties);)
LANCE_NS_FIELDS(RegisterTableRequest, f("id", s.id); f("location", s.location);
                f("mode", s.mode); f("properties", s.properties);)
LANCE_NS_FIELDS(RegisterTableResponse, f("transaction_id", s.transaction_id);
                f("location", s.location); f("properties", s.properties);)
LANCE_NS_FIELDS(DeregisterTableRequest, f("id", s.id);)
LANCE_NS_FIELDS(DeregisterTableResponse, f("transaction_id", s.transaction_id);
                f("id", s.id); f("location", s.location); f("properties", s.properties);)
LANCE_NS_FIELDS(TableExistsRequest, f("id", s.id); f("version", s.version);)
LANCE_NS_FIELDS(DropTableRequest, f("id", s.id);)
LANCE_NS_FIELDS(DropTableResponse, f("transaction_id", s.transaction_id); f("id", s.id);
                f("location", s.location); f("properties", s.properties);)
LANCE_NS_FIELDS(CreateTableRequest, f("id", s.id); f("mode", s.mode);
                f("properties", s.properties); f("storage_options", s.storage_options);)
LANCE_NS_FIELDS(CreateTableResponse, f("transaction_id", s.transaction_id);
                f("location", s.location); f("version", s.version);
                f("storage_options", s.storage_options); f("properties", s.properties);)
LANCE_NS_FIELDS(RenameTableRequest, f("id", s.id); f("new_table_name", s.new_table_name);
                f("new_namespace_id", s.new_namespace_id);)
LANCE_NS_FIELDS(RenameTableResponse, f("transaction_id", s.transaction_id);)
LANCE_NS_FIELDS(ListAllTablesRequest, f("page_token", s.page_token); f("limit", s.limit);)
LANCE_NS_FIELDS(CountTableRowsRequest, f("id", s.id); f("version", s.version);
                f("branch", s.branch); f("predicate", s.predicate);)
LANCE_NS_FIELDS(InsertIntoTableRequest, f("id", s.id); f("branch", s.branch);
                f("mode", s.mode);)
LANCE_NS_FIELDS(InsertIntoTableResponse, f("transaction_id", s.transaction_id);
                f("num_inserted_rows", s.num_inserted_rows); f("version", s.version);)
LANCE_NS_FIELDS(MergeInsertIntoTableRequest, f("id", s.id); f("branch", s.branch);
                f("on", s.on); f("when_matched_update_all", s.when_matched_update_all);
                f("when_matched_update_all_filt", s.when_matched_update_all_filt);
                f("when_not_matched_insert_all", s.when_not_matched_insert_all);
                f("when_not_matched_by_source_delete",
                  s.when_not_matched_by_source_delete);
                f("when_not_matched_by_source_delete_filt",
                  s.when_not_matched_by_source_delete_filt);
                f("timeout", s.timeout); f("use_index", s.use_index);)
LANCE_NS_FIELDS(MergeInsertIntoTableResponse, f("transaction_id", s.transaction_id);
                f("num_updated_rows", s.num_updated_rows);
                f("num_inserted_rows", s.num_inserted_rows);
                f("num_deleted_rows", s.num_deleted_rows); f("version", s.version);)
LANCE_NS_FIELDS(DeleteFromTableRequest, f("id", s.id); f("branch", s.branch);
                f("predicate", s.predicate);)
LANCE_NS_FIELDS(DeleteFromTableResponse, f("transaction_id", s.transaction_id);
                f("version", s.version);)
LANCE_NS_FIELDS(UpdateTableRequest, f("id", s.id); f("branch", s.branch);
                f("predicate", s.predicate); f("updates", s.updates);
                f("properties", s.properties);)
LANCE_NS_FIELDS(UpdateTableResponse, f("transaction_id", s.transaction_id);
                f("updated_rows", s.updated_rows); f("version", s.version);
                f("properties", s.properties);)
LANCE_NS_FIELDS(QueryTableRequestColumns, f("column_names", s.column_names);
                f("column_aliases", s.column_aliases);)
LANCE_NS_FIELDS(QueryTableRequestVector, f("single_vector", s.single_vector);
                f("multi_vector", s.multi_vector);)
LANCE_NS_FIELDS(QueryTableRequest, f("id", s.id); f("branch", s.branch);
                f("columns", s.columns); f("filter", s.filter); f("k", s.k);
                f("offset", s.offset); f("version", s.version);
                f("with_row_id", s.with_row_id); f("vector", s.vector);
                f("vector_column", s.vector_column); f("prefilter", s.prefilter);
                f("fast_search", s.fast_search);
                f("bypass_vector_index", s.bypass_vector_index);)
LANCE_NS_FIELDS(AddColumnsEntry, f("name", s.name); f("expression", s.expression);)
LANCE_NS_FIELDS(AlterTableAddColumnsRequest, f("id", s.id); f("branch", s.branch);
                f("new_columns", s.new_columns);)
LANCE_NS_FIELDS(AlterTableAddColumnsResponse, f("version", s.version);)
LANCE_NS_FIELDS(AlterColumnsEntry, f("path", s.path); f("data_type", s.data_type);
                f("rename", s.rename); f("nullable", s.nullable);)
LANCE_NS_FIELDS(AlterTableAlterColumnsRequest, f("id", s.id); f("branch", s.branch);
                f("alterations", s.alterations);)
LANCE_NS_FIELDS(AlterTableAlterColumnsResponse, f("version", s.version);)
LANCE_NS_FIELDS(AlterTableDropColumnsRequest, f("id", s.id); f("branch", s.branch);
                f("columns", s.columns);)
LANCE_NS_FIELDS(AlterTableDropColumnsResponse, f("transaction_id", s.transaction_id);
                f("version", s.version);)
LANCE_NS_FIELDS(UpdateTableSchemaMetadataRequest, f("id", s.id); f("branch", s.branch);
                f("metadata", s.metadata);)
LANCE_NS_FIELDS(UpdateTableSchemaMetadataResponse, f("metadata", s.metadata);
                f("transaction_id", s.transaction_id);)
LANCE_NS_FIELDS(FragmentSummary, f("min", s.min); f("max", s.max); f("mean", s.mean);
                f("p25", s.p25); f("p50", s.p50); f("p75", s.p75); f("p99", s.p99);)
LANCE_NS_FIELDS(FragmentStats, f("num_fragments", s.num_fragments);
                f("num_small_fragments", s.num_small_fragments); f("lengths", s.lengths);)
LANCE_NS_FIELDS(GetTableStatsRequest, f("id", s.id); f("branch", s.branch);)
LANCE_NS_FIELDS(GetTableStatsResponse, f("total_bytes", s.total_bytes);
                f("num_rows", s.num_rows); f("num_indices", s.num_indices);
                f("fragment_stats", s.fragment_stats);)
LANCE_NS_FIELDS(TableVersion, f("version", s.version);
                f("manifest_path", s.manifest_path); f("manifest_size", s.manifest_size);
                f("e_tag", s.e_tag); f("timestamp_millis", s.timestamp_millis);
                f("metadata", s.metadata);)
LANCE_NS_FIELDS(ListTableVersionsRequest, f("id", s.id); f("branch", s.branch);
                f("page_token", s.page_token); f("limit", s.limit);
                f("descending", s.descending);)
LANCE_NS_FIELDS(ListTableVersionsResponse, f("versions", s.versions);
                f("page_token", s.page_token);)
LANCE_NS_FIELDS(DescribeTableVersionRequest, f("id", s.id); f("version", s.version);
                f("branch", s.branch);)
LANCE_NS_FIELDS(DescribeTableVersionResponse, f("version", s.version);)
LANCE_NS_FIELDS(RestoreTableRequest, f("id", s.id); f("version", s.version);
                f("branch", s.branch);)
LANCE_NS_FIELDS(RestoreTableResponse, f("transaction_id", s.transaction_id);)
LANCE_NS_FIELDS(TagContents, f("branch", s.branch); f("version", s.version);
                f("manifestSize", s.manifest_size);)
LANCE_NS_FIELDS(ListTableTagsRequest, f("id", s.id); f("page_token", s.page_token);
                f("limit", s.limit);)
LANCE_NS_FIELDS(ListTableTagsResponse, f("tags", s.tags); f("page_token", s.page_token);)
LANCE_NS_FIELDS(CreateTableTagRequest, f("id", s.id); f("tag", s.tag);
                f("version", s.version); f("branch", s.branch);)
LANCE_NS_FIELDS(CreateTableTagResponse, f("transaction_id", s.transaction_id);)
LANCE_NS_FIELDS(DeleteTableTagRequest, f("id", s.id); f("tag", s.tag);)
LANCE_NS_FIELDS(DeleteTableTagResponse, f("transaction_id", s.transaction_id);)
LANCE_NS_FIELDS(GetTableTagVersionRequest, f("id", s.id); f("tag", s.tag);)
LANCE_NS_FIELDS(GetTableTagVersionResponse, f("version", s.version);
                f("branch", s.branch);)
LANCE_NS_FIELDS(UpdateTableTagRequest, f("id", s.id); f("tag", s.tag);
                f("version", s.version); f("branch", s.branch);)
LANCE_NS_FIELDS(UpdateTableTagResponse, f("transaction_id", s.transaction_id);)
LANCE_NS_FIELDS(DescribeTransactionRequest, f("id", s.id);)
LANCE_NS_FIELDS(DescribeTransactionResponse, f("status", s.status);
                f("properties", s.properties);)
LANCE_NS_FIELDS(AlterTransactionRequest, f("id", s.id); f("actions", s.actions);)

#undef LANCE_NS_FIELDS

/// \brief True for the types VisitFields knows (false for strings, numbers, maps, ...).
template <typename T>
constexpr bool kIsModel = requires(const T* p) {
  IsModel(p);
};

}  // namespace lance::ns
