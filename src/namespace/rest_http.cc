// SPDX-License-Identifier: Apache-2.0
#include "namespace/rest_http.h"

#include <curl/curl.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "lance/namespace/namespace.h"
#include "lance/str_cat.h"

namespace lance::ns::rest_internal {

namespace {

std::once_flag g_curl_once;
CURLcode g_curl_init = CURLE_OK;

Status InitCurl() {
  std::call_once(g_curl_once, [] { g_curl_init = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (g_curl_init != CURLE_OK) {
    return NamespaceError(ErrorCode::kInternal,
                          "REST namespace client: curl_global_init failed");
  }
  return Status::OK();
}

size_t WriteBody(char* data, size_t size, size_t count, void* user) {
  auto* body = static_cast<std::string*>(user);
  body->append(data, size * count);
  return size * count;
}

class HeaderList {
 public:
  HeaderList() = default;
  HeaderList(const HeaderList&) = delete;
  HeaderList& operator=(const HeaderList&) = delete;
  ~HeaderList() {
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

// Failures where no answer arrived but a later attempt may get one.
bool IsTransient(CURLcode rc) {
  switch (rc) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE:
      return true;
    default:
      return false;
  }
}

bool IsTls(CURLcode rc) {
  switch (rc) {
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
      return true;
    default:
      return false;
  }
}

}  // namespace

struct HttpClient::Pool {
  std::mutex mutex;
  std::vector<CURL*> handles;

  ~Pool() {
    for (CURL* h : handles) curl_easy_cleanup(h);
  }
  CURL* Acquire() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!handles.empty()) {
        CURL* h = handles.back();
        handles.pop_back();
        return h;
      }
    }
    return curl_easy_init();
  }
  void Release(CURL* h) {
    // Reset drops the options but keeps the connection cache for the next request.
    curl_easy_reset(h);
    std::lock_guard<std::mutex> lock(mutex);
    if (handles.size() >= 16) {
      curl_easy_cleanup(h);
      return;
    }
    handles.push_back(h);
  }
};

std::string RedactUrl(const std::string& url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  const size_t host_start = scheme + 3;
  const size_t host_end = url.find_first_of("/?#", host_start);
  const size_t at = url.rfind('@', host_end == std::string::npos ? url.size() : host_end);
  if (at == std::string::npos || at < host_start) return url;
  return url.substr(0, host_start) + "***@" + url.substr(at + 1);
}

HttpClient::HttpClient(HttpClientOptions options)
    : options_(std::move(options)), pool_(std::make_unique<Pool>()) {}
HttpClient::~HttpClient() = default;

Result<std::unique_ptr<HttpClient>> HttpClient::Make(HttpClientOptions options) {
  Status st = InitCurl();
  if (!st.ok()) return st;
  return std::unique_ptr<HttpClient>(new HttpClient(std::move(options)));
}

Result<HttpResponse> HttpClient::Send(const HttpRequest& request) const {
  const std::string where = StrCat(request.method, " ", RedactUrl(request.url));
  CURL* h = pool_->Acquire();
  if (h == nullptr) {
    return NamespaceError(ErrorCode::kInternal, StrCat(where, ": curl_easy_init failed"));
  }
  HeaderList headers;
  // No `Expect: 100-continue` round trip; a fixed Accept as real Lance's client.
  bool ok = headers.Append("Expect:") && headers.Append("Accept: */*");
  for (const auto& [name, value] : request.headers) {
    ok = ok && headers.Append(StrCat(name, ": ", value));
  }
  if (!ok) {
    pool_->Release(h);
    return NamespaceError(ErrorCode::kInternal, StrCat(where, ": out of memory"));
  }
  HttpResponse response;
  char errbuf[CURL_ERROR_SIZE];
  errbuf[0] = '\0';
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(h, CURLOPT_PATH_AS_IS, 1L);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(h, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(h, CURLOPT_USERAGENT, "lance-cpp");
  curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");  // any curl decodes (gzip, ...)
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(std::max<int64_t>(1, options_.connect_timeout.count())));
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(std::max<int64_t>(0, options_.request_timeout.count())));
  if (options_.ca_cert) curl_easy_setopt(h, CURLOPT_CAINFO, options_.ca_cert->c_str());
  if (options_.cert_file) {
    curl_easy_setopt(h, CURLOPT_SSLCERT, options_.cert_file->c_str());
  }
  if (options_.key_file) curl_easy_setopt(h, CURLOPT_SSLKEY, options_.key_file->c_str());
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, options_.assert_hostname ? 2L : 0L);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, WriteBody);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &response.body);
  if (request.method == "POST") {
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(request.body.size()));
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data());
  } else if (request.method != "GET") {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  const CURLcode rc = curl_easy_perform(h);
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  pool_->Release(h);
  if (rc != CURLE_OK) {
    const std::string detail = errbuf[0] != '\0' ? std::string(errbuf)
                                                 : std::string(curl_easy_strerror(rc));
    if (IsTransient(rc)) {
      return NamespaceError(ErrorCode::kServiceUnavailable,
                            StrCat(where, ": no answer from the REST namespace server (",
                                   detail, ")"));
    }
    if (IsTls(rc)) {
      return NamespaceError(ErrorCode::kInternal,
                            StrCat(where, ": TLS with the REST namespace server failed (",
                                   detail, ")"));
    }
    return NamespaceError(ErrorCode::kInternal,
                          StrCat(where, ": request to the REST namespace server failed (",
                                 detail, ")"));
  }
  response.status = status;
  return response;
}

}  // namespace lance::ns::rest_internal
