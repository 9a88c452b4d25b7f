// SPDX-License-Identifier: Apache-2.0
// The STS session policy of the AWS credential vendor read the way IAM reads it (issue
// 28: names and locations cannot widen a scope):
// - the policy's JSON per permission (actions, the objects ARN, the ListBucket condition
//   ["P/", "P/*"]);
// - a small IAM evaluator written here (resource ARNs and StringLike with IAM wildcard
//   semantics, policy variables matching anything), checked on its own against the
//   policies that stretched a scope before (a table named `*`, the bare ListBucket
//   prefix);
// - hundreds of generated table ids from a hostile alphabet, in the three layouts of the
//   directory namespace: each id is refused with InvalidInput or accepted, and the policy
//   vended for an accepted table grants none of the keys of any other table (no object
//   action, no listing that would reveal one) and all of its own;
// - the vendor's own refusals (wildcards, variables, a whole bucket, bytes that are not
//   UTF-8), before any STS call.
// The same scopes on a real RGW: tests/s3/vending_scope_test.cc.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "lance/io/object_store_registry.h"
#include "lance/io/uri.h"
#include "lance/namespace/credential_vendor.h"
#include "lance/namespace/directory_namespace.h"
#include "tests/testing/escaped.h"
#include "tests/testing/matchers.h"

namespace lance::ns {
namespace {

using ::lance::testing::IsOk;
using ::nlohmann::json;

// -- An IAM evaluator, just large enough for session policies -------------------------

/// Bytes of the UTF-8 character that starts with `lead` (1 for a stray byte).
size_t Utf8Length(unsigned char lead) {
  if (lead >= 0xF0 && lead <= 0xF7) return 4;
  if (lead >= 0xE0) return lead <= 0xEF ? 3 : 1;
  if (lead >= 0xC0) return 2;
  return 1;
}

using ::lance::testing::Escaped;

/// An IAM string pattern: '*' any sequence, '?' any one character, "${...}" a policy
/// variable (unknown when the policy is written: it may become anything, so it matches
/// any sequence). Everything else is literal.
class IamPattern {
 public:
  explicit IamPattern(std::string_view text, bool lower_case = false)
      : lower_case_(lower_case) {
    for (size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      if (c == '*') {
        tokens_.push_back({Kind::kAny, 0});
      } else if (c == '?') {
        tokens_.push_back({Kind::kOne, 0});
      } else if (c == '$' && i + 1 < text.size() && text[i + 1] == '{') {
        const size_t close = text.find('}', i + 2);
        // An unterminated "${" is literal for IAM; as a variable it only matches more.
        tokens_.push_back({Kind::kAny, 0});
        i = close == std::string_view::npos ? text.size() : close;
      } else {
        tokens_.push_back({Kind::kByte, Fold(c)});
      }
    }
  }

  bool Matches(std::string_view text) const { return Match(text, false); }
  /// True when some prefix of `text` (the empty one included) matches: a ListBucket
  /// with that prefix returns `text`.
  bool MatchesSomePrefixOf(std::string_view text) const { return Match(text, true); }

 private:
  enum class Kind { kByte, kAny, kOne };
  struct Token {
    Kind kind;
    char byte;
  };

  char Fold(char c) const {
    return lower_case_ ? static_cast<char>(std::tolower(static_cast<unsigned char>(c)))
                       : c;
  }

  // Glob matching that backtracks to the last '*' only (enough for globs: a later '*'
  // absorbs whatever an earlier one would have). `open_end` adds a final '*'.
  bool Match(std::string_view text, bool open_end) const {
    const size_t n = tokens_.size() + (open_end ? 1 : 0);
    auto kind = [&](size_t p) {
      return p < tokens_.size() ? tokens_[p].kind : Kind::kAny;
    };
    size_t p = 0;
    size_t t = 0;
    size_t star_p = std::string_view::npos;
    size_t star_t = 0;
    while (t < text.size()) {
      if (p < n && kind(p) == Kind::kByte && tokens_[p].byte == Fold(text[t])) {
        ++p;
        ++t;
        continue;
      }
      if (p < n && kind(p) == Kind::kOne) {
        const size_t len = Utf8Length(static_cast<unsigned char>(text[t]));
        if (t + len <= text.size()) {
          ++p;
          t += len;
          continue;
        }
      }
      if (p < n && kind(p) == Kind::kAny) {
        star_p = p++;
        star_t = t;
        continue;
      }
      if (star_p == std::string_view::npos) return false;
      p = star_p + 1;
      t = ++star_t;
    }
    while (p < n && kind(p) == Kind::kAny) ++p;
    return p == n;
  }

  bool lower_case_;
  std::vector<Token> tokens_;
};

/// The Allow statements of a session policy. Anything this evaluator does not model
/// (Deny, NotAction, NotResource, other condition operators or keys) is a test failure:
/// the vendor's policy must stay inside what is checked here.
class IamPolicy {
 public:
  static IamPolicy Parse(const std::string& text) {
    IamPolicy policy;
    const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded() || !doc.is_object()) {
      ADD_FAILURE() << "the policy is not a JSON object: " << text;
      return policy;
    }
    if (doc.value("Version", "") != "2012-10-17") {
      ADD_FAILURE() << "policy Version is not 2012-10-17: " << text;
    }
    const json statements = doc.contains("Statement") && doc["Statement"].is_object()
                                ? json::array({doc["Statement"]})
                                : doc.value("Statement", json::array());
    for (const json& s : statements) {
      Statement out;
      for (const auto& [key, value] : s.items()) {
        if (key != "Sid" && key != "Effect" && key != "Action" && key != "Resource" &&
            key != "Condition") {
          ADD_FAILURE() << "unsupported statement element " << key << ": " << text;
        }
      }
      if (s.value("Effect", "") != "Allow") {
        ADD_FAILURE() << "only Allow statements are modeled: " << s.dump();
      }
      for (const std::string& action : Strings(s, "Action")) {
        out.actions.emplace_back(action, /*lower_case=*/true);
      }
      for (const std::string& resource : Strings(s, "Resource")) {
        out.resources.emplace_back(resource);
      }
      if (s.contains("Condition")) {
        out.prefix_patterns.emplace();
        for (const auto& [op, keys] : s["Condition"].items()) {
          for (const auto& [key, values] : keys.items()) {
            std::string lower_key = key;
            std::transform(lower_key.begin(), lower_key.end(), lower_key.begin(),
                           [](unsigned char c) { return std::tolower(c); });
            if ((op != "StringLike" && op != "StringEquals") ||
                lower_key != "s3:prefix") {
              ADD_FAILURE() << "unsupported condition " << op << " " << key;
              out.prefix_patterns.reset();  // read as no condition: allows more
              break;
            }
            for (const std::string& value : Strings(keys, key)) {
              // StringEquals reads '*' and '?' literally; read as wildcards here they
              // only allow more (conservative), as do variables.
              out.prefix_patterns->emplace_back(value);
            }
          }
          if (!out.prefix_patterns) break;
        }
      }
      policy.statements_.push_back(std::move(out));
    }
    return policy;
  }

  /// True when `action` on the object `key` of `bucket` is allowed.
  bool AllowsObject(std::string_view action, const std::string& bucket,
                    const std::string& key) const {
    return !FirstObjectActionAllowed({action}, bucket, key).empty();
  }

  /// The first of `actions` allowed on the object `key` of `bucket`, or "" for none.
  std::string_view FirstObjectActionAllowed(const std::vector<std::string_view>& actions,
                                            const std::string& bucket,
                                            const std::string& key) const {
    const std::string arn = "arn:aws:s3:::" + bucket + "/" + key;
    for (const Statement& s : statements_) {
      if (s.prefix_patterns) continue;  // only ListBucket carries a condition here
      if (!AnyMatches(s.resources, arn)) continue;
      for (std::string_view action : actions) {
        if (AnyMatches(s.actions, action)) return action;
      }
    }
    return {};
  }

  /// True when `action` (ListBucket and its relatives) is allowed with s3:prefix
  /// `prefix` exactly.
  bool AllowsList(const std::string& bucket, const std::string& prefix,
                  std::string_view action = "s3:ListBucket") const {
    return ListAllowed(bucket, action,
                       [&](const IamPattern& p) { return p.Matches(prefix); });
  }

  /// True when some listing this policy allows returns `key`: some prefix of `key`
  /// passes the condition (a listing returns every key that starts with its prefix).
  bool ListingReveals(const std::string& bucket, const std::string& key) const {
    for (std::string_view action :
         {"s3:ListBucket", "s3:ListBucketVersions", "s3:ListBucketMultipartUploads"}) {
      if (ListAllowed(bucket, action,
                      [&](const IamPattern& p) { return p.MatchesSomePrefixOf(key); })) {
        return true;
      }
    }
    return false;
  }

 private:
  struct Statement {
    std::vector<IamPattern> actions;
    std::vector<IamPattern> resources;
    /// The s3:prefix patterns of the condition; nullopt: no condition.
    std::optional<std::vector<IamPattern>> prefix_patterns;
  };

  static std::vector<std::string> Strings(const json& object, const std::string& key) {
    std::vector<std::string> out;
    if (!object.contains(key)) return out;
    const json& value = object[key];
    if (value.is_string()) {
      out.push_back(value.get<std::string>());
    } else if (value.is_array()) {
      for (const json& v : value) {
        if (v.is_string()) out.push_back(v.get<std::string>());
      }
    } else {
      ADD_FAILURE() << key << " is neither a string nor an array: " << value.dump();
    }
    return out;
  }

  static bool AnyMatches(const std::vector<IamPattern>& patterns, std::string_view text) {
    return std::any_of(patterns.begin(), patterns.end(),
                       [&](const IamPattern& p) { return p.Matches(text); });
  }

  template <typename PrefixTest>
  bool ListAllowed(const std::string& bucket, std::string_view action,
                   PrefixTest prefix_ok) const {
    const std::string arn = "arn:aws:s3:::" + bucket;
    for (const Statement& s : statements_) {
      if (!AnyMatches(s.actions, action) || !AnyMatches(s.resources, arn)) continue;
      if (!s.prefix_patterns) return true;  // no condition: every prefix
      if (std::any_of(s.prefix_patterns->begin(), s.prefix_patterns->end(), prefix_ok)) {
        return true;
      }
    }
    return false;
  }

  std::vector<Statement> statements_;
};

// Every object action a scope must not hand out on someone else's key (wildcards in a
// policy's Action would reach the ones it does not name).
const std::vector<std::string_view> kObjectActions = {"s3:GetObject",
                                                      "s3:GetObjectVersion",
                                                      "s3:PutObject",
                                                      "s3:DeleteObject",
                                                      "s3:DeleteObjectVersion",
                                                      "s3:AbortMultipartUpload",
                                                      "s3:ListMultipartUploadParts",
                                                      "s3:GetObjectAcl",
                                                      "s3:PutObjectAcl",
                                                      "s3:GetObjectTagging",
                                                      "s3:PutObjectTagging",
                                                      "s3:RestoreObject",
                                                      "s3:GetObjectAttributes",
                                                      "s3:PutObjectRetention",
                                                      "s3:BypassGovernanceRetention"};

// -- The evaluator on its own ---------------------------------------------------------

TEST(IamEvaluatorTest, WildcardsAndVariablesMatchAsIamReadsThem) {
  EXPECT_TRUE(IamPattern("a/*").Matches("a/"));
  EXPECT_TRUE(IamPattern("a/*").Matches("a/b/c"));
  EXPECT_FALSE(IamPattern("a/*").Matches("a"));
  EXPECT_FALSE(IamPattern("a/*").Matches("ab/c"));
  EXPECT_TRUE(IamPattern("r/*.lance/*").Matches("r/other.lance/data/x"));
  EXPECT_TRUE(IamPattern("r/a?.lance/*").Matches("r/a2.lance/x"));
  // '?' is one character, multi-byte ones included.
  EXPECT_TRUE(IamPattern("r/a?.lance/*").Matches("r/a\xC3\xA9.lance/x"));
  EXPECT_FALSE(IamPattern("r/a?.lance/*").Matches("r/a22.lance/x"));
  EXPECT_FALSE(IamPattern("r/a?.lance/*").Matches("r/a.lance/x"));
  EXPECT_TRUE(IamPattern("r/${aws:username}/*").Matches("r/anyone/x"));
  EXPECT_TRUE(IamPattern("r/b${aws:username}.lance/*").Matches("r/b.lance/x"));
  EXPECT_TRUE(IamPattern("*a*b*").Matches("xxaxxbxx"));
  EXPECT_FALSE(IamPattern("*a*b").Matches("xxaxxbxx"));
  EXPECT_TRUE(IamPattern("s3:Get*", true).Matches("S3:GETOBJECTACL"));
  EXPECT_FALSE(IamPattern("P/").MatchesSomePrefixOf("P2/x"));
  EXPECT_TRUE(IamPattern("P").MatchesSomePrefixOf("P2/x"));
  EXPECT_TRUE(IamPattern("P/*").MatchesSomePrefixOf("P/x"));
  EXPECT_TRUE(IamPattern("").MatchesSomePrefixOf("anything"));
}

// The policies that stretched a scope before issue 28 are caught by the evaluator.
TEST(IamEvaluatorTest, FlagsTheScopesThatUsedToStretch) {
  // Table `*` at the root: its objects ARN covered every root table.
  IamPolicy star = IamPolicy::Parse(
      R"({"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject"],)"
      R"("Resource":"arn:aws:s3:::b/root/*.lance/*"}]})");
  EXPECT_TRUE(star.AllowsObject("s3:GetObject", "b", "root/a.lance/data/x.lance"));
  EXPECT_FALSE(star.AllowsObject("s3:PutObject", "b", "root/a.lance/data/x.lance"));
  // The bare prefix in the ListBucket condition listed a sibling ("a.lance" listing
  // "a.lance.lance/...").
  IamPolicy bare = IamPolicy::Parse(
      R"({"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:ListBucket",)"
      R"("Resource":"arn:aws:s3:::b","Condition":{"StringLike":{"s3:prefix":)"
      R"(["root/a.lance/*","root/a.lance"]}}}]})");
  EXPECT_TRUE(bare.AllowsList("b", "root/a.lance"));
  EXPECT_TRUE(bare.ListingReveals("b", "root/a.lance.lance/_versions/1.manifest"));
  EXPECT_FALSE(bare.ListingReveals("b", "root/b.lance/_versions/1.manifest"));
  // A ListBucket without a condition lists the whole bucket; wildcard actions count.
  IamPolicy open = IamPolicy::Parse(
      R"({"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:List*",)"
      R"("Resource":"arn:aws:s3:::b"}]})");
  EXPECT_TRUE(open.ListingReveals("b", "anything/at/all"));
  EXPECT_FALSE(open.ListingReveals("c", "anything/at/all"));
  // A policy variable in a name: matches anyone's keys.
  IamPolicy variable = IamPolicy::Parse(
      R"({"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*",)"
      R"("Resource":"arn:aws:s3:::b/root/b${aws:username}.lance/*"}]})");
  EXPECT_TRUE(variable.AllowsObject("s3:DeleteObject", "b", "root/bob.lance/x"));
}

// -- The vendor's policy document -----------------------------------------------------

TEST(AwsScopedSessionPolicyTest, GrantsEachPermissionsActionsOnThePrefixOnly) {
  const std::set<std::string> read = {"s3:GetObject", "s3:GetObjectVersion"};
  std::set<std::string> write = read;
  write.insert(
      {"s3:PutObject", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"});
  std::set<std::string> admin = write;
  admin.insert({"s3:DeleteObject", "s3:DeleteObjectVersion"});
  const std::vector<std::pair<VendPermission, std::set<std::string>>> cases = {
      {VendPermission::kRead, read},
      {VendPermission::kWrite, write},
      {VendPermission::kAdmin, admin}};
  for (const auto& [permission, actions] : cases) {
    SCOPED_TRACE(std::string(VendPermissionName(permission)));
    const std::string text =
        AwsScopedSessionPolicy("lake", "warehouse/team/t.lance", permission);
    // Compact: RGW does not decode '+' (a space) in the form body.
    EXPECT_EQ(text.find_first_of(" \n\t"), std::string::npos) << text;
    const json doc = json::parse(text, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << text;
    EXPECT_EQ(doc.size(), 2u) << text;
    EXPECT_EQ(doc.value("Version", ""), "2012-10-17");
    ASSERT_TRUE(doc.contains("Statement") && doc["Statement"].is_array()) << text;
    const json& statements = doc["Statement"];
    ASSERT_EQ(statements.size(), 3u) << text;

    const json& objects = statements[0];
    EXPECT_EQ(objects.size(), 3u) << objects.dump();
    EXPECT_EQ(objects.value("Effect", ""), "Allow");
    EXPECT_EQ(objects.value("Resource", ""),
              "arn:aws:s3:::lake/warehouse/team/t.lance/*");
    ASSERT_TRUE(objects["Action"].is_array());
    std::set<std::string> granted;
    for (const json& a : objects["Action"]) granted.insert(a.get<std::string>());
    EXPECT_EQ(granted, actions);
    EXPECT_EQ(objects["Action"].size(), actions.size()) << "duplicate actions";

    const json expected_list = {
        {"Effect", "Allow"},
        {"Action", "s3:ListBucket"},
        {"Resource", "arn:aws:s3:::lake"},
        {"Condition",
         {{"StringLike",
           {{"s3:prefix",
             json::array({"warehouse/team/t.lance/", "warehouse/team/t.lance/*"})}}}}}};
    EXPECT_EQ(statements[1], expected_list) << statements[1].dump();
    const json expected_location = {{"Effect", "Allow"},
                                    {"Action", "s3:GetBucketLocation"},
                                    {"Resource", "arn:aws:s3:::lake"}};
    EXPECT_EQ(statements[2], expected_location) << statements[2].dump();

    // Read as IAM reads it.
    const IamPolicy policy = IamPolicy::Parse(text);
    const std::string own = "warehouse/team/t.lance";
    EXPECT_TRUE(
        policy.AllowsObject("s3:GetObject", "lake", own + "/_versions/1.manifest"));
    EXPECT_EQ(policy.AllowsObject("s3:PutObject", "lake", own + "/data/x.lance"),
              permission != VendPermission::kRead);
    EXPECT_EQ(policy.AllowsObject("s3:DeleteObject", "lake", own + "/data/x.lance"),
              permission == VendPermission::kAdmin);
    EXPECT_TRUE(policy.AllowsList("lake", own + "/"));
    EXPECT_TRUE(policy.AllowsList("lake", own + "/_versions/"));
    EXPECT_FALSE(policy.AllowsList("lake", own));
    EXPECT_FALSE(policy.AllowsList("lake", "warehouse/team/"));
    EXPECT_FALSE(policy.AllowsList("lake", ""));
    for (const std::string& sibling : std::vector<std::string>{
             "warehouse/team/t.lance2", "warehouse/team/t.lance.lance",
             "warehouse/team/t", "warehouse/team/t.lanc", "warehouse/team"}) {
      for (std::string_view action : kObjectActions) {
        EXPECT_FALSE(policy.AllowsObject(action, "lake", sibling + "/data/x.lance"))
            << action << " " << sibling;
      }
      EXPECT_FALSE(policy.ListingReveals("lake", sibling + "/_versions/1.manifest"))
          << sibling;
    }
    EXPECT_FALSE(policy.AllowsObject("s3:GetObject", "other", own + "/data/x.lance"));
  }
}

TEST(AwsScopedSessionPolicyTest, NamesThatAPolicyReadsAsPatternsAreRefused) {
  for (const std::string& name :
       std::vector<std::string>{"*", "a*", "a?", "?", "b${aws:username}", "${", "x${y}z",
                                std::string("a\001b"), std::string("\x1f"),
                                std::string("t\x7f"), std::string("a\nb")}) {
    SCOPED_TRACE(Escaped(name));
    const Status status = CheckPolicySafeName(name, "the name");
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(NamespaceErrorCode(status), ErrorCode::kInvalidInput) << status;
    EXPECT_THAT(status.message(), ::testing::HasSubstr("the name"));
    std::string named;
    if (name.find('*') != std::string::npos) {
      named = "'*'";
    } else if (name.find('?') != std::string::npos) {
      named = "'?'";
    } else if (name.find("${") != std::string::npos) {
      named = "'${'";
    } else {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "0x%02X",
                    static_cast<unsigned char>(*std::find_if(
                        name.begin(), name.end(),
                        [](unsigned char c) { return c < 0x20 || c == 0x7f; })));
      named = hex;
    }
    EXPECT_THAT(status.message(), ::testing::HasSubstr(named)) << status;
  }
  // '$' alone stays (Lance's directory names hold it), as do unicode and '%'.
  for (const std::string& name :
       std::vector<std::string>{"1ce3c3c6_ns$t", "a$", "$", "\xC3\xA9\xE8\xA1\xA8",
                                "a%2Ab", "x%2F..%2Fy", "{}", "a b"}) {
    EXPECT_OK(CheckPolicySafeName(name, "the name"));
  }
  // Quotes and backslashes would end the quoted prefix of a GCS access-boundary
  // condition (tests/namespace/gcp_boundary_test.cc), so no cloud's vendor takes them.
  for (const std::string& name : std::vector<std::string>{"\\", "'", "\"", "a'b"}) {
    EXPECT_THAT(CheckPolicySafeName(name, "the name"),
                ::lance::testing::IsError(StatusCode::kInvalid))
        << name;
  }
}

// The vendor's own checks run before any STS call (the endpoint here does not answer):
// a location a policy cannot hold safely is InvalidInput, never an exception.
TEST(AwsScopedSessionPolicyTest, VendorRefusesLocationsItCannotScope) {
  AwsCredentialVendorOptions options;
  options.role_arn = "arn:aws:iam:::role/S3Access";
  options.sts_endpoint = "http://127.0.0.1:1";
  options.caller_storage_options = {{"aws_access_key_id", "AKID"},
                                    {"aws_secret_access_key", "caller-secret"}};
  ASSERT_OK_AND_ASSIGN(auto vendor, MakeAwsCredentialVendor(options));
  for (const std::string& location : std::vector<std::string>{
           "s3://b", "s3://b/", "s3://b/root/*.lance", "s3://b/root/a?.lance",
           "s3://b/root/${aws:username}.lance", "s3://b/root/a\001.lance",
           "s3://b/root/\xFF.lance", "s3://b/root/a\xC3.lance"}) {
    SCOPED_TRACE(Escaped(location));
    try {
      auto vended = vendor->Vend(location, VendPermission::kRead);
      ASSERT_FALSE(vended.ok()) << "vended";
      EXPECT_EQ(NamespaceErrorCode(vended.status()), ErrorCode::kInvalidInput)
          << vended.status();
      EXPECT_THAT(vended.status().message(),
                  ::testing::Not(::testing::HasSubstr("caller-secret")));
    } catch (const std::exception& e) {
      ADD_FAILURE() << "Vend threw: " << e.what();
    }
  }
}

// -- Generated names in every layout --------------------------------------------------

/// Records the locations it is asked to vend for; answers with fake keys.
class RecordingVendor final : public CredentialVendor {
 public:
  Result<VendedCredentials> Vend(const std::string& location,
                                 VendPermission permission) override {
    std::lock_guard lock(mu_);
    locations_.push_back(location);
    VendedCredentials out;
    out.expires_at_millis = 4'102'444'800'000;
    out.storage_options = {{"aws_access_key_id", "FAKE"},
                           {"aws_secret_access_key", "fake-secret"},
                           {"aws_session_token", "fake-token"},
                           {"expires_at_millis", std::to_string(out.expires_at_millis)}};
    return out;
  }
  std::string ToString() const override { return "RecordingVendor"; }
  /// The location of the last Vend, or "" when there was none since the last call.
  std::string TakeLast() {
    std::lock_guard lock(mu_);
    std::string last = locations_.empty() ? "" : locations_.back();
    locations_.clear();
    return last;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> locations_;
};

/// What IAM would treat as more than literal text (issue 28), by another route than
/// CheckPolicySafeName: the oracle of the generated test.
bool HasPolicySpecial(std::string_view name) {
  if (name.find_first_of("*?") != std::string_view::npos) return true;
  if (name.find("${") != std::string_view::npos) return true;
  return std::any_of(name.begin(), name.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7f;
  });
}

/// Random table names from an alphabet chosen to break scopes: IAM's wildcards and
/// variables, path characters, percent escapes that look like encoded '/' or '*',
/// Lance's '$' delimiter, quotes, multi-byte and invalid UTF-8, control characters.
class NameGenerator {
 public:
  explicit NameGenerator(uint32_t seed) : rng_(seed) {}

  std::string Name() {
    static const std::vector<std::string> kHostile = {"*",
                                                      "?",
                                                      "$",
                                                      "/",
                                                      "{",
                                                      "}",
                                                      "%",
                                                      ".",
                                                      "-",
                                                      "_",
                                                      " ",
                                                      "'",
                                                      "\"",
                                                      "\\",
                                                      "${",
                                                      "${aws:username}",
                                                      "%2F",
                                                      "%2A",
                                                      "%25",
                                                      "..",
                                                      ".lance",
                                                      "__manifest",
                                                      "\xC3\xA9",
                                                      "\xE8\xA1\xA8",
                                                      "\xC3\x9F",
                                                      "\xF0\x9F\x99\x82",
                                                      "\xE2\x80\x8B",
                                                      "\x01",
                                                      "\x1f",
                                                      "\x7f",
                                                      "\t",
                                                      "\n",
                                                      "\xff",
                                                      "\xc3",
                                                      "+",
                                                      "=",
                                                      "&",
                                                      "#",
                                                      ":"};
    static const std::string kPlain =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    const size_t target = Uniform(1, 20);
    std::string out;
    while (out.size() < target) {
      if (Uniform(0, 99) < 65) {
        out += kPlain[Uniform(0, kPlain.size() - 1)];
      } else {
        out += kHostile[Uniform(0, kHostile.size() - 1)];
      }
    }
    return out;
  }

  size_t Uniform(size_t lo, size_t hi) {
    return std::uniform_int_distribution<size_t>(lo, hi)(rng_);
  }

 private:
  std::mt19937 rng_;
};

struct Layout {
  const char* name;
  bool manifest;
  bool dir_listing;
};

void PrintTo(const Layout& layout, std::ostream* os) { *os << layout.name; }

std::string LayoutName(const ::testing::TestParamInfo<Layout>& info) {
  return info.param.name;
}

/// An accepted table: where the vendor scoped it, and where its clients were sent.
struct Accepted {
  Identifier id;
  std::string bucket;
  std::string prefix;                    // the scope (bucket-relative)
  std::vector<std::string> client_dirs;  // the keys of declare's and describe's locations
  std::optional<IamPolicy> policy;
};

std::string Printable(const Identifier& id) {
  std::string out;
  for (const std::string& level : id) out += (out.empty() ? "[" : ", ") + Escaped(level);
  return out + "]";
}

/// Failures grouped by kind: how many, and the first few of each (hundreds of ids can
/// fail the same way).
class FailureLog {
 public:
  void Add(const std::string& kind, const std::string& example) {
    auto& [count, examples] = kinds_[kind];
    ++count;
    if (examples.size() < 5) examples.push_back(example);
  }
  bool empty() const { return kinds_.empty(); }
  std::string Report() const {
    std::string out;
    for (const auto& [kind, entry] : kinds_) {
      out += kind + ": " + std::to_string(entry.first) + " times, e.g.\n";
      for (const std::string& example : entry.second) out += "  " + example + "\n";
    }
    return out;
  }

 private:
  std::map<std::string, std::pair<int, std::vector<std::string>>> kinds_;
};

class GeneratedNamesTest : public ::testing::TestWithParam<Layout> {};

INSTANTIATE_TEST_SUITE_P(Layouts, GeneratedNamesTest,
                         ::testing::Values(Layout{"Plain", false, true},
                                           Layout{"ManifestWithDirListing", true, true},
                                           Layout{"ManifestOnly", true, false}),
                         LayoutName);

TEST_P(GeneratedNamesTest, NoAcceptedTableIsGrantedAnotherTablesKeys) {
  const Layout layout = GetParam();
  static std::atomic<int> counter{0};
  const std::string bucket_name =
      "policy-scope-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  auto vendor = std::make_shared<RecordingVendor>();
  DirectoryNamespaceOptions options;
  options.root = "memory://" + bucket_name + "/lake/root";
  options.manifest_enabled = layout.manifest;
  options.dir_listing_enabled = layout.dir_listing;
  options.credential_vendor = vendor;
  options.vend_permission = VendPermission::kAdmin;
  ASSERT_OK_AND_ASSIGN(auto ns, DirectoryNamespace::Make(options));
  ASSERT_OK_AND_ASSIGN(auto root, io::ResolveObjectStore(options.root));

  // Fixed ids first (the siblings of the RGW test, and names spelling another's
  // percent-encoded directory), then generated ones.
  std::vector<Identifier> ids = {{"a"},          {"a2"},
                                 {"ab"},         {"a.lance"},
                                 {"__manifest"}, {"\xC3\xA9\xE8\xA1\xA8"},
                                 {"a%2Ab"},      {"x%2F..%2Fy"},
                                 {"a%252Ab"},    {"%C3%A9%E8%A1%A8"},
                                 {".."},         {"."},
                                 {"*"},          {"a*"},
                                 {"a?"},         {"b${aws:username}"}};
  if (layout.manifest) {
    ids.push_back({"team", "a"});
    ids.push_back({"team", "a2"});
    ids.push_back({"team", "*"});
    ids.push_back({"team.lance", "t"});
  }
  const uint32_t seed = 28 + static_cast<uint32_t>(layout.manifest) * 2 +
                        static_cast<uint32_t>(layout.dir_listing);
  SCOPED_TRACE("seed " + std::to_string(seed));
  NameGenerator names(seed);
  std::vector<std::string> parents;  // reused so that tables share namespaces
  // A table id is never also a namespace id, nor below a table: the namespace would
  // refuse those for another reason (TableAlreadyExists, NamespaceNotFound).
  std::set<Identifier> table_ids;
  std::set<Identifier> namespace_ids;
  auto fits = [&](const Identifier& id) {
    if (table_ids.count(id) || namespace_ids.count(id)) return false;
    for (size_t depth = 1; depth < id.size(); ++depth) {
      if (table_ids.count(Identifier(id.begin(), id.begin() + depth))) return false;
    }
    table_ids.insert(id);
    for (size_t depth = 1; depth < id.size(); ++depth) {
      namespace_ids.insert(Identifier(id.begin(), id.begin() + depth));
    }
    return true;
  };
  for (const Identifier& id : ids) ASSERT_TRUE(fits(id)) << Printable(id);
  while (ids.size() < 500) {
    Identifier id;
    const size_t depth =
        layout.manifest ? (names.Uniform(0, 9) < 6 ? 1 : 2 + names.Uniform(0, 9) / 8) : 1;
    for (size_t level = 0; level + 1 < depth; ++level) {
      if (!parents.empty() && names.Uniform(0, 9) < 4) {
        id.push_back(parents[names.Uniform(0, parents.size() - 1)]);
      } else {
        id.push_back(names.Name());
        parents.push_back(id.back());
      }
    }
    id.push_back(names.Name());
    if (fits(id)) ids.push_back(std::move(id));
  }

  FailureLog failures;
  std::vector<Accepted> accepted;
  size_t refused = 0;
  for (const Identifier& id : ids) {
    SCOPED_TRACE(Printable(id));
    const bool unsafe = std::any_of(id.begin(), id.end(), HasPolicySpecial);
    // Parent namespaces, level by level.
    for (size_t depth = 1; depth < id.size(); ++depth) {
      const Identifier parent(id.begin(), id.begin() + depth);
      auto created = ns->CreateNamespace({.id = parent});
      if (created.ok()) continue;
      const ErrorCode code = NamespaceErrorCode(created.status());
      EXPECT_TRUE(code == ErrorCode::kNamespaceAlreadyExists ||
                  code == ErrorCode::kInvalidInput)
          << created.status();
    }
    (void)vendor->TakeLast();
    auto declared = ns->DeclareTable({.id = id});
    if (!declared.ok()) {
      ++refused;
      EXPECT_EQ(NamespaceErrorCode(declared.status()), ErrorCode::kInvalidInput)
          << declared.status();
      EXPECT_EQ(vendor->TakeLast(), "") << "vended for a refused id";
      // Refused everywhere: describe answers InvalidInput too, not NotFound.
      if (unsafe) {
        auto described = ns->DescribeTable({.id = id});
        EXPECT_EQ(NamespaceErrorCode(described.status()), ErrorCode::kInvalidInput)
            << described.status();
      }
      continue;
    }
    EXPECT_FALSE(unsafe) << "accepted a name holding a policy pattern character";
    Accepted table;
    table.id = id;
    const std::string vended = vendor->TakeLast();
    auto scope = io::ParseUri(vended);
    ASSERT_THAT(scope, IsOk()) << vended;
    table.bucket = scope->authority;
    table.prefix = scope->path;
    EXPECT_EQ(table.bucket, bucket_name);
    EXPECT_EQ(table.prefix.rfind("lake/root/", 0), 0u) << table.prefix;
    EXPECT_GT(table.prefix.size(), std::string("lake/root/").size()) << table.prefix;
    EXPECT_OK(CheckPolicySafeName(table.prefix, "the vended prefix"));
    // The namespace's marker lies in the scope: the scope is the table's directory.
    EXPECT_OK(root.store->Head(table.prefix + "/.lance-reserved").status());

    ASSERT_TRUE(declared->location.has_value());
    auto declared_at = io::ParseUri(*declared->location);
    ASSERT_THAT(declared_at, IsOk()) << *declared->location;
    table.client_dirs.push_back(declared_at->path);
    auto described = ns->DescribeTable({.id = id});
    ASSERT_THAT(described, IsOk());
    EXPECT_EQ(vendor->TakeLast(), vended) << "describe and declare scope differently";
    ASSERT_TRUE(described->location.has_value());
    auto described_at = io::ParseUri(*described->location);
    ASSERT_THAT(described_at, IsOk()) << *described->location;
    table.client_dirs.push_back(described_at->path);

    try {
      table.policy = IamPolicy::Parse(
          AwsScopedSessionPolicy(table.bucket, table.prefix, VendPermission::kAdmin));
    } catch (const std::exception& e) {
      failures.Add("AwsScopedSessionPolicy throws (the vendor would throw out of Vend)",
                   Printable(id) + ": prefix " + Escaped(table.prefix) + ": " + e.what());
      continue;
    }
    accepted.push_back(std::move(table));
  }
  // The alphabet exercises both answers.
  EXPECT_GE(accepted.size(), 80u);
  EXPECT_GE(refused, 100u);

  // Each table's own work: every key under the directory its clients were given.
  for (const Accepted& t : accepted) {
    const IamPolicy& policy = *t.policy;
    std::set<std::string> dirs(t.client_dirs.begin(), t.client_dirs.end());
    dirs.insert(t.prefix);
    for (const std::string& dir : dirs) {
      for (const std::string& key : std::vector<std::string>{
               dir + "/data/x.lance", dir + "/_versions/1.manifest"}) {
        for (std::string_view action :
             {"s3:GetObject", "s3:PutObject", "s3:DeleteObject"}) {
          if (!policy.AllowsObject(action, t.bucket, key)) {
            failures.Add("own work refused",
                         Printable(t.id) + ": " + std::string(action) + " on " +
                             Escaped(key) + " (scope " + Escaped(t.prefix) + ")");
          }
        }
      }
      if (!policy.AllowsList(t.bucket, dir + "/") ||
          !policy.AllowsList(t.bucket, dir + "/_versions/")) {
        failures.Add("own listing refused", Printable(t.id) + ": " + Escaped(dir) +
                                                "/ refused (scope " + Escaped(t.prefix) +
                                                ")");
      }
    }
    if (policy.AllowsList(t.bucket, t.prefix)) {
      failures.Add("the bare prefix is listable",
                   Printable(t.id) + ": " + Escaped(t.prefix));
    }
  }

  // Nothing of any other table, nor of the catalog.
  std::vector<std::pair<std::string, std::string>> foreign;  // (owner, key)
  for (const Accepted& u : accepted) {
    std::set<std::string> dirs(u.client_dirs.begin(), u.client_dirs.end());
    dirs.insert(u.prefix);
    for (const std::string& dir : dirs) {
      for (const std::string& key : std::vector<std::string>{
               dir, dir + "/", dir + "/data/x.lance", dir + "/_versions/1.manifest",
               dir + "/.lance-reserved"}) {
        foreign.emplace_back(Printable(u.id), key);
      }
    }
  }
  const size_t catalog_begin = foreign.size();
  for (const std::string& key :
       std::vector<std::string>{"lake/root/__manifest/data/x.lance",
                                std::string("lake/root/__manifest/_versions/1.manifest"),
                                std::string("lake/root"), std::string("lake/other")}) {
    foreign.emplace_back("the catalog", key);
  }
  for (const Accepted& t : accepted) {
    const IamPolicy& policy = *t.policy;
    const std::string me = Printable(t.id);
    for (size_t i = 0; i < foreign.size(); ++i) {
      const auto& [owner, key] = foreign[i];
      if (i < catalog_begin && owner == me) continue;
      const std::string_view granted =
          policy.FirstObjectActionAllowed(kObjectActions, t.bucket, key);
      if (!granted.empty()) {
        failures.Add(i < catalog_begin ? "granted an object action on another table's key"
                                       : "granted an object action on the catalog",
                     me + " (scope " + Escaped(t.prefix) + ") is granted " +
                         std::string(granted) + " on " + Escaped(key) + " of " + owner);
      }
      if (policy.ListingReveals(t.bucket, key)) {
        failures.Add(
            i < catalog_begin ? "lists another table's key" : "lists the catalog",
            me + " (scope " + Escaped(t.prefix) + ") can list " + Escaped(key) + " of " +
                owner);
      }
    }
  }
  EXPECT_TRUE(failures.empty()) << failures.Report();
}

}  // namespace
}  // namespace lance::ns
