// SPDX-License-Identifier: Apache-2.0
// What the server tests share: a RestAdapter on an ephemeral port with an httplib client
// (Server), the spec's error shape (ExpectError), real Arrow IPC bodies (IpcBody), a
// directory namespace in a temp dir, and raw sockets for what clients do wrong.
#pragma once

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lance/core/record_batch.h"
#include "lance/core/type.h"
#include "lance/ipc/writer.h"
#include "lance/namespace/namespace.h"
#include "lance/server/rest_adapter.h"
#include "tests/testing/array_helpers.h"
#include "tests/testing/matchers.h"
#include "tests/testing/temp_dir.h"

namespace lance::server {

using Json = nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

struct Answer {
  int status = 0;
  std::string body;
  std::string content_type;
  Json json;
};

class Server {
 public:
  explicit Server(std::shared_ptr<ns::LanceNamespace> ns,
                  RestAdapterOptions options = {}) {
    options.port = 0;
    auto made = RestAdapter::Make(std::move(ns), std::move(options));
    EXPECT_OK(made.status());
    adapter = std::move(*made);
    EXPECT_OK(adapter->Start());
    EXPECT_GT(adapter->port(), 0);
  }
  ~Server() { adapter->Stop(); }

  Answer Send(const std::string& method, const std::string& target,
              const std::string& body = "", const httplib::Headers& headers = {},
              const std::string& content_type = "application/json") const {
    httplib::Client client("127.0.0.1", adapter->port());
    client.set_read_timeout(30, 0);
    client.set_url_encode(false);  // targets are sent exactly as written
    auto send = [&]() -> httplib::Result {
      if (method == "GET") return client.Get(target.c_str(), headers);
      if (method == "POST") {
        return client.Post(target.c_str(), headers, body, content_type.c_str());
      }
      if (method == "PUT") {
        return client.Put(target.c_str(), headers, body, content_type.c_str());
      }
      return client.Delete(target.c_str(), headers);
    };
    httplib::Result res = send();
    Answer a;
    if (!res) {
      ADD_FAILURE() << method << " " << target << ": no answer";
      return a;
    }
    a.status = res->status;
    a.body = res->body;
    a.content_type = res->get_header_value("Content-Type");
    a.json = Json::parse(a.body, nullptr, false);
    return a;
  }
  Answer Post(const std::string& target, const std::string& body = "{}",
              const httplib::Headers& headers = {}) const {
    return Send("POST", target, body, headers);
  }
  Answer Get(const std::string& target, const httplib::Headers& headers = {}) const {
    return Send("GET", target, "", headers);
  }

  std::unique_ptr<RestAdapter> adapter;
};

/// \brief Asserts the spec's ErrorResponse with `code` at HTTP `status`.
inline void ExpectError(const Answer& a, int status, int code,
                        const std::string& what = "") {
  EXPECT_EQ(a.status, status) << a.body;
  ASSERT_TRUE(a.json.is_object()) << a.body;
  EXPECT_EQ(a.json.value("code", -1), code) << a.body;
  EXPECT_TRUE(a.json.contains("error") && a.json["error"].is_string()) << a.body;
  EXPECT_TRUE(a.json.contains("instance") && a.json["instance"].is_string()) << a.body;
  if (!what.empty()) {
    EXPECT_THAT(a.json.value("error", ""), HasSubstr(what));
  }
}

/// \brief An Arrow IPC stream of `rows` rows (id int64): the server checks IPC bodies
/// before the namespace sees them.
inline std::string IpcBody(int64_t rows = 3) {
  std::vector<int64_t> ids(rows);
  for (int64_t i = 0; i < rows; ++i) ids[i] = i;
  auto schema = lance::schema({field("id", int64())});
  auto batch = RecordBatch::Make(schema, rows, {testing::I64(ids)});
  EXPECT_OK(batch.status());
  auto bytes = ipc::WriteIpcStream(**batch);
  EXPECT_OK(bytes.status());
  return std::string(reinterpret_cast<const char*>((*bytes)->data()),
                     static_cast<size_t>((*bytes)->size()));
}

inline std::shared_ptr<ns::LanceNamespace> DirNamespace(const testing::TempDir& tmp) {
  auto ns = ns::ConnectNamespace("dir", {{"root", tmp.Join("root")}});
  EXPECT_OK(ns.status());
  return *ns;
}

/// \brief A connected raw socket to the server.
inline int Connect(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  EXPECT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  timeval tv{20, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return fd;
}

/// \brief Sends `request` and reads the answer until the server closes.
inline std::string RawExchange(int port, const std::string& request,
                               bool close_write = false) {
  int fd = Connect(port);
  EXPECT_EQ(::send(fd, request.data(), request.size(), 0),
            static_cast<ssize_t>(request.size()));
  if (close_write) ::shutdown(fd, SHUT_WR);
  std::string answer;
  char buf[4096];
  while (true) {
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) break;
    answer.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return answer;
}

}  // namespace lance::server
