// SPDX-License-Identifier: Apache-2.0
// The HTTP layer under S3, STS and the REST namespace client: retry classification,
// redaction of secrets in log lines, keep-alive reuse of pooled handles, body limits and
// sinks, timeouts -- against a tiny keep-alive HTTP server on a loopback socket.

#include "lance/io/http/http_client.h"

#include <curl/curl.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "lance/core/logging.h"
#include "lance/str_cat.h"
#include "tests/testing/loopback_http_server.h"

namespace lance::io::http {
namespace {

// Answers every request on a connection with `body` and `status`, keeping the
// connection open; counts connections and keeps the request heads. With `silent`, reads
// requests and never answers.
class TinyServer {
 public:
  explicit TinyServer(int status = 200, std::string body = "hello", bool silent = false)
      : server_(
            [status, body = std::move(body), silent](const testing::SeenRequest&, int) {
              if (silent) return testing::Reply{};
              return testing::Reply{StrCat("HTTP/1.1 ", status,
                                           " X\r\nContent-Length: ", body.size(),
                                           "\r\nX-Amz-Request-Id: rid-1\r\n\r\n", body)};
            }) {}

  std::string url(const std::string& path = "/x") const {
    return server_.endpoint() + path;
  }
  int connections() const { return server_.connections(); }
  std::vector<std::string> heads() const {
    std::vector<std::string> out;
    for (const auto& request : server_.requests()) out.push_back(request.head);
    return out;
  }

 private:
  testing::LoopbackHttpServer server_;
};

std::unique_ptr<HttpClient> MakeClient(ClientOptions options = {}) {
  auto client = HttpClient::Make(std::move(options));
  EXPECT_TRUE(client.ok()) << client.status().ToString();
  return std::move(*client);
}

TEST(HttpClassifyTest, TransportCodes) {
  EXPECT_EQ(ClassifyTransportCode(CURLE_OK), TransportError::kNone);
  EXPECT_EQ(ClassifyTransportCode(CURLE_COULDNT_CONNECT), TransportError::kConnect);
  EXPECT_EQ(ClassifyTransportCode(CURLE_COULDNT_RESOLVE_HOST), TransportError::kResolve);
  EXPECT_EQ(ClassifyTransportCode(CURLE_OPERATION_TIMEDOUT), TransportError::kTimeout);
  for (CURLcode c :
       {CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE}) {
    EXPECT_EQ(ClassifyTransportCode(c), TransportError::kConnectionLost) << c;
  }
  EXPECT_EQ(ClassifyTransportCode(CURLE_SSL_CONNECT_ERROR),
            TransportError::kTlsHandshake);
  EXPECT_EQ(ClassifyTransportCode(CURLE_PEER_FAILED_VERIFICATION),
            TransportError::kTlsVerification);
  EXPECT_EQ(ClassifyTransportCode(CURLE_WRITE_ERROR), TransportError::kOther);
  EXPECT_EQ(ClassifyTransportCode(CURLE_URL_MALFORMAT), TransportError::kOther);
}

TEST(HttpClassifyTest, TransientFailuresAndStatuses) {
  for (TransportError e : {TransportError::kConnect, TransportError::kResolve,
                           TransportError::kTimeout, TransportError::kConnectionLost}) {
    EXPECT_TRUE(IsTransientTransportError(e)) << static_cast<int>(e);
  }
  for (TransportError e : {TransportError::kNone, TransportError::kTlsHandshake,
                           TransportError::kTlsVerification, TransportError::kOther}) {
    EXPECT_FALSE(IsTransientTransportError(e)) << static_cast<int>(e);
  }
  for (int status : {429, 500, 502, 503, 504}) EXPECT_TRUE(IsRetryableHttpStatus(status));
  for (int status : {200, 204, 400, 401, 403, 404, 409, 412, 416, 501}) {
    EXPECT_FALSE(IsRetryableHttpStatus(status)) << status;
  }
}

TEST(HttpRedactionTest, SecretHeadersAndUrls) {
  for (const char* name :
       {"Authorization", "authorization", "Proxy-Authorization", "x-amz-security-token",
        "X-Api-Key", "Cookie", "x-lance-auth-token",
        "x-amz-server-side-encryption-customer-key"}) {
    EXPECT_TRUE(IsSecretHeader(name)) << name;
  }
  for (const char* name : {"Host", "Content-Type", "x-amz-date", "x-amz-content-sha256",
                           "range", "if-none-match", "Accept"}) {
    EXPECT_FALSE(IsSecretHeader(name)) << name;
  }
  EXPECT_EQ(DescribeHeaders({{"Host", "h"}, {"Authorization", "AWS4 sig=abc"}}),
            "Host: h, Authorization: <redacted>");
  EXPECT_EQ(RedactUrl("https://user:pw@host:1/a@b?c"), "https://***@host:1/a@b?c");
  EXPECT_EQ(RedactUrl("http://host/p"), "http://host/p");
  EXPECT_EQ(RedactUrl("not a url"), "not a url");
}

TEST(HttpClientTest, ReusesTheConnectionOfAPooledHandle) {
  TinyServer server;
  auto client = MakeClient();
  for (int i = 0; i < 5; ++i) {
    HttpRequest request;
    request.url = server.url();
    HttpResponse response = client->Send(request);
    ASSERT_TRUE(response.answered()) << response.transport_message;
    EXPECT_EQ(response.status, 200);
    EXPECT_EQ(response.body, "hello");
    EXPECT_EQ(response.Header("x-amz-request-id"), "rid-1");
  }
  EXPECT_EQ(server.connections(), 1);
  EXPECT_EQ(client->handles_created(), 1);
}

TEST(HttpClientTest, SendsHeadersInOrderAndRemovesEmptyOnes) {
  TinyServer server;
  auto client = MakeClient();
  HttpRequest request;
  request.method = "POST";
  request.url = server.url();
  request.body = "abc";
  request.headers = {{"Accept", ""}, {"Content-Type", ""}, {"X-One", "1"}};
  ASSERT_TRUE(client->Send(request).answered());
  const auto heads = server.heads();
  ASSERT_EQ(heads.size(), 1u);
  EXPECT_NE(heads[0].find("POST /x HTTP/1.1"), std::string::npos) << heads[0];
  EXPECT_NE(heads[0].find("X-One: 1"), std::string::npos) << heads[0];
  EXPECT_EQ(heads[0].find("Accept:"), std::string::npos) << heads[0];
  EXPECT_EQ(heads[0].find("Content-Type:"), std::string::npos) << heads[0];
  EXPECT_EQ(heads[0].find("Expect:"), std::string::npos) << heads[0];
}

TEST(HttpClientTest, LogLinesNeverCarrySecrets) {
  TinyServer server(403, "denied");
  auto client = MakeClient({.log_component = "test"});
  ScopedLogCapture capture(LogLevel::kTrace);
  HttpRequest request;
  request.url = StrCat("http://user:hunter2@127.0.0.1:", server.url().substr(17));
  request.headers = {{"Authorization", "AWS4-HMAC-SHA256 Signature=sekrit1"},
                     {"x-amz-security-token", "sekrit2"},
                     {"x-api-key", "sekrit3"},
                     {"x-amz-date", "20240101T000000Z"}};
  HttpResponse response = client->Send(request);
  ASSERT_TRUE(response.answered()) << response.transport_message;
  EXPECT_EQ(response.status, 403);
  EXPECT_EQ(response.body, "denied");
  const std::string joined = capture.Joined();
  EXPECT_NE(joined.find("[test]"), std::string::npos) << joined;
  EXPECT_NE(joined.find("HTTP 403"), std::string::npos) << joined;
  EXPECT_NE(joined.find("x-amz-date: 20240101T000000Z"), std::string::npos) << joined;
  EXPECT_NE(joined.find("Authorization: <redacted>"), std::string::npos) << joined;
  for (const char* secret : {"sekrit1", "sekrit2", "sekrit3", "hunter2"}) {
    EXPECT_EQ(joined.find(secret), std::string::npos) << secret << " in " << joined;
  }
}

TEST(HttpClientTest, BufferedBodyLimitFailsTheRequest) {
  TinyServer server(500, std::string(1000, 'e'));
  auto client = MakeClient();
  HttpRequest request;
  request.url = server.url();
  request.max_buffered_body = 100;
  HttpResponse response = client->Send(request);
  EXPECT_FALSE(response.answered());
  EXPECT_EQ(response.error, TransportError::kOther);
  EXPECT_EQ(response.transport_code, CURLE_WRITE_ERROR);
}

// Takes the first `want` bytes and stops.
class PrefixSink : public ResponseSink {
 public:
  explicit PrefixSink(size_t want) : want_(want) {}
  void Start(const HttpResponse& head) override { started_status = head.status; }
  Verdict Write(std::string_view data) override {
    got += data.substr(0, want_ - got.size());
    return got.size() == want_ ? Verdict::kDone : Verdict::kContinue;
  }
  int started_status = 0;
  std::string got;

 private:
  size_t want_;
};

// A GET of `server`'s URL, the body of a success going to `sink`.
HttpResponse SendToSink(const TinyServer& server, ResponseSink* sink) {
  auto client = MakeClient();
  HttpRequest request;
  request.url = server.url();
  request.success_sink = sink;
  return client->Send(request);
}

TEST(HttpClientTest, SuccessSinkMayStopEarly) {
  TinyServer server(200, "0123456789");
  PrefixSink sink(4);
  HttpResponse response = SendToSink(server, &sink);
  ASSERT_TRUE(response.answered()) << response.transport_message;
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(sink.started_status, 200);
  EXPECT_EQ(sink.got, "0123");
  EXPECT_TRUE(response.body.empty());
}

TEST(HttpClientTest, ErrorBodiesBypassTheSuccessSink) {
  TinyServer server(404, "<Error/>");
  PrefixSink sink(100);
  HttpResponse response = SendToSink(server, &sink);
  ASSERT_TRUE(response.answered());
  EXPECT_EQ(response.status, 404);
  EXPECT_EQ(response.body, "<Error/>");
  EXPECT_EQ(sink.started_status, 0);
}

TEST(HttpClientTest, RefusedConnectionIsTransient) {
  int port = 0;
  {
    TinyServer closed;  // a port that was just free, now closed again
    port = std::stoi(closed.url("").substr(17));
  }
  auto client = MakeClient();
  HttpRequest request;
  request.url = StrCat("http://127.0.0.1:", port, "/x");
  HttpResponse response = client->Send(request);
  EXPECT_EQ(response.error, TransportError::kConnect) << response.transport_message;
  EXPECT_TRUE(IsTransientTransportError(response.error));
  EXPECT_FALSE(response.transport_message.empty());
}

TEST(HttpClientTest, RequestTimeout) {
  TinyServer server(200, "", /*silent=*/true);
  auto client = MakeClient({.request_timeout = std::chrono::milliseconds(200)});
  HttpRequest request;
  request.url = server.url();
  const auto start = std::chrono::steady_clock::now();
  HttpResponse response = client->Send(request);
  EXPECT_EQ(response.error, TransportError::kTimeout) << response.transport_message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(HttpClientTest, ConcurrentRequestsShareTheBoundedPool) {
  TinyServer server;
  auto client = MakeClient({.max_in_flight = 2, .max_idle_handles = 2});
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) {
        HttpRequest request;
        request.url = server.url();
        if (client->Send(request).status == 200) ++ok;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 40);
  // At most two requests run at once, so at most two handles (and connections) exist.
  EXPECT_LE(client->handles_created(), 2);
  EXPECT_LE(server.connections(), 2);
}

}  // namespace
}  // namespace lance::io::http
