// SPDX-License-Identifier: Apache-2.0
// The libcurl side of the HTTP layer (lance/io/http/http_client.h): a pool of easy
// handles, the options every request gets, and the callbacks that move the bytes.

#include "lance/io/http/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <semaphore>
#include <string>
#include <utility>
#include <vector>

#include "lance/core/ascii.h"
#include "lance/core/logging.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance::io::http {

namespace {

std::once_flag g_curl_init_once;
CURLcode g_curl_init_result = CURLE_OK;

Status InitCurlOnce() {
  std::call_once(g_curl_init_once,
                 [] { g_curl_init_result = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (g_curl_init_result != CURLE_OK) {
    return Status::IOError("HTTP client: curl_global_init failed");
  }
  return Status::OK();
}

// libcurl's upload buffer (default 64 KiB, at most 2 MiB): fewer read callbacks and
// send() calls per uploaded part.
constexpr long kUploadBufferSize = 1024L * 1024;

std::string_view TrimSpace(std::string_view s) {
  const size_t begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return {};
  const size_t end = s.find_last_not_of(" \t\r\n");
  return s.substr(begin, end - begin + 1);
}

// State shared with the callbacks of one transfer.
struct Transfer {
  const HttpRequest* request = nullptr;
  HttpResponse* response = nullptr;
  size_t upload_pos = 0;
  bool started = false;    // the body (or its absence) was announced to the sink
  bool to_sink = false;    // this answer's body goes to the request's sink
  bool sink_done = false;  // the sink had all it wanted: the stop is a success
};

size_t HeaderCallback(char* data, size_t size, size_t nitems, void* userdata) {
  auto* t = static_cast<Transfer*>(userdata);
  const size_t n = size * nitems;
  const std::string_view line(data, n);
  HttpResponse& r = *t->response;
  if (line.substr(0, 5) == "HTTP/") {
    // A new status line (after "100 Continue", say): its headers replace the last ones.
    r.headers.clear();
    const size_t sp = line.find(' ');
    int status = 0;
    if (sp != std::string_view::npos && sp + 4 <= line.size()) {
      for (size_t i = sp + 1; i < sp + 4; ++i) {
        if (line[i] < '0' || line[i] > '9') {
          status = 0;
          break;
        }
        status = status * 10 + (line[i] - '0');
      }
    }
    r.status = status;
    return n;
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return n;
  r.headers.emplace_back(TrimSpace(line.substr(0, colon)),
                         TrimSpace(line.substr(colon + 1)));
  return n;
}

void StartBody(Transfer* t) {
  t->started = true;
  const HttpResponse& r = *t->response;
  t->to_sink = t->request->success_sink != nullptr && r.status >= 200 && r.status < 300;
  if (t->to_sink) t->request->success_sink->Start(r);
}

size_t WriteCallback(char* data, size_t size, size_t nmemb, void* userdata) {
  auto* t = static_cast<Transfer*>(userdata);
  const size_t n = size * nmemb;
  if (!t->started) StartBody(t);
  if (t->to_sink) {
    switch (t->request->success_sink->Write(std::string_view(data, n))) {
      case ResponseSink::Verdict::kContinue:
        return n;
      case ResponseSink::Verdict::kDone:
        t->sink_done = true;
        return 0;  // CURLE_WRITE_ERROR, turned into success below
      case ResponseSink::Verdict::kAbort:
        return 0;
    }
  }
  std::string& body = t->response->body;
  const int64_t limit = t->request->max_buffered_body;
  if (limit >= 0 && static_cast<int64_t>(body.size() + n) > limit) return 0;
  body.append(data, n);
  return n;
}

size_t ReadCallback(char* buffer, size_t size, size_t nitems, void* userdata) {
  auto* t = static_cast<Transfer*>(userdata);
  const std::string_view body = t->request->body;
  const size_t n = std::min(size * nitems, body.size() - t->upload_pos);
  std::memcpy(buffer, body.data() + t->upload_pos, n);
  t->upload_pos += n;
  return n;
}

int SeekCallback(void* userdata, curl_off_t offset, int origin) {
  auto* t = static_cast<Transfer*>(userdata);
  if (origin != SEEK_SET || offset < 0 ||
      static_cast<size_t>(offset) > t->request->body.size()) {
    return CURL_SEEKFUNC_CANTSEEK;
  }
  t->upload_pos = static_cast<size_t>(offset);
  return CURL_SEEKFUNC_OK;
}

struct HeaderListFree {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
using HeaderList = std::unique_ptr<curl_slist, HeaderListFree>;

// Appends `line` to `list`. \return false when out of memory (the list is unchanged).
bool Append(HeaderList* list, const std::string& line) {
  curl_slist* next = curl_slist_append(list->get(), line.c_str());
  if (next == nullptr) return false;
  (void)list->release();  // `next` is the same list, one line longer
  list->reset(next);
  return true;
}

void SetConnectionOptions(CURL* h, const ClientOptions& o) {
  curl_easy_setopt(h, CURLOPT_PATH_AS_IS, 1L);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
  if (o.tcp_keepalive) curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
  if (o.receive_buffer_size > 0) {
    curl_easy_setopt(h, CURLOPT_BUFFERSIZE, static_cast<long>(o.receive_buffer_size));
  }
  curl_easy_setopt(h, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(h, CURLOPT_USERAGENT, "lance-cpp");
  if (o.decode_content) curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(std::max<int64_t>(1, o.connect_timeout.count())));
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(std::max<int64_t>(0, o.request_timeout.count())));
  if (o.stall_timeout.count() > 0) {
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(
        h, CURLOPT_LOW_SPEED_TIME,
        static_cast<long>(std::max<int64_t>(1, o.stall_timeout.count() / 1000)));
  }
  const TlsOptions& tls = o.tls;
  if (tls.ca_file) curl_easy_setopt(h, CURLOPT_CAINFO, tls.ca_file->c_str());
  if (tls.cert_file) curl_easy_setopt(h, CURLOPT_SSLCERT, tls.cert_file->c_str());
  if (tls.key_file) curl_easy_setopt(h, CURLOPT_SSLKEY, tls.key_file->c_str());
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, tls.verify_peer ? 1L : 0L);
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, tls.verify_host ? 2L : 0L);
}

void SetMethod(CURL* h, const HttpRequest& req, Transfer* t) {
  if (req.method == "HEAD") {
    curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  } else if (req.method == "PUT") {
    // Streamed from the caller's buffer; the seek callback lets libcurl rewind it.
    curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(h, CURLOPT_UPLOAD_BUFFERSIZE, kUploadBufferSize);
    curl_easy_setopt(h, CURLOPT_READFUNCTION, ReadCallback);
    curl_easy_setopt(h, CURLOPT_READDATA, t);
    curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, SeekCallback);
    curl_easy_setopt(h, CURLOPT_SEEKDATA, t);
    curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE,
                     static_cast<curl_off_t>(req.body.size()));
  } else if (req.method == "POST") {
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(req.body.size()));
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, req.body.empty() ? "" : req.body.data());
  } else if (req.method != "GET") {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req.method.c_str());
  }
}

HttpResponse TransportFailure(CURLcode rc, std::string message) {
  HttpResponse response;
  response.error = ClassifyTransportCode(rc);
  response.transport_code = static_cast<int>(rc);
  response.transport_message = std::move(message);
  return response;
}

}  // namespace

struct HttpClient::Impl {
  ClientOptions options;
  std::unique_ptr<std::counting_semaphore<>> slots;  // null: no bound
  mutable std::mutex mutex;
  mutable std::vector<CURL*> idle;
  mutable std::atomic<int64_t> created{0};

  ~Impl() {
    for (CURL* h : idle) curl_easy_cleanup(h);
  }

  CURL* Acquire() const {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!idle.empty()) {
        CURL* h = idle.back();
        idle.pop_back();
        return h;
      }
    }
    created.fetch_add(1, std::memory_order_relaxed);
    return curl_easy_init();
  }

  // A handle whose transfer failed mid-way may hold a broken connection; libcurl closes
  // those itself, so every handle goes back. Reset drops the options but keeps the
  // connection cache for the next request.
  void Release(CURL* h) const {
    curl_easy_reset(h);
    std::lock_guard<std::mutex> lock(mutex);
    if (options.max_idle_handles > 0 && idle.size() >= options.max_idle_handles) {
      curl_easy_cleanup(h);
      return;
    }
    idle.push_back(h);
  }

  HttpResponse Perform(CURL* h, const HttpRequest& req) const;
};

HttpResponse HttpClient::Impl::Perform(CURL* h, const HttpRequest& req) const {
  HeaderList headers;
  // No "Expect: 100-continue" round trip before a body.
  bool ok = Append(&headers, "Expect:");
  for (const auto& [name, value] : req.headers) {
    ok = ok && Append(&headers, StrCat(name, ": ", value));
  }
  if (!ok) return TransportFailure(CURLE_OUT_OF_MEMORY, "out of memory building headers");

  HttpResponse response;
  Transfer t;
  t.request = &req;
  t.response = &response;
  char errbuf[CURL_ERROR_SIZE];
  errbuf[0] = '\0';
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(h, CURLOPT_URL, req.url.c_str());
  SetConnectionOptions(h, options);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, HeaderCallback);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, WriteCallback);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
  SetMethod(h, req, &t);

  CURLcode rc = curl_easy_perform(h);
  if (!t.started && rc == CURLE_OK) StartBody(&t);  // a bodiless answer
  long code = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
  if (code != 0) response.status = static_cast<int>(code);
  if (rc == CURLE_WRITE_ERROR && t.sink_done) rc = CURLE_OK;
  if (rc != CURLE_OK) {
    const int status = response.status;
    response = TransportFailure(
        rc, errbuf[0] != '\0' ? std::string(errbuf) : curl_easy_strerror(rc));
    response.status = status;
  }
  return response;
}

HttpClient::HttpClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpClient::~HttpClient() = default;

Result<std::unique_ptr<HttpClient>> HttpClient::Make(ClientOptions options) {
  LANCE_RETURN_NOT_OK(InitCurlOnce());
  auto impl = std::make_unique<Impl>();
  if (options.max_in_flight > 0) {
    impl->slots = std::make_unique<std::counting_semaphore<>>(options.max_in_flight);
  }
  impl->options = std::move(options);
  return std::unique_ptr<HttpClient>(new HttpClient(std::move(impl)));
}

HttpResponse HttpClient::Send(const HttpRequest& request) const {
  struct SlotGuard {
    std::counting_semaphore<>* slots;
    explicit SlotGuard(std::counting_semaphore<>* s) : slots(s) {
      if (slots != nullptr) slots->acquire();
    }
    ~SlotGuard() {
      if (slots != nullptr) slots->release();
    }
    SlotGuard(const SlotGuard&) = delete;
    SlotGuard& operator=(const SlotGuard&) = delete;
  } slot(impl_->slots.get());

  const auto start = std::chrono::steady_clock::now();
  CURL* h = impl_->Acquire();
  if (h == nullptr) return TransportFailure(CURLE_FAILED_INIT, "curl_easy_init failed");
  HttpResponse response = impl_->Perform(h, request);
  impl_->Release(h);
  // One line per attempt, for tracing a conversation; secrets never get this far.
  LANCE_LOG(Trace, impl_->options.log_component)
      << request.method << " " << RedactUrl(request.url) << " ["
      << DescribeHeaders(request.headers) << "] -> "
      << (response.answered() ? StrCat("HTTP ", response.status)
                              : StrCat("no answer (", response.transport_message,
                                       ", curl error ", response.transport_code, ")"))
      << " in "
      << std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now() - start)
             .count()
      << " ms";
  return response;
}

const ClientOptions& HttpClient::options() const { return impl_->options; }

int64_t HttpClient::handles_created() const {
  return impl_->created.load(std::memory_order_relaxed);
}

}  // namespace lance::io::http
