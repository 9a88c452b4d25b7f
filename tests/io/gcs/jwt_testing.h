// SPDX-License-Identifier: Apache-2.0
// Test helpers for Google service-account keys: a fresh RSA key pair (generated at run
// time, so no private key is ever committed), a service-account key JSON around it, and
// a JWT checker that verifies an RS256 signature with the public key and returns the
// claims. Used by the unit tests (tests/io/gcs) and the token endpoint stand-in of the
// GCS tests (tests/gcs).
#pragma once

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace lance::testing {

struct RsaKeyPair {
  std::string private_pem;  ///< PKCS#8
  std::string public_pem;   ///< SubjectPublicKeyInfo
};

inline std::string BioToString(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(n));
}

/// \brief A new 2048-bit RSA key pair.
inline RsaKeyPair GenerateRsaKeyPair() {
  RsaKeyPair out;
  EVP_PKEY* key = EVP_RSA_gen(2048);
  if (key == nullptr) return out;
  BIO* priv = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(priv, key, nullptr, nullptr, 0, nullptr, nullptr);
  out.private_pem = BioToString(priv);
  BIO_free(priv);
  BIO* pub = BIO_new(BIO_s_mem());
  PEM_write_bio_PUBKEY(pub, key);
  out.public_pem = BioToString(pub);
  BIO_free(pub);
  EVP_PKEY_free(key);
  return out;
}

/// \brief A service-account key file's JSON for `key`.
inline std::string ServiceAccountJson(const RsaKeyPair& key, const std::string& email,
                                      const std::string& token_uri,
                                      const std::string& key_id = "test-key-id-0123") {
  nlohmann::json doc = {{"type", "service_account"}, {"project_id", "lance-test"},
                        {"private_key_id", key_id},  {"private_key", key.private_pem},
                        {"client_email", email},     {"client_id", "1234567890"},
                        {"token_uri", token_uri}};
  return doc.dump();
}

inline std::optional<std::string> Base64UrlDecode(std::string_view in) {
  std::string s(in);
  for (char& c : s) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  while (s.size() % 4 != 0) s.push_back('=');
  std::string out(s.size(), '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(s.data()),
                                static_cast<int>(s.size()));
  if (n < 0) return std::nullopt;
  size_t pad = 0;
  for (size_t i = s.size(); i > 0 && s[i - 1] == '='; --i) ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

/// \brief The header and claims of `jwt` if its RS256 signature verifies with
/// `public_pem`; nullopt otherwise.
struct VerifiedJwt {
  nlohmann::json header;
  nlohmann::json claims;
};
inline std::optional<VerifiedJwt> VerifyRs256Jwt(std::string_view jwt,
                                                 const std::string& public_pem) {
  const size_t d1 = jwt.find('.');
  const size_t d2 = d1 == std::string_view::npos ? d1 : jwt.find('.', d1 + 1);
  if (d2 == std::string_view::npos) return std::nullopt;
  auto header = Base64UrlDecode(jwt.substr(0, d1));
  auto claims = Base64UrlDecode(jwt.substr(d1 + 1, d2 - d1 - 1));
  auto sig = Base64UrlDecode(jwt.substr(d2 + 1));
  if (!header || !claims || !sig) return std::nullopt;
  BIO* bio = BIO_new_mem_buf(public_pem.data(), static_cast<int>(public_pem.size()));
  EVP_PKEY* key = PEM_read_bio_PUBKEY(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (key == nullptr) return std::nullopt;
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  const std::string_view input = jwt.substr(0, d2);
  const bool ok =
      EVP_DigestVerifyInit(ctx, nullptr, EVP_sha256(), nullptr, key) == 1 &&
      EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(sig->data()),
                       sig->size(), reinterpret_cast<const unsigned char*>(input.data()),
                       input.size()) == 1;
  EVP_MD_CTX_free(ctx);
  EVP_PKEY_free(key);
  if (!ok) return std::nullopt;
  VerifiedJwt out;
  out.header = nlohmann::json::parse(*header, nullptr, false);
  out.claims = nlohmann::json::parse(*claims, nullptr, false);
  if (out.header.is_discarded() || out.claims.is_discarded()) return std::nullopt;
  return out;
}

}  // namespace lance::testing
