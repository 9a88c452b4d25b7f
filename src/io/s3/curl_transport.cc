// SPDX-License-Identifier: Apache-2.0
// The curl transport of the S3 client (see curl_transport.h).

#include "io/s3/curl_transport.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "io/s3/responses.h"
#include "lance/core/ascii.h"
#include "lance/str_cat.h"

namespace lance::io::s3::internal {

namespace {

std::once_flag g_curl_init_once;
CURLcode g_curl_init_result = CURLE_OK;

// State shared with the curl callbacks of one attempt.
struct Transfer {
  const Request* request = nullptr;
  Response* response = nullptr;
  size_t upload_pos = 0;
  bool in_headers = true;
  // Success-sink bookkeeping, decided when the status line is seen.
  bool success = false;
  int64_t to_skip = 0;      // bytes to drop before the slice (200 answer to a range)
  int64_t limit = -1;       // bytes wanted (-1: no limit)
  bool done_early = false;  // we stopped a 200 full answer once the slice was complete
  bool overflow = false;    // the server sent more than asked
};

constexpr size_t kMaxErrorBody = 1 << 20;
// Most a Content-Length may make us reserve up front (larger bodies grow as they come).
constexpr int64_t kMaxBodyReserve = int64_t{1} << 30;
// libcurl's receive buffer (default 16 KiB): larger means fewer write callbacks and
// recv() calls per ranged GET of several MiB.
constexpr long kReceiveBufferSize = 512L * 1024;
// libcurl's upload buffer (default 64 KiB, at most 2 MiB): fewer read callbacks and
// send() calls per part.
constexpr long kUploadBufferSize = 1024L * 1024;

size_t HeaderCallback(char* data, size_t size, size_t nitems, void* userdata) {
  auto* t = static_cast<Transfer*>(userdata);
  const size_t n = size * nitems;
  std::string_view line(data, n);
  if (line.substr(0, 5) == "HTTP/") {
    // A new status line (e.g. after "100 Continue"): start over.
    Response* r = t->response;
    r->etag.clear();
    r->content_range.clear();
    r->last_modified.clear();
    r->content_length.clear();
    r->request_id.clear();
    r->error_code_header.clear();
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
    r->status = status;
    return n;
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return n;
  const std::string_view name = Trim(line.substr(0, colon));
  const std::string_view value = Trim(line.substr(colon + 1));
  Response* r = t->response;
  if (EqualsIgnoreAsciiCase(name, "etag")) {
    r->etag = std::string(value);
  } else if (EqualsIgnoreAsciiCase(name, "content-range")) {
    r->content_range = std::string(value);
  } else if (EqualsIgnoreAsciiCase(name, "last-modified")) {
    r->last_modified = std::string(value);
  } else if (EqualsIgnoreAsciiCase(name, "content-length")) {
    r->content_length = std::string(value);
  } else if (EqualsIgnoreAsciiCase(name, "x-amz-request-id")) {
    r->request_id = std::string(value);
  } else if (EqualsIgnoreAsciiCase(name, "x-amz-error-code")) {
    r->error_code_header = std::string(value);
  }
  return n;
}

// Decides, at the first body byte, where a body goes.
void StartBody(Transfer* t) {
  t->in_headers = false;
  const Request& req = *t->request;
  Response& r = *t->response;
  t->success = r.status >= 200 && r.status < 300;
  if (!t->success) return;
  if (req.ranged && r.status == 200) {
    // The server ignored the Range: take the slice out of the full object.
    t->to_skip = req.range_offset;
    t->limit = req.range_length;
  } else {
    t->to_skip = 0;
    t->limit = req.range_length;
  }
  if (req.out != nullptr && (t->limit < 0 || t->limit > req.out_capacity)) {
    t->limit = req.out_capacity;
  }
  if (req.out == nullptr) {
    // A whole-object GET into the string sink: size it once from Content-Length
    // instead of growing (and copying) it as the body arrives.
    int64_t announced = 0;
    if (ParseInt64(r.content_length, &announced) && announced > 0) {
      if (t->limit >= 0) announced = std::min(announced, t->limit);
      r.body.reserve(static_cast<size_t>(std::min(announced, kMaxBodyReserve)));
    }
  }
}

size_t WriteCallback(char* data, size_t size, size_t nmemb, void* userdata) {
  auto* t = static_cast<Transfer*>(userdata);
  size_t n = size * nmemb;
  if (t->in_headers) StartBody(t);
  Response& r = *t->response;
  if (!t->success) {
    if (r.body.size() + n > kMaxErrorBody) return 0;  // absurd error body: abort
    r.body.append(data, n);
    return n;
  }
  const size_t total = n;
  if (t->to_skip > 0) {
    const size_t skip =
        static_cast<size_t>(std::min<int64_t>(t->to_skip, static_cast<int64_t>(n)));
    t->to_skip -= static_cast<int64_t>(skip);
    data += skip;
    n -= skip;
  }
  if (n == 0) return total;
  const Request& req = *t->request;
  int64_t room =
      t->limit < 0 ? std::numeric_limits<int64_t>::max() : t->limit - r.written;
  const bool full_answer_to_range = req.ranged && r.status == 200;
  if (static_cast<int64_t>(n) > room) {
    if (full_answer_to_range) {
      // We have the whole slice; the rest of the object is not wanted.
      n = static_cast<size_t>(room);
      t->done_early = true;
    } else {
      t->overflow = true;
      return 0;
    }
  }
  if (req.out != nullptr) {
    std::memcpy(req.out + r.written, data, n);
  } else {
    r.body.append(data, n);
  }
  r.written += static_cast<int64_t>(n);
  if (t->done_early) return 0;  // abort the transfer: CURLE_WRITE_ERROR, handled
  return total;
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

class CurlSlist {
 public:
  ~CurlSlist() {
    if (list_ != nullptr) curl_slist_free_all(list_);
  }
  bool Append(const std::string& line) {
    curl_slist* next = curl_slist_append(list_, line.c_str());
    if (next == nullptr) return false;
    list_ = next;
    return true;
  }
  curl_slist* get() const { return list_; }

 private:
  curl_slist* list_ = nullptr;
};

}  // namespace

Status InitCurlOnce() {
  std::call_once(g_curl_init_once,
                 [] { g_curl_init_result = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (g_curl_init_result != CURLE_OK) {
    return Status::IOError("S3 client: curl_global_init failed");
  }
  return Status::OK();
}

CurlTransport::CurlTransport(const S3Options& options)
    : options_(options),
      slots_(std::make_unique<std::counting_semaphore<>>(
          std::max<ptrdiff_t>(1, options.max_connections))) {}

CurlTransport::~CurlTransport() {
  for (CURL* h : pool_) curl_easy_cleanup(h);
}

CURL* CurlTransport::AcquireHandle() {
  {
    std::lock_guard<std::mutex> lock(pool_mutex_);
    if (!pool_.empty()) {
      CURL* h = pool_.back();
      pool_.pop_back();
      return h;
    }
  }
  return curl_easy_init();
}

void CurlTransport::ReleaseHandle(CURL* h, bool reusable) {
  if (!reusable) {
    curl_easy_cleanup(h);
    return;
  }
  // Reset drops options but keeps the live connection for the next request.
  curl_easy_reset(h);
  std::lock_guard<std::mutex> lock(pool_mutex_);
  pool_.push_back(h);
}

CURLcode CurlTransport::Perform(
    const Request& req, const RequestTarget& target,
    const std::vector<std::pair<std::string, std::string>>& auth_headers,
    Response* response, bool* overflow, std::string* curl_error) {
  struct SlotGuard {
    std::counting_semaphore<>* s;
    explicit SlotGuard(std::counting_semaphore<>* sem) : s(sem) { s->acquire(); }
    ~SlotGuard() { s->release(); }
  } slot(slots_.get());

  CURL* h = AcquireHandle();
  if (h == nullptr) {
    *curl_error = "curl_easy_init failed";
    return CURLE_FAILED_INIT;
  }
  Transfer t;
  t.request = &req;
  t.response = response;

  CurlSlist headers;
  bool ok = headers.Append("Host: " + target.host_header) && headers.Append("Expect:") &&
            headers.Append("Accept:") && headers.Append("Content-Type:");
  for (const auto& [name, value] : req.headers)
    ok = ok && headers.Append(StrCat(name, ": ", value));
  for (const auto& [name, value] : auth_headers)
    ok = ok && headers.Append(StrCat(name, ": ", value));
  if (!ok) {
    ReleaseHandle(h, true);
    *curl_error = "out of memory building headers";
    return CURLE_OUT_OF_MEMORY;
  }

  char errbuf[CURL_ERROR_SIZE];
  errbuf[0] = '\0';
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(h, CURLOPT_URL, target.url.c_str());
  curl_easy_setopt(h, CURLOPT_PATH_AS_IS, 1L);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(h, CURLOPT_BUFFERSIZE, kReceiveBufferSize);
  curl_easy_setopt(h, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(h, CURLOPT_USERAGENT, "lance-cpp");
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(
      h, CURLOPT_CONNECTTIMEOUT_MS,
      static_cast<long>(std::max<int64_t>(1, options_.connect_timeout.count())));
  curl_easy_setopt(
      h, CURLOPT_TIMEOUT_MS,
      static_cast<long>(std::max<int64_t>(0, options_.request_timeout.count())));
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(
      h, CURLOPT_LOW_SPEED_TIME,
      static_cast<long>(std::max<int64_t>(1, options_.stall_timeout.count() / 1000)));
  if (options_.allow_invalid_certificates) {
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, HeaderCallback);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, WriteCallback);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);

  if (req.method == "HEAD") {
    curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  } else if (req.method == "PUT") {
    curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(h, CURLOPT_UPLOAD_BUFFERSIZE, kUploadBufferSize);
    curl_easy_setopt(h, CURLOPT_READFUNCTION, ReadCallback);
    curl_easy_setopt(h, CURLOPT_READDATA, &t);
    curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, SeekCallback);
    curl_easy_setopt(h, CURLOPT_SEEKDATA, &t);
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

  CURLcode rc = curl_easy_perform(h);
  if (t.in_headers && rc == CURLE_OK) StartBody(&t);  // bodiless answer
  long code = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
  if (code != 0) response->status = static_cast<int>(code);
  if (rc == CURLE_WRITE_ERROR && t.done_early) rc = CURLE_OK;
  *overflow = t.overflow;
  if (rc != CURLE_OK) {
    *curl_error = errbuf[0] != '\0' ? std::string(errbuf) : curl_easy_strerror(rc);
  }
  // A handle whose transfer failed mid-way may hold a broken connection; curl closes
  // those itself, so the handle stays reusable either way.
  ReleaseHandle(h, true);
  return rc;
}
}  // namespace lance::io::s3::internal
