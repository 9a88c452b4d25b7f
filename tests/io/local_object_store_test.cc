// SPDX-License-Identifier: Apache-2.0
#include "lance/io/local_object_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "tests/testing/matchers.h"
#include "tests/testing/object_store_conformance.h"
#include "tests/testing/temp_dir.h"

namespace lance::io {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)
using ::lance::testing::ObjectStoreTestParam;
using ::lance::testing::TempDir;

namespace fs = std::filesystem;

// A store in a fresh temporary directory that is removed with the store.
Result<std::shared_ptr<ObjectStore>> MakeTempLocalStore(LocalObjectStoreOptions options) {
  struct Holder {
    TempDir dir;
    std::shared_ptr<LocalObjectStore> store;
  };
  auto holder = std::make_shared<Holder>();
  LANCE_ASSIGN_OR_RAISE(holder->store,
                        LocalObjectStore::Make(holder->dir.path(), options));
  ObjectStore* store = holder->store.get();
  return std::shared_ptr<ObjectStore>(std::move(holder), store);
}

ObjectStoreTestParam LocalParam() {
  ObjectStoreTestParam param{
      "local", [] { return MakeTempLocalStore(LocalObjectStoreOptions::Defaults()); }};
  // Two fsyncs per object make a thousand-object listing test take seconds; the
  // no-fsync instance covers the default page size.
  param.list_many_keys = 150;
  return param;
}

ObjectStoreTestParam LocalNoFsyncParam() {
  LocalObjectStoreOptions options;
  options.fsync = false;
  return {"local_nofsync", [options] { return MakeTempLocalStore(options); }};
}

// A store rooted below a directory that does not exist yet: every operation must create
// what it needs.
ObjectStoreTestParam LocalMissingRootParam() {
  return {"local_missing_root", []() -> Result<std::shared_ptr<ObjectStore>> {
            struct Holder {
              TempDir dir;
              std::shared_ptr<LocalObjectStore> store;
            };
            auto holder = std::make_shared<Holder>();
            LocalObjectStoreOptions options;
            options.fsync = false;
            LANCE_ASSIGN_OR_RAISE(
                holder->store,
                LocalObjectStore::Make(holder->dir.Join("not/yet"), options));
            ObjectStore* store = holder->store.get();
            return std::shared_ptr<ObjectStore>(std::move(holder), store);
          }};
}

}  // namespace

LANCE_INSTANTIATE_OBJECT_STORE_CONFORMANCE(Local, LocalParam(), LocalNoFsyncParam(),
                                           LocalMissingRootParam());

namespace {

// Every file under `dir`, hidden ones included, relative to `dir`.
std::vector<std::string> AllFiles(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file()) files.push_back(fs::relative(it->path(), dir).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

bool HasTempFiles(const std::string& dir) {
  for (const auto& f : AllFiles(dir)) {
    if (fs::path(f).filename().string().rfind(".lance-tmp-", 0) == 0) return true;
  }
  return false;
}

void WriteFile(const std::string& path, const std::string& content) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream out(path, std::ios::binary);
  out << content;
}

class LocalObjectStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_, LocalObjectStore::Make(dir_.path()));
  }
  TempDir dir_;
  std::shared_ptr<LocalObjectStore> store_;
};

TEST_F(LocalObjectStoreTest, DescribesItsRoot) {
  EXPECT_EQ(store_->root(), dir_.path());
  EXPECT_EQ(store_->uri(), "file://" + dir_.path());
  EXPECT_EQ(store_->ObjectUri("a/b"), "file://" + dir_.path() + "/a/b");
  EXPECT_EQ(store_->FilePath("a/b"), dir_.path() + "/a/b");
  EXPECT_TRUE(store_->is_local());
  EXPECT_TRUE(store_->has_directories());
  EXPECT_TRUE(store_->supports_conditional_put());
  EXPECT_THAT(store_->ToString(), ::testing::HasSubstr(dir_.path()));
}

TEST_F(LocalObjectStoreTest, ObjectsAreFilesUnderTheRoot) {
  ASSERT_OK(store_->Put("a/b/c.bin", "hello"));
  EXPECT_THAT(AllFiles(dir_.path()), ElementsAre("a/b/c.bin"));
  std::ifstream in(dir_.Join("a/b/c.bin"), std::ios::binary);
  std::string content((std::istreambuf_iterator<char>(in)),
                      std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "hello");
}

TEST_F(LocalObjectStoreTest, ReadsFilesWrittenByOthers) {
  WriteFile(dir_.Join("ext/data.bin"), "external");
  ASSERT_OK_AND_ASSIGN(auto data, store_->Read("ext/data.bin"));
  EXPECT_EQ(data->ToStringView(), "external");
  ASSERT_OK_AND_ASSIGN(ObjectMeta meta, store_->Head("ext/data.bin"));
  EXPECT_EQ(meta.size, 8);
}

TEST_F(LocalObjectStoreTest, NoTemporaryFilesAfterSuccessOrFailure) {
  ASSERT_OK(store_->Put("ok/put.bin", "x"));
  ASSERT_OK(store_->PutIfNotExists("ok/pine.bin", "x"));
  EXPECT_THAT(store_->PutIfNotExists("ok/pine.bin", "y"),
              IsError(StatusCode::kAlreadyExists));
  ASSERT_OK(store_->Copy("ok/put.bin", "ok/copy.bin"));
  ASSERT_OK(store_->Rename("ok/copy.bin", "ok/renamed.bin"));
  EXPECT_THAT(store_->RenameIfNotExists("ok/renamed.bin", "ok/put.bin"),
              IsError(StatusCode::kAlreadyExists));
  {
    ASSERT_OK_AND_ASSIGN(auto writer, store_->OpenWriter("ok/aborted.bin"));
    ASSERT_OK(writer->Write(std::string(1 << 20, 'x')));
    ASSERT_OK(writer->Abort());
  }
  {
    ASSERT_OK_AND_ASSIGN(auto writer, store_->OpenWriter("ok/dropped.bin"));
    ASSERT_OK(writer->Write(std::string(1000, 'x')));
  }
  {
    ASSERT_OK_AND_ASSIGN(auto writer, store_->OpenWriter("ok/streamed.bin"));
    ASSERT_OK(writer->Write(std::string(3 << 20, 'x')));
    ASSERT_OK(writer->Close());
  }
  EXPECT_FALSE(HasTempFiles(dir_.path()));
  EXPECT_THAT(AllFiles(dir_.path()), ElementsAre("ok/pine.bin", "ok/put.bin",
                                                 "ok/renamed.bin", "ok/streamed.bin"));
}

TEST_F(LocalObjectStoreTest, FailedPublishLeavesNoTemporaryFile) {
  // A directory where the object should go makes the final rename fail.
  fs::create_directories(dir_.Join("blocked/dir"));
  ASSERT_OK_AND_ASSIGN(auto writer, store_->OpenWriter("blocked/dir"));
  ASSERT_OK(writer->Write("data"));
  EXPECT_THAT(writer->Close(), IsErrorWith(StatusCode::kIOError, "blocked/dir"));
  EXPECT_FALSE(HasTempFiles(dir_.path()));
  EXPECT_THAT(store_->PutIfNotExists("blocked/dir", "x"),
              IsError(StatusCode::kAlreadyExists));
  EXPECT_FALSE(HasTempFiles(dir_.path()));
}

TEST_F(LocalObjectStoreTest, DotDotCannotEscapeTheRoot) {
  for (const std::string key : {"../outside", "a/../../outside", "..", "a/.."}) {
    SCOPED_TRACE(key);
    EXPECT_THAT(store_->Put(key, "x"), IsErrorWith(StatusCode::kInvalid, key));
    EXPECT_THAT(store_->Read(key), IsError(StatusCode::kInvalid));
    EXPECT_THAT(store_->Delete(key), IsError(StatusCode::kInvalid));
  }
  EXPECT_THAT(store_->List("../"), IsError(StatusCode::kInvalid));
  EXPECT_THAT(store_->DeletePrefix("../"), IsError(StatusCode::kInvalid));
  EXPECT_FALSE(fs::exists(fs::path(dir_.path()).parent_path() / "outside"));
}

TEST_F(LocalObjectStoreTest, MissingFileErrorsNameTheFullPath) {
  // The absolute path as the user gave it (DisplayPath), with the errno as typed detail.
  const std::string expected = "'" + dir_.path() + "/no/such/file.bin'";
  EXPECT_EQ(store_->DisplayPath("no/such/file.bin"), dir_.path() + "/no/such/file.bin");
  const Status missing = store_->Read("no/such/file.bin").status();
  ASSERT_NE(missing.detail_as<ErrnoDetail>(), nullptr) << missing.ToString();
  EXPECT_EQ(missing.detail_as<ErrnoDetail>()->errnum(), ENOENT);
  EXPECT_EQ(missing.message().find("file://"), std::string::npos) << missing.message();
  EXPECT_THAT(store_->Read("no/such/file.bin"),
              IsErrorWith(StatusCode::kNotFound, expected));
  EXPECT_THAT(store_->Head("no/such/file.bin"),
              IsErrorWith(StatusCode::kNotFound, expected));
  EXPECT_THAT(store_->OpenReader("no/such/file.bin"),
              IsErrorWith(StatusCode::kNotFound, expected));
  EXPECT_THAT(store_->ReadRange("no/such/file.bin", 0, 1),
              IsErrorWith(StatusCode::kNotFound, expected));
  EXPECT_THAT(store_->Copy("no/such/file.bin", "x"),
              IsErrorWith(StatusCode::kNotFound, expected));
}

TEST_F(LocalObjectStoreTest, ListSkipsTemporaryFiles) {
  WriteFile(dir_.Join(".lance-tmp-stale"), "junk");
  WriteFile(dir_.Join("sub/.lance-tmp-other"), "junk");
  WriteFile(dir_.Join("sub/real.bin"), "real");
  EXPECT_THAT(store_->ListAll("", true)->objects.size(), 1u);
  ASSERT_OK_AND_ASSIGN(ListResult top, store_->List(""));
  EXPECT_THAT(top.objects, IsEmpty());
  EXPECT_THAT(top.common_prefixes, ElementsAre("sub/"));
  ASSERT_OK_AND_ASSIGN(ListResult sub, store_->List("sub/"));
  ASSERT_EQ(sub.objects.size(), 1u);
  EXPECT_EQ(sub.objects[0].path, "sub/real.bin");
  // Hidden files that are not ours are ordinary objects.
  WriteFile(dir_.Join("sub/.hidden"), "h");
  EXPECT_EQ(store_->ListAll("sub/", true)->objects.size(), 2u);
}

TEST_F(LocalObjectStoreTest, TemporaryFilePrefixIsReserved) {
  EXPECT_THAT(store_->Put(".lance-tmp-x", "x"),
              IsErrorWith(StatusCode::kInvalid, "reserved"));
  EXPECT_THAT(store_->Put("a/.lance-tmp-x", "x"), IsError(StatusCode::kInvalid));
  EXPECT_THAT(store_->Head("a/.lance-tmp-x"), IsError(StatusCode::kInvalid));
  EXPECT_THAT(store_->Put(".lance-tmp-x/in-a-dir", "x"), IsError(StatusCode::kInvalid));
  ASSERT_OK(store_->Put("a/x.lance-tmp-x", "x"));  // only a leading prefix is reserved
}

TEST_F(LocalObjectStoreTest, DirectoriesAreNotObjects) {
  fs::create_directories(dir_.Join("empty/dir"));
  EXPECT_THAT(store_->Head("empty/dir"), IsErrorWith(StatusCode::kNotFound, "directory"));
  EXPECT_THAT(store_->Read("empty/dir"), IsError(StatusCode::kNotFound));
  ASSERT_OK(store_->Delete("empty/dir"));
  EXPECT_TRUE(fs::is_directory(dir_.Join("empty/dir")));
  EXPECT_THAT(store_->Rename("empty", "elsewhere"), IsError(StatusCode::kNotFound));
  EXPECT_THAT(store_->Copy("empty/dir", "x"), IsError(StatusCode::kNotFound));
  // An empty directory shows up as a common prefix (has_directories()).
  ASSERT_OK_AND_ASSIGN(ListResult top, store_->List(""));
  EXPECT_THAT(top.common_prefixes, ElementsAre("empty/"));
  EXPECT_THAT(store_->ListAll("", true)->objects, IsEmpty());
}

TEST_F(LocalObjectStoreTest, AnObjectCannotBeAParentDirectory) {
  ASSERT_OK(store_->Put("file.bin", "x"));
  EXPECT_THAT(store_->Put("file.bin/child", "y"),
              IsErrorWith(StatusCode::kIOError, "file.bin/child"));
  EXPECT_THAT(store_->PutIfNotExists("file.bin/child", "y"),
              IsError(StatusCode::kIOError));
  EXPECT_THAT(store_->Head("file.bin/child"), IsError(StatusCode::kNotFound));
  ASSERT_OK(store_->Delete("file.bin/child"));
  EXPECT_FALSE(HasTempFiles(dir_.path()));
}

TEST_F(LocalObjectStoreTest, DeletePrefixRemovesTheDirectoriesItEmpties) {
  ASSERT_OK(store_->Put("ds/data/a.lance", "a"));
  ASSERT_OK(store_->Put("ds/_versions/1.manifest", "m"));
  ASSERT_OK(store_->Put("keep.bin", "k"));
  ASSERT_OK(store_->DeletePrefix("ds/"));
  EXPECT_FALSE(fs::exists(dir_.Join("ds")));
  EXPECT_TRUE(fs::exists(dir_.Join("keep.bin")));
  ASSERT_OK(store_->DeletePrefix(""));
  EXPECT_TRUE(fs::is_directory(dir_.path()));  // never the root itself
  EXPECT_THAT(AllFiles(dir_.path()), IsEmpty());
}

TEST_F(LocalObjectStoreTest, DeletePrefixDoesNotFollowSymlinks) {
  TempDir outside;
  WriteFile(outside.Join("precious.bin"), "p");
  fs::create_directories(dir_.Join("ds"));
  fs::create_directory_symlink(outside.path(), dir_.Join("ds/link"));
  ASSERT_OK(store_->DeletePrefix("ds/"));
  EXPECT_TRUE(fs::exists(outside.Join("precious.bin")));
}

TEST_F(LocalObjectStoreTest, ListSurvivesSymlinkLoops) {
  ASSERT_OK(store_->Put("loop/file.bin", "f"));
  fs::create_directory_symlink(dir_.Join("loop"), dir_.Join("loop/self"));
  ASSERT_OK_AND_ASSIGN(ListResult all, store_->ListAll("", true));
  ASSERT_GE(all.objects.size(), 1u);
  EXPECT_EQ(all.objects[0].path, "loop/file.bin");
}

TEST_F(LocalObjectStoreTest, MissingRootListsEmptyAndIsCreatedOnWrite) {
  ASSERT_OK_AND_ASSIGN(auto store, LocalObjectStore::Make(dir_.Join("later/root")));
  ASSERT_OK_AND_ASSIGN(ListResult empty, store->List(""));
  EXPECT_THAT(empty.objects, IsEmpty());
  EXPECT_THAT(store->Head("x"), IsError(StatusCode::kNotFound));
  ASSERT_OK(store->Delete("x"));
  ASSERT_OK(store->DeletePrefix(""));
  ASSERT_OK(store->PutIfNotExists("x/y", "1"));
  EXPECT_TRUE(fs::exists(dir_.Join("later/root/x/y")));
}

TEST_F(LocalObjectStoreTest, RelativeRootIsResolvedAgainstTheWorkingDirectory) {
  ASSERT_OK_AND_ASSIGN(auto store, LocalObjectStore::Make("some/./relative/../dir/"));
  EXPECT_EQ(store->root(), (fs::current_path() / "some/dir").string());
  ASSERT_OK_AND_ASSIGN(auto root, LocalObjectStore::Make("/"));
  EXPECT_EQ(root->root(), "/");
  EXPECT_EQ(root->uri(), "file:///");
  EXPECT_EQ(root->ObjectUri("tmp/x"), "file:///tmp/x");
  // Keys of the root store are relative ("tmp/x"); messages show the absolute path.
  EXPECT_EQ(root->DisplayPath("tmp/x"), "/tmp/x");
  EXPECT_EQ(root->FilePath("tmp/x"), "/tmp/x");
  EXPECT_THAT(LocalObjectStore::Make(""), IsError(StatusCode::kInvalid));
}

TEST_F(LocalObjectStoreTest, RootStoreReachesAbsolutePaths) {
  ASSERT_OK_AND_ASSIGN(auto root, LocalObjectStore::Make("/"));
  const std::string key = dir_.path().substr(1) + "/via/root.bin";
  ASSERT_OK(root->Put(key, "r"));
  ASSERT_OK_AND_ASSIGN(auto data, store_->Read("via/root.bin"));
  EXPECT_EQ(data->ToStringView(), "r");
  ASSERT_OK_AND_ASSIGN(ListResult listed, root->List(dir_.path().substr(1) + "/via/"));
  ASSERT_EQ(listed.objects.size(), 1u);
  EXPECT_EQ(listed.objects[0].path, key);
}

TEST_F(LocalObjectStoreTest, ReaderSeesTheFileItOpenedAcrossRenames) {
  ASSERT_OK(store_->Put("a.bin", "old content"));
  ASSERT_OK_AND_ASSIGN(auto reader, store_->OpenReader("a.bin"));
  ASSERT_OK(store_->Put("b.bin", "new"));
  ASSERT_OK(store_->Rename("b.bin", "a.bin"));
  ASSERT_OK_AND_ASSIGN(auto data, reader->ReadAt(0, 100));
  EXPECT_EQ(data->ToStringView(), "old content");
}

TEST_F(LocalObjectStoreTest, FilesGetOrdinaryPermissions) {
  ASSERT_OK(store_->Put("perm.bin", "x"));
  struct stat st;
  ASSERT_EQ(::stat(dir_.Join("perm.bin").c_str(), &st), 0);
  mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(st.st_mode & 0777, 0666 & ~mask);
}

}  // namespace
}  // namespace lance::io
