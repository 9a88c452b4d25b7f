// SPDX-License-Identifier: Apache-2.0
// S3Client against the real RGW of the tests (coordinates from LANCE_S3_*): every
// operation, awkward keys, ranges, conditional writes and reads, listing pagination,
// batch deletes, multipart, addressing styles, credential failures and refresh,
// connection reuse, unreachable endpoints.
#include "io/s3/s3_client.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "io/s3/endpoint.h"
#include "io/s3/errors.h"
#include "io/s3/responses.h"
#include "lance/io/credentials.h"
#include "lance/io/http_error.h"
#include "lance/io/s3_object_store.h"
#include "tests/testing/matchers.h"

namespace lance::io::s3 {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)

struct RgwEnv {
  std::string endpoint, region, access_key, secret_key, bucket;
};

// The environment, or a failure telling how to get one (no skip).
Result<RgwEnv> GetEnv() {
  RgwEnv env;
  struct Var {
    const char* name;
    std::string* out;
  } vars[] = {{"LANCE_S3_ENDPOINT", &env.endpoint},
              {"LANCE_S3_REGION", &env.region},
              {"LANCE_S3_ACCESS_KEY", &env.access_key},
              {"LANCE_S3_SECRET_KEY", &env.secret_key},
              {"LANCE_S3_BUCKET", &env.bucket}};
  for (const auto& v : vars) {
    const char* value = std::getenv(v.name);
    if (value == nullptr || *value == '\0') {
      return Status::Invalid(std::string(v.name) +
                             " is not set: run the S3 tests through scripts/run_tests.sh "
                             "(it starts RGW and exports LANCE_S3_*)");
    }
    *v.out = value;
  }
  return env;
}

// Fast-failing defaults for tests: few retries with short backoff.
S3Options TestOptions(const RgwEnv& env) {
  S3Options o;
  o.endpoint = env.endpoint;
  o.region = env.region;
  o.allow_http = true;
  o.credentials = AwsCredentials{env.access_key, env.secret_key, ""};
  o.max_retries = 2;
  o.initial_backoff = std::chrono::milliseconds(10);
  o.max_backoff = std::chrono::milliseconds(50);
  o.connect_timeout = std::chrono::milliseconds(2000);
  return o;
}

std::string UniquePrefix(const std::string& name) {
  static std::atomic<int> counter{0};
  static const uint64_t run = std::random_device{}();
  return "h2-client/" + name + "-" + std::to_string(getpid()) + "-" +
         std::to_string(run % 100000) + "-" + std::to_string(counter++) + "/";
}

// Counts Current() and OnRejected() calls; can hand out a bad key first.
class CountingSource : public CredentialsSource {
 public:
  CountingSource(AwsCredentials first, AwsCredentials good)
      : first_(std::make_shared<const io::Credentials>(std::move(first))),
        good_(std::make_shared<const io::Credentials>(std::move(good))) {}
  Result<std::shared_ptr<const io::Credentials>> Current() override {
    ++current_calls;
    std::lock_guard<std::mutex> lock(mu_);
    return refreshed_ ? good_ : first_;
  }
  Result<std::shared_ptr<const io::Credentials>> OnRejected(
      const io::Credentials&) override {
    ++rejected_calls;
    std::lock_guard<std::mutex> lock(mu_);
    refreshed_ = true;
    return good_;
  }
  std::string id() const override { return "counting"; }
  std::string ToString() const override { return "CountingSource"; }

  std::atomic<int> current_calls{0};
  std::atomic<int> rejected_calls{0};

 private:
  std::mutex mu_;
  bool refreshed_ = false;
  std::shared_ptr<const io::Credentials> first_, good_;
};

// The local ports of this process's ESTABLISHED TCP connections to `remote_port` (from
// /proc: the socket inodes of /proc/self/fd matched in /proc/self/net/tcp{,6}).
std::set<int> ConnectionsTo(int remote_port) {
  std::set<std::string> inodes;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const std::string target = std::filesystem::read_symlink(entry.path(), ec).string();
    if (!ec && target.rfind("socket:[", 0) == 0) {
      inodes.insert(target.substr(8, target.size() - 9));
    }
  }
  std::set<int> ports;
  for (const char* table : {"/proc/self/net/tcp", "/proc/self/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state, skip, inode;
      fields >> slot >> local >> remote >> state;
      for (int i = 0; i < 5; ++i) fields >> skip;  // tx:rx tr:when retrnsmt uid timeout
      fields >> inode;
      if (state != "01" || inodes.count(inode) == 0) continue;  // 01: ESTABLISHED
      const int rport = std::stoi(remote.substr(remote.find(':') + 1), nullptr, 16);
      if (rport == remote_port) {
        ports.insert(std::stoi(local.substr(local.find(':') + 1), nullptr, 16));
      }
    }
  }
  return ports;
}

int EndpointPort(const std::string& endpoint) {
  return std::stoi(endpoint.substr(endpoint.rfind(':') + 1));
}

std::set<int> Minus(const std::set<int>& a, const std::set<int>& b) {
  std::set<int> out;
  for (int x : a) {
    if (b.count(x) == 0) out.insert(x);
  }
  return out;
}

class S3ClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto env = GetEnv();
    ASSERT_TRUE(env.ok()) << env.status().ToString();
    env_ = *env;
    ASSERT_OK_AND_ASSIGN(client_, MakeClient(TestOptions(env_)));
    prefix_ =
        UniquePrefix(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }

  // Best effort: leave nothing behind under this test's prefix.
  void TearDown() override {
    if (client_ == nullptr) return;
    ListObjectsV2Request req;
    req.prefix = prefix_;
    for (int page = 0; page < 10; ++page) {
      auto r = client_->ListObjectsV2(req);
      if (!r.ok() || r->objects.empty()) break;
      std::vector<std::string> keys;
      for (const auto& o : r->objects) keys.push_back(o.key);
      (void)client_->DeleteObjects(keys);
      if (r->next_continuation_token.empty()) break;
    }
  }

  Result<std::shared_ptr<S3Client>> MakeClient(
      const S3Options& options, std::shared_ptr<CredentialsSource> source = nullptr,
      std::string bucket = "") {
    if (source == nullptr)
      source = std::make_shared<StaticCredentialsSource>(options.credentials);
    return S3Client::Make(bucket.empty() ? env_.bucket : bucket, options,
                          std::move(source));
  }

  std::string Key(const std::string& name) const { return prefix_ + name; }

  RgwEnv env_;
  std::shared_ptr<S3Client> client_;
  std::string prefix_;
};

std::string Pattern(size_t n, uint32_t seed = 1) {
  std::string s(n, '\0');
  std::mt19937 rng(seed);
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

std::string ToString(const BufferPtr& b) { return std::string(b->ToStringView()); }

TEST_F(S3ClientTest, PutHeadGetDelete) {
  const std::string key = Key("basic.bin");
  const std::string data = Pattern(1000);
  ASSERT_OK_AND_ASSIGN(std::string etag, client_->PutObject(key, data));
  // A single-part PUT's ETag is the quoted MD5 of the body (the lost-answer check of
  // conditional creates relies on it).
  EXPECT_EQ(etag, "\"" + internal::Md5Hex(data) + "\"");
  ASSERT_OK_AND_ASSIGN(auto info, client_->HeadObject(key));
  EXPECT_EQ(info.size, 1000);
  EXPECT_EQ(info.etag, etag);
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  EXPECT_LT(std::llabs(info.last_modified_ms - now_ms), 15 * 60 * 1000);
  ASSERT_OK_AND_ASSIGN(auto whole, client_->GetObject(key));
  EXPECT_EQ(ToString(whole), data);
  ASSERT_OK(client_->DeleteObject(key));
  EXPECT_THAT(client_->HeadObject(key), IsError(StatusCode::kNotFound));
  EXPECT_THAT(client_->GetObject(key), IsErrorWith(StatusCode::kNotFound, "NoSuchKey"));
  // Deleting a missing key is fine.
  EXPECT_THAT(client_->DeleteObject(key), IsOk());
  EXPECT_GE(client_->stats().bytes_sent.load(), 1000);
  EXPECT_GE(client_->stats().bytes_received.load(), 1000);
}

TEST_F(S3ClientTest, EmptyObject) {
  const std::string key = Key("empty");
  ASSERT_OK(client_->PutObject(key, ""));
  ASSERT_OK_AND_ASSIGN(auto info, client_->HeadObject(key));
  EXPECT_EQ(info.size, 0);
  ASSERT_OK_AND_ASSIGN(auto whole, client_->GetObject(key));
  EXPECT_EQ(whole->size(), 0);
  ASSERT_OK_AND_ASSIGN(auto ranged, client_->GetObject(key, 0, 10));
  EXPECT_EQ(ranged->size(), 0);
}

TEST_F(S3ClientTest, AwkwardKeys) {
  const std::vector<std::string> names = {
      "with space",     "utf8-\xC3\xA9\xE2\x82\xAC\xF0\x9F\x90\x8D",
      "plus+sign",      "percent%25%",
      "=&()!*'",        "semi;colon,comma$@:",
      "tilde~dots..",   "a b+c%2Bd",
      "sub/dir//double"};
  for (const auto& name : names) {
    SCOPED_TRACE(name);
    const std::string key = Key(name);
    ASSERT_OK(client_->PutObject(key, name));
    ASSERT_OK_AND_ASSIGN(auto got, client_->GetObject(key));
    EXPECT_EQ(ToString(got), name);
    ASSERT_OK_AND_ASSIGN(auto info, client_->HeadObject(key));
    EXPECT_EQ(info.size, static_cast<int64_t>(name.size()));
  }
  // The listing decodes every key back exactly.
  ListObjectsV2Request req;
  req.prefix = prefix_;
  ASSERT_OK_AND_ASSIGN(auto page, client_->ListObjectsV2(req));
  std::set<std::string> listed;
  for (const auto& o : page.objects) listed.insert(o.key.substr(prefix_.size()));
  EXPECT_EQ(listed, std::set<std::string>(names.begin(), names.end()));
  // A prefix that itself needs encoding.
  req.prefix = Key("a b+c");
  ASSERT_OK_AND_ASSIGN(page, client_->ListObjectsV2(req));
  ASSERT_EQ(page.objects.size(), 1u);
  EXPECT_EQ(page.objects[0].key, Key("a b+c%2Bd"));
  // Copy and batch delete handle them too.
  ASSERT_OK(client_->CopyObject(Key("=&()!*'"), Key("copy of =&()!*' +")));
  ASSERT_OK_AND_ASSIGN(auto copied, client_->GetObject(Key("copy of =&()!*' +")));
  EXPECT_EQ(ToString(copied), "=&()!*'");
  std::vector<std::string> keys;
  for (const auto& n : names) keys.push_back(Key(n));
  keys.push_back(Key("copy of =&()!*' +"));
  ASSERT_OK(client_->DeleteObjects(keys));
  req.prefix = prefix_;
  ASSERT_OK_AND_ASSIGN(page, client_->ListObjectsV2(req));
  EXPECT_TRUE(page.objects.empty());
}

TEST_F(S3ClientTest, RangedReads) {
  const std::string key = Key("ranges");
  const std::string data = Pattern(100000, 7);
  ASSERT_OK(client_->PutObject(key, data));
  ASSERT_OK_AND_ASSIGN(auto mid, client_->GetObject(key, 10, 10));
  EXPECT_EQ(ToString(mid), data.substr(10, 10));
  ASSERT_OK_AND_ASSIGN(auto tail, client_->GetObject(key, 99990, -1));
  EXPECT_EQ(ToString(tail), data.substr(99990));
  ASSERT_OK_AND_ASSIGN(auto past, client_->GetObject(key, 99990, 100));
  EXPECT_EQ(ToString(past), data.substr(99990));
  ASSERT_OK_AND_ASSIGN(auto at_end, client_->GetObject(key, 100000, 10));
  EXPECT_EQ(at_end->size(), 0);
  ASSERT_OK_AND_ASSIGN(auto beyond, client_->GetObject(key, 200000, -1));
  EXPECT_EQ(beyond->size(), 0);
  ASSERT_OK_AND_ASSIGN(auto first, client_->GetObject(key, 0, 1));
  EXPECT_EQ(ToString(first), data.substr(0, 1));
  ASSERT_OK_AND_ASSIGN(auto all, client_->GetObject(key, 0, 100000));
  EXPECT_EQ(ToString(all), data);

  // GetObjectInto writes exactly the range, never past it.
  std::vector<uint8_t> out(1000 + 16, 0xAB);
  ASSERT_OK_AND_ASSIGN(int64_t n, client_->GetObjectInto(key, 5000, 1000, out.data()));
  EXPECT_EQ(n, 1000);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(out.data()), 1000),
            data.substr(5000, 1000));
  for (size_t i = 1000; i < out.size(); ++i) ASSERT_EQ(out[i], 0xAB) << i;
  ASSERT_OK_AND_ASSIGN(n, client_->GetObjectInto(key, 99999, 1000, out.data()));
  EXPECT_EQ(n, 1);
  EXPECT_EQ(out[0], static_cast<uint8_t>(data[99999]));
  EXPECT_THAT(client_->GetObjectInto(Key("missing"), 0, 10, out.data()),
              IsError(StatusCode::kNotFound));
}

TEST_F(S3ClientTest, NotFoundErrors) {
  EXPECT_THAT(client_->HeadObject(Key("nope")), IsError(StatusCode::kNotFound));
  auto st = client_->GetObject(Key("nope"), 0, 10).status();
  EXPECT_THAT(
      st, IsErrorWith(StatusCode::kNotFound, "s3://" + env_.bucket + "/" + Key("nope")));
  EXPECT_THAT(st, IsErrorWith(StatusCode::kNotFound, "HTTP 404 NoSuchKey (request id "));
  ASSERT_OK_AND_ASSIGN(auto other,
                       MakeClient(TestOptions(env_), nullptr, "h2-no-such-bucket-x"));
  EXPECT_THAT(other->GetObject("k"), IsErrorWith(StatusCode::kNotFound, "NoSuchBucket"));
  EXPECT_THAT(other->ListObjectsV2({}),
              IsErrorWith(StatusCode::kNotFound, "NoSuchBucket"));
  EXPECT_THAT(other->DeleteBucket(), IsError(StatusCode::kNotFound));
}

TEST_F(S3ClientTest, ConditionalCreate) {
  const std::string key = Key("cond");
  ASSERT_OK(client_->PutObject(key, "first", /*if_none_match=*/true));
  EXPECT_THAT(client_->PutObject(key, "second", true),
              IsErrorWith(StatusCode::kAlreadyExists, "412"));
  ASSERT_OK_AND_ASSIGN(auto got, client_->GetObject(key));
  EXPECT_EQ(ToString(got), "first");
  // Unconditional overwrite still works.
  ASSERT_OK(client_->PutObject(key, "third"));
  ASSERT_OK_AND_ASSIGN(got, client_->GetObject(key));
  EXPECT_EQ(ToString(got), "third");
}

TEST_F(S3ClientTest, ConcurrentCreateHasOneWinner) {
  const std::string key = Key("race");
  constexpr int kThreads = 8;
  std::atomic<int> winners{0};
  std::atomic<int> already{0};
  std::atomic<int> winner_id{-1};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      const std::string body = "writer " + std::to_string(i) + " " + Pattern(200000, i);
      auto r = client_->PutObject(key, body, true);
      if (r.ok()) {
        ++winners;
        winner_id = i;
      } else if (r.status().IsAlreadyExists()) {
        ++already;
      } else {
        ADD_FAILURE() << r.status().ToString();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(winners.load(), 1);
  EXPECT_EQ(already.load(), kThreads - 1);
  ASSERT_GE(winner_id.load(), 0);
  ASSERT_OK_AND_ASSIGN(auto got, client_->GetObject(key));
  const int w = winner_id.load();
  EXPECT_EQ(ToString(got), "writer " + std::to_string(w) + " " + Pattern(200000, w));
}

TEST_F(S3ClientTest, PinnedReadDetectsOverwrite) {
  const std::string key = Key("pinned");
  ASSERT_OK_AND_ASSIGN(std::string etag, client_->PutObject(key, "version one"));
  ASSERT_OK_AND_ASSIGN(auto got, client_->GetObject(key, 0, 7, etag));
  EXPECT_EQ(ToString(got), "version");
  ASSERT_OK(client_->PutObject(key, "version two!"));
  EXPECT_THAT(client_->GetObject(key, 0, 7, etag),
              IsErrorWith(StatusCode::kIOError, "object changed since it was opened"));
  uint8_t buf[8];
  EXPECT_THAT(client_->GetObjectInto(key, 0, 8, buf, etag),
              IsErrorWith(StatusCode::kIOError, "object changed"));
  ASSERT_OK_AND_ASSIGN(auto info, client_->HeadObject(key));
  ASSERT_OK_AND_ASSIGN(got, client_->GetObject(key, 8, -1, info.etag));
  EXPECT_EQ(ToString(got), "two!");
}

TEST_F(S3ClientTest, ListPaginationWithDelimiter) {
  // 3 objects at the top, 2 "directories" of 2 objects each.
  for (const char* name : {"a1", "a2", "a3", "d1/x", "d1/y", "d2/x", "d2/y"}) {
    ASSERT_OK(client_->PutObject(Key(name), name));
  }
  ListObjectsV2Request req;
  req.prefix = prefix_;
  req.delimiter = "/";
  req.max_keys = 2;
  std::vector<std::string> objects, prefixes;
  int pages = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(auto page, client_->ListObjectsV2(req));
    ++pages;
    EXPECT_LE(page.objects.size() + page.common_prefixes.size(), 2u);
    for (auto& o : page.objects) {
      EXPECT_EQ(o.size, static_cast<int64_t>(o.key.size() - prefix_.size()));
      EXPECT_GT(o.last_modified_ms, 0);
      objects.push_back(o.key.substr(prefix_.size()));
    }
    for (auto& p : page.common_prefixes) prefixes.push_back(p.substr(prefix_.size()));
    if (page.next_continuation_token.empty()) break;
    req.continuation_token = page.next_continuation_token;
    ASSERT_LT(pages, 10);
  }
  EXPECT_EQ(pages, 3);  // CommonPrefixes count toward max-keys
  EXPECT_EQ(objects, (std::vector<std::string>{"a1", "a2", "a3"}));
  EXPECT_EQ(prefixes, (std::vector<std::string>{"d1/", "d2/"}));

  // Flat listing with start-after.
  ListObjectsV2Request flat;
  flat.prefix = prefix_;
  flat.start_after = Key("a3");
  ASSERT_OK_AND_ASSIGN(auto page, client_->ListObjectsV2(flat));
  ASSERT_EQ(page.objects.size(), 4u);
  EXPECT_EQ(page.objects[0].key, Key("d1/x"));
  EXPECT_TRUE(page.next_continuation_token.empty());

  // Empty result.
  flat.prefix = Key("zzz");
  flat.start_after.clear();
  ASSERT_OK_AND_ASSIGN(page, client_->ListObjectsV2(flat));
  EXPECT_TRUE(page.objects.empty());
  EXPECT_TRUE(page.common_prefixes.empty());
  EXPECT_THAT(client_->ListObjectsV2(ListObjectsV2Request{.max_keys = 0}),
              IsError(StatusCode::kInvalid));
}

TEST_F(S3ClientTest, DeleteObjectsInBatches) {
  constexpr int kKeys = 2500;
  std::vector<std::string> keys;
  // Create a subset (every 10th) for real; the rest are missing, which is OK.
  std::vector<std::thread> threads;
  for (int i = 0; i < kKeys; ++i) keys.push_back(Key("k" + std::to_string(i)));
  std::atomic<int> next{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = next.fetch_add(10); i < kKeys; i = next.fetch_add(10)) {
        EXPECT_OK(client_->PutObject(keys[i], "x"));
      }
    });
  }
  for (auto& t : threads) t.join();
  ListObjectsV2Request req;
  req.prefix = prefix_;
  ASSERT_OK_AND_ASSIGN(auto page, client_->ListObjectsV2(req));
  ASSERT_EQ(page.objects.size(), 250u);
  const int64_t before = client_->stats().requests.load();
  ASSERT_OK(client_->DeleteObjects(keys));
  EXPECT_EQ(client_->stats().requests.load() - before, 3);  // 1000 + 1000 + 500
  ASSERT_OK_AND_ASSIGN(page, client_->ListObjectsV2(req));
  EXPECT_TRUE(page.objects.empty());
  ASSERT_OK(client_->DeleteObjects({}));
}

TEST_F(S3ClientTest, CopyObject) {
  const std::string data = Pattern(12345, 3);
  ASSERT_OK(client_->PutObject(Key("src"), data));
  ASSERT_OK(client_->CopyObject(Key("src"), Key("dst")));
  ASSERT_OK_AND_ASSIGN(auto got, client_->GetObject(Key("dst")));
  EXPECT_EQ(ToString(got), data);
  EXPECT_THAT(client_->CopyObject(Key("missing"), Key("dst2")),
              IsError(StatusCode::kNotFound));
  EXPECT_THAT(client_->HeadObject(Key("dst2")), IsError(StatusCode::kNotFound));
}

TEST_F(S3ClientTest, MultipartUpload) {
  const std::string key = Key("multi");
  constexpr size_t kPart = 5 << 20;
  std::vector<std::string> parts = {Pattern(kPart, 1), Pattern(kPart, 2),
                                    Pattern(kPart, 3)};
  ASSERT_OK_AND_ASSIGN(std::string upload_id, client_->CreateMultipartUpload(key));
  EXPECT_FALSE(upload_id.empty());
  std::vector<std::string> etags(3);
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) {
    threads.emplace_back([&, i] {
      auto r = client_->UploadPart(key, upload_id, i + 1, parts[i]);
      EXPECT_OK(r);
      if (r.ok()) etags[i] = *r;
    });
  }
  for (auto& t : threads) t.join();
  // Not visible before completion.
  EXPECT_THAT(client_->HeadObject(key), IsError(StatusCode::kNotFound));
  ASSERT_OK(client_->CompleteMultipartUpload(key, upload_id, etags));
  ASSERT_OK_AND_ASSIGN(auto info, client_->HeadObject(key));
  EXPECT_EQ(info.size, static_cast<int64_t>(3 * kPart));
  ASSERT_OK_AND_ASSIGN(auto got, client_->GetObject(key));
  EXPECT_TRUE(ToString(got) == parts[0] + parts[1] + parts[2]);
  // A ranged read across a part boundary.
  ASSERT_OK_AND_ASSIGN(auto across, client_->GetObject(key, kPart - 5, 10));
  EXPECT_EQ(ToString(across), parts[0].substr(kPart - 5) + parts[1].substr(0, 5));
  // Completing again with a wrong ETag is refused.
  ASSERT_OK_AND_ASSIGN(std::string id2, client_->CreateMultipartUpload(key));
  ASSERT_OK_AND_ASSIGN(std::string e1, client_->UploadPart(key, id2, 1, "tiny"));
  EXPECT_FALSE(
      client_->CompleteMultipartUpload(key, id2, {"\"0123456789abcdef0123456789abcdef\""})
          .ok());
  ASSERT_OK(client_->AbortMultipartUpload(key, id2));
}

TEST_F(S3ClientTest, AbortMultipartUpload) {
  const std::string key = Key("aborted");
  ASSERT_OK_AND_ASSIGN(std::string upload_id, client_->CreateMultipartUpload(key));
  ASSERT_OK(client_->UploadPart(key, upload_id, 1, Pattern(1000)));
  ASSERT_OK(client_->AbortMultipartUpload(key, upload_id));
  EXPECT_THAT(client_->UploadPart(key, upload_id, 2, Pattern(1000)),
              IsErrorWith(StatusCode::kNotFound, "NoSuchUpload"));
  // Aborting again is fine.
  EXPECT_THAT(client_->AbortMultipartUpload(key, upload_id), IsOk());
  EXPECT_THAT(client_->HeadObject(key), IsError(StatusCode::kNotFound));
  EXPECT_THAT(client_->UploadPart(key, upload_id, 0, "x"), IsError(StatusCode::kInvalid));
}

TEST_F(S3ClientTest, CreateAndDeleteBucket) {
  std::string bucket = "h2-bucket-" + std::to_string(getpid()) + "-" +
                       std::to_string(std::random_device{}() % 1000000);
  ASSERT_OK_AND_ASSIGN(auto c, MakeClient(TestOptions(env_), nullptr, bucket));
  ASSERT_OK(c->CreateBucket());
  EXPECT_THAT(c->CreateBucket(), IsError(StatusCode::kAlreadyExists));
  ASSERT_OK(c->PutObject("obj", "x"));
  EXPECT_THAT(c->DeleteBucket(), IsErrorWith(StatusCode::kConflict, "BucketNotEmpty"));
  ASSERT_OK(c->DeleteObject("obj"));
  ASSERT_OK(c->DeleteBucket());
  EXPECT_THAT(c->HeadObject("obj"), IsError(StatusCode::kNotFound));
}

TEST_F(S3ClientTest, VirtualHostedAddressing) {
  // RGW runs with `rgw dns name = s3.localhost`; libcurl resolves *.localhost itself.
  std::string endpoint = env_.endpoint;
  const size_t scheme_end = endpoint.find("://");
  ASSERT_NE(scheme_end, std::string::npos);
  const size_t colon = endpoint.rfind(':');
  ASSERT_GT(colon, scheme_end);  // the endpoint has a port
  const std::string port = endpoint.substr(colon);
  S3Options o = TestOptions(env_);
  o.endpoint = endpoint.substr(0, scheme_end + 3) + env_.bucket + ".s3.localhost" + port;
  o.virtual_hosted_style = true;
  ASSERT_OK_AND_ASSIGN(auto vc, MakeClient(o));
  const std::string key = Key("vhost key+with space");
  ASSERT_OK(vc->PutObject(key, "hello"));
  ASSERT_OK_AND_ASSIGN(auto got, client_->GetObject(key));  // visible path-style
  EXPECT_EQ(ToString(got), "hello");
  ASSERT_OK_AND_ASSIGN(got, vc->GetObject(key, 1, 3));
  EXPECT_EQ(ToString(got), "ell");
  ListObjectsV2Request req;
  req.prefix = prefix_;
  ASSERT_OK_AND_ASSIGN(auto page, vc->ListObjectsV2(req));
  ASSERT_EQ(page.objects.size(), 1u);
  EXPECT_EQ(page.objects[0].key, key);
  ASSERT_OK(vc->DeleteObjects({key}));
  EXPECT_THAT(vc->HeadObject(key), IsError(StatusCode::kNotFound));
}

TEST_F(S3ClientTest, WrongSecretIsUnauthorizedWithoutLeaking) {
  S3Options o = TestOptions(env_);
  const std::string secret = "wrong-secret-value-0123456789";
  o.credentials.secret_access_key = secret;
  ASSERT_OK_AND_ASSIGN(auto bad, MakeClient(o));
  // AWS (and RGW without STS) answer SignatureDoesNotMatch -> Unauthorized; RGW with
  // STS enabled, as in these tests, answers a plain AccessDenied -> Forbidden.
  auto is_auth_error = [](const Status& s) {
    return (s.IsUnauthorized() || s.IsForbidden()) &&
           s.message().find("HTTP 403") != std::string::npos;
  };
  auto st = bad->GetObject(Key("x")).status();
  EXPECT_TRUE(is_auth_error(st)) << st.ToString();
  st = bad->PutObject(Key("x"), "data").status();
  EXPECT_TRUE(is_auth_error(st)) << st.ToString();
  for (const Status& s :
       {st, bad->ListObjectsV2({}).status(), bad->HeadObject(Key("x")).status()}) {
    EXPECT_TRUE(is_auth_error(s)) << s.ToString();
    EXPECT_EQ(s.message().find(secret), std::string::npos) << s.ToString();
    EXPECT_EQ(s.message().find("Signature="), std::string::npos) << s.ToString();
    EXPECT_EQ(s.message().find("Credential="), std::string::npos) << s.ToString();
  }
  // Not retried: a 403 is final.
  EXPECT_EQ(bad->stats().retries.load(), 0);
}

TEST_F(S3ClientTest, UnknownKeyIdTriggersOneRefresh) {
  auto source = std::make_shared<CountingSource>(
      AwsCredentials{"H2UNKNOWNKEYID000000", "whatever", ""},
      AwsCredentials{env_.access_key, env_.secret_key, ""});
  ASSERT_OK_AND_ASSIGN(auto c, MakeClient(TestOptions(env_), source));
  ASSERT_OK(c->PutObject(Key("refreshed"), "ok"));
  EXPECT_EQ(c->stats().credential_refreshes.load(), 1);
  EXPECT_EQ(source->rejected_calls.load(), 1);
  ASSERT_OK_AND_ASSIGN(auto got, c->GetObject(Key("refreshed")));
  EXPECT_EQ(ToString(got), "ok");
  EXPECT_EQ(c->stats().credential_refreshes.load(), 1);
}

TEST_F(S3ClientTest, RefreshThatFailsKeepsOriginalError) {
  // StaticCredentialsSource cannot refresh: the original error is reported.
  S3Options o = TestOptions(env_);
  o.credentials.access_key_id = "H2UNKNOWNKEYID000001";
  ASSERT_OK_AND_ASSIGN(auto c, MakeClient(o));
  auto st = c->GetObject(Key("x")).status();
  // AWS: 403 InvalidAccessKeyId -> Unauthorized (+ why the refresh failed); RGW with
  // STS: 403 AccessDenied -> Forbidden, unchanged.
  EXPECT_TRUE(st.IsUnauthorized() || st.IsForbidden()) << st.ToString();
  EXPECT_THAT(st.message(), ::testing::HasSubstr("HTTP 403"));
  EXPECT_THAT(st.message(), ::testing::HasSubstr("s3://" + env_.bucket + "/" + Key("x")));
  EXPECT_EQ(c->stats().credential_refreshes.load(), 1);
  EXPECT_EQ(c->stats().requests.load(), 1);  // the failed refresh is not retried
}

TEST_F(S3ClientTest, CurrentIsAskedForEveryRequest) {
  auto source = std::make_shared<CountingSource>(
      AwsCredentials{env_.access_key, env_.secret_key, ""},
      AwsCredentials{env_.access_key, env_.secret_key, ""});
  ASSERT_OK_AND_ASSIGN(auto c, MakeClient(TestOptions(env_), source));
  ASSERT_OK(c->PutObject(Key("a"), "1"));
  for (int i = 0; i < 5; ++i) ASSERT_OK(c->HeadObject(Key("a")));
  EXPECT_THAT(c->HeadObject(Key("missing")), IsError(StatusCode::kNotFound));
  EXPECT_EQ(source->current_calls.load(), 7);  // PUT, 5 HEADs, the missing HEAD
  EXPECT_EQ(source->current_calls.load(), c->stats().requests.load());
}

// Counted, not timed: the client's one connection stays open after a request and carries
// the next 50 HEADs (without keep-alive each would open a new one).
TEST_F(S3ClientTest, ConnectionsAreReused) {
  const int port = EndpointPort(env_.endpoint);
  const std::set<int> others = ConnectionsTo(port);  // other clients of this process
  ASSERT_OK(client_->PutObject(Key("small"), "tiny"));
  ASSERT_OK(client_->HeadObject(Key("small")));  // warm the connection
  const std::set<int> mine = Minus(ConnectionsTo(port), others);
  ASSERT_EQ(mine.size(), 1u) << "one open connection after sequential requests";
  for (int i = 0; i < 50; ++i) {
    ASSERT_OK(client_->HeadObject(Key("small")));
    EXPECT_EQ(Minus(ConnectionsTo(port), others), mine) << "after HEAD " << i;
  }
  EXPECT_EQ(client_->stats().requests.load(), 52);
}

TEST_F(S3ClientTest, UnreachableEndpointIsUnavailable) {
  S3Options o = TestOptions(env_);
  o.endpoint = "http://127.0.0.1:1";
  o.max_retries = 2;
  ASSERT_OK_AND_ASSIGN(auto c, MakeClient(o));
  const auto start = std::chrono::steady_clock::now();
  auto st = c->HeadObject("x").status();
  const double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_THAT(st, IsErrorWith(StatusCode::kUnavailable, "after 3 attempts"));
  EXPECT_TRUE(st.retryable());
  EXPECT_EQ(c->stats().requests.load(), 3);
  EXPECT_EQ(c->stats().retries.load(), 2);
  // No wall-clock bound: the counts above show it gave up after exactly 3 attempts.
  (void)s;
}

TEST_F(S3ClientTest, RetryTimeoutBoundsRetries) {
  S3Options o = TestOptions(env_);
  o.endpoint = "http://127.0.0.1:1";
  o.max_retries = 1000;
  o.initial_backoff = std::chrono::milliseconds(50);
  o.max_backoff = std::chrono::milliseconds(100);
  o.retry_timeout = std::chrono::milliseconds(500);
  ASSERT_OK_AND_ASSIGN(auto c, MakeClient(o));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THAT(c->GetObject("x"), IsError(StatusCode::kUnavailable));
  const double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Counted, not timed: backoffs are at least 25 ms (50 ms halved by the jitter), so
  // within the 500 ms retry timeout at most 1 + 500 / 25 attempts fit, however slow the
  // machine; max_retries (1000) alone would allow 1001.
  EXPECT_GT(c->stats().requests.load(), 1);
  EXPECT_LE(c->stats().requests.load(), 21) << "in " << s << " s";
}

TEST_F(S3ClientTest, UnresolvableHostFailsFast) {
  S3Options o = TestOptions(env_);
  o.endpoint = "http://h2-no-such-host.invalid:7480";
  o.max_retries = 10;
  ASSERT_OK_AND_ASSIGN(auto c, MakeClient(o));
  EXPECT_THAT(c->HeadObject("x"), IsError(StatusCode::kUnavailable));
  EXPECT_LE(c->stats().requests.load(), 2);
}

TEST_F(S3ClientTest, ManyConcurrentRequestsWithFewConnections) {
  S3Options o = TestOptions(env_);
  o.max_connections = 2;
  ASSERT_OK_AND_ASSIGN(auto c, MakeClient(o));
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i) {
        const std::string key = Key("c" + std::to_string(t) + "-" + std::to_string(i));
        const std::string body = Pattern(3000 + t * 10 + i, t * 100 + i);
        EXPECT_OK(c->PutObject(key, body));
        auto got = c->GetObject(key);
        EXPECT_OK(got);
        if (got.ok()) {
          EXPECT_EQ(ToString(*got), body);
        }
      }
    });
  }
  for (auto& t : threads) t.join();
}

TEST_F(S3ClientTest, UnsignedPayloadAndLargeBody) {
  S3Options o = TestOptions(env_);
  o.unsigned_payload = true;
  ASSERT_OK_AND_ASSIGN(auto c, MakeClient(o));
  const std::string data = Pattern(3 << 20, 9);
  ASSERT_OK(c->PutObject(Key("unsigned"), data));
  ASSERT_OK_AND_ASSIGN(auto got, client_->GetObject(Key("unsigned")));
  EXPECT_TRUE(ToString(got) == data);
}

TEST_F(S3ClientTest, AnonymousRequestIsForbidden) {
  S3Options o = TestOptions(env_);
  o.credentials = AwsCredentials{};
  ASSERT_OK_AND_ASSIGN(auto c, MakeClient(o));
  EXPECT_THAT(c->PutObject(Key("anon"), "x"),
              IsErrorWith(StatusCode::kForbidden, "AccessDenied"));
  o.credentials = AwsCredentials{env_.access_key, env_.secret_key, ""};
  o.skip_signature = true;
  ASSERT_OK_AND_ASSIGN(c, MakeClient(o));
  EXPECT_THAT(c->PutObject(Key("anon"), "x"), IsError(StatusCode::kForbidden));
}

// `detail` says HTTP `http_status` with the service code `code` and a request id.
void ExpectDetail(const HttpErrorDetail& detail, int http_status,
                  const std::string& code) {
  EXPECT_EQ(detail.http_status(), http_status);
  EXPECT_EQ(detail.service_code(), code);
  EXPECT_FALSE(detail.request_id().empty());
}

// The typed detail of real RGW answers: what callers decide on instead of the message.
TEST_F(S3ClientTest, ErrorsCarryHttpErrorDetail) {
  auto st = client_->GetObject(Key("nope")).status();
  ASSERT_TRUE(st.IsNotFound()) << st.ToString();
  const auto* missing = st.detail_as<HttpErrorDetail>();
  ASSERT_NE(missing, nullptr) << st.ToString();
  ExpectDetail(*missing, 404, "NoSuchKey");
  // The request id in the detail is the one the message quotes.
  EXPECT_NE(st.message().find("(request id " + missing->request_id() + ")"),
            std::string::npos)
      << st.ToString();

  // A bodiless 404 (HEAD): no code, but the request id from the header.
  st = client_->HeadObject(Key("nope")).status();
  ASSERT_NE(st.detail_as<HttpErrorDetail>(), nullptr) << st.ToString();
  EXPECT_EQ(st.detail_as<HttpErrorDetail>()->http_status(), 404);
  EXPECT_FALSE(st.detail_as<HttpErrorDetail>()->request_id().empty());

  // A real denial: an anonymous PUT.
  S3Options o = TestOptions(env_);
  o.credentials = AwsCredentials{};
  ASSERT_OK_AND_ASSIGN(auto anonymous, MakeClient(o));
  st = anonymous->PutObject(Key("anon"), "x").status();
  ASSERT_TRUE(st.IsForbidden()) << st.ToString();
  const auto* denied = st.detail_as<HttpErrorDetail>();
  ASSERT_NE(denied, nullptr) << st.ToString();
  ExpectDetail(*denied, 403, "AccessDenied");
  EXPECT_EQ(denied->ToString(),
            "HTTP 403 AccessDenied (request id " + denied->request_id() + ")");

  // The detail survives the object store's context.
  ASSERT_OK_AND_ASSIGN(auto store, S3ObjectStore::Make(env_.bucket, TestOptions(env_)));
  st = store->Read(Key("nope")).status();
  ASSERT_TRUE(st.IsNotFound()) << st.ToString();
  ASSERT_NE(st.detail_as<HttpErrorDetail>(), nullptr) << st.ToString();
  EXPECT_EQ(st.detail_as<HttpErrorDetail>()->service_code(), "NoSuchKey");
}

TEST_F(S3ClientTest, InvalidMakeArguments) {
  S3Options o = TestOptions(env_);
  auto src = std::make_shared<StaticCredentialsSource>(o.credentials);
  EXPECT_THAT(S3Client::Make("", o, src), IsError(StatusCode::kInvalid));
  EXPECT_THAT(S3Client::Make("b", o, nullptr), IsError(StatusCode::kInvalid));
  o.endpoint = "ftp://host";
  EXPECT_THAT(S3Client::Make("b", o, src), IsError(StatusCode::kInvalid));
  EXPECT_THAT(client_->HeadObject(""), IsError(StatusCode::kInvalid));
}

}  // namespace
}  // namespace lance::io::s3
