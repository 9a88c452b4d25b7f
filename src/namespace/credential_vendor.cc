// SPDX-License-Identifier: Apache-2.0
// Credential vending (skeleton: not implemented yet).

#include "lance/namespace/credential_vendor.h"

#include <string>

namespace lance::ns {

Result<VendPermission> ParseVendPermission(std::string_view text) {
  return Status::NotImplemented("credential vending is not implemented yet");
}
std::string_view VendPermissionName(VendPermission permission) { return "read"; }
Result<std::shared_ptr<CredentialVendor>> MakeAwsCredentialVendor(
    AwsCredentialVendorOptions) {
  return Status::NotImplemented("credential vending is not implemented yet");
}
std::shared_ptr<CredentialVendor> MakeCachingCredentialVendor(
    std::shared_ptr<CredentialVendor> inner, std::shared_ptr<Clock>) {
  return inner;
}
Result<std::shared_ptr<CredentialVendor>> CredentialVendorFromProperties(
    const Properties&, const Properties&) {
  return std::shared_ptr<CredentialVendor>();
}

}  // namespace lance::ns
