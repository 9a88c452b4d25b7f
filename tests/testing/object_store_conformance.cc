// SPDX-License-Identifier: Apache-2.0
#include "tests/testing/object_store_conformance.h"

#include <gmock/gmock.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <latch>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "lance/macros.h"
#include "tests/testing/matchers.h"

namespace lance::testing {

using io::ListOptions;
using io::ListResult;
using io::ObjectMeta;
using io::ObjectStore;
using io::OutputStream;
using io::RandomAccessReader;
using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)

int ObjectStoreConformanceAnchor() { return 0; }

std::string ObjectStoreTestName(
    const ::testing::TestParamInfo<ObjectStoreTestParam>& info) {
  return info.param.name;
}

std::string RandomBytes(int64_t size, uint64_t seed) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ULL + 1);
  std::string out(static_cast<size_t>(size), '\0');
  size_t i = 0;
  for (; i + 8 <= out.size(); i += 8) {
    uint64_t v = rng();
    std::memcpy(&out[i], &v, 8);
  }
  for (; i < out.size(); ++i) out[i] = static_cast<char>(rng());
  return out;
}

std::vector<Status> RacePutIfNotExists(io::ObjectStore& store, const std::string& key,
                                       const std::vector<std::string>& contents) {
  const int n = static_cast<int>(contents.size());
  std::vector<Status> results(contents.size());
  std::latch start(n);
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      results[i] = store.PutIfNotExists(key, contents[i]);
    });
  }
  for (auto& t : threads) t.join();
  return results;
}

void ObjectStoreConformanceTest::SetUp() {
  auto made = GetParam().make_store();
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  store_ = std::move(made).MoveValueUnsafe();
  ASSERT_NE(store_, nullptr);
}

void ObjectStoreConformanceTest::TearDown() { store_.reset(); }

void ObjectStoreConformanceTest::MustPut(const std::string& path,
                                         const std::string& content) {
  ASSERT_OK(store_->Put(path, content));
}

std::string ObjectStoreConformanceTest::MustRead(const std::string& path) {
  auto read = store_->Read(path);
  EXPECT_TRUE(read.ok()) << path << ": " << read.status().ToString();
  if (!read.ok()) return "";
  return std::string((*read)->ToStringView());
}

std::vector<std::string> ObjectStoreConformanceTest::ListKeys(const std::string& prefix,
                                                              bool recursive) {
  auto listed = store_->ListAll(prefix, recursive);
  EXPECT_TRUE(listed.ok()) << prefix << ": " << listed.status().ToString();
  std::vector<std::string> keys;
  if (!listed.ok()) return keys;
  for (const auto& object : listed->objects) keys.push_back(object.path);
  return keys;
}

namespace {

// A copy or rename from a missing source: NotFound naming the source, and nothing left
// at the destination.
void ExpectMissingSourceRefused(ObjectStore& store, const Status& st,
                                const std::string& from, const std::string& to) {
  EXPECT_THAT(st, IsErrorWith(StatusCode::kNotFound, from));
  EXPECT_THAT(store.Head(to), IsError(StatusCode::kNotFound));
}

// Every page of a listing drained by hand: List, then the continuation token until a page
// has none. More than `max_pages` pages is an error (tokens that never end).
Result<std::vector<ListResult>> ListPages(ObjectStore& store, const std::string& prefix,
                                          ListOptions options, int max_pages) {
  std::vector<ListResult> pages;
  while (true) {
    if (static_cast<int>(pages.size()) == max_pages) {
      return Status::Invalid("listing " + prefix +
                             ": pagination does not terminate after " +
                             std::to_string(max_pages) + " pages");
    }
    LANCE_ASSIGN_OR_RAISE(ListResult page, store.List(prefix, options));
    const bool last = page.next_token.empty();
    options.continuation_token = page.next_token;
    pages.push_back(std::move(page));
    if (last) return pages;
  }
}

std::string ToString(const BufferPtr& buffer) {
  return std::string(buffer->ToStringView());
}

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::vector<std::string> Keys(const ListResult& result) {
  std::vector<std::string> keys;
  for (const auto& object : result.objects) keys.push_back(object.path);
  return keys;
}

}  // namespace

// -- Identity and capabilities ----------------------------------------------------------

TEST_P(ObjectStoreConformanceTest, DescribesItself) {
  EXPECT_FALSE(store_->uri().empty());
  EXPECT_NE(store_->uri().find("://"), std::string::npos) << store_->uri();
  EXPECT_FALSE(store_->ToString().empty());
  EXPECT_EQ(store_->ObjectUri("a/b"),
            store_->uri() + (store_->uri().back() == '/' ? "" : "/") + "a/b");
}

// -- Head -------------------------------------------------------------------------------

TEST_P(ObjectStoreConformanceTest, HeadReturnsSizeAndModificationTime) {
  const int64_t before = NowMillis();
  MustPut("dir/five.bin", "12345");
  const int64_t after = NowMillis();
  ASSERT_OK_AND_ASSIGN(ObjectMeta meta, store_->Head("dir/five.bin"));
  EXPECT_EQ(meta.path, "dir/five.bin");
  EXPECT_EQ(meta.size, 5);
  // File systems round timestamps (ext4: ns, some: 1-2 s), so allow slack.
  EXPECT_GE(meta.last_modified, before - 2000);
  EXPECT_LE(meta.last_modified, after + 2000);
}

TEST_P(ObjectStoreConformanceTest, HeadOfMissingObjectIsNotFoundNamingIt) {
  EXPECT_THAT(store_->Head("missing/object.bin"),
              IsErrorWith(StatusCode::kNotFound, "missing/object.bin"));
  ASSERT_OK_AND_ASSIGN(bool exists, store_->Exists("missing/object.bin"));
  EXPECT_FALSE(exists);
  MustPut("missing/object.bin", "x");
  ASSERT_OK_AND_ASSIGN(exists, store_->Exists("missing/object.bin"));
  EXPECT_TRUE(exists);
}

TEST_P(ObjectStoreConformanceTest, PrefixOfKeysIsNotAnObject) {
  MustPut("parent/child.bin", "x");
  EXPECT_THAT(store_->Head("parent"), IsError(StatusCode::kNotFound));
  EXPECT_THAT(store_->Read("parent"), IsError(StatusCode::kNotFound));
  EXPECT_THAT(store_->OpenReader("parent"), IsError(StatusCode::kNotFound));
}

TEST_P(ObjectStoreConformanceTest, MalformedKeysAreInvalid) {
  for (const std::string key :
       {"", "/abs", "a//b", "a/../b", "..", "../escape", "a/./b", "trailing/", "."}) {
    SCOPED_TRACE("key '" + key + "'");
    EXPECT_THAT(store_->Head(key), IsError(StatusCode::kInvalid));
    EXPECT_THAT(store_->Read(key), IsError(StatusCode::kInvalid));
    EXPECT_THAT(store_->Put(key, "x"), IsError(StatusCode::kInvalid));
    EXPECT_THAT(store_->PutIfNotExists(key, "x"), IsError(StatusCode::kInvalid));
    EXPECT_THAT(store_->OpenWriter(key), IsError(StatusCode::kInvalid));
    EXPECT_THAT(store_->Delete(key), IsError(StatusCode::kInvalid));
    EXPECT_THAT(store_->Copy("ok", key), IsError(StatusCode::kInvalid));
    EXPECT_THAT(store_->Rename(key, "ok"), IsError(StatusCode::kInvalid));
  }
  for (const std::string prefix : {"/abs", "a//", "../", "a/../"}) {
    SCOPED_TRACE("prefix '" + prefix + "'");
    EXPECT_THAT(store_->List(prefix), IsError(StatusCode::kInvalid));
    EXPECT_THAT(store_->DeletePrefix(prefix), IsError(StatusCode::kInvalid));
  }
}

// -- List -------------------------------------------------------------------------------

namespace {

// A small tree with nested "directories" and look-alike siblings ("d/" vs "dx.txt").
const std::vector<std::string>& TreeKeys() {
  static const auto* keys = new std::vector<std::string>{
      "d/a.txt", "d/b/c.txt", "d/b/d.txt", "d/e/f/g.txt",
      "d/z.txt", "dx.txt",    "other.txt",
  };
  return *keys;
}

}  // namespace

TEST_P(ObjectStoreConformanceTest, ListWithDelimiterRollsUpCommonPrefixes) {
  for (const auto& key : TreeKeys()) MustPut(key, key);
  ASSERT_OK_AND_ASSIGN(ListResult page, store_->List("d/"));
  EXPECT_THAT(Keys(page), ElementsAre("d/a.txt", "d/z.txt"));
  EXPECT_THAT(page.common_prefixes, ElementsAre("d/b/", "d/e/"));
  EXPECT_TRUE(page.next_token.empty());
  ASSERT_EQ(page.objects.size(), 2u);
  EXPECT_EQ(page.objects[0].size, 7);

  ASSERT_OK_AND_ASSIGN(ListResult top, store_->List(""));
  EXPECT_THAT(Keys(top), ElementsAre("dx.txt", "other.txt"));
  EXPECT_THAT(top.common_prefixes, ElementsAre("d/"));
}

TEST_P(ObjectStoreConformanceTest, ListRecursiveReturnsEveryKeyBelowThePrefix) {
  for (const auto& key : TreeKeys()) MustPut(key, key);
  ListOptions options;
  options.recursive = true;
  ASSERT_OK_AND_ASSIGN(ListResult page, store_->List("d/", options));
  EXPECT_THAT(Keys(page),
              ElementsAre("d/a.txt", "d/b/c.txt", "d/b/d.txt", "d/e/f/g.txt", "d/z.txt"));
  EXPECT_THAT(page.common_prefixes, IsEmpty());
  EXPECT_THAT(ListKeys("", true), ::testing::ElementsAreArray(TreeKeys()));
}

TEST_P(ObjectStoreConformanceTest, ListPrefixIsAStringPrefix) {
  for (const auto& key : TreeKeys()) MustPut(key, key);
  EXPECT_THAT(ListKeys("d/a", false), ElementsAre("d/a.txt"));
  EXPECT_THAT(ListKeys("d", true), ElementsAre("d/a.txt", "d/b/c.txt", "d/b/d.txt",
                                               "d/e/f/g.txt", "d/z.txt", "dx.txt"));
  ASSERT_OK_AND_ASSIGN(ListResult page, store_->List("d"));
  EXPECT_THAT(Keys(page), ElementsAre("dx.txt"));
  EXPECT_THAT(page.common_prefixes, ElementsAre("d/"));
  ASSERT_OK_AND_ASSIGN(ListResult b, store_->List("d/b"));
  EXPECT_THAT(Keys(b), IsEmpty());
  EXPECT_THAT(b.common_prefixes, ElementsAre("d/b/"));
  EXPECT_THAT(ListKeys("d/b/c", true), ElementsAre("d/b/c.txt"));
  EXPECT_THAT(ListKeys("d/a.txt", true), ElementsAre("d/a.txt"));
}

TEST_P(ObjectStoreConformanceTest, ListOfMissingPrefixIsEmpty) {
  ASSERT_OK_AND_ASSIGN(ListResult empty, store_->List(""));
  EXPECT_THAT(empty.objects, IsEmpty());
  EXPECT_THAT(empty.common_prefixes, IsEmpty());
  MustPut("x/y.bin", "1");
  ASSERT_OK_AND_ASSIGN(ListResult missing, store_->List("nothing/here/"));
  EXPECT_THAT(missing.objects, IsEmpty());
  EXPECT_THAT(missing.common_prefixes, IsEmpty());
  EXPECT_TRUE(missing.next_token.empty());
  EXPECT_THAT(ListKeys("nothing", true), IsEmpty());
}

TEST_P(ObjectStoreConformanceTest, ListIsInLexicographicByteOrder) {
  // '-' < '.' < '/' < '0' < 'A' < 'a' < 0xC3 (UTF-8 lead byte): byte order, not locale.
  std::vector<std::string> keys = {"k/a0",  "k/a-b", "k/A", "k/a.b", "k/ä",
                                   "k/a/b", "k/b",   "k/a", "k/Z",   "k/a b"};
  if (store_->has_directories()) {
    keys.erase(std::find(keys.begin(), keys.end(), "k/a"));  // cannot be file and dir
  }
  std::vector<std::string> shuffled = keys;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(7));
  for (const auto& key : shuffled) MustPut(key, "v");
  std::vector<std::string> expected = keys;
  std::sort(expected.begin(), expected.end());
  std::vector<std::string> listed = ListKeys("k/", true);
  // A store that does not promise order must still list every key exactly once.
  if (!store_->list_is_lexically_ordered()) std::sort(listed.begin(), listed.end());
  EXPECT_EQ(listed, expected);
}

TEST_P(ObjectStoreConformanceTest, ListPaginatesWithMaxKeys) {
  std::vector<std::string> keys;
  for (int i = 0; i < 23; ++i) {
    char name[32];
    std::snprintf(name, sizeof(name), "pages/key-%02d", i);
    keys.push_back(name);
  }
  for (const auto& key : keys) MustPut(key, "v");
  ListOptions options;
  options.recursive = true;
  options.max_keys = 5;
  ASSERT_OK_AND_ASSIGN(std::vector<ListResult> pages,
                       ListPages(*store_, "pages/", options, /*max_pages=*/10));
  std::vector<std::string> seen;
  for (const auto& page : pages) {
    ASSERT_LE(page.objects.size(), 5u);
    for (const auto& object : page.objects) seen.push_back(object.path);
    // Every page but the last is full.
    if (&page != &pages.back()) EXPECT_EQ(page.objects.size(), 5u);
  }
  EXPECT_EQ(pages.size(), 5u);
  EXPECT_EQ(seen, keys);

  // An exact multiple of the page size ends with a full page or an empty last page,
  // never a token that repeats entries.
  options.continuation_token.clear();
  options.max_keys = 23;
  ASSERT_OK_AND_ASSIGN(ListResult all, store_->List("pages/", options));
  EXPECT_EQ(Keys(all), keys);
  if (!all.next_token.empty()) {
    options.continuation_token = all.next_token;
    ASSERT_OK_AND_ASSIGN(ListResult rest, store_->List("pages/", options));
    EXPECT_THAT(rest.objects, IsEmpty());
  }
}

TEST_P(ObjectStoreConformanceTest, ListPaginationCountsCommonPrefixes) {
  for (const std::string key :
       {"p/a", "p/b/1", "p/b/2", "p/c", "p/d/1", "p/d/2/3", "p/e"}) {
    MustPut(key, "v");
  }
  ListOptions options;
  options.max_keys = 2;
  ASSERT_OK_AND_ASSIGN(std::vector<ListResult> pages,
                       ListPages(*store_, "p/", options, /*max_pages=*/10));
  std::vector<std::string> entries;
  for (const auto& page : pages) {
    // Merge the page's objects and prefixes in order, as S3 returns them.
    std::vector<std::string> page_entries = Keys(page);
    page_entries.insert(page_entries.end(), page.common_prefixes.begin(),
                        page.common_prefixes.end());
    std::sort(page_entries.begin(), page_entries.end());
    EXPECT_LE(page_entries.size(), 2u);
    entries.insert(entries.end(), page_entries.begin(), page_entries.end());
  }
  EXPECT_THAT(entries, ElementsAre("p/a", "p/b/", "p/c", "p/d/", "p/e"));
  EXPECT_EQ(pages.size(), 3u);
}

TEST_P(ObjectStoreConformanceTest, ListStartsAfterAKey) {
  for (const std::string key : {"s/a", "s/b", "s/c", "s/d"}) MustPut(key, "v");
  ListOptions options;
  options.recursive = true;
  options.start_after = "s/b";
  ASSERT_OK_AND_ASSIGN(ListResult page, store_->List("s/", options));
  EXPECT_THAT(Keys(page), ElementsAre("s/c", "s/d"));
  // start_after need not be a stored key.
  options.start_after = "s/bb";
  ASSERT_OK_AND_ASSIGN(page, store_->List("s/", options));
  EXPECT_THAT(Keys(page), ElementsAre("s/c", "s/d"));
  options.start_after = "s/z";
  ASSERT_OK_AND_ASSIGN(page, store_->List("s/", options));
  EXPECT_THAT(page.objects, IsEmpty());
  // Combined with pagination.
  options.start_after = "s/a";
  options.max_keys = 2;
  ASSERT_OK_AND_ASSIGN(page, store_->List("s/", options));
  EXPECT_THAT(Keys(page), ElementsAre("s/b", "s/c"));
  ASSERT_FALSE(page.next_token.empty());
  options.continuation_token = page.next_token;
  ASSERT_OK_AND_ASSIGN(page, store_->List("s/", options));
  EXPECT_THAT(Keys(page), ElementsAre("s/d"));
  EXPECT_TRUE(page.next_token.empty());
}

TEST_P(ObjectStoreConformanceTest, ListAllDrainsManyPages) {
  const int64_t n = GetParam().list_many_keys;
  std::vector<std::string> keys;
  for (int64_t i = 0; i < n; ++i) {
    char name[32];
    std::snprintf(name, sizeof(name), "many/%05d", static_cast<int>(i));
    keys.push_back(name);
  }
  for (const auto& key : keys) MustPut(key, "");
  MustPut("many-not-below", "");
  ASSERT_OK_AND_ASSIGN(ListResult all, store_->ListAll("many/", true));
  EXPECT_EQ(Keys(all), keys);
  EXPECT_TRUE(all.next_token.empty());

  // Draining by hand with default-sized and small pages sees the same keys.
  for (int64_t max_keys : {int64_t{0}, int64_t{37}}) {
    SCOPED_TRACE("max_keys " + std::to_string(max_keys));
    ListOptions options;
    options.recursive = true;
    options.max_keys = max_keys;
    ASSERT_OK_AND_ASSIGN(std::vector<ListResult> pages,
                         ListPages(*store_, "many/", options, /*max_pages=*/1000));
    std::vector<std::string> seen;
    for (auto& page : pages) {
      for (auto& object : page.objects) seen.push_back(std::move(object.path));
    }
    EXPECT_EQ(seen, keys);
  }
}

TEST_P(ObjectStoreConformanceTest, ListRejectsNegativeMaxKeys) {
  ListOptions options;
  options.max_keys = -1;
  EXPECT_THAT(store_->List("", options), IsError(StatusCode::kInvalid));
}

// -- Reading ----------------------------------------------------------------------------

TEST_P(ObjectStoreConformanceTest, ReadAtReturnsRangesAndShortReadsAtTheEnd) {
  const std::string content = RandomBytes(100, 1);
  MustPut("ranges.bin", content);
  ASSERT_OK_AND_ASSIGN(auto reader, store_->OpenReader("ranges.bin"));
  EXPECT_EQ(reader->size(), 100);
  EXPECT_EQ(reader->path(), "ranges.bin");

  ASSERT_OK_AND_ASSIGN(BufferPtr middle, reader->ReadAt(10, 20));
  EXPECT_EQ(ToString(middle), content.substr(10, 20));
  ASSERT_OK_AND_ASSIGN(BufferPtr tail, reader->ReadAt(90, 50));
  EXPECT_EQ(ToString(tail), content.substr(90));
  ASSERT_OK_AND_ASSIGN(BufferPtr at_end, reader->ReadAt(100, 5));
  EXPECT_EQ(at_end->size(), 0);
  ASSERT_OK_AND_ASSIGN(BufferPtr zero, reader->ReadAt(5, 0));
  EXPECT_EQ(zero->size(), 0);
  ASSERT_OK_AND_ASSIGN(BufferPtr whole, reader->ReadAt(0, 100));
  EXPECT_EQ(ToString(whole), content);

  EXPECT_THAT(reader->ReadAt(101, 1), IsErrorWith(StatusCode::kInvalid, "ranges.bin"));
  EXPECT_THAT(reader->ReadAt(-1, 1), IsError(StatusCode::kInvalid));
  EXPECT_THAT(reader->ReadAt(0, -1), IsError(StatusCode::kInvalid));

  ASSERT_OK_AND_ASSIGN(BufferPtr range, store_->ReadRange("ranges.bin", 40, 10));
  EXPECT_EQ(ToString(range), content.substr(40, 10));
  ASSERT_OK_AND_ASSIGN(BufferPtr range_tail, store_->ReadRange("ranges.bin", 95, 10));
  EXPECT_EQ(ToString(range_tail), content.substr(95));
  EXPECT_THAT(store_->ReadRange("ranges.bin", 200, 1), IsError(StatusCode::kInvalid));
  EXPECT_THAT(store_->ReadRange("nope.bin", 0, 1),
              IsErrorWith(StatusCode::kNotFound, "nope.bin"));
}

TEST_P(ObjectStoreConformanceTest, ReadReturnsTheWholeObject) {
  const std::string content = RandomBytes(70001, 2);
  MustPut("whole/object.bin", content);
  EXPECT_EQ(MustRead("whole/object.bin"), content);
}

TEST_P(ObjectStoreConformanceTest, ReadingMissingObjectsIsNotFoundNamingThem) {
  EXPECT_THAT(store_->Read("no/such.bin"),
              IsErrorWith(StatusCode::kNotFound, "no/such.bin"));
  EXPECT_THAT(store_->OpenReader("no/such.bin"),
              IsErrorWith(StatusCode::kNotFound, "no/such.bin"));
}

TEST_P(ObjectStoreConformanceTest, EmptyObjectsAreObjects) {
  MustPut("empty.bin", "");
  ASSERT_OK_AND_ASSIGN(ObjectMeta meta, store_->Head("empty.bin"));
  EXPECT_EQ(meta.size, 0);
  ASSERT_OK_AND_ASSIGN(BufferPtr data, store_->Read("empty.bin"));
  EXPECT_EQ(data->size(), 0);
  ASSERT_OK_AND_ASSIGN(auto reader, store_->OpenReader("empty.bin"));
  EXPECT_EQ(reader->size(), 0);
  ASSERT_OK_AND_ASSIGN(BufferPtr none, reader->ReadAt(0, 10));
  EXPECT_EQ(none->size(), 0);
  ASSERT_OK_AND_ASSIGN(ListResult listed, store_->List(""));
  ASSERT_EQ(listed.objects.size(), 1u);
  EXPECT_EQ(listed.objects[0].size, 0);
  // An empty streamed object, too.
  ASSERT_OK_AND_ASSIGN(auto writer, store_->OpenWriter("empty2.bin"));
  ASSERT_OK(writer->Close());
  ASSERT_OK_AND_ASSIGN(meta, store_->Head("empty2.bin"));
  EXPECT_EQ(meta.size, 0);
}

TEST_P(ObjectStoreConformanceTest, ReaderNeverMixesVersionsOfAnObject) {
  // Local stores keep serving what the reader opened; remote stores may instead fail the
  // read (S3 pins the ETag) -- but no store may hand out the new bytes, or a mix.
  const std::string old_content = RandomBytes(4096, 3);
  MustPut("snap.bin", old_content);
  ASSERT_OK_AND_ASSIGN(auto reader, store_->OpenReader("snap.bin"));
  MustPut("snap.bin", RandomBytes(4096, 33));
  Result<BufferPtr> data = reader->ReadAt(0, 4096);
  if (store_->is_local()) {
    ASSERT_OK(data.status());
    EXPECT_EQ(ToString(*data), old_content);
  } else if (data.ok()) {
    EXPECT_EQ(ToString(*data), old_content);
  } else {
    EXPECT_THAT(data.status().message(), ::testing::HasSubstr("snap.bin"));
  }
  ASSERT_OK(store_->Delete("snap.bin"));
  data = reader->ReadAt(100, 10);
  if (store_->is_local()) {
    ASSERT_OK(data.status());
    EXPECT_EQ(ToString(*data), old_content.substr(100, 10));
  } else if (data.ok()) {
    EXPECT_EQ(ToString(*data), old_content.substr(100, 10));
  } else {
    EXPECT_FALSE(data.status().ok());
  }
}

// -- Writing ----------------------------------------------------------------------------

TEST_P(ObjectStoreConformanceTest, StreamingWritesOfManyChunksAppearOnClose) {
  const int64_t total = GetParam().large_object_bytes + 12345;
  const std::string content = RandomBytes(total, 4);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<OutputStream> writer,
                       store_->OpenWriter("stream/big.bin"));
  EXPECT_EQ(writer->path(), "stream/big.bin");
  // Tiny, odd, buffer-sized and huge chunks, to cross any internal buffering boundary.
  const int64_t chunk_sizes[] = {1, 7, 4096, 65536, 262143, 262145, 1 << 20, 3 << 20};
  int64_t offset = 0;
  for (int i = 0; offset < total; ++i) {
    int64_t n = std::min<int64_t>(chunk_sizes[i % 8], total - offset);
    ASSERT_OK(writer->Write(std::string_view(content).substr(offset, n)));
    offset += n;
    EXPECT_EQ(writer->position(), offset);
  }
  EXPECT_THAT(store_->Head("stream/big.bin"), IsError(StatusCode::kNotFound));
  EXPECT_THAT(ListKeys("", true), IsEmpty());
  ASSERT_OK(writer->Close());
  EXPECT_TRUE(writer->closed());
  ASSERT_OK_AND_ASSIGN(ObjectMeta meta, store_->Head("stream/big.bin"));
  EXPECT_EQ(meta.size, total);
  EXPECT_TRUE(MustRead("stream/big.bin") == content);
  EXPECT_THAT(ListKeys("", true), ElementsAre("stream/big.bin"));
}

TEST_P(ObjectStoreConformanceTest, WriterStateMachine) {
  ASSERT_OK_AND_ASSIGN(auto writer, store_->OpenWriter("state.bin"));
  ASSERT_OK(writer->Write("abc"));
  EXPECT_THAT(writer->Write("x", -1), IsError(StatusCode::kInvalid));
  ASSERT_OK(writer->Close());
  ASSERT_OK(writer->Close());  // idempotent
  EXPECT_THAT(writer->Write("more"), IsError(StatusCode::kInvalid));
  ASSERT_OK(writer->Abort());  // no-op after close
  EXPECT_EQ(MustRead("state.bin"), "abc");

  ASSERT_OK_AND_ASSIGN(auto aborted, store_->OpenWriter("aborted.bin"));
  ASSERT_OK(aborted->Write("abc"));
  ASSERT_OK(aborted->Abort());
  ASSERT_OK(aborted->Abort());
  EXPECT_THAT(aborted->Write("x"), IsError(StatusCode::kInvalid));
  EXPECT_THAT(aborted->Close(), IsError(StatusCode::kInvalid));
  EXPECT_THAT(store_->Head("aborted.bin"), IsError(StatusCode::kNotFound));
}

TEST_P(ObjectStoreConformanceTest, AbortLeavesNothingBehind) {
  ASSERT_OK_AND_ASSIGN(auto writer, store_->OpenWriter("dir/aborted.bin"));
  ASSERT_OK(writer->Write(RandomBytes(1 << 20, 5)));
  ASSERT_OK(writer->Abort());
  EXPECT_THAT(store_->Head("dir/aborted.bin"), IsError(StatusCode::kNotFound));
  EXPECT_THAT(ListKeys("", true), IsEmpty());
}

TEST_P(ObjectStoreConformanceTest, DestroyingAnUnclosedWriterAborts) {
  {
    ASSERT_OK_AND_ASSIGN(auto writer, store_->OpenWriter("dropped.bin"));
    ASSERT_OK(writer->Write("partial"));
  }
  EXPECT_THAT(store_->Head("dropped.bin"), IsError(StatusCode::kNotFound));
  EXPECT_THAT(ListKeys("", true), IsEmpty());
}

TEST_P(ObjectStoreConformanceTest, AbortKeepsThePreviousObject) {
  MustPut("keep.bin", "original");
  ASSERT_OK_AND_ASSIGN(auto writer, store_->OpenWriter("keep.bin"));
  ASSERT_OK(writer->Write("replacement"));
  ASSERT_OK(writer->Abort());
  EXPECT_EQ(MustRead("keep.bin"), "original");
}

TEST_P(ObjectStoreConformanceTest, PutAndWritersOverwrite) {
  MustPut("over.bin", "first version, longer");
  MustPut("over.bin", "second");
  EXPECT_EQ(MustRead("over.bin"), "second");
  ASSERT_OK_AND_ASSIGN(auto writer, store_->OpenWriter("over.bin"));
  ASSERT_OK(writer->Write("third"));
  EXPECT_EQ(MustRead("over.bin"), "second");  // not visible before Close
  ASSERT_OK(writer->Close());
  EXPECT_EQ(MustRead("over.bin"), "third");
  EXPECT_THAT(ListKeys("", true), ElementsAre("over.bin"));
}

TEST_P(ObjectStoreConformanceTest, PutIfNotExistsCreatesOnlyOnce) {
  if (!store_->supports_conditional_put()) {
    // Such a store must say so rather than silently overwrite (commits rely on it).
    EXPECT_THAT(store_->PutIfNotExists("_versions/1.manifest", "first"),
                IsError(StatusCode::kNotImplemented));
    return;
  }
  ASSERT_OK(store_->PutIfNotExists("_versions/1.manifest", "first"));
  EXPECT_THAT(store_->PutIfNotExists("_versions/1.manifest", "second, longer"),
              IsErrorWith(StatusCode::kAlreadyExists, "_versions/1.manifest"));
  EXPECT_EQ(MustRead("_versions/1.manifest"), "first");
  EXPECT_THAT(ListKeys("", true), ElementsAre("_versions/1.manifest"));
  // An object written any other way counts too.
  MustPut("_versions/2.manifest", "put");
  EXPECT_THAT(store_->PutIfNotExists("_versions/2.manifest", "x"),
              IsError(StatusCode::kAlreadyExists));
  // After a delete, the key is free again.
  ASSERT_OK(store_->Delete("_versions/1.manifest"));
  ASSERT_OK(store_->PutIfNotExists("_versions/1.manifest", "third"));
  EXPECT_EQ(MustRead("_versions/1.manifest"), "third");
  ASSERT_OK(store_->PutIfNotExists("_versions/empty", ""));
  EXPECT_EQ(MustRead("_versions/empty"), "");
}

TEST_P(ObjectStoreConformanceTest, KeysWithSpacesAndUnicode) {
  const std::string key = "with space/\xC3\xBC \xC3\xB1 \xE6\x97\xA5\xE6\x9C\xAC.txt";
  MustPut(key, "unicode");
  ASSERT_OK_AND_ASSIGN(ObjectMeta meta, store_->Head(key));
  EXPECT_EQ(meta.path, key);
  EXPECT_EQ(MustRead(key), "unicode");
  EXPECT_THAT(ListKeys("with space/", false), ElementsAre(key));
  ASSERT_OK_AND_ASSIGN(ListResult top, store_->List(""));
  EXPECT_THAT(top.common_prefixes, ElementsAre("with space/"));
  ASSERT_OK(store_->Rename(key, "with space/plain+sign=%20.txt"));
  EXPECT_EQ(MustRead("with space/plain+sign=%20.txt"), "unicode");
}

// -- Deleting ---------------------------------------------------------------------------

TEST_P(ObjectStoreConformanceTest, DeleteRemovesAndMissingIsOk) {
  MustPut("del/a.bin", "a");
  MustPut("del/b.bin", "b");
  ASSERT_OK(store_->Delete("del/a.bin"));
  EXPECT_THAT(store_->Head("del/a.bin"), IsError(StatusCode::kNotFound));
  EXPECT_EQ(MustRead("del/b.bin"), "b");
  ASSERT_OK(store_->Delete("del/a.bin"));  // already gone
  ASSERT_OK(store_->Delete("never/existed.bin"));
  ASSERT_OK(store_->Delete("del"));  // a prefix is not an object: nothing to delete
  EXPECT_EQ(MustRead("del/b.bin"), "b");
}

TEST_P(ObjectStoreConformanceTest, DeleteManySkipsMissing) {
  for (const std::string key : {"m/1", "m/2", "m/3", "m/4"}) MustPut(key, key);
  ASSERT_OK(store_->DeleteMany({"m/1", "m/3", "m/missing"}));
  EXPECT_THAT(ListKeys("m/", true), ElementsAre("m/2", "m/4"));
  ASSERT_OK(store_->DeleteMany({}));
  EXPECT_THAT(store_->DeleteMany({"m/2", "../bad"}), IsError(StatusCode::kInvalid));
}

TEST_P(ObjectStoreConformanceTest, DeletePrefixRemovesEverythingBelow) {
  for (const auto& key : TreeKeys()) MustPut(key, key);
  ASSERT_OK(store_->DeletePrefix("d/b/"));
  EXPECT_THAT(ListKeys("", true),
              ElementsAre("d/a.txt", "d/e/f/g.txt", "d/z.txt", "dx.txt", "other.txt"));
  ASSERT_OK(store_->DeletePrefix("d/"));
  EXPECT_THAT(ListKeys("", true), ElementsAre("dx.txt", "other.txt"));
  ASSERT_OK_AND_ASSIGN(ListResult top, store_->List(""));
  EXPECT_THAT(top.common_prefixes, IsEmpty());
  ASSERT_OK(store_->DeletePrefix("nothing/"));
  // A string prefix: "o" matches "other.txt".
  ASSERT_OK(store_->DeletePrefix("o"));
  EXPECT_THAT(ListKeys("", true), ElementsAre("dx.txt"));
  ASSERT_OK(store_->DeletePrefix(""));
  EXPECT_THAT(ListKeys("", true), IsEmpty());
}

// -- Copy and rename --------------------------------------------------------------------

TEST_P(ObjectStoreConformanceTest, CopyDuplicatesAndOverwrites) {
  const std::string content = RandomBytes(3 << 20, 6);
  MustPut("src/obj.bin", content);
  ASSERT_OK(store_->Copy("src/obj.bin", "dst/copy.bin"));
  EXPECT_TRUE(MustRead("dst/copy.bin") == content);
  EXPECT_TRUE(MustRead("src/obj.bin") == content);
  MustPut("dst/other.bin", "to be replaced");
  ASSERT_OK(store_->Copy("dst/copy.bin", "dst/other.bin"));
  EXPECT_TRUE(MustRead("dst/other.bin") == content);
  MustPut("src/small", "small");
  ASSERT_OK(store_->Copy("src/small", "src/small"));  // onto itself
  EXPECT_EQ(MustRead("src/small"), "small");
  ExpectMissingSourceRefused(*store_, store_->Copy("src/missing.bin", "dst/x.bin"),
                             "src/missing.bin", "dst/x.bin");
}

TEST_P(ObjectStoreConformanceTest, RenameMovesAndOverwrites) {
  MustPut("r/a.bin", "A");
  ASSERT_OK(store_->Rename("r/a.bin", "moved/deeper/a.bin"));
  EXPECT_THAT(store_->Head("r/a.bin"), IsError(StatusCode::kNotFound));
  EXPECT_EQ(MustRead("moved/deeper/a.bin"), "A");
  MustPut("r/b.bin", "B");
  ASSERT_OK(store_->Rename("r/b.bin", "moved/deeper/a.bin"));
  EXPECT_EQ(MustRead("moved/deeper/a.bin"), "B");
  ExpectMissingSourceRefused(*store_, store_->Rename("r/gone.bin", "r/x.bin"),
                             "r/gone.bin", "r/x.bin");
}

TEST_P(ObjectStoreConformanceTest, RenameIfNotExistsRefusesToReplace) {
  MustPut("n/a.bin", "A");
  MustPut("n/b.bin", "B");
  Status st = store_->RenameIfNotExists("n/a.bin", "n/b.bin");
  if (st.IsNotImplemented()) {
    // A store without rename must leave both objects as they were.
    EXPECT_EQ(MustRead("n/a.bin"), "A");
    EXPECT_EQ(MustRead("n/b.bin"), "B");
    return;
  }
  EXPECT_THAT(st, IsErrorWith(StatusCode::kAlreadyExists, "n/b.bin"));
  EXPECT_EQ(MustRead("n/a.bin"), "A");
  EXPECT_EQ(MustRead("n/b.bin"), "B");
  ASSERT_OK(store_->RenameIfNotExists("n/a.bin", "n/sub/c.bin"));
  EXPECT_THAT(store_->Head("n/a.bin"), IsError(StatusCode::kNotFound));
  EXPECT_EQ(MustRead("n/sub/c.bin"), "A");
  EXPECT_THAT(store_->RenameIfNotExists("n/missing", "n/d.bin"),
              IsErrorWith(StatusCode::kNotFound, "n/missing"));
}

// -- Concurrency ------------------------------------------------------------------------

TEST_P(ObjectStoreConformanceTest, RacingPutIfNotExistsHasExactlyOneWinner) {
  if (!store_->supports_conditional_put()) {
    EXPECT_THAT(store_->PutIfNotExists("_versions/0.manifest", "x"),
                IsError(StatusCode::kNotImplemented));
    return;
  }
  constexpr int kThreads = 16;
  constexpr int kRounds = 4;
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::string key = "_versions/" + std::to_string(round) + ".manifest";
    std::vector<std::string> contents;
    // Different sizes, so a torn or interleaved write could not pass for a winner's.
    for (int i = 0; i < kThreads; ++i) {
      contents.push_back("writer-" + std::to_string(i) + ":" +
                         RandomBytes(1000 + 37000 * i, 100 * round + i));
    }
    const std::vector<Status> results = RacePutIfNotExists(*store_, key, contents);
    int winner = -1;
    for (int i = 0; i < kThreads; ++i) {
      if (results[i].ok()) {
        EXPECT_EQ(winner, -1) << "two winners: " << winner << " and " << i;
        winner = i;
      } else {
        EXPECT_TRUE(results[i].IsAlreadyExists()) << results[i].ToString();
      }
    }
    ASSERT_NE(winner, -1) << "nobody won";
    EXPECT_TRUE(MustRead(key) == contents[winner]);
  }
  EXPECT_EQ(ListKeys("", true).size(), static_cast<size_t>(kRounds));
}

TEST_P(ObjectStoreConformanceTest, ReadersNeverSeeAPartialObject) {
  const int64_t total = GetParam().large_object_bytes;
  const std::string content = RandomBytes(total, 8);
  const std::string key = "streaming/large.bin";
  std::atomic<bool> done{false};
  std::atomic<int> partial{0};
  std::atomic<int> complete_reads{0};
  std::atomic<int> polls{0};
  std::string failure;
  std::thread reader([&] {
    // Keep polling until a complete object has been seen after the writer finished.
    while (true) {
      const bool finished = done.load();
      ++polls;
      auto head = store_->Head(key);
      if (head.ok()) {
        if (head->size != total) ++partial;
      } else if (!head.status().IsNotFound()) {
        failure = head.status().ToString();
        return;
      }
      auto read = store_->Read(key);
      if (read.ok()) {
        if ((*read)->size() != total || (*read)->ToStringView() != content) {
          ++partial;
        } else {
          ++complete_reads;
        }
      } else if (!read.status().IsNotFound()) {
        failure = read.status().ToString();
        return;
      }
      if (finished) return;
    }
  });
  // No ASSERT until the reader is joined: returning early would destroy a joinable
  // thread.
  auto write = [&]() -> Status {
    LANCE_ASSIGN_OR_RAISE(auto writer, store_->OpenWriter(key));
    const int64_t chunk = 64 * 1024;
    for (int64_t offset = 0; offset < total; offset += chunk) {
      LANCE_RETURN_NOT_OK(writer->Write(
          std::string_view(content).substr(offset, std::min(chunk, total - offset))));
      if ((offset / chunk) % 16 == 0) std::this_thread::yield();
    }
    return writer->Close();
  };
  Status written = write();
  done = true;
  reader.join();
  ASSERT_OK(written);
  EXPECT_EQ(failure, "");
  EXPECT_EQ(partial.load(), 0);
  EXPECT_GE(complete_reads.load(), 1);
  EXPECT_GE(polls.load(), 1);
}

TEST_P(ObjectStoreConformanceTest, ParallelReadAtOnOneReader) {
  const int64_t total = std::min<int64_t>(GetParam().large_object_bytes, 4 << 20);
  const std::string content = RandomBytes(total, 9);
  MustPut("parallel.bin", content);
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<RandomAccessReader> reader,
                       store_->OpenReader("parallel.bin"));
  constexpr int kThreads = 16;
  constexpr int kReadsPerThread = 64;
  std::atomic<int> mismatches{0};
  std::atomic<int> errors{0};
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(t);
      start.arrive_and_wait();
      for (int i = 0; i < kReadsPerThread; ++i) {
        int64_t offset = static_cast<int64_t>(rng() % static_cast<uint64_t>(total));
        int64_t length = static_cast<int64_t>(rng() % 200000);
        auto data = reader->ReadAt(offset, length);
        if (!data.ok()) {
          ++errors;
          continue;
        }
        const int64_t expected_length = std::min(length, total - offset);
        if ((*data)->size() != expected_length ||
            (*data)->ToStringView() != std::string_view(content).substr(offset, length)) {
          ++mismatches;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
}

TEST_P(ObjectStoreConformanceTest, ConcurrentWritersToDistinctKeys) {
  constexpr int kThreads = 8;
  std::vector<Status> results(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::string dir = "shared/dir/";
      for (int i = 0; i < 10 && results[t].ok(); ++i) {
        results[t] = store_->Put(dir + std::to_string(t) + "-" + std::to_string(i),
                                 std::to_string(t * 100 + i));
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& st : results) EXPECT_OK(st);
  EXPECT_EQ(ListKeys("shared/dir/", false).size(), static_cast<size_t>(kThreads * 10));
  EXPECT_EQ(MustRead("shared/dir/3-7"), "307");
}

}  // namespace lance::testing
