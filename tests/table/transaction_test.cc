// SPDX-License-Identifier: Apache-2.0
#include "table/transaction.h"

#include <gtest/gtest.h>

#include <set>

#include "lance/io/memory_object_store.h"
#include "table/commit.h"
#include "tests/testing/matchers.h"

namespace lance::table_internal {
namespace {

using ::lance::testing::IsError;
using ::lance::testing::IsErrorWith;

pb::DataFragment Fragment(uint64_t id, uint64_t rows) {
  pb::DataFragment f;
  f.set_id(id);
  f.set_physical_rows(rows);
  pb::DataFile* file = f.add_files();
  file->set_path("f" + std::to_string(id) + ".lance");
  file->add_fields(0);
  file->add_column_indices(0);
  file->set_file_major_version(2);
  return f;
}

pb::Transaction Overwrite(int n) {
  pb::Transaction txn;
  auto* op = txn.mutable_overwrite();
  for (int i = 0; i < n; ++i) *op->add_fragments() = Fragment(0, 10);
  auto* field = op->add_schema();
  field->set_name("x");
  field->set_id(0);
  field->set_parent_id(-1);
  field->set_logical_type("int64");
  return txn;
}

pb::Transaction Append(uint64_t read_version, int n) {
  pb::Transaction txn;
  txn.set_read_version(read_version);
  for (int i = 0; i < n; ++i) *txn.mutable_append()->add_fragments() = Fragment(0, 5);
  return txn;
}

pb::Transaction Delete(uint64_t read_version, std::vector<uint64_t> updated,
                       std::vector<uint64_t> removed) {
  pb::Transaction txn;
  txn.set_read_version(read_version);
  auto* op = txn.mutable_delete_();
  for (uint64_t id : updated) {
    pb::DataFragment* f = op->add_updated_fragments();
    *f = Fragment(id, 10);
    f->mutable_deletion_file()->set_id(99);
    f->mutable_deletion_file()->set_num_deleted_rows(2);
  }
  for (uint64_t id : removed) op->add_deleted_fragment_ids(id);
  op->set_predicate("x > 1");
  return txn;
}

TEST(BuildManifestTest, OverwriteCreatesVersionOne) {
  auto m = BuildManifest(nullptr, Overwrite(3), 1, {"2.0", "0-u.txn"});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->version(), 1u);
  ASSERT_EQ(m->fragments_size(), 3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(m->fragments(i).id(), static_cast<uint64_t>(i));
  EXPECT_EQ(m->max_fragment_id(), 2u);
  EXPECT_EQ(m->data_format().file_format(), "lance");
  EXPECT_EQ(m->data_format().version(), "2.0");
  EXPECT_EQ(m->writer_version().library(), "lance");
  EXPECT_EQ(m->writer_version().version(), "8.0.0");
  EXPECT_EQ(m->writer_version().build_metadata().rfind("lance-cpp.", 0), 0u);
  EXPECT_EQ(m->transaction_file(), "0-u.txn");
  EXPECT_GT(m->timestamp().seconds(), 1600000000);
  EXPECT_EQ(m->reader_feature_flags(), 0u);
  EXPECT_EQ(m->fields_size(), 1);
  // An empty overwrite has no high-water mark.
  auto empty = BuildManifest(nullptr, Overwrite(0), 1, {});
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->has_max_fragment_id());
}

TEST(BuildManifestTest, AppendAssignsIdsAboveHighWaterMarkAndKeepsUnknownFields) {
  pb::Manifest base = *BuildManifest(nullptr, Overwrite(2), 1, {});
  base.set_max_fragment_id(10);  // fragments 3..10 were deleted at some point
  base.mutable_config()->insert({"k", "v"});
  // A field from a newer Lance (number 99, varint 5) must survive.
  std::string bytes = base.SerializeAsString();
  bytes += std::string("\x98\x06\x05", 3);
  ASSERT_TRUE(base.ParseFromString(bytes));
  auto m = BuildManifest(&base, Append(1, 2), 2, {});
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->fragments_size(), 4);
  EXPECT_EQ(m->fragments(2).id(), 11u);
  EXPECT_EQ(m->fragments(3).id(), 12u);
  EXPECT_EQ(m->max_fragment_id(), 12u);
  EXPECT_EQ(m->config().at("k"), "v");
  EXPECT_EQ(m->writer_feature_flags() & kFlagTableConfig, kFlagTableConfig);
  EXPECT_NE(m->SerializeAsString().find(std::string("\x98\x06\x05", 3)),
            std::string::npos);
}

TEST(BuildManifestTest, OverwriteOfAnExistingDatasetKeepsTheHighWaterMark) {
  pb::Manifest base = *BuildManifest(nullptr, Overwrite(2), 1, {});
  base.set_max_fragment_id(10);
  (*base.mutable_config())["c"] = "kept";
  auto m = BuildManifest(&base, Overwrite(2), 2, {});
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->fragments_size(), 2);
  EXPECT_EQ(m->fragments(0).id(), 11u);  // above every id ever used, as pylance 14
  EXPECT_EQ(m->fragments(1).id(), 12u);
  EXPECT_EQ(m->max_fragment_id(), 12u);
  EXPECT_EQ(m->config().at("c"), "kept");
  // No fragments: the mark stays.
  auto empty = BuildManifest(&base, Overwrite(0), 2, {});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->fragments_size(), 0);
  EXPECT_EQ(empty->max_fragment_id(), 10u);
}

TEST(BuildManifestTest, DeleteUpdatesAndRemovesFragments) {
  pb::Manifest base = *BuildManifest(nullptr, Overwrite(3), 1, {});
  auto m = BuildManifest(&base, Delete(1, {1}, {2}), 2, {});
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->fragments_size(), 2);
  EXPECT_FALSE(m->fragments(0).has_deletion_file());
  EXPECT_EQ(m->fragments(1).deletion_file().id(), 99u);
  EXPECT_EQ(m->max_fragment_id(), 2u);  // the high-water mark stays
  EXPECT_EQ(m->reader_feature_flags(), kFlagDeletionFiles);
  EXPECT_EQ(m->writer_feature_flags(), kFlagDeletionFiles);
  // A fragment that is gone cannot be updated or removed.
  EXPECT_THAT(BuildManifest(&*m, Delete(2, {2}, {}), 3, {}),
              IsError(StatusCode::kConflict));
  EXPECT_THAT(BuildManifest(&*m, Delete(2, {}, {7}), 3, {}),
              IsError(StatusCode::kConflict));
}

TEST(ConflictTest, Rules) {
  const auto ok = [](const pb::Transaction& a, const pb::Transaction& b) {
    return CheckConflict(a, b, 5, "memory://x").ok();
  };
  EXPECT_TRUE(ok(Append(4, 1), Append(4, 1)));
  EXPECT_TRUE(ok(Append(4, 1), Delete(4, {0}, {})));
  EXPECT_TRUE(ok(Delete(4, {0}, {}), Append(4, 1)));
  EXPECT_TRUE(ok(Delete(4, {0}, {}), Delete(4, {1}, {2})));
  EXPECT_FALSE(ok(Delete(4, {0}, {}), Delete(4, {1}, {0})));
  EXPECT_FALSE(ok(Delete(4, {3}, {}), Delete(4, {3}, {})));
  EXPECT_FALSE(ok(Append(4, 1), Overwrite(1)));
  EXPECT_TRUE(ok(Overwrite(1), Append(4, 1)));  // a late Overwrite wins
  EXPECT_FALSE(ok(Delete(4, {0}, {}), Overwrite(1)));
  pb::Transaction rewrite;  // compaction of fragments 0 and 1
  auto* group = rewrite.mutable_rewrite()->add_groups();
  *group->add_old_fragments() = Fragment(0, 10);
  *group->add_old_fragments() = Fragment(1, 10);
  *group->add_new_fragments() = Fragment(7, 20);
  EXPECT_TRUE(ok(Append(4, 1), rewrite));
  EXPECT_FALSE(ok(Delete(4, {0}, {}), rewrite));
  EXPECT_TRUE(ok(Delete(4, {3}, {2}), rewrite));
  pb::Transaction old_style_rewrite;  // the deprecated fields, before groups existed
  *old_style_rewrite.mutable_rewrite()->add_old_fragments() = Fragment(2, 10);
  EXPECT_FALSE(ok(Delete(4, {}, {2}), old_style_rewrite));
  EXPECT_TRUE(ok(Delete(4, {0}, {}), old_style_rewrite));
  pb::Transaction merge;  // add_columns: may add a non-nullable column
  merge.mutable_merge();
  EXPECT_FALSE(ok(Append(4, 1), merge));
  EXPECT_FALSE(ok(Delete(4, {0}, {}), merge));
  merge.mutable_merge()->set_preserves_nullability(true);
  EXPECT_TRUE(ok(Append(4, 1), merge));
  pb::Transaction unknown;  // no operation at all
  EXPECT_FALSE(ok(Append(4, 1), unknown));
  EXPECT_THAT(CheckConflict(Overwrite(1), Overwrite(1), 5, "memory://x"),
              IsErrorWith(StatusCode::kConflict, "version 5"));
}

// Lance's check_overwrite_txn, with pylance 14's answer for two Overwrites: an Overwrite
// rebases over everything (it replaces schema and fragments) except an Overwrite
// (retryable), a change of the same config keys and UpdateMemWalState (incompatible).
TEST(ConflictTest, OverwriteWinsOverEverythingButAnotherOverwrite) {
  pb::Transaction mine = Overwrite(1);
  mine.set_read_version(4);
  const auto check = [&](const pb::Transaction& theirs) {
    return CheckConflict(mine, theirs, 5, "memory://x");
  };
  std::vector<pb::Transaction> compatible = {Append(4, 2), Delete(4, {1}, {2})};
  auto add = [&](auto set) {
    pb::Transaction t;
    t.set_read_version(4);
    set(&t);
    compatible.push_back(std::move(t));
  };
  add([](pb::Transaction* t) { t->mutable_create_index(); });
  add([](pb::Transaction* t) {
    *t->mutable_rewrite()->add_groups()->add_old_fragments() = Fragment(1, 10);
  });
  add([](pb::Transaction* t) { t->mutable_merge(); });
  add([](pb::Transaction* t) { t->mutable_restore()->set_version(2); });
  add([](pb::Transaction* t) { t->mutable_reserve_fragments()->set_num_fragments(3); });
  add([](pb::Transaction* t) {
    *t->mutable_update()->add_updated_fragments() = Fragment(1, 10);
  });
  add([](pb::Transaction* t) { t->mutable_project(); });
  add([](pb::Transaction* t) {
    (*t->mutable_update_config()->mutable_upsert_values())["other"] = "1";
  });
  add([](pb::Transaction* t) {
    t->mutable_data_replacement()->add_replacements()->set_fragment_id(1);
  });
  add([](pb::Transaction* t) { t->mutable_clone(); });
  add([](pb::Transaction* t) { t->mutable_update_bases(); });
  for (const pb::Transaction& theirs : compatible) {
    const Status st = check(theirs);
    EXPECT_TRUE(st.ok()) << OperationName(theirs) << ": " << st;
  }

  const Status two = check(Overwrite(2));
  EXPECT_THAT(two, IsErrorWith(StatusCode::kConflict, "both replaced the whole dataset"));
  EXPECT_TRUE(two.retryable());

  pb::Transaction wal;
  wal.mutable_update_mem_wal_state();
  EXPECT_THAT(check(wal), IsError(StatusCode::kConflict));
  EXPECT_FALSE(check(wal).retryable());

  // Config keys: the same key upserted or deleted on the other side is incompatible.
  (*mine.mutable_overwrite()->mutable_config_upsert_values())["k"] = "mine";
  pb::Transaction set_k;
  (*set_k.mutable_update_config()->mutable_upsert_values())["k"] = "theirs";
  EXPECT_THAT(check(set_k), IsErrorWith(StatusCode::kConflict, "config key k"));
  EXPECT_FALSE(check(set_k).retryable());
  pb::Transaction delete_k;
  delete_k.mutable_update_config()->add_delete_keys("k");
  EXPECT_THAT(check(delete_k), IsErrorWith(StatusCode::kConflict, "config key k"));
  pb::Transaction new_style;
  auto* entry =
      new_style.mutable_update_config()->mutable_config_updates()->add_update_entries();
  entry->set_key("k");
  EXPECT_THAT(check(new_style), IsErrorWith(StatusCode::kConflict, "config key k"));
  pb::Transaction other_overwrite = Overwrite(1);
  (*other_overwrite.mutable_overwrite()->mutable_config_upsert_values())["k"] = "x";
  EXPECT_FALSE(check(other_overwrite).retryable());

  pb::Transaction unknown;  // an operation of a newer Lance: refused
  EXPECT_THAT(check(unknown), IsError(StatusCode::kConflict));
}

// Every operation Lance 14 writes (transaction.proto fields 100-115), as the other side
// of a rebase of our Append and of our Delete of fragment 1: Lance's rules
// (conflict_resolver.rs check_append_txn / check_delete_txn).
TEST(ConflictTest, EveryLanceOperation) {
  struct Case {
    const char* name;
    pb::Transaction txn;
    bool append_ok;
    bool delete_ok;
  };
  std::vector<Case> cases;
  auto add = [&](const char* name, bool append_ok, bool delete_ok, auto set) {
    pb::Transaction t;
    t.set_read_version(4);
    set(&t);
    cases.push_back({name, std::move(t), append_ok, delete_ok});
  };
  add("Append", true, true, [](pb::Transaction* t) { *t = Append(4, 2); });
  add("Delete other", true, true, [](pb::Transaction* t) { *t = Delete(4, {2}, {3}); });
  add("Delete same", true, false, [](pb::Transaction* t) { *t = Delete(4, {1}, {}); });
  add("Overwrite", false, false, [](pb::Transaction* t) { *t = Overwrite(1); });
  add("CreateIndex", true, true, [](pb::Transaction* t) { t->mutable_create_index(); });
  add("Rewrite other", true, true, [](pb::Transaction* t) {
    *t->mutable_rewrite()->add_groups()->add_old_fragments() = Fragment(2, 10);
  });
  add("Rewrite same", true, false, [](pb::Transaction* t) {
    *t->mutable_rewrite()->add_groups()->add_old_fragments() = Fragment(1, 10);
  });
  add("Merge", false, false, [](pb::Transaction* t) { t->mutable_merge(); });
  add("Merge preserving", true, false,
      [](pb::Transaction* t) { t->mutable_merge()->set_preserves_nullability(true); });
  add("Restore", false, false,
      [](pb::Transaction* t) { t->mutable_restore()->set_version(2); });
  add("ReserveFragments", true, true,
      [](pb::Transaction* t) { t->mutable_reserve_fragments()->set_num_fragments(3); });
  add("Update other", true, true, [](pb::Transaction* t) {
    t->mutable_update()->add_removed_fragment_ids(2);
    *t->mutable_update()->add_new_fragments() = Fragment(9, 1);
  });
  add("Update same", true, false, [](pb::Transaction* t) {
    *t->mutable_update()->add_updated_fragments() = Fragment(1, 10);
  });
  add("Project", false, true, [](pb::Transaction* t) { t->mutable_project(); });
  add("Project preserving", true, true,
      [](pb::Transaction* t) { t->mutable_project()->set_preserves_nullability(true); });
  add("UpdateConfig", true, true, [](pb::Transaction* t) { t->mutable_update_config(); });
  add("DataReplacement other", true, true, [](pb::Transaction* t) {
    t->mutable_data_replacement()->add_replacements()->set_fragment_id(0);
  });
  add("DataReplacement same", true, false, [](pb::Transaction* t) {
    t->mutable_data_replacement()->add_replacements()->set_fragment_id(1);
  });
  add("UpdateMemWalState", false, false,
      [](pb::Transaction* t) { t->mutable_update_mem_wal_state(); });
  add("Clone", true, true, [](pb::Transaction* t) { t->mutable_clone(); });
  add("UpdateBases", true, true, [](pb::Transaction* t) { t->mutable_update_bases(); });
  add("DataOverlay", true, true, [](pb::Transaction* t) {
    t->mutable_data_overlay()->add_groups()->set_fragment_id(1);
  });
  // Lance's "incompatible" conflicts (no retry helps) against its "retryable" ones.
  const std::set<std::string> incompatible = {"Overwrite", "Restore",
                                              "UpdateMemWalState"};
  for (const Case& c : cases) {
    const Status append = CheckConflict(Append(4, 1), c.txn, 5, "memory://x");
    EXPECT_EQ(append.ok(), c.append_ok) << "Append over " << c.name << ": " << append;
    if (!append.ok()) {
      EXPECT_EQ(append.code(), StatusCode::kConflict) << c.name;
    }
    const Status del = CheckConflict(Delete(4, {1}, {}), c.txn, 5, "memory://x");
    EXPECT_EQ(del.ok(), c.delete_ok) << "Delete over " << c.name << ": " << del;
    if (!del.ok()) {
      EXPECT_EQ(del.code(), StatusCode::kConflict) << c.name;
      EXPECT_EQ(del.retryable(), incompatible.count(c.name) == 0) << c.name;
    }
    if (!append.ok()) {
      EXPECT_EQ(append.retryable(), incompatible.count(c.name) == 0) << c.name;
    }
  }
}

// An operation of a newer Lance (a oneof number this build does not know) decodes with
// no operation set; the conflict check names it and refuses to rebase.
TEST(ConflictTest, UnknownOperationOfANewerLance) {
  pb::Transaction theirs;
  // Field 116, length-delimited, empty: tag (116 << 3 | 2) = 930 = varint a2 07.
  theirs.set_read_version(4);
  std::string wire = theirs.SerializeAsString() + std::string("\xa2\x07\x00", 3);
  ASSERT_TRUE(theirs.ParseFromString(wire));
  EXPECT_EQ(theirs.operation_case(), pb::Transaction::OPERATION_NOT_SET);
  EXPECT_EQ(OperationName(theirs),
            "operation unknown to lance-cpp (transaction field 116)");
  EXPECT_THAT(CheckConflict(Append(4, 1), theirs, 5, "memory://x"),
              IsErrorWith(StatusCode::kConflict, "transaction field 116"));
  EXPECT_THAT(CheckConflict(Delete(4, {0}, {}), theirs, 5, "memory://x"),
              IsErrorWith(StatusCode::kConflict, "transaction field 116"));
  // And a transaction with no operation is refused clearly rather than applied.
  pb::Manifest base = *BuildManifest(nullptr, Overwrite(1), 1, {});
  pb::Transaction none;
  none.set_read_version(1);
  EXPECT_THAT(BuildManifest(&base, none, 2, {}),
              IsErrorWith(StatusCode::kNotImplemented, "without an operation"));
}

// The regression behind "cannot apply a (unknown operation) transaction": an append of no
// rows still carries an (empty) Append, as Lance writes it, and commits a version.
TEST(BuildManifestTest, EmptyAppendCommitsAVersion) {
  pb::Manifest base = *BuildManifest(nullptr, Overwrite(2), 1, {});
  pb::Transaction txn;
  txn.set_read_version(1);
  txn.mutable_append();
  std::string wire = txn.SerializeAsString();
  pb::Transaction decoded;
  ASSERT_TRUE(decoded.ParseFromString(wire));
  EXPECT_EQ(decoded.operation_case(), pb::Transaction::kAppend);
  auto m = BuildManifest(&base, decoded, 2, {});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->version(), 2u);
  EXPECT_EQ(m->fragments_size(), 2);
}

TEST(FeatureFlagTest, MixedDataFileVersions) {
  pb::Manifest m;
  m.set_reader_feature_flags(kFlagMixedDataFileVersions | kFlagDeletionFiles);
  m.set_writer_feature_flags(kFlagMixedDataFileVersions | kFlagDeletionFiles);
  EXPECT_TRUE(CheckReaderFlags(m, "m").ok());
  EXPECT_TRUE(CheckWriterFlags(m, "m").ok());
  // The flag is paired: one word alone is damage (as Lance says).
  m.set_writer_feature_flags(kFlagDeletionFiles);
  EXPECT_THAT(CheckReaderFlags(m, "m"), IsErrorWith(StatusCode::kCorrupt, "mixed"));

  // A manifest of 2.2 files appended with a 2.1 file gets the flag in both words, and
  // keeps it on later commits.
  pb::Transaction create = Overwrite(1);
  create.mutable_overwrite()
      ->mutable_fragments(0)
      ->mutable_files(0)
      ->set_file_minor_version(2);
  pb::Manifest v1 = *BuildManifest(nullptr, create, 1, {"2.2", ""});
  EXPECT_EQ(v1.reader_feature_flags() & kFlagMixedDataFileVersions, 0u);
  pb::Transaction append = Append(1, 1);
  append.mutable_append()->mutable_fragments(0)->mutable_files(0)->set_file_minor_version(
      1);
  auto v2 = BuildManifest(&v1, append, 2, {});
  ASSERT_TRUE(v2.ok()) << v2.status();
  EXPECT_EQ(v2->data_format().version(), "2.2");
  EXPECT_NE(v2->reader_feature_flags() & kFlagMixedDataFileVersions, 0u);
  EXPECT_NE(v2->writer_feature_flags() & kFlagMixedDataFileVersions, 0u);
  pb::Transaction append22 = Append(2, 1);
  append22.mutable_append()
      ->mutable_fragments(0)
      ->mutable_files(0)
      ->set_file_minor_version(2);
  auto v3 = BuildManifest(&*v2, append22, 3, {});
  ASSERT_TRUE(v3.ok()) << v3.status();
  EXPECT_NE(v3->reader_feature_flags() & kFlagMixedDataFileVersions, 0u);
  // Legacy files never join V2 ones.
  pb::Transaction legacy = Append(1, 1);
  legacy.mutable_append()->mutable_fragments(0)->mutable_files(0)->set_file_major_version(
      0);
  legacy.mutable_append()->mutable_fragments(0)->mutable_files(0)->set_file_minor_version(
      2);
  EXPECT_THAT(BuildManifest(&v1, legacy, 2, {}),
              IsErrorWith(StatusCode::kInvalid, "legacy"));
}

TEST(FeatureFlagTest, RefusesWhatWeCannotHonour) {
  pb::Manifest m;
  m.set_reader_feature_flags(kFlagDeletionFiles);
  EXPECT_TRUE(CheckReaderFlags(m, "m").ok());
  m.set_reader_feature_flags(kFlagStableRowIds);
  EXPECT_THAT(CheckReaderFlags(m, "m"),
              IsErrorWith(StatusCode::kNotImplemented, "stable row ids"));
  m.set_reader_feature_flags(64);
  EXPECT_THAT(CheckReaderFlags(m, "m"),
              IsErrorWith(StatusCode::kNotImplemented, "unknown"));
  m.set_reader_feature_flags(0);
  m.set_writer_feature_flags(kFlagTableConfig | kFlagUseV2Format);
  EXPECT_TRUE(CheckWriterFlags(m, "m").ok());
  m.set_writer_feature_flags(128);
  EXPECT_THAT(CheckWriterFlags(m, "m"), IsError(StatusCode::kNotImplemented));
}

// A dataset directory "ds" on a fresh memory store named `name`.
DatasetDir MemoryDir(const std::string& name) {
  return DatasetDir(std::make_shared<io::MemoryObjectStore>(name), "ds");
}

TEST(CommitTest, RebasesAppendsAndRefusesMissingTransactions) {
  DatasetDir dir = MemoryDir("commit-test");
  CommitOptions options;
  auto v1 = CommitTransaction(dir, nullptr, Overwrite(1), options);
  ASSERT_TRUE(v1.ok()) << v1.status();
  EXPECT_EQ(v1->manifest.version(), 1u);
  EXPECT_EQ(v1->location.scheme, NamingScheme::kV2);
  auto v2 = CommitTransaction(dir, &*v1, Append(1, 1), options);
  ASSERT_TRUE(v2.ok()) << v2.status();
  // A second append planned against version 1 lands as version 3 with a fresh id.
  auto v3 = CommitTransaction(dir, &*v1, Append(1, 1), options);
  ASSERT_TRUE(v3.ok()) << v3.status();
  EXPECT_EQ(v3->manifest.version(), 3u);
  ASSERT_EQ(v3->manifest.fragments_size(), 3);
  EXPECT_EQ(v3->manifest.fragments(2).id(), 2u);
  // The .txn file was written and is named after the read version.
  EXPECT_EQ(v3->manifest.transaction_file().substr(0, 2), "1-");
  EXPECT_TRUE(
      *dir.store()->Exists(dir.Key("_transactions/" + v3->manifest.transaction_file())));
  // An overwrite planned against version 1 wins over both appends (as in Lance): it
  // lands as version 4 with only its own fragments, numbered above the high-water mark.
  pb::Transaction late = Overwrite(2);
  late.set_read_version(1);
  auto v4 = CommitTransaction(dir, &*v1, late, options);
  ASSERT_TRUE(v4.ok()) << v4.status();
  EXPECT_EQ(v4->manifest.version(), 4u);
  ASSERT_EQ(v4->manifest.fragments_size(), 2);
  EXPECT_EQ(v4->manifest.fragments(0).id(), 3u);
  EXPECT_EQ(v4->manifest.fragments(1).id(), 4u);
  EXPECT_EQ(v4->manifest.max_fragment_id(), 4u);
  EXPECT_EQ(v4->manifest.fields(0).name(), "x");
  EXPECT_EQ(v4->manifest.transaction_file().substr(0, 2), "1-");
  EXPECT_TRUE(v4->index_section.empty());
  // A second overwrite planned against version 1 now meets the first: retryable.
  const auto again = CommitTransaction(dir, &*v1, late, options);
  EXPECT_THAT(again,
              IsErrorWith(StatusCode::kConflict, "Overwrite committed concurrently"));
  EXPECT_TRUE(again.status().retryable());
  // A concurrent commit whose transaction cannot be read is a conflict too.
  pb::Manifest foreign = v4->manifest;
  foreign.set_version(5);
  foreign.set_transaction_file("missing.txn");
  ASSERT_TRUE(dir.store()
                  ->Put(dir.ManifestKey(5, NamingScheme::kV2),
                        SerializeManifestFile(foreign, "", nullptr))
                  .ok());
  EXPECT_THAT(CommitTransaction(dir, &*v4, Append(4, 1), options),
              IsErrorWith(StatusCode::kConflict, "version 5"));
}

TEST(CommitTest, ARebasedOverwriteKeepsTheLatestConfigAndDropsIndices) {
  DatasetDir dir = MemoryDir("commit-overwrite");
  CommitOptions options;
  auto v1 = CommitTransaction(dir, nullptr, Overwrite(1), options);
  ASSERT_TRUE(v1.ok()) << v1.status();
  pb::Transaction config;
  config.set_read_version(1);
  (*config.mutable_update_config()->mutable_upsert_values())["a"] = "1";
  CommitOptions with_index = options;
  with_index.index_section = "not really an index section";
  auto v2 = CommitTransaction(dir, &*v1, config, with_index);
  ASSERT_TRUE(v2.ok()) << v2.status();
  ASSERT_FALSE(v2->index_section.empty());
  pb::Transaction late = Overwrite(1);
  late.set_read_version(1);
  (*late.mutable_overwrite()->mutable_config_upsert_values())["b"] = "2";
  auto v3 = CommitTransaction(dir, &*v1, late, options);
  ASSERT_TRUE(v3.ok()) << v3.status();
  EXPECT_EQ(v3->manifest.version(), 3u);
  EXPECT_EQ(v3->manifest.config().at("a"), "1");
  EXPECT_EQ(v3->manifest.config().at("b"), "2");
  EXPECT_TRUE(v3->index_section.empty());
  ASSERT_OK_AND_ASSIGN(auto reread, FindLatestManifest(dir));
  ASSERT_TRUE(reread.has_value());
  ASSERT_OK_AND_ASSIGN(LoadedManifest loaded, ReadManifest(dir, *reread));
  EXPECT_EQ(loaded.manifest.version(), 3u);
  EXPECT_TRUE(loaded.index_section.empty());
  EXPECT_EQ(loaded.manifest.fragments(0).id(), 1u);
  EXPECT_EQ(loaded.manifest.max_fragment_id(), 1u);

  // The same key set on both sides: incompatible, nothing committed.
  pb::Transaction clash = Overwrite(1);
  clash.set_read_version(1);
  (*clash.mutable_overwrite()->mutable_config_upsert_values())["a"] = "9";
  const auto lost = CommitTransaction(dir, &*v1, clash, options);
  EXPECT_THAT(lost, IsErrorWith(StatusCode::kConflict, "config key a"));
  EXPECT_FALSE(lost.status().retryable());
}

TEST(CommitTest, CreatingNeverRebases) {
  auto store = std::make_shared<io::MemoryObjectStore>("commit-create");
  DatasetDir dir(store, "ds");
  CommitOptions options;
  ASSERT_TRUE(CommitTransaction(dir, nullptr, Overwrite(1), options).ok());
  EXPECT_THAT(CommitTransaction(dir, nullptr, Overwrite(2), options),
              IsErrorWith(StatusCode::kConflict, "created concurrently"));
  ASSERT_OK_AND_ASSIGN(auto latest, FindLatestManifest(dir));
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->version, 1u);
}

// A store on which another writer commits a version right before each of our manifest
// puts: every attempt loses its race, whatever the commit read before it.
class AlwaysBeatenStore : public io::ObjectStoreWrapper {
 public:
  explicit AlwaysBeatenStore(std::shared_ptr<io::ObjectStore> inner)
      : io::ObjectStoreWrapper(inner), rival_dir_(inner, "") {}

  Status PutIfNotExists(const std::string& path, std::string_view data) override {
    if (path.find("_versions/") != std::string::npos) {
      auto latest = FindLatestManifest(rival_dir_);
      if (latest.ok() && latest->has_value()) {
        auto loaded = ReadManifest(rival_dir_, **latest);
        if (loaded.ok()) {
          auto won = CommitTransaction(rival_dir_, &*loaded,
                                       Append((*latest)->version, 1), CommitOptions{});
          if (won.ok()) ++rival_commits;
        }
      }
    }
    return io::ObjectStoreWrapper::PutIfNotExists(path, data);
  }

  int rival_commits = 0;

 private:
  DatasetDir rival_dir_;
};

TEST(CommitTest, RetriesAreBounded) {
  auto inner = std::make_shared<io::MemoryObjectStore>("commit-retries");
  DatasetDir plain(inner, "");
  CommitOptions options;
  auto v1 = CommitTransaction(plain, nullptr, Overwrite(1), options);
  ASSERT_TRUE(v1.ok());
  // Commits read the latest version first: a stale read is not a retry.
  for (int i = 0; i < 3; ++i) {
    options.max_retries = 0;
    ASSERT_TRUE(CommitTransaction(plain, &*v1, Append(1, 1), options).ok());
  }
  auto beaten = std::make_shared<AlwaysBeatenStore>(inner);
  DatasetDir dir(beaten, "");
  options.max_retries = 2;
  EXPECT_THAT(CommitTransaction(dir, &*v1, Append(1, 1), options),
              IsErrorWith(StatusCode::kConflict, "gave up after 3 attempts"));
  EXPECT_EQ(beaten->rival_commits, 3);
  ASSERT_OK_AND_ASSIGN(auto latest, FindLatestManifest(plain));
  EXPECT_EQ(latest->version, 7u);  // 1 + 3 + the rivals' 3, none of ours
}

}  // namespace
}  // namespace lance::table_internal
