// SPDX-License-Identifier: Apache-2.0
// The ObjectStore of one Azure Blob Storage container, on top of AzureClient (see
// azure_object_store.h for how each operation maps onto the Blob service).

#include "lance/io/azure_object_store.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <random>
#include <utility>

#include "io/azure/azure_client.h"
#include "io/azure/shared_key.h"
#include "io/azure/token_source.h"
#include "io/io_util.h"
#include "io/ranged_read.h"
#include "lance/core/ascii.h"
#include "lance/core/logging.h"
#include "lance/io/executor.h"
#include "lance/io/s3/s3_options.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance::io {

using azure::AzureClient;
using internal::Quoted;

// Container names: 3-63 characters, lower-case letters, digits and single '-', starting
// and ending with a letter or digit. Checked here so that a typo fails before a request.
Status azure::ValidateContainerName(const std::string& name) {
  auto invalid = [&](std::string_view why) {
    return Status::Invalid("the Azure container name ", Quoted(name), " ", why);
  };
  if (name.empty()) return Status::Invalid("an az:// location needs a container name");
  if (name.size() < 3 || name.size() > 63) return invalid("must have 3 to 63 characters");
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    (c == '-' && i > 0 && i + 1 < name.size() && name[i - 1] != '-');
    if (!ok) {
      return invalid(
          "may only contain lower-case letters, digits and single '-' between them");
    }
  }
  return Status::OK();
}

namespace {

// -- Writer ---------------------------------------------------------------------------

// Streams a blob: bytes collect in one block-sized buffer; each full block followed by
// more data is uploaded (Put Block) by the I/O executor while the caller goes on
// writing, at most block_concurrency at once (memory per writer <= (concurrency + 1) x
// block size); Close commits the blocks in order (Put Block List). A blob that never
// exceeds one block is one Put Blob at Close. Block ids carry a random per-stream
// prefix, so two streams writing the same blob never mix their blocks.
class AzureWriter final : public OutputStream {
 public:
  AzureWriter(std::shared_ptr<AzureClient> client, std::string path, std::string uri)
      : OutputStream(std::move(path), std::move(uri)),
        client_(std::move(client)),
        block_size_(std::max<int64_t>(client_->options().block_size, 1)) {
    std::random_device rd;
    char buf[17];
    std::snprintf(buf, sizeof(buf), "%08x%08x", rd(), rd());
    id_prefix_ = buf;
  }

  ~AzureWriter() override { AbortIfNotClosed(); }

 protected:
  Status DoWrite(const void* data, int64_t length) override {
    const auto* bytes = static_cast<const char*>(data);
    while (length > 0) {
      if (static_cast<int64_t>(buffer_.size()) == block_size_) {
        LANCE_RETURN_NOT_OK(FlushBlock());
      }
      const int64_t n =
          std::min<int64_t>(length, block_size_ - static_cast<int64_t>(buffer_.size()));
      buffer_.append(bytes, static_cast<size_t>(n));
      bytes += n;
      length -= n;
    }
    return Status::OK();
  }

  Status DoClose() override {
    if (group_ == nullptr) {
      Status st = client_->PutBlob(path(), buffer_).status();
      std::string().swap(buffer_);
      return st;
    }
    if (!buffer_.empty()) LANCE_RETURN_NOT_OK(FlushBlock());
    Status uploaded = group_->Wait();
    if (!uploaded.ok()) return uploaded;
    return client_->PutBlockList(path(), block_ids_);
  }

  Status DoAbort() override {
    std::string().swap(buffer_);
    // Uncommitted blocks are never visible and the service drops them; just stop
    // uploading more.
    if (group_ != nullptr) {
      group_->Cancel();
      (void)group_->Wait();
    }
    return Status::OK();
  }

 private:
  Status FlushBlock() {
    if (group_ == nullptr) {
      group_ = std::make_unique<TaskGroup>(
          Executor::Default(), std::max(client_->options().block_concurrency, 1));
    }
    char index[16];
    std::snprintf(index, sizeof(index), "%07zu", block_ids_.size());
    // Every id of a blob must have the same length: 16 + 1 + 7 characters.
    block_ids_.push_back(azure::Base64Encode(StrCat(id_prefix_, "-", index)));
    auto body = std::make_shared<std::string>(std::move(buffer_));
    buffer_ = std::string();
    buffer_.reserve(static_cast<size_t>(block_size_));
    const CancellationToken cancel = group_->token();
    return group_->Submit(
        [client = client_, key = path(), id = block_ids_.back(), body, cancel] {
          if (cancel.cancelled()) return Status::Cancelled("block upload cancelled");
          Status st = client->PutBlock(key, id, *body);
          std::string().swap(*body);
          if (!st.ok()) cancel.Cancel();
          return st;
        });
  }

  std::shared_ptr<AzureClient> client_;
  const int64_t block_size_;
  std::string id_prefix_;
  std::string buffer_;
  std::vector<std::string> block_ids_;
  std::unique_ptr<TaskGroup> group_;  // null until the first block
};

// A common prefix holds a key after `after` if it sorts after it, or if `after` lies
// inside it (then some of its keys may).
bool PrefixAfter(const std::string& prefix, const std::string& after) {
  return prefix > after || after.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

// -- AzureObjectStore -------------------------------------------------------------------

AzureObjectStore::AzureObjectStore(std::string container, std::string uri,
                                   std::shared_ptr<AzureClient> client)
    : RemoteObjectStore(std::move(container), std::move(uri)),
      client_(std::move(client)) {}

AzureObjectStore::~AzureObjectStore() = default;

std::string AzureObjectStore::ToString() const {
  return StrCat("AzureObjectStore(", uri(), ", ", client_->options().ToString(), ", ",
                client_->credentials()->ToString(), ")");
}

Result<ListResult> AzureObjectStore::List(const std::string& prefix,
                                          const ListOptions& options) {
  LANCE_ASSIGN_OR_RAISE(const int64_t max_keys,
                        internal::ListPageSize(prefix, options, ObjectUri(prefix)));
  azure::ListBlobsRequest request;
  request.prefix = prefix;
  request.delimiter = options.recursive ? "" : "/";
  request.marker = options.continuation_token;
  const int64_t limit = std::min<int64_t>(max_keys, 5000);
  const std::string& after = options.start_after;
  ListResult result;
  // The service has no start_after: entries up to it are dropped here, and pages are
  // fetched (each no larger than what is still wanted) until the page is full.
  while (true) {
    const int64_t have =
        static_cast<int64_t>(result.objects.size() + result.common_prefixes.size());
    request.max_results = static_cast<int>(limit - have);
    LANCE_ASSIGN_OR_RAISE(azure::ListBlobsPage page, client_->ListBlobs(request));
    for (auto& blob : page.blobs) {
      if (!after.empty() && blob.name <= after) continue;
      result.objects.push_back(
          ObjectMeta{std::move(blob.name), blob.size, blob.last_modified_ms});
    }
    for (auto& p : page.prefixes) {
      if (!after.empty() && !PrefixAfter(p, after)) continue;
      result.common_prefixes.push_back(std::move(p));
    }
    result.next_token = std::move(page.next_marker);
    const auto total =
        static_cast<int64_t>(result.objects.size() + result.common_prefixes.size());
    if (result.next_token.empty() || total >= limit) break;
    request.marker = result.next_token;
  }
  return result;
}

Result<RemoteObjectStore::RemoteObject> AzureObjectStore::StatObject(
    const std::string& key) {
  LANCE_ASSIGN_OR_RAISE(azure::BlobProperties props, client_->GetBlobProperties(key));
  return RemoteObject{ObjectMeta{key, props.size, props.last_modified_ms},
                      std::move(props.etag)};
}

std::shared_ptr<RandomAccessReader> AzureObjectStore::NewReader(const std::string& key,
                                                                int64_t size,
                                                                std::string version) {
  const AzureOptions& options = client_->options();
  return internal::MakeRangedReader(key, ObjectUri(key), size,
                                    [client = client_, key, etag = std::move(version)](
                                        int64_t at, int64_t n, uint8_t* out) {
                                      return client->GetBlobInto(key, at, n, out, etag);
                                    },
                                    {options.read_chunk_size, options.max_connections});
}

Result<BufferPtr> AzureObjectStore::GetObject(const std::string& key) {
  return client_->GetBlob(key);
}

std::unique_ptr<OutputStream> AzureObjectStore::NewWriter(const std::string& key) {
  return std::make_unique<AzureWriter>(client_, key, ObjectUri(key));
}

Status AzureObjectStore::PutObject(const std::string& key, std::string_view data,
                                   bool if_not_exists) {
  return client_->PutBlob(key, data, if_not_exists).status();
}

Status AzureObjectStore::DeleteObject(const std::string& key) {
  return client_->DeleteBlob(key);
}

Status AzureObjectStore::CopyObject(const std::string& src, const std::string& dst) {
  return client_->CopyBlob(src, dst);
}

Status AzureObjectStore::DeleteMany(const std::vector<std::string>& paths) {
  for (const auto& path : paths) LANCE_RETURN_NOT_OK(ValidateObjectPath(path));
  if (paths.empty()) return Status::OK();
  TaskGroup group(Executor::Default(), std::max(1, client_->options().max_connections));
  for (const auto& path : paths) {
    Status submitted =
        group.Submit([client = client_, path] { return client->DeleteBlob(path); });
    if (!submitted.ok()) break;
  }
  return group.Wait();
}

Status AzureObjectStore::RenameIfNotExists(const std::string& src,
                                           const std::string& dst) {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(src));
  LANCE_RETURN_NOT_OK(ValidateObjectPath(dst));
  // The source version the copy must take, and the one the delete may remove.
  LANCE_ASSIGN_OR_RAISE(azure::BlobProperties props, client_->GetBlobProperties(src));
  const std::string where = StrCat("renaming ", Quoted(ObjectUri(src)), " to ",
                                   Quoted(ObjectUri(dst)), " if it does not exist");
  if (src == dst) {
    return Status::AlreadyExists("When ", where, ": the destination is the source");
  }
  Status copied =
      client_->CopyBlob(src, dst, /*if_none_match=*/true, /*source_if_match=*/props.etag);
  if (!copied.ok()) return copied.WithContext(where);
  Status st = client_->DeleteBlob(src, props.etag);
  if (!st.ok()) {
    return st.WithContext(
        StrCat(where, " (the destination was created; removing the source failed)"));
  }
  return Status::OK();
}

Result<std::shared_ptr<AzureObjectStore>> MakeAzureObjectStore(
    std::string container, AzureOptions options,
    std::shared_ptr<CredentialsSource> credentials, std::string scheme) {
  LANCE_RETURN_NOT_OK(azure::ValidateContainerName(container));
  if (credentials == nullptr) {
    LANCE_ASSIGN_OR_RAISE(credentials, MakeAzureCredentialsSource(options));
  }
  LANCE_ASSIGN_OR_RAISE(auto client, AzureClient::Make(container, std::move(options),
                                                       std::move(credentials)));
  scheme = AsciiToLower(scheme.empty() ? std::string("az") : scheme);
  std::string uri = StrCat(scheme, "://", container);
  return std::shared_ptr<AzureObjectStore>(
      new AzureObjectStore(std::move(container), std::move(uri), std::move(client)));
}

Result<std::shared_ptr<AzureObjectStore>> MakeAzureObjectStoreFromStorageOptions(
    const std::string& scheme, const std::string& authority,
    const StorageOptions& storage_options,
    std::shared_ptr<CredentialsSource> credentials) {
  // abfss://container@account.dfs.core.windows.net: the container, and the account of
  // the host.
  std::string container = authority;
  std::string account;
  if (const size_t at = authority.find('@'); at != std::string::npos) {
    container = authority.substr(0, at);
    const std::string host = authority.substr(at + 1);
    account = host.substr(0, host.find('.'));
  }
  const std::string location = StrCat(scheme, "://", authority);
  Result<AzureOptions> options =
      ParseAzureOptions(storage_options, s3::ProcessEnv(), account);
  if (!options.ok()) {
    return options.status().WithContext(
        StrCat("configuring the Azure store for ", Quoted(location)));
  }
  LANCE_ASSIGN_OR_RAISE(auto store,
                        MakeAzureObjectStore(std::move(container), std::move(*options),
                                             std::move(credentials), scheme));
  LANCE_LOG(Debug, "azure") << "opened " << store->ToString();
  return store;
}

Result<std::shared_ptr<CredentialsSource>> MakeAzureCredentialsSource(
    const AzureOptions& options) {
  const AzureCredentials& c = options.credentials;
  const bool has_static =
      !c.account_key.empty() || !c.sas_token.empty() || !c.bearer_token.empty();
  if (!has_static && !options.client_secret.empty()) {
    return azure::MakeClientSecretTokenSource(options);
  }
  Credentials credentials;
  credentials.azure = c;
  return std::shared_ptr<CredentialsSource>(
      std::make_shared<StaticCredentialsSource>(std::move(credentials)));
}

Status RegisterAzureObjectStore(ObjectStoreRegistry* registry) {
  ObjectStoreFactory factory = [](const Uri& root, const StorageOptions& options,
                                  const std::shared_ptr<CredentialsSource>& credentials)
      -> Result<std::shared_ptr<ObjectStore>> {
    LANCE_ASSIGN_OR_RAISE(
        auto store, MakeAzureObjectStoreFromStorageOptions(root.scheme, root.authority,
                                                           options, credentials));
    return std::shared_ptr<ObjectStore>(std::move(store));
  };
  for (const char* scheme : {"az", "azure", "abfs", "abfss"}) {
    LANCE_RETURN_NOT_OK(registry->Register(scheme, factory, /*replace=*/true));
  }
  return Status::OK();
}

}  // namespace lance::io
