// SPDX-License-Identifier: Apache-2.0

#include "lance/io/credentials.h"

#include <utility>

#include "lance/io/storage_options.h"

namespace lance::io {

std::string s3::AwsCredentials::ToString() const {
  std::string out = "AwsCredentials{access_key_id=";
  out += RedactOptionValue("aws_access_key_id", access_key_id);
  out += ", secret_access_key=<redacted>, session_token=";
  out += session_token.empty() ? "<none>" : "<redacted>";
  out += "}";
  return out;
}

Result<std::shared_ptr<const s3::AwsCredentials>> CredentialsSource::OnRejected(
    const s3::AwsCredentials& rejected) {
  return Status::Unauthorized("the server rejected the credentials " +
                              rejected.ToString() + " and " + ToString() +
                              " cannot refresh them");
}

StaticCredentialsSource::StaticCredentialsSource(s3::AwsCredentials credentials)
    : credentials_(std::make_shared<const s3::AwsCredentials>(std::move(credentials))) {}

Result<std::shared_ptr<const s3::AwsCredentials>> StaticCredentialsSource::Current() {
  return credentials_;
}

std::string StaticCredentialsSource::id() const { return "static"; }

std::string StaticCredentialsSource::ToString() const {
  if (credentials_->access_key_id.empty()) return "StaticCredentials(anonymous)";
  return "StaticCredentials(" + credentials_->ToString() + ")";
}

}  // namespace lance::io
