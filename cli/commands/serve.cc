// SPDX-License-Identifier: Apache-2.0
// lance-cpp serve: a Lance REST namespace server (server::RestAdapter) over a namespace
// given as --namespace IMPL --ns-prop K=V. Prints "serving <namespace_id> on
// http://HOST:PORT" once it accepts requests; SIGTERM / SIGINT stop it gracefully
// (no new connections, in-flight requests finish) and it exits 0.
#include <arpa/inet.h>
#include <pthread.h>
#include <sys/stat.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "command.h"
#include "commands/common.h"
#include "lance/macros.h"
#include "lance/namespace/namespace.h"
#include "lance/server/rest_adapter.h"
#include "lib/cli_options.h"
#include "lib/scalar_codec.h"

namespace lance::cli {

namespace {

/// \brief The keys of --api-keys-file and of LANCE_SERVE_API_KEYS (keys never come
/// from the command line, which every user of the machine can read in ps).
Result<std::vector<server::ApiKey>> LoadApiKeys(const Args& args) {
  std::vector<server::ApiKey> keys;
  if (auto path = args.Get("api-keys-file")) {
    struct stat st {};
    if (::stat(path->c_str(), &st) != 0) {
      return Status::Invalid("--api-keys-file ", *path, ": cannot read it");
    }
    // As ssh does with private keys: a key file others can read is not a secret.
    if ((st.st_mode & 0077) != 0) {
      return Status::Invalid("--api-keys-file ", *path,
                             " is readable or writable by other users: chmod 600 it");
    }
    std::ifstream in(*path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in.good() && !in.eof()) {
      return Status::Invalid("--api-keys-file ", *path, ": cannot read it");
    }
    LANCE_ASSIGN_OR_RAISE(auto parsed,
                          server::ParseApiKeys(text.str(), "--api-keys-file " + *path));
    keys.insert(keys.end(), parsed.begin(), parsed.end());
  }
  if (const char* env =
          std::getenv("LANCE_SERVE_API_KEYS")) {  // NOLINT(concurrency-mt-unsafe)
    LANCE_ASSIGN_OR_RAISE(auto parsed, server::ParseApiKeys(env, "LANCE_SERVE_API_KEYS"));
    keys.insert(keys.end(), parsed.begin(), parsed.end());
  }
  return keys;
}

/// \brief True for addresses only this machine can reach.
bool IsLoopback(const std::string& host) {
  if (host == "localhost" || host == "::1" || host == "[::1]") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  return false;
}

/// \brief Where access-log lines go: a file opened for append, or stdout for "-".
class AccessLog {
 public:
  static Result<std::shared_ptr<AccessLog>> Open(const std::string& path,
                                                 std::FILE* out) {
    auto log = std::make_shared<AccessLog>();
    if (path == "-") {
      log->file_ = out;
    } else {
      log->file_ =
          std::fopen(path.c_str(), "a");  // NOLINT(cppcoreguidelines-owning-memory)
      if (log->file_ == nullptr) {
        return Status::IOError("cannot open access log " + path + " for appending");
      }
      log->owned_ = true;
    }
    return log;
  }
  AccessLog() = default;
  AccessLog(const AccessLog&) = delete;
  AccessLog& operator=(const AccessLog&) = delete;
  ~AccessLog() {
    if (owned_ && file_ != nullptr) std::fclose(file_);  // NOLINT
  }
  void Write(const std::string& line) {
    std::lock_guard<std::mutex> lock(mu_);
    std::fwrite(line.data(), 1, line.size(), file_);
    std::fputc('\n', file_);
    std::fflush(file_);
  }

 private:
  std::mutex mu_;
  std::FILE* file_ = nullptr;
  bool owned_ = false;
};

Status RunServe(const Args& args, const Streams& s) {
  LANCE_RETURN_NOT_OK(ExpectPositionals(args, {}));
  if (!args.Has("namespace")) {
    return Status::Invalid(
        "serve needs --namespace (e.g. --namespace dir --ns-prop root=PATH)");
  }
  const std::string impl = *args.Get("namespace");
  auto props = ParseStorageOptions(args.GetAll("ns-prop"));
  if (!props.ok()) return props.status().WithContext("--ns-prop");
  auto connected =
      ns::ConnectNamespace(impl, ns::Properties(props->begin(), props->end()));
  if (!connected.ok()) {
    if (connected.status().IsNotImplemented()) {
      return Status::Invalid("unknown namespace implementation ", QuoteForMessage(impl));
    }
    if (connected.status().IsInvalid()) {
      return Status::Invalid("--namespace ", impl, ": ", connected.status().message());
    }
    return connected.status().WithContext("connecting to the " + impl + " namespace");
  }
  std::shared_ptr<ns::LanceNamespace> ns = std::move(*connected);

  server::RestAdapterOptions options;
  options.host = args.Get("host").value_or("127.0.0.1");
  if (!args.Has("port"))
    return Status::Invalid("serve needs --port N (0: any free port)");
  LANCE_ASSIGN_OR_RAISE(int64_t port, ParseCount(*args.Get("port"), "port"));
  if (port > 65535) return Status::Invalid("--port must be at most 65535");
  options.port = static_cast<int>(port);
  if (auto threads = args.Get("threads")) {
    LANCE_ASSIGN_OR_RAISE(int64_t n, ParseCount(*threads, "threads"));
    if (n < 1 || n > 1024) return Status::Invalid("--threads must be in 1..1024");
    options.threads = static_cast<int>(n);
  }
  if (auto max_connections = args.Get("max-connections")) {
    LANCE_ASSIGN_OR_RAISE(int64_t n, ParseCount(*max_connections, "max-connections"));
    if (n < 1 || n > 65536)
      return Status::Invalid("--max-connections must be in 1..65536");
    options.max_connections = static_cast<int>(n);
  }
  if (auto max_body = args.Get("max-body-bytes")) {
    LANCE_ASSIGN_OR_RAISE(options.limits.max_body_bytes,
                          ParseCount(*max_body, "max-body-bytes"));
  }
  if (args.Has("api-key") || args.Has("bearer-token")) {
    return Status::Invalid(
        "--api-key and --bearer-token are no longer accepted: a command line is visible "
        "to every user of the machine (ps). Put the keys in a file given with "
        "--api-keys-file (mode 600) or in LANCE_SERVE_API_KEYS");
  }
  LANCE_ASSIGN_OR_RAISE(options.api_keys, LoadApiKeys(args));
  if (args.Has("tls-cert") != args.Has("tls-key")) {
    return Status::Invalid("TLS needs both --tls-cert and --tls-key");
  }
  options.tls_cert_file = args.Get("tls-cert").value_or("");
  options.tls_key_file = args.Get("tls-key").value_or("");
  // Safe by default: beyond this machine, only with keys and TLS, unless the operator
  // says --insecure (a trusted network, a TLS proxy in front).
  const bool exposed = !IsLoopback(options.host);
  const bool secured = !options.api_keys.empty() && !options.tls_cert_file.empty();
  if (exposed && !secured) {
    if (!args.Has("insecure")) {
      return Status::Invalid(
          "serve --host ", options.host,
          " listens beyond this machine, which needs API keys (--api-keys-file or "
          "LANCE_SERVE_API_KEYS) and TLS (--tls-cert, --tls-key); add --insecure to "
          "serve it without them anyway");
    }
    std::fprintf(s.err,
                 "warning: serving on %s without %s: anyone who can reach this port "
                 "can use the namespace%s\n",
                 options.host.c_str(),
                 options.api_keys.empty() && options.tls_cert_file.empty()
                     ? "authentication or TLS"
                     : (options.api_keys.empty() ? "authentication" : "TLS"),
                 options.tls_cert_file.empty() ? " and read its traffic" : "");
  }
  std::shared_ptr<AccessLog> log;
  if (auto path = args.Get("access-log")) {
    LANCE_ASSIGN_OR_RAISE(log, AccessLog::Open(*path, s.out));
    options.access_log = [log](const std::string& line) { log->Write(line); };
  }

  // Block the stop signals in every thread (the server's threads inherit the mask) and
  // wait for them here.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  LANCE_ASSIGN_OR_RAISE(auto adapter, server::RestAdapter::Make(ns, std::move(options)));
  LANCE_RETURN_NOT_OK(adapter->Start());
  const std::string host = args.Get("host").value_or("127.0.0.1");
  const std::string url_host =
      host.find(':') != std::string::npos ? "[" + host + "]" : host;
  LANCE_RETURN_NOT_OK(Emit(s.out, "serving " + ns->namespace_id() + " on " +
                                      adapter->scheme() + "://" + url_host + ":" +
                                      std::to_string(adapter->port()) + "\n"));
  LANCE_RETURN_NOT_OK(FlushOut(s));

  int signal = 0;
  sigwait(&stop_signals, &signal);
  std::fprintf(s.err, "received signal %d: stopping\n", signal);
  adapter->Stop();
  std::fflush(s.err);
  return FlushOut(s);
}

}  // namespace

Command MakeServeCommand() {
  Command command{
      "serve",
      "Serve a namespace over the Lance REST namespace protocol until SIGTERM/SIGINT.",
      "serve --namespace dir --ns-prop root=PATH [--ns-prop K=V ...] [--host 127.0.0.1] "
      "--port N [--api-keys-file FILE] [--tls-cert FILE --tls-key FILE] [--insecure] "
      "[--access-log FILE|-]",
      {{"namespace", true, false, "the namespace implementation served: dir"},
       {"ns-prop", true, true,
        "namespace property KEY=VALUE: root=PATH|s3://..., storage.KEY=VALUE, "
        "credential_vendor.* (secret values are never printed)"},
       {"host", true, false,
        "address to listen on (default 127.0.0.1; others need keys and TLS, or "
        "--insecure)"},
       {"port", true, false, "port to listen on; 0 picks a free one (printed)"},
       {"threads", true, false, "worker threads (default 8)"},
       {"max-connections", true, false,
        "connections open or waiting at once; more get 503 (default 256)"},
       {"max-body-bytes", true, false, "largest request body accepted (default 256 MiB)"},
       {"api-keys-file", true, false,
        "file (mode 600) of API keys, one per line: KEY [read|write|admin [NAMESPACE]]; "
        "also LANCE_SERVE_API_KEYS (same entries, comma-separated)"},
       {"api-key", true, true, "refused: keys on a command line are visible in ps"},
       {"bearer-token", true, true, "refused: keys on a command line are visible in ps"},
       {"tls-cert", true, false, "serve HTTPS with this PEM certificate chain"},
       {"tls-key", true, false, "the PEM private key of --tls-cert"},
       {"insecure", false, false,
        "allow a non-loopback --host without API keys and TLS (prints a warning)"},
       {"access-log", true, false,
        "append one JSON line per request to FILE ('-': stdout); no secrets"}},
      RunServe};
  return command;
}

}  // namespace lance::cli
