// SPDX-License-Identifier: Apache-2.0
// Nested field projection as pylance 14 does it (checked with pylance side by side in
// tests/python/test_v2x_table.py): scans give "s.a" as a top-level column, takes prune
// the top-level struct; in every file version lance-cpp writes.
#include <gtest/gtest.h>

#include "lance/core/builder.h"
#include "lance/core/concatenate.h"
#include "lance/dataset/dataset.h"
#include "table_test_util.h"
#include "tests/testing/matchers.h"
#include "tests/testing/temp_dir.h"

namespace lance {
namespace {

using namespace table_testing;  // NOLINT(build/namespaces)

// id: int64 not null; s: struct<a: int32 not null, b: utf8, c: struct<d: int64>>
// (nullable, metadata k=v); l: list<item: struct<x: int32, y: utf8>>; "p.q": int32 (a
// top-level name with a dot). Row i: s null for i == 2, s.c null for i == 1, s.c.d null
// for i == 3, s.b null for i == 1; a = 10 i, b = "b<i>", d = 100 i; l = [{x: i, y: "y"}]
// * (i % 3), null for i == 4; p.q = -i.
SchemaPtr NestedSchema() {
  auto c = struct_({field("d", int64())});
  auto s = struct_({field("a", int32(), false), field("b", utf8()), field("c", c)});
  auto item = struct_({field("x", int32()), field("y", utf8())});
  return schema({field("id", int64(), false), field("s", s, true, {{"k", "v"}}),
                 field("l", list(field("item", item))), field("p.q", int32())},
                {{"sm", "x"}});
}

RecordBatchPtr NestedBatch(int64_t n) {
  SchemaPtr sch = NestedSchema();
  auto s_builder = *MakeBuilder(sch->field(1)->type());
  auto l_builder = *MakeBuilder(sch->field(2)->type());
  Int64Builder ids;
  Int32Builder pq;
  auto& s = static_cast<StructBuilder&>(*s_builder);
  auto& l = static_cast<ListBuilder&>(*l_builder);
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_OK(ids.Append(i));
    EXPECT_OK(pq.Append(static_cast<int32_t>(-i)));
    if (i == 2) {
      EXPECT_OK(s.AppendNull());
    } else {
      EXPECT_OK(s.Append());
      EXPECT_OK(static_cast<Int32Builder*>(s.field_builder(0))->Append(int32_t(10 * i)));
      auto* b = static_cast<StringBuilder*>(s.field_builder(1));
      EXPECT_OK(i == 1 ? b->AppendNull() : b->Append("b" + std::to_string(i)));
      auto* c = static_cast<StructBuilder*>(s.field_builder(2));
      if (i == 1) {
        EXPECT_OK(c->AppendNull());
      } else {
        EXPECT_OK(c->Append());
        auto* d = static_cast<Int64Builder*>(c->field_builder(0));
        EXPECT_OK(i == 3 ? d->AppendNull() : d->Append(100 * i));
      }
    }
    if (i == 4) {
      EXPECT_OK(l.AppendNull());
    } else {
      EXPECT_OK(l.Append());
      auto* item = static_cast<StructBuilder*>(l.value_builder());
      for (int64_t k = 0; k < i % 3; ++k) {
        EXPECT_OK(item->Append());
        EXPECT_OK(static_cast<Int32Builder*>(item->field_builder(0))->Append(int32_t(i)));
        EXPECT_OK(static_cast<StringBuilder*>(item->field_builder(1))->Append("y"));
      }
    }
  }
  return *RecordBatch::Make(sch, n,
                            {*ids.Finish(), *s.Finish(), *l.Finish(), *pq.Finish()});
}

// Written in 2.0 (no struct validity there: only the 2.1/2.2 runs carry null structs),
// 2.1 and 2.2, two fragments.
class NestedProjectionTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    WriteParams params;
    params.data_storage_version = GetParam();
    params.max_rows_per_file = 4;
    auto reader = table_testing::ReaderOf({NestedBatch(6)});
    auto ds = Dataset::Write(*reader, tmp_.Join("nested.lance"), params);
    ASSERT_TRUE(ds.ok()) << ds.status();
    ds_ = *ds;
    ASSERT_EQ(ds_->fragments().size(), 2u);
  }
  bool v20() const { return GetParam() == "2.0"; }

  TablePtr Scan(std::vector<std::string> columns, std::string filter = "") {
    ScanOptions options;
    options.columns = std::move(columns);
    options.filter = std::move(filter);
    auto table = ds_->ToTable(options);
    EXPECT_TRUE(table.ok()) << table.status();
    return table.ok() ? *table : nullptr;
  }
  static ArrayPtr Column(const TablePtr& table, int i) {
    std::vector<ArrayPtr> pieces;
    for (const auto& b : table->batches()) pieces.push_back(b->column(i));
    return pieces.size() == 1 ? pieces[0] : *Concatenate(pieces);
  }
  // Values of an int column as text, "null" for nulls.
  static std::vector<std::string> Ints(const ArrayPtr& a) {
    std::vector<std::string> out;
    for (int64_t i = 0; i < a->length(); ++i) {
      if (a->IsNull(i)) {
        out.push_back("null");
      } else if (a->type_id() == TypeId::kInt32) {
        out.push_back(std::to_string(static_cast<const Int32Array&>(*a).Value(i)));
      } else {
        out.push_back(std::to_string(static_cast<const Int64Array&>(*a).Value(i)));
      }
    }
    return out;
  }

  TempDir tmp_;
  std::shared_ptr<Dataset> ds_;
};

TEST_P(NestedProjectionTest, ScanGivesTopLevelColumnsNamedByThePath) {
  TablePtr t = Scan({"s.a"});
  ASSERT_TRUE(t);
  ASSERT_EQ(t->schema()->num_fields(), 1);
  const Field& a = *t->schema()->field(0);
  EXPECT_EQ(a.name(), "s.a");
  EXPECT_TRUE(a.type()->Equals(*int32()));
  // `a` is not nullable, but `s` is: the column may hold nulls.
  EXPECT_TRUE(a.nullable());
  EXPECT_EQ(t->schema()->metadata(), (KeyValueMetadata{{"sm", "x"}}));
  std::vector<std::string> a_values = Ints(Column(t, 0));
  // 2.0 files store no struct validity (pylance refuses null structs there): only the
  // later versions know that row 2 has no `s`.
  if (v20()) a_values[2] = "null";
  EXPECT_EQ(a_values, (std::vector<std::string>{"0", "10", "null", "30", "40", "50"}));

  t = Scan({"id", "s.c.d", "s.b"});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->schema()->field(1)->name(), "s.c.d");
  EXPECT_EQ(t->schema()->field(2)->name(), "s.b");
  EXPECT_TRUE(t->schema()->field(2)->type()->Equals(*utf8()));
  if (!v20()) {
    EXPECT_EQ(Ints(Column(t, 1)),
              (std::vector<std::string>{"0", "null", "null", "null", "400", "500"}));
    EXPECT_EQ(Column(t, 2)->null_count(), 2);  // b null at 1, s null at 2
  }

  // The struct and its field side by side; the struct as a nested column too.
  t = Scan({"s", "s.a", "s.c"});
  ASSERT_TRUE(t);
  EXPECT_TRUE(t->schema()->field(0)->Equals(*NestedSchema()->field(1), true));
  EXPECT_EQ(t->schema()->field(2)->name(), "s.c");
  EXPECT_EQ(t->schema()->field(2)->type()->ToString(), "struct<d: int64>");
  if (!v20()) {
    EXPECT_EQ(Column(t, 2)->null_count(), 2);  // c null at 1, s at 2
  }
}

TEST_P(NestedProjectionTest, ScanFiltersRowIdsAndNames) {
  TablePtr t = Scan({"s.b", "id"}, "s.a >= 30 AND s.c.d > 0");
  ASSERT_TRUE(t);
  EXPECT_EQ(table_testing::Int64Column(*t, "id"), (std::vector<int64_t>{4, 5}));
  ScanOptions options;
  options.columns = {"_rowid", "s.c.d"};
  options.with_row_id = true;  // _rowid then goes last, as in pylance
  options.offset = 3;
  auto rows = ds_->ToTable(options);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ((*rows)->schema()->field(0)->name(), "s.c.d");
  EXPECT_EQ(table_testing::Int64Column(**rows, "_rowid"),
            (std::vector<int64_t>{3, int64_t{1} << 32, (int64_t{1} << 32) | 1}));
  // A top-level name with a dot is that column, not a path.
  t = Scan({"p.q"});
  ASSERT_TRUE(t);
  EXPECT_EQ(Ints(Column(t, 0)),
            (std::vector<std::string>{"0", "-1", "-2", "-3", "-4", "-5"}));
  // Backticks quote a segment.
  t = Scan({"`s`.`a`"});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->schema()->field(0)->name(), "`s`.`a`");
  // Fragment-restricted scans project the same way.
  options = {};
  options.columns = {"s.a"};
  options.fragment_ids = std::vector<uint64_t>{1};
  auto frag = ds_->ToTable(options);
  ASSERT_TRUE(frag.ok()) << frag.status();
  EXPECT_EQ(Ints(Column(*frag, 0)), (std::vector<std::string>{"40", "50"}));
}

TEST_P(NestedProjectionTest, ScanRefusesWhatPylanceRefuses) {
  ScanOptions options;
  options.columns = {"s.zz"};
  EXPECT_THAT(ds_->Scan(options), IsErrorWith(StatusCode::kInvalid, "no field 'zz'"));
  options.columns = {"l.item"};
  EXPECT_THAT(ds_->Scan(options), IsErrorWith(StatusCode::kInvalid, "not a struct"));
  options.columns = {"s.a.x"};
  EXPECT_THAT(ds_->Scan(options), IsErrorWith(StatusCode::kInvalid, "'s.a' is int32"));
  options.columns = {"s.a", "s.a"};
  EXPECT_THAT(ds_->Scan(options), IsErrorWith(StatusCode::kInvalid, "twice"));
  options.columns = {"nope.a"};
  EXPECT_THAT(ds_->Scan(options),
              IsErrorWith(StatusCode::kInvalid, "no column 'nope.a'"));
  options.columns = {"s."};
  EXPECT_THAT(ds_->Scan(options), IsErrorWith(StatusCode::kInvalid, "no column"));
}

TEST_P(NestedProjectionTest, TakePrunesTheTopLevelStruct) {
  TakeOptions options;
  options.columns = {"id", "s.c.d", "s.a"};
  auto t = ds_->Take({5, 0, 3}, options);
  ASSERT_TRUE(t.ok()) << t.status();
  const SchemaPtr& sch = (*t)->schema();
  ASSERT_EQ(sch->num_fields(), 2);
  // LanceDataset.take: the kept fields in schema order; the struct keeps its metadata.
  EXPECT_EQ(sch->field(1)->ToString(),
            "s: struct<a: int32 not null, c: struct<d: int64>>");
  EXPECT_EQ(sch->field(1)->metadata(), (KeyValueMetadata{{"k", "v"}}));
  auto s = std::static_pointer_cast<StructArray>(Column(*t, 1));
  EXPECT_EQ(Ints(s->field(0)), (std::vector<std::string>{"50", "0", "30"}));
  auto c = std::static_pointer_cast<StructArray>(s->field(1));
  EXPECT_EQ(Ints(c->field(0)), (std::vector<std::string>{"500", "0", "null"}));

  // LanceFragment.take: in the order asked.
  auto f = ds_->TakeFromFragment(0, {0, 3}, options);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ((*f)->schema()->field(1)->ToString(),
            "s: struct<c: struct<d: int64>, a: int32 not null>");
  s = std::static_pointer_cast<StructArray>(Column(*f, 1));
  EXPECT_EQ(Ints(s->field(1)), (std::vector<std::string>{"0", "30"}));

  // The whole struct named too: whole; a column named twice: once.
  options.columns = {"s.a", "s", "s.a", "id", "id"};
  t = ds_->Take({1}, options);
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ((*t)->schema()->num_fields(), 2);
  EXPECT_TRUE((*t)->schema()->field(0)->Equals(*NestedSchema()->field(1), true));

  // Into a list through its item field, as pylance's take allows.
  options.columns = {"l.item.x"};
  t = ds_->Take({2, 1, 4}, options);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ((*t)->schema()->field(0)->ToString(), "l: list<item: struct<x: int32>>");
  auto l = std::static_pointer_cast<ListArray>(Column(*t, 0));
  EXPECT_EQ(l->value_length(0), 2);
  EXPECT_EQ(l->value_length(1), 1);
  EXPECT_TRUE(l->IsNull(2));
  std::vector<std::string> xs;
  for (int64_t i = 0; i < 2; ++i) {
    auto items = std::static_pointer_cast<StructArray>(l->value_slice(i));
    for (const std::string& x : Ints(items->field(0))) xs.push_back(x);
  }
  EXPECT_EQ(xs, (std::vector<std::string>{"2", "2", "1"}));

  options.columns = {"s.zz"};
  EXPECT_THAT(ds_->Take({0}, options),
              IsErrorWith(StatusCode::kInvalid, "no field 'zz'"));
  options.columns = {"s.nope.x"};
  EXPECT_THAT(ds_->Take({0}, options),
              IsErrorWith(StatusCode::kInvalid, "no field 'nope'"));
  // As pylance's take: segments past a field without children are ignored.
  options.columns = {"id.x"};
  ASSERT_OK_AND_ASSIGN(auto id, ds_->Take({1}, options));
  EXPECT_EQ(id->schema()->field(0)->name(), "id");
}

INSTANTIATE_TEST_SUITE_P(Versions, NestedProjectionTest,
                         ::testing::Values("2.0", "2.1", "2.2"), [](const auto& info) {
                           std::string name = "V" + info.param;
                           name.erase(name.find('.'), 1);
                           return name;
                         });

}  // namespace
}  // namespace lance
