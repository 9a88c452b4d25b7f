// SPDX-License-Identifier: Apache-2.0
#include "tests/testing/s3_env.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "lance/io/s3/s3_options.h"
#include "lance/macros.h"
#include "src/io/s3/s3_client.h"
#include "src/io/s3/sigv4.h"
#include "src/io/s3/xml.h"
#include "tests/testing/secret_ledger.h"

extern char** environ;

namespace lance::testing {

namespace {

using io::StorageOptions;
using io::s3::AwsCredentials;

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// "<pid>-<ms>-<n>": unique across calls, concurrent test processes and runs.
std::string UniqueToken() {
  static std::atomic<int64_t> counter{0};
  return std::to_string(getpid()) + "-" + std::to_string(NowMillis()) + "-" +
         std::to_string(counter.fetch_add(1));
}

std::string RandomChars(size_t n, std::string_view alphabet) {
  static std::mutex mu;
  static std::mt19937_64 rng{std::random_device{}()};
  std::lock_guard lock(mu);
  std::string out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(alphabet[rng() % alphabet.size()]);
  return out;
}

// Replaces every occurrence of each secret, so tool output can go into a message.
std::string Redact(std::string text, const std::vector<std::string>& secrets) {
  for (const auto& secret : secrets) {
    if (secret.empty()) continue;
    for (size_t at = text.find(secret); at != std::string::npos;
         at = text.find(secret, at)) {
      text.replace(at, secret.size(), "****");
    }
  }
  return text;
}

// Runs `radosgw-admin -c $LANCE_RGW_CONF <args>` without a shell. Its stdout (JSON with
// every key of the user, secrets included) is discarded; stderr is kept for the error
// message, with `secrets` redacted.
Status RunRgwAdmin(const std::vector<std::string>& args,
                   const std::vector<std::string>& secrets, const std::string& what) {
  LANCE_ASSIGN_OR_RAISE(S3TestEnv env, S3TestEnv::Get());
  if (env.rgw_conf.empty()) {
    return Status::Invalid(
        "LANCE_RGW_CONF is not set: run S3 tests through `make test` "
        "(scripts/run_tests.sh starts RGW)");
  }
  std::vector<std::string> argv_strings = {"radosgw-admin", "-c", env.rgw_conf};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  char err_path[] = "/tmp/lance-rgw-admin-XXXXXX";
  int err_fd = mkstemp(err_path);
  if (err_fd < 0) return Status::IOError("When " + what + ": cannot create a temp file");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, err_fd, STDERR_FILENO);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, "radosgw-admin", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  int wstatus = 0;
  if (rc == 0) {
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
  }
  std::string err;
  if (lseek(err_fd, 0, SEEK_SET) == 0) {
    char chunk[4096];
    ssize_t n;
    while ((n = read(err_fd, chunk, sizeof(chunk))) > 0 && err.size() < 16384) {
      err.append(chunk, static_cast<size_t>(n));
    }
  }
  close(err_fd);
  unlink(err_path);
  if (rc != 0) {
    return Status::IOError("When " + what +
                           ": cannot start radosgw-admin (is radosgw "
                           "installed? run S3 tests through `make test`): " +
                           std::strerror(rc));
  }
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
    return Status::IOError("When " + what + ": radosgw-admin failed (status " +
                           std::to_string(wstatus) + "): " + Redact(err, secrets));
  }
  return Status::OK();
}

// -- Key changes -----------------------------------------------------------------------
// radosgw-admin changes a user's keys by read-modify-write of the user's metadata, so two
// processes changing keys of one user at once can lose a key. Every key change of the
// tests (C++ here, Python in tests/python/_vending.py) holds a lock file per user next to
// the cluster's ceph.conf, so no two of them overlap, whatever suites ctest runs at once.
//
// Why one user (`test`) and not one per suite: a key of another user can reach the test
// buckets only through a bucket policy naming that user and `test` (RGW has no wildcard
// user principals, and the owner cannot read objects another user wrote without it), and
// a bucket policy naming `test` also admits `test`'s STS sessions beyond their session
// policy (measured: the session-scoping tests then fail). Serialising is what keeps keys.
constexpr const char* kDefaultKeyUser = "test";

// The RGW user whose keys the tests mint: $LANCE_RGW_KEY_USER, else "test" (the same in
// tests/python/_vending.py).
std::string KeyUser() {
  const char* chosen = std::getenv("LANCE_RGW_KEY_USER");
  return chosen != nullptr && *chosen != '\0' ? std::string(chosen)
                                              : std::string(kDefaultKeyUser);
}

// Serialises this process's key changes, and (flock on a file next to the cluster's
// ceph.conf) those of every process that mints for the same user: two suites sharing a
// user by mistake wait for each other instead of racing.
class KeyChangeLock {
 public:
  KeyChangeLock(const S3TestEnv& env, const std::string& user)
      : process_lock_(ProcessMutex()) {
    const size_t slash = env.rgw_conf.rfind('/');
    const std::string dir =
        slash == std::string::npos ? std::string(".") : env.rgw_conf.substr(0, slash);
    fd_ = open((dir + "/keys-" + user + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC,
               0644);
    if (fd_ >= 0) {
      while (flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
      }
    }
  }
  ~KeyChangeLock() {
    if (fd_ >= 0) close(fd_);  // releases the flock
  }
  KeyChangeLock(const KeyChangeLock&) = delete;
  KeyChangeLock& operator=(const KeyChangeLock&) = delete;

 private:
  static std::mutex& ProcessMutex() {
    static std::mutex mu;
    return mu;
  }
  std::lock_guard<std::mutex> process_lock_;
  int fd_ = -1;
};

size_t CollectBody(char* data, size_t size, size_t count, void* user) {
  auto* body = static_cast<std::string*>(user);
  if (body->size() > (1 << 20)) return 0;  // an STS answer is tiny; stop a runaway
  body->append(data, size * count);
  return size * count;
}

// "host[:port]" of an endpoint URL "scheme://host[:port][/base]".
std::string EndpointHost(const std::string& endpoint) {
  size_t start = endpoint.find("://");
  start = start == std::string::npos ? 0 : start + 3;
  const size_t end = endpoint.find('/', start);
  return endpoint.substr(start,
                         end == std::string::npos ? std::string::npos : end - start);
}

struct HttpAnswer {
  long status = 0;
  std::string body;
};

// One request to the RGW endpoint signed with the static test key (service "s3" or
// "sts"): for the few calls the S3 client does not offer (STS, ListMultipartUploads).
Result<HttpAnswer> SignedRequest(
    const S3TestEnv& env, const std::string& method, const std::string& raw_path,
    const std::vector<std::pair<std::string, std::string>>& query,
    const std::vector<std::pair<std::string, std::string>>& headers,
    const std::string& body, const std::string& service) {
  io::s3::SigV4Request request;
  request.method = method;
  request.host = EndpointHost(env.endpoint);
  request.path = raw_path;
  request.query = query;
  request.headers = headers;
  request.payload_sha256_hex = io::s3::Sha256Hex(body);
  AwsCredentials signer{env.access_key, env.secret_key, ""};
  LANCE_ASSIGN_OR_RAISE(auto signed_headers,
                        io::s3::SignRequest(request, signer, env.region, service,
                                            std::chrono::system_clock::now()));
  std::string url = env.endpoint + io::s3::S3CanonicalUri(raw_path);
  if (!query.empty()) url += "?" + io::s3::S3CanonicalQuery(query);

  CURL* curl = curl_easy_init();
  if (curl == nullptr)
    return Status::IOError(method + " " + url + ": curl_easy_init failed");
  curl_slist* list = nullptr;
  list = curl_slist_append(list, ("Host: " + request.host).c_str());
  for (const auto& [name, value] : headers) {
    list = curl_slist_append(list, (name + ": " + value).c_str());
  }
  for (const auto& [name, value] : signed_headers) {
    list = curl_slist_append(list, (name + ": " + value).c_str());
  }
  list = curl_slist_append(list, "Expect:");
  HttpAnswer answer;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  if (!body.empty() || method == "POST" || method == "PUT") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, CollectBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer.body);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 30L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  CURLcode rc = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &answer.status);
  curl_slist_free_all(list);
  curl_easy_cleanup(curl);
  if (rc != CURLE_OK) {
    return Status::IOError(method + " " + url + ": " + curl_easy_strerror(rc));
  }
  return answer;
}

// A key change (`radosgw-admin key ...` of KeyUser()) under the KeyChangeLock. With the
// lock, two changes of one user never overlap; the retries remain for a process that
// ignores the lock (RGW then refuses the conflicting write with "unable to store user
// info", nothing half-done).
Status RunKeyChange(const std::vector<std::string>& args,
                    const std::vector<std::string>& secrets, const std::string& what) {
  LANCE_ASSIGN_OR_RAISE(S3TestEnv env, S3TestEnv::Get());
  const std::string user = KeyUser();
  KeyChangeLock lock(env, user);
  Status st = RunRgwAdmin(args, secrets, what);
  for (int attempt = 1;
       attempt < 6 && !st.ok() &&
       st.ToString().find("unable to store user info") != std::string::npos;
       ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100 * attempt));
    st = RunRgwAdmin(args, secrets, what);
  }
  return st;
}

}  // namespace

Result<S3TestEnv> S3TestEnv::Get() {
  static const Result<S3TestEnv> env = []() -> Result<S3TestEnv> {
    auto get = [](const char* name) -> std::string {
      const char* value = std::getenv(name);
      return value ? std::string(value) : std::string();
    };
    S3TestEnv env;
    env.endpoint = get("LANCE_S3_ENDPOINT");
    if (env.endpoint.empty()) {
      return Status::Invalid(
          "LANCE_S3_ENDPOINT is not set: run S3 tests through `make test` "
          "(scripts/run_tests.sh starts RGW)");
    }
    env.region = get("LANCE_S3_REGION");
    env.access_key = get("LANCE_S3_ACCESS_KEY");
    env.secret_key = get("LANCE_S3_SECRET_KEY");
    env.bucket = get("LANCE_S3_BUCKET");
    env.sts_role_arn = get("LANCE_S3_STS_ROLE_ARN");
    env.rgw_conf = get("LANCE_RGW_CONF");
    if (env.region.empty()) env.region = "us-east-1";
    for (auto [name, value] : {std::pair{"LANCE_S3_ACCESS_KEY", &env.access_key},
                               std::pair{"LANCE_S3_SECRET_KEY", &env.secret_key},
                               std::pair{"LANCE_S3_BUCKET", &env.bucket}}) {
      if (value->empty()) {
        return Status::Invalid(std::string(name) +
                               " is not set: run S3 tests through `make test` "
                               "(scripts/run_tests.sh starts RGW)");
      }
    }
    return env;
  }();
  return env;
}

StorageOptions S3TestEnv::Options() const {
  return {{"aws_endpoint", endpoint},
          {"aws_region", region},
          {"allow_http", "true"},
          {"aws_access_key_id", access_key},
          {"aws_secret_access_key", secret_key}};
}

StorageOptions S3TestEnv::OptionsWith(const AwsCredentials& credentials) const {
  StorageOptions options = Options();
  options["aws_access_key_id"] = credentials.access_key_id;
  options["aws_secret_access_key"] = credentials.secret_access_key;
  if (!credentials.session_token.empty()) {
    options["aws_session_token"] = credentials.session_token;
  }
  return options;
}

std::string S3TestEnv::UniqueUri(std::string_view name) const {
  return "s3://" + bucket + "/lance-test-" + UniqueToken() + "/" + std::string(name);
}

Result<std::shared_ptr<io::ObjectStore>> MakeFreshBucketStore(
    const StorageOptions& extra) {
  LANCE_ASSIGN_OR_RAISE(S3TestEnv env, S3TestEnv::Get());
  StorageOptions options = env.Options();
  for (const auto& [key, value] : extra) options[key] = value;
  const std::string bucket = "t-" + UniqueToken();
  LANCE_ASSIGN_OR_RAISE(std::shared_ptr<io::S3ObjectStore> store,
                        io::S3ObjectStore::FromStorageOptions(bucket, options));
  LANCE_RETURN_NOT_OK(store->client()->CreateBucket());
  io::ObjectStore* raw = store.get();
  // The deleter owns the store: the bucket goes once the last user lets go of it.
  return std::shared_ptr<io::ObjectStore>(
      raw, [owned = std::move(store)](io::ObjectStore*) mutable {
        Status emptied = owned->DeletePrefix("");
        Status deleted = owned->client()->DeleteBucket();
        if (!emptied.ok() || !deleted.ok()) {
          std::fprintf(stderr, "warning: cleaning up %s: %s / %s\n", owned->uri().c_str(),
                       emptied.ToString().c_str(), deleted.ToString().c_str());
        }
        owned.reset();
      });
}

Result<AwsCredentials> CreateAccessKey() {
  AwsCredentials credentials;
  credentials.access_key_id =
      "LCT" + RandomChars(17, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
  credentials.secret_access_key = RandomChars(40, "0123456789abcdef");
  RecordSecrets(credentials);
  LANCE_RETURN_NOT_OK(
      RunKeyChange({"key", "create", "--uid=" + KeyUser(), "--key-type=s3",
                    "--access-key=" + credentials.access_key_id,
                    "--secret-key=" + credentials.secret_access_key},
                   {credentials.secret_access_key},
                   "creating the access key " + credentials.ToString()));
  return credentials;
}

Status RemoveAccessKey(const std::string& access_key_id) {
  return RunKeyChange({"key", "rm", "--uid=" + KeyUser(), "--key-type=s3",
                       "--access-key=" + access_key_id},
                      {}, "removing an access key");
}

Result<AwsCredentials> AssumeRole(std::chrono::seconds duration,
                                  const std::string& session_policy) {
  LANCE_ASSIGN_OR_RAISE(S3TestEnv env, S3TestEnv::Get());
  if (env.sts_role_arn.empty()) {
    return Status::Invalid(
        "LANCE_S3_STS_ROLE_ARN is not set: run S3 tests through `make "
        "test` (scripts/run_tests.sh starts RGW with STS)");
  }
  using io::s3::UriEncode;
  // Form encoding with %20 for spaces: RGW does not decode '+' in STS bodies.
  std::string body =
      "Action=AssumeRole&DurationSeconds=" + std::to_string(duration.count()) +
      "&RoleArn=" + UriEncode(env.sts_role_arn, true) +
      "&RoleSessionName=" + UriEncode("lance-test-" + UniqueToken(), true) +
      "&Version=2011-06-15";
  if (!session_policy.empty()) body += "&Policy=" + UriEncode(session_policy, true);

  LANCE_ASSIGN_OR_RAISE(
      HttpAnswer answer,
      SignedRequest(env, "POST", "/", {},
                    {{"content-type", "application/x-www-form-urlencoded"}}, body,
                    "sts"));
  const std::string what =
      "STS AssumeRole of " + env.sts_role_arn + " at " + env.endpoint;
  const long http_status = answer.status;
  const std::string& response = answer.body;
  Result<io::s3::XmlElement> parsed = io::s3::ParseXml(response);
  if (http_status != 200) {
    std::string code;
    if (parsed.ok()) {
      const io::s3::XmlElement* error =
          parsed->name == "Error" ? &*parsed : parsed->Child("Error");
      if (error != nullptr) code = error->ChildText("Code");
    }
    return Status::IOError(what + ": HTTP " + std::to_string(http_status) + " " + code);
  }
  if (!parsed.ok()) return parsed.status().WithContext(what);
  const io::s3::XmlElement* result = parsed->Child("AssumeRoleResult");
  const io::s3::XmlElement* credentials =
      result == nullptr ? nullptr : result->Child("Credentials");
  if (credentials == nullptr) {
    return Status::IOError(what + ": the answer has no AssumeRoleResult/Credentials");
  }
  AwsCredentials out{credentials->ChildText("AccessKeyId"),
                     credentials->ChildText("SecretAccessKey"),
                     credentials->ChildText("SessionToken")};
  if (out.access_key_id.empty() || out.secret_access_key.empty() ||
      out.session_token.empty()) {
    return Status::IOError(what + ": the answer lacks a key id, secret or token");
  }
  RecordSecrets(out);
  return out;
}

Result<std::vector<std::string>> ListMultipartUploads(const std::string& bucket) {
  LANCE_ASSIGN_OR_RAISE(S3TestEnv env, S3TestEnv::Get());
  LANCE_ASSIGN_OR_RAISE(
      HttpAnswer answer,
      SignedRequest(env, "GET", "/" + bucket, {{"uploads", ""}}, {}, "", "s3"));
  const std::string what = "ListMultipartUploads of s3://" + bucket;
  if (answer.status != 200) {
    return Status::IOError(what + ": HTTP " + std::to_string(answer.status));
  }
  LANCE_ASSIGN_OR_RAISE(io::s3::XmlElement root, io::s3::ParseXml(answer.body));
  if (root.ChildText("IsTruncated") == "true") {
    return Status::NotImplemented(what + ": more than one page of uploads");
  }
  std::vector<std::string> keys;
  for (const io::s3::XmlElement* upload : root.Children("Upload")) {
    keys.push_back(upload->ChildText("Key"));
  }
  return keys;
}

}  // namespace lance::testing
