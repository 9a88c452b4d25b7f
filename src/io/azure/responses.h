// SPDX-License-Identifier: Apache-2.0
// Blob service request and response bodies (private): List Blobs' EnumerationResults, the
// <Error> body, Get User Delegation Key's answer, Put Block List's <BlockList>. XML
// through the io layer's small reader (io/s3/xml.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/azure/sas.h"
#include "lance/result.h"

namespace lance::io::azure {

/// \brief One blob of a listing.
struct BlobEntry {
  std::string name;
  int64_t size = 0;
  int64_t last_modified_ms = 0;
  std::string etag;
};

/// \brief One page of List Blobs.
struct ListBlobsPage {
  std::vector<BlobEntry> blobs;
  /// \brief The rolled-up prefixes (BlobPrefix), each ending with the delimiter.
  std::vector<std::string> prefixes;
  /// \brief Empty when the listing is complete.
  std::string next_marker;
};

/// \brief Parses an EnumerationResults body. Names marked Encoded="true" are
/// percent-decoded. \return the page; IOError for a malformed body.
Result<ListBlobsPage> ParseListBlobs(std::string_view body);

/// \brief A Blob service error answer.
struct AzureError {
  int http_status = 0;
  /// \brief <Code>, else the x-ms-error-code header ("BlobNotFound").
  std::string code;
  /// \brief The first line of <Message> (the rest repeats the request id and time), with
  /// the first line of <AuthenticationErrorDetail> appended; any SAS `sig` redacted.
  std::string message;
  std::string request_id;
};

/// \brief The <Error> of an error body. \return nullopt when the body is not one.
std::optional<AzureError> ParseErrorBody(std::string_view body, int http_status);

/// \brief Parses a UserDelegationKey body. \return IOError for a malformed one.
Result<UserDelegationKey> ParseUserDelegationKey(std::string_view body);

/// \brief <KeyInfo><Start>..</Start><Expiry>..</Expiry></KeyInfo>.
std::string KeyInfoXml(std::string_view start, std::string_view expiry);

/// \brief <BlockList> naming each block id as <Latest>.
std::string BlockListXml(const std::vector<std::string>& block_ids);

}  // namespace lance::io::azure
