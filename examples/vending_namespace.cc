// SPDX-License-Identifier: Apache-2.0
#include "vending_namespace.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <random>

#include "lance/io/storage_options.h"
#include "lance/macros.h"

extern char** environ;

namespace demo {

using lance::Result;
using lance::Status;
using lance::io::s3::AwsCredentials;
using Millis = std::chrono::milliseconds;

int64_t NowMillis() {
  return std::chrono::duration_cast<Millis>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string RedactKeyId(const std::string& access_key_id) {
  // The library's one rule for what may be shown of a key id.
  return lance::io::RedactOptionValue("aws_access_key_id", access_key_id);
}

namespace {

std::string RandomChars(size_t n, const std::string& alphabet) {
  static std::mutex mu;
  static std::mt19937_64 rng{std::random_device{}()};
  std::lock_guard lock(mu);
  std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1);
  std::string out;
  for (size_t i = 0; i < n; ++i) out.push_back(alphabet[pick(rng)]);
  return out;
}

// `text` with every occurrence of `secret` replaced (radosgw-admin's diagnostics may
// quote its arguments).
std::string Scrub(std::string text, const std::string& secret) {
  if (secret.empty()) return text;
  for (size_t at; (at = text.find(secret)) != std::string::npos;) {
    text.replace(at, secret.size(), "<redacted>");
  }
  return text;
}

}  // namespace

RgwKeyAdmin::RgwKeyAdmin(std::string ceph_conf, std::string uid)
    : conf_(std::move(ceph_conf)), uid_(std::move(uid)) {}

Status RgwKeyAdmin::Run(std::vector<std::string> args, const std::string& secret,
                        const std::string& what) {
  std::lock_guard lock(mu_);
  args.insert(args.begin(), {"radosgw-admin", "-c", conf_});
  std::string diagnostics;
  // A concurrent metadata write of the same user makes radosgw-admin fail harmlessly
  // ("unable to store user info"): retry a few times.
  for (int attempt = 0; attempt < 4; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(Millis(150 * attempt));
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    char err_path[] = "/tmp/lance-demo-rgw-admin-XXXXXX";
    const int err_fd = mkstemp(err_path);
    if (err_fd < 0) return Status::IOError(what + ": cannot create a temp file");
    unlink(err_path);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, err_fd, STDERR_FILENO);
    pid_t pid = 0;
    const int rc =
        posix_spawnp(&pid, "radosgw-admin", &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    int wstatus = 0;
    if (rc == 0) {
      while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
      }
    }
    diagnostics.clear();
    if (lseek(err_fd, 0, SEEK_SET) == 0) {
      char chunk[4096];
      ssize_t n;
      while ((n = read(err_fd, chunk, sizeof(chunk))) > 0) diagnostics.append(chunk, n);
    }
    close(err_fd);
    if (rc != 0) return Status::IOError(what + ": cannot run radosgw-admin");
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) return Status::OK();
  }
  if (diagnostics.size() > 400)
    diagnostics = diagnostics.substr(diagnostics.size() - 400);
  return Status::IOError(what + ": radosgw-admin failed: " + Scrub(diagnostics, secret));
}

Result<AwsCredentials> RgwKeyAdmin::CreateKey() {
  AwsCredentials key;
  // Redacted key ids show only 4 characters, so the demo numbers its keys there
  // ("K001…", "K002…") to make each refresh visible.
  char serial[8];
  std::snprintf(serial, sizeof(serial), "K%03d", ++created_ % 1000);
  key.access_key_id = serial + RandomChars(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
  key.secret_access_key = RandomChars(40, "0123456789abcdef");
  LANCE_RETURN_NOT_OK(
      Run({"key", "create", "--uid=" + uid_, "--key-type=s3",
           "--access-key=" + key.access_key_id, "--secret-key=" + key.secret_access_key},
          key.secret_access_key, "creating the key " + RedactKeyId(key.access_key_id)));
  return key;
}

Status RgwKeyAdmin::RemoveKey(const std::string& access_key_id) {
  return Run(
      {"key", "rm", "--uid=" + uid_, "--key-type=s3", "--access-key=" + access_key_id},
      "", "revoking the key " + RedactKeyId(access_key_id));
}

KeyReaper::KeyReaper(RgwKeyAdmin* admin,
                     std::function<void(const std::string&)> on_revoked)
    : admin_(admin), on_revoked_(std::move(on_revoked)), thread_([this] { Run(); }) {}

KeyReaper::~KeyReaper() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  for (const auto& [key, at] : pending_) Revoke(key);
}

void KeyReaper::Schedule(const std::string& key_id, int64_t revoke_at_millis) {
  {
    std::lock_guard lock(mu_);
    pending_[key_id] = revoke_at_millis;
  }
  cv_.notify_all();
}

void KeyReaper::Revoke(const std::string& key_id) {
  Status st = admin_->RemoveKey(key_id);
  if (!st.ok()) {
    std::fprintf(stderr, "  (could not revoke %s: %s)\n", RedactKeyId(key_id).c_str(),
                 st.ToString().c_str());
    return;
  }
  ++revoked_;
  if (on_revoked_) on_revoked_(key_id);
}

void KeyReaper::Run() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    const int64_t now = NowMillis();
    std::string due;
    int64_t next = INT64_MAX;
    for (const auto& [key, at] : pending_) {
      if (at <= now) {
        due = key;
        break;
      }
      next = std::min(next, at);
    }
    if (!due.empty()) {
      pending_.erase(due);
      lock.unlock();
      Revoke(due);
      lock.lock();
    } else if (next == INT64_MAX) {
      cv_.wait(lock);
    } else {
      cv_.wait_for(lock, Millis(next - now));
    }
  }
}

VendingNamespace::VendingNamespace(std::shared_ptr<lance::ns::LanceNamespace> inner,
                                   lance::ns::Properties connection, RgwKeyAdmin* admin,
                                   KeyReaper* reaper, Millis ttl, Millis refresh_offset,
                                   Millis revoke_grace)
    : inner_(std::move(inner)),
      connection_(std::move(connection)),
      admin_(admin),
      reaper_(reaper),
      ttl_(ttl),
      offset_(refresh_offset),
      grace_(revoke_grace) {}

Result<lance::ns::DescribeTableResponse> VendingNamespace::DescribeTable(
    const lance::ns::DescribeTableRequest& r) {
  return Vended("describe_table", &describes_, &lance::ns::LanceNamespace::DescribeTable,
                r);
}

Result<lance::ns::DeclareTableResponse> VendingNamespace::DeclareTable(
    const lance::ns::DeclareTableRequest& r) {
  return Vended("declare_table", &declares_, &lance::ns::LanceNamespace::DeclareTable, r);
}

Result<lance::ns::CreateEmptyTableResponse> VendingNamespace::CreateEmptyTable(
    const lance::ns::CreateEmptyTableRequest& r) {
  return Vended("create_empty_table", &create_empties_,
                &lance::ns::LanceNamespace::CreateEmptyTable, r);
}

std::string VendingNamespace::Counts() const {
  std::string out = "declare_table=" + std::to_string(declares_.load()) +
                    " describe_table=" + std::to_string(describes_.load());
  if (create_empties_.load() > 0) {
    out += " create_empty_table=" + std::to_string(create_empties_.load());
  }
  return out;
}

std::vector<AwsCredentials> VendingNamespace::vended() const {
  std::lock_guard lock(mu_);
  return vended_;
}

Status VendingNamespace::Vend(const char* op, const lance::ns::Identifier& id,
                              std::optional<lance::ns::Properties>* options) {
  if (!options->has_value()) options->emplace();
  LANCE_ASSIGN_OR_RAISE(AwsCredentials key, admin_->CreateKey());
  // The lifetime starts once the key exists, so radosgw-admin's latency never eats it.
  const int64_t expires = NowMillis() + ttl_.count();
  lance::ns::Properties& out = **options;
  for (const auto& [k, v] : connection_) out.emplace(k, v);
  // Static RGW keys must travel without a token (RGW refuses a token with them).
  for (const char* k : {"aws_session_token", "session_token", "token", "aws_token"}) {
    out.erase(k);
  }
  out["aws_access_key_id"] = key.access_key_id;
  out["aws_secret_access_key"] = key.secret_access_key;
  out["expires_at_millis"] = std::to_string(expires);
  out["refresh_offset_millis"] = std::to_string(offset_.count());
  {
    std::lock_guard lock(mu_);
    vended_.push_back(key);
  }
  std::printf("  [namespace] %s(%s): vended key %s, expires in %.1f s (%s)\n", op,
              lance::ns::JoinIdentifier(id).c_str(),
              RedactKeyId(key.access_key_id).c_str(),
              static_cast<double>(ttl_.count()) / 1000.0, Counts().c_str());
  std::fflush(stdout);
  reaper_->Schedule(key.access_key_id, expires + grace_.count());
  return Status::OK();
}

}  // namespace demo
