// SPDX-License-Identifier: Apache-2.0
// lance-cpp serve: a Lance REST namespace server (server::RestAdapter) over a namespace
// given as --namespace IMPL --ns-prop K=V. Prints "serving <namespace_id> on
// http://HOST:PORT" once it accepts requests; SIGTERM / SIGINT stop it gracefully
// (no new connections, in-flight requests finish) and it exits 0.
#include <pthread.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <set>
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

/// \brief Comma-separated values of environment variable `name` (empty parts dropped).
std::vector<std::string> EnvList(const char* name) {
  std::vector<std::string> out;
  const char* value = std::getenv(name);  // NOLINT(concurrency-mt-unsafe)
  if (value == nullptr) return out;
  std::string text(value);
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string part = text.substr(start, comma - start);
    if (!part.empty()) out.push_back(part);
    start = comma + 1;
  }
  return out;
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
  if (auto max_body = args.Get("max-body-bytes")) {
    LANCE_ASSIGN_OR_RAISE(options.max_body_bytes,
                          ParseCount(*max_body, "max-body-bytes"));
  }
  for (const auto& key : args.GetAll("api-key")) options.api_keys.insert(key);
  for (const auto& key : EnvList("LANCE_SERVE_API_KEYS")) options.api_keys.insert(key);
  for (const auto& token : args.GetAll("bearer-token"))
    options.bearer_tokens.insert(token);
  for (const auto& token : EnvList("LANCE_SERVE_BEARER_TOKENS")) {
    options.bearer_tokens.insert(token);
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
  LANCE_RETURN_NOT_OK(Emit(s.out, "serving " + ns->namespace_id() + " on http://" +
                                      url_host + ":" + std::to_string(adapter->port()) +
                                      "\n"));
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
      "--port N [--api-key K ...] [--bearer-token T ...] [--access-log FILE|-]",
      {{"namespace", true, false, "the namespace implementation served: dir"},
       {"ns-prop", true, true,
        "namespace property KEY=VALUE: root=PATH|s3://..., storage.KEY=VALUE, "
        "credential_vendor.* (secret values are never printed)"},
       {"host", true, false, "address to listen on (default 127.0.0.1)"},
       {"port", true, false, "port to listen on; 0 picks a free one (printed)"},
       {"threads", true, false, "worker threads (default 8)"},
       {"max-body-bytes", true, false, "largest request body accepted (default 256 MiB)"},
       {"api-key", true, true,
        "accept this x-api-key (also LANCE_SERVE_API_KEYS=k1,k2 from the environment)"},
       {"bearer-token", true, true,
        "accept this Authorization: Bearer token (also LANCE_SERVE_BEARER_TOKENS)"},
       {"access-log", true, false,
        "append one JSON line per request to FILE ('-': stdout); no secrets"}},
      RunServe};
  return command;
}

}  // namespace lance::cli
