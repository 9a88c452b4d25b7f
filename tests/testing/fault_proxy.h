// SPDX-License-Identifier: Apache-2.0
// FaultProxy: an in-process HTTP/1.1 proxy between a client under test and a real S3
// server that injects scripted failures (503 SlowDown, 500, connection resets, stalls,
// truncated bodies, answers lost after the server acted), so retry and error paths run
// against the real server.
//
// One request per connection: the proxy reads a request (head up to CRLFCRLF plus a
// Content-Length body; answering "Expect: 100-continue" itself), then either injects the
// next matching fault or forwards the request unchanged (Host included: it is signed)
// except for "Connection: close", relays the server's answer until the server closes,
// and closes the client connection. Clients reconnect for their next request.
//
// Thread-safe. The destructor stops listening, wakes stalled handlers and joins every
// thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "lance/result.h"
#include "lance/status.h"

namespace lance::testing {

enum class FaultAction {
  kForward,   ///< pass the request through (useful to skip N matching requests)
  kSlowDown,  ///< 503 with an S3 <Error><Code>SlowDown</Code>, never reaches the server
  kInternalError,  ///< 500 InternalError, never reaches the server
  kReset,          ///< close with RST (SO_LINGER 0) right after reading the request
  kStall,          ///< read the request, never answer; close after `stall` (or shutdown)
  kTruncateBody,  ///< forward; relay the head (full Content-Length), half the body, close
  /// \brief Forward, read the server's whole answer, then close the client connection
  /// without sending a byte of it (with RST when FaultRule::reset_on_drop): the server
  /// did the work, the client never learns it (a lost acknowledgement).
  kDropReply,
};

const char* FaultActionName(FaultAction action);

/// \brief One scripted fault: applies to the next `count` requests that match.
struct FaultRule {
  FaultAction action = FaultAction::kSlowDown;
  /// \brief Matching requests it applies to; kForever never runs out.
  int count = 1;
  static constexpr int kForever = -1;
  /// \brief Only requests with this method ("PUT", "GET", ...); empty: any.
  std::string method;
  /// \brief Only requests whose target (path + query) contains this; empty: any.
  std::string target_contains;
  /// \brief kStall: how long the connection is held before it is closed.
  std::chrono::milliseconds stall{10'000};
  /// \brief kDropReply: close with RST (SO_LINGER 0) instead of FIN after dropping the
  /// answer.
  bool reset_on_drop = false;
  /// \brief Called on the proxy's handler thread once the whole request has been read
  /// and before the rule's action (so before the request reaches the server when it is
  /// forwarded), with the request's method and target. Lets a test act at exactly that
  /// moment, e.g. commit a competing version straight to the server. The client waits
  /// meanwhile.
  std::function<void(const std::string& method, const std::string& target)> before;
};

/// \brief What the proxy saw, per request, in arrival order.
struct ProxiedRequest {
  std::string method;
  std::string target;
  FaultAction action = FaultAction::kForward;
  /// \brief The server's HTTP status for forwarded requests (0: none / not forwarded).
  int upstream_status = 0;
};

class FaultProxy {
 public:
  /// \brief Listens on 127.0.0.1:<ephemeral> and forwards to `upstream_endpoint`
  /// ("http://host:port", no path). \return Invalid for another endpoint form; IOError
  /// if the socket cannot be set up.
  static Result<std::unique_ptr<FaultProxy>> Start(const std::string& upstream_endpoint);
  ~FaultProxy();
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  /// \brief "http://127.0.0.1:<port>".
  std::string endpoint() const;

  /// \brief Appends a rule. Each request takes the first rule (in order of addition)
  /// that matches it and still has a count left.
  void AddFault(FaultRule rule);
  /// \brief Shorthand: `count` times `action` for requests matching method/target.
  void AddFault(FaultAction action, int count, std::string method = "",
                std::string target_contains = "");
  /// \brief Drops every rule (requests in flight keep theirs).
  void ClearFaults();

  /// \brief Requests read completely (forwarded or faulted).
  int64_t requests() const { return requests_.load(); }
  /// \brief Requests answered with a fault (kForward rules not counted).
  int64_t faults_injected() const { return faults_.load(); }
  /// \brief Every request so far (complete ones only).
  std::vector<ProxiedRequest> log() const;
  /// \brief Requests so far whose method matches (empty: any) and whose target contains
  /// `target_contains`.
  int64_t CountRequests(const std::string& method,
                        const std::string& target_contains = "") const;

 private:
  FaultProxy() = default;
  struct Connection;
  struct Request;

  void AcceptLoop();
  void Serve(int client_fd);
  FaultRule TakeRule(const std::string& method, const std::string& target);
  void Forward(int client_fd, const Request& request, FaultAction action,
               size_t log_index);
  void SetUpstreamStatus(size_t log_index, int status);
  bool WaitStopped(std::chrono::milliseconds timeout);
  void Track(int fd);
  void Untrack(int fd);

  std::string upstream_host_;
  int upstream_port_ = 0;
  int listen_fd_ = -1;
  int wake_pipe_[2] = {-1, -1};
  int port_ = 0;

  std::atomic<int64_t> requests_{0};
  std::atomic<int64_t> faults_{0};
  std::atomic<int64_t> request_ids_{0};

  mutable std::mutex mu_;
  std::condition_variable stopped_cv_;
  bool stopping_ = false;
  std::deque<FaultRule> rules_;
  std::vector<ProxiedRequest> log_;
  std::set<int> open_fds_;  // client and upstream sockets, shut down on stop
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::list<Worker> workers_;
  std::thread acceptor_;
};

}  // namespace lance::testing
