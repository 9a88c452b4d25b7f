// SPDX-License-Identifier: Apache-2.0
// The ObjectStore of one GCS bucket, on top of GcsClient (see gcs_object_store.h for how
// each operation maps onto the JSON API).

#include "lance/io/gcs_object_store.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "io/gcs/gcs_client.h"
#include "io/io_util.h"
#include "io/ranged_read.h"
#include "lance/core/logging.h"
#include "lance/io/executor.h"
#include "lance/io/s3/s3_options.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance::io {

using gcs::GcsClient;
using internal::Quoted;

namespace {

// -- Writer ---------------------------------------------------------------------------

// Streams an object: bytes collect in one chunk-sized buffer. An object that never
// exceeds one chunk is one media upload at Close; the first full chunk followed by more
// data starts a resumable upload, and each full chunk is sent in order (the caller's
// thread; resumable chunks must arrive in sequence). Close sends the rest as the final
// chunk; Abort or a failure cancels the session, so nothing becomes visible.
class GcsWriter final : public OutputStream {
 public:
  GcsWriter(std::shared_ptr<GcsClient> client, std::string path, std::string uri)
      : OutputStream(std::move(path), std::move(uri)),
        client_(std::move(client)),
        chunk_size_(std::max<int64_t>(client_->options().upload_chunk_size, 256 * 1024)) {
  }

  ~GcsWriter() override { AbortIfNotClosed(); }

 protected:
  Status DoWrite(const void* data, int64_t length) override {
    const auto* bytes = static_cast<const char*>(data);
    while (length > 0) {
      if (static_cast<int64_t>(buffer_.size()) == chunk_size_) {
        LANCE_RETURN_NOT_OK(SendChunk(/*final=*/false));
      }
      const int64_t n =
          std::min<int64_t>(length, chunk_size_ - static_cast<int64_t>(buffer_.size()));
      if (buffer_.capacity() < buffer_.size() + static_cast<size_t>(n)) {
        buffer_.reserve(static_cast<size_t>(std::min<int64_t>(
            chunk_size_, std::max<int64_t>(2 * static_cast<int64_t>(buffer_.capacity()),
                                           static_cast<int64_t>(buffer_.size()) + n))));
      }
      buffer_.append(bytes, static_cast<size_t>(n));
      bytes += n;
      length -= n;
    }
    return Status::OK();
  }

  Status DoClose() override {
    if (session_.empty()) {
      Result<gcs::ObjectResource> put = client_->Insert(path(), buffer_);
      std::string().swap(buffer_);
      return put.status();
    }
    LANCE_RETURN_NOT_OK(SendChunk(/*final=*/true));
    session_.clear();
    return Status::OK();
  }

  Status DoAbort() override {
    std::string().swap(buffer_);
    if (session_.empty()) return Status::OK();
    Status st = client_->CancelResumable(path(), session_);
    session_.clear();
    return st;
  }

 private:
  Status SendChunk(bool final) {
    if (session_.empty()) {
      LANCE_ASSIGN_OR_RAISE(session_, client_->StartResumable(path()));
    }
    const int64_t expected = sent_ + static_cast<int64_t>(buffer_.size());
    int64_t offset = sent_;
    // The server may keep less than a chunk (in multiples of 256 KiB): send the rest.
    for (int round = 0; round < 16; ++round) {
      const std::string_view rest =
          std::string_view(buffer_).substr(static_cast<size_t>(offset - sent_));
      LANCE_ASSIGN_OR_RAISE(int64_t held,
                            client_->UploadChunk(path(), session_, offset, rest, final));
      if (held == expected) {
        sent_ = expected;
        buffer_.clear();
        return Status::OK();
      }
      if (held <= offset || held > expected) break;
      offset = held;
    }
    return gcs::internal::IoError("GCS resumable upload of ", uri(),
                                  ": the server does not take the chunk at offset ",
                                  sent_);
  }

  std::shared_ptr<GcsClient> client_;
  const int64_t chunk_size_;
  std::string buffer_;
  std::string session_;  // the resumable session URI, once started
  int64_t sent_ = 0;
};

}  // namespace

// -- Store ------------------------------------------------------------------------------

GcsObjectStore::GcsObjectStore(std::string bucket, std::shared_ptr<GcsClient> client)
    : RemoteObjectStore(bucket, "gs://" + bucket), client_(std::move(client)) {}

GcsObjectStore::~GcsObjectStore() = default;

Result<std::shared_ptr<GcsObjectStore>> GcsObjectStore::Make(
    std::string bucket, gcs::GcsOptions options,
    std::shared_ptr<CredentialsSource> credentials) {
  if (credentials == nullptr) {
    LANCE_ASSIGN_OR_RAISE(credentials, gcs::MakeGcsCredentialsSource(options));
  }
  LANCE_ASSIGN_OR_RAISE(
      auto client, GcsClient::Make(bucket, std::move(options), std::move(credentials)));
  return std::shared_ptr<GcsObjectStore>(new GcsObjectStore(std::move(bucket), client));
}

Result<std::shared_ptr<GcsObjectStore>> MakeGcsObjectStore(
    std::string bucket, gcs::GcsOptions options,
    std::shared_ptr<CredentialsSource> credentials) {
  return GcsObjectStore::Make(std::move(bucket), std::move(options),
                              std::move(credentials));
}

Result<RemoteObjectStore::RemoteObject> GcsObjectStore::StatObject(
    const std::string& key) {
  LANCE_ASSIGN_OR_RAISE(gcs::ObjectResource meta, client_->GetMetadata(key));
  return RemoteObject{ObjectMeta{key, meta.size, meta.updated_ms},
                      std::to_string(meta.generation)};
}

std::shared_ptr<RandomAccessReader> GcsObjectStore::NewReader(const std::string& key,
                                                              int64_t size,
                                                              std::string version) {
  // The version is the generation StatObject gave, in decimal; 0 (none) reads any.
  int64_t generation = 0;
  const char* end = version.data() + version.size();
  if (std::from_chars(version.data(), end, generation).ec != std::errc()) generation = 0;
  const gcs::GcsOptions& options = client_->options();
  return internal::MakeRangedReader(
      key, ObjectUri(key), size,
      [client = client_, key, generation](int64_t at, int64_t n, uint8_t* out) {
        return client->ReadInto(key, at, n, out, generation);
      },
      {options.read_chunk_size, options.max_connections});
}

Result<BufferPtr> GcsObjectStore::GetObject(const std::string& key) {
  return client_->ReadAll(key);
}

std::unique_ptr<OutputStream> GcsObjectStore::NewWriter(const std::string& key) {
  return std::make_unique<GcsWriter>(client_, key, ObjectUri(key));
}

Status GcsObjectStore::PutObject(const std::string& key, std::string_view data,
                                 bool if_not_exists) {
  return client_->Insert(key, data, if_not_exists).status();
}

Status GcsObjectStore::DeleteObject(const std::string& key) {
  return client_->Delete(key);
}

Status GcsObjectStore::CopyObject(const std::string& src, const std::string& dst) {
  return client_->Rewrite(src, dst, /*if_not_exists=*/false);
}

Status GcsObjectStore::RenameIfNotExists(const std::string& src, const std::string& dst) {
  LANCE_RETURN_NOT_OK(CheckKey(src, "renaming"));
  LANCE_RETURN_NOT_OK(CheckKey(dst, "renaming to"));
  LANCE_ASSIGN_OR_RAISE(gcs::ObjectResource meta, client_->GetMetadata(src));
  if (meta.size <= client_->options().upload_chunk_size) {
    // Small objects (manifests): download + create-only upload, atomic on every server.
    LANCE_ASSIGN_OR_RAISE(BufferPtr data, client_->ReadAll(src));
    LANCE_RETURN_NOT_OK(client_->Insert(dst, data->ToStringView(), true).status());
  } else {
    LANCE_RETURN_NOT_OK(client_->Rewrite(src, dst, /*if_not_exists=*/true));
  }
  if (src == dst) return Status::OK();
  return client_->Delete(src);
}

Result<ListResult> GcsObjectStore::List(const std::string& prefix,
                                        const ListOptions& options) {
  LANCE_ASSIGN_OR_RAISE(const int64_t page_size,
                        internal::ListPageSize(prefix, options, ObjectUri(prefix)));
  // Resume strictly after the larger of start_after and the token (the last entry of
  // the previous page); startOffset is inclusive, so one more is asked for.
  std::string after = std::max(options.start_after, options.continuation_token);
  ListResult out;
  int64_t emitted = 0;
  std::string page_token;
  for (int round = 0; round < 100000; ++round) {
    gcs::ListRequest req;
    req.prefix = prefix;
    req.delimiter = options.recursive ? "" : "/";
    req.start_offset = after;
    req.page_token = page_token;
    req.max_results = std::min<int64_t>(page_size - emitted + 1, 1000);
    LANCE_ASSIGN_OR_RAISE(gcs::ListPage page, client_->ListObjects(req));
    // The entries this answer covers completely: all of them when it is the last page or
    // when the server counted prefixes against maxResults (GCS); only those up to its
    // last object when it did not (fake-gcs-server sends every prefix on every page).
    const bool last = page.next_page_token.empty();
    const bool prefixes_uncounted =
        static_cast<int64_t>(page.items.size() + page.prefixes.size()) > req.max_results;
    std::string horizon;
    if (!last && prefixes_uncounted && !page.items.empty())
      horizon = page.items.back().name;
    std::vector<std::pair<std::string, const gcs::ObjectResource*>> merged;
    for (const auto& item : page.items) merged.emplace_back(item.name, &item);
    for (const auto& p : page.prefixes) merged.emplace_back(p, nullptr);
    std::sort(merged.begin(), merged.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    bool progress = false;
    for (const auto& [name, item] : merged) {
      if ((!after.empty() && name <= after) ||
          name.compare(0, prefix.size(), prefix) != 0) {
        continue;
      }
      if (!horizon.empty() && name > horizon) break;
      if (emitted == page_size) {
        out.next_token = after;  // more entries follow
        return out;
      }
      if (item != nullptr) {
        out.objects.push_back(ObjectMeta{item->name, item->size, item->updated_ms});
      } else {
        out.common_prefixes.push_back(name);
      }
      after = name;
      ++emitted;
      progress = true;
    }
    if (last && horizon.empty()) return out;
    if (emitted == page_size) {
      out.next_token = after;
      return out;
    }
    // A page that brought nothing new (GCS may send short or empty pages): follow the
    // server's own token instead of restarting from the same offset.
    page_token = progress ? std::string() : page.next_page_token;
  }
  return gcs::internal::IoError("GCS listing of ", Quoted(ObjectUri(prefix)),
                                ": the server's pages do not end");
}

std::string GcsObjectStore::ToString() const {
  return StrCat("GcsObjectStore(", uri(), ", ", client_->options().ToString(), ", ",
                client_->credentials()->ToString(), ")");
}

namespace gcs {

Result<std::shared_ptr<CredentialsSource>> MakeGcsCredentialsSource(
    const GcsOptions& options) {
  auto anonymous = [] {
    return std::shared_ptr<CredentialsSource>(
        std::make_shared<StaticCredentialsSource>(BearerCredentials("")));
  };
  if (options.skip_signature) return anonymous();
  if (!options.bearer_token.empty()) {
    return std::shared_ptr<CredentialsSource>(std::make_shared<StaticCredentialsSource>(
        BearerCredentials(options.bearer_token)));
  }
  Result<GoogleCredentialsFile> file = Status::NotFound("no credentials file");
  if (!options.service_account_key.empty()) {
    file = ParseGoogleCredentialsFile(options.service_account_key);
  } else if (!options.service_account_path.empty()) {
    file = ReadGoogleCredentialsFile(options.service_account_path);
  } else if (!options.application_credentials.empty()) {
    file = ReadGoogleCredentialsFile(options.application_credentials);
  } else {
    return anonymous();
  }
  if (!file.ok()) return file.status();
  if (file->disable_oauth) return anonymous();
  GoogleOAuthCredentialsSource::Options o;
  o.token_uri = options.token_uri;
  o.allow_http = options.allow_http;
  o.allow_invalid_certificates = options.allow_invalid_certificates;
  o.connect_timeout = options.connect_timeout;
  LANCE_ASSIGN_OR_RAISE(
      auto source, GoogleOAuthCredentialsSource::Make(std::move(*file), std::move(o)));
  return std::shared_ptr<CredentialsSource>(std::move(source));
}

}  // namespace gcs

Result<std::shared_ptr<GcsObjectStore>> GcsObjectStore::FromStorageOptions(
    std::string bucket, const StorageOptions& storage_options,
    std::shared_ptr<CredentialsSource> credentials) {
  LANCE_ASSIGN_OR_RAISE(gcs::GcsOptions options,
                        gcs::ParseGcsOptions(storage_options, s3::ProcessEnv()));
  // object_store takes the base URL from the key file when no option sets one.
  const bool base_url_set = options.base_url != gcs::GcsOptions().base_url;
  if (!base_url_set && !options.service_account_key.empty()) {
    auto file = gcs::ParseGoogleCredentialsFile(options.service_account_key);
    if (file.ok() && !file->gcs_base_url.empty()) options.base_url = file->gcs_base_url;
  } else if (!base_url_set && !options.service_account_path.empty()) {
    auto file = gcs::ReadGoogleCredentialsFile(options.service_account_path);
    if (file.ok() && !file->gcs_base_url.empty()) options.base_url = file->gcs_base_url;
  }
  while (!options.base_url.empty() && options.base_url.back() == '/') {
    options.base_url.pop_back();
  }
  return Make(std::move(bucket), std::move(options), std::move(credentials));
}

Status RegisterGcsObjectStore(ObjectStoreRegistry* registry) {
  return registry->Register(
      "gs",
      [](const Uri& root, const StorageOptions& options,
         const std::shared_ptr<CredentialsSource>& credentials)
          -> Result<std::shared_ptr<ObjectStore>> {
        LANCE_ASSIGN_OR_RAISE(auto store, GcsObjectStore::FromStorageOptions(
                                              root.authority, options, credentials));
        return std::shared_ptr<ObjectStore>(std::move(store));
      },
      /*replace=*/true);
}

}  // namespace lance::io
