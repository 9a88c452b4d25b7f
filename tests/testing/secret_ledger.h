// SPDX-License-Identifier: Apache-2.0
// The secrets ledger of a test run: every secret a test obtains (a key it mints with
// radosgw-admin, an STS secret or session token, a secret vended to it in storage
// options) is appended to the file named by LANCE_SECRETS_LEDGER, which
// scripts/run_tests.sh creates (mode 600, outside every scanned directory). After the
// run, scripts/scan_secrets.sh looks for each of them in every log and output the run
// kept: any hit is a leak.
//
// One line per secret: "<label>\t<secret>\n", written with one O_APPEND write so that the
// concurrent test processes of a ctest -j run never interleave. Without
// LANCE_SECRETS_LEDGER (a test run by hand) nothing is written.
#pragma once

#include <string_view>

#include "lance/io/credentials.h"
#include "lance/io/storage_options.h"

namespace lance::testing {

/// \brief Appends `secret` to the ledger (no-op when empty or when LANCE_SECRETS_LEDGER
/// is unset). `label` names it without revealing it (e.g. a redacted key id); it must not
/// contain a tab or a newline.
void RecordSecret(std::string_view secret, std::string_view label = "");

/// \brief Records the secret key and session token of `credentials`.
void RecordSecrets(const io::s3::AwsCredentials& credentials);

/// \brief Records every secret-bearing value of vended storage options (secret access
/// keys, session tokens, and the like).
void RecordSecrets(const io::StorageOptions& options);

}  // namespace lance::testing
