// SPDX-License-Identifier: Apache-2.0
// RestAdapter (skeleton: not implemented yet).

#include "lance/server/rest_adapter.h"

#include <utility>

namespace lance::server {

class RestAdapter::Impl {};

Result<std::unique_ptr<RestAdapter>> RestAdapter::Make(
    std::shared_ptr<ns::LanceNamespace>, RestAdapterOptions) {
  return Status::NotImplemented("RestAdapter is not implemented yet");
}
RestAdapter::RestAdapter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RestAdapter::~RestAdapter() = default;
Status RestAdapter::Start() { return Status::NotImplemented("RestAdapter"); }
void RestAdapter::Stop() {}
int RestAdapter::port() const { return 0; }

}  // namespace lance::server
