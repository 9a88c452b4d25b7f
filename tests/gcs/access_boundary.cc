// SPDX-License-Identifier: Apache-2.0
// Credential Access Boundaries as the STS stand-in reads them; see access_boundary.h.

#include "tests/gcs/access_boundary.h"

#include <cctype>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <string_view>

namespace lance::testing {

namespace {

constexpr std::string_view kListAttribute = "storage.googleapis.com/objectListPrefix";

// A cursor over the CEL text: whitespace-insensitive tokens, quoted strings.
class Cel {
 public:
  explicit Cel(std::string_view text) : text_(text) {}

  void Skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
  }
  bool AtEnd() {
    Skip();
    return pos_ == text_.size();
  }
  // Consumes `word` (after whitespace) when it comes next.
  bool Eat(std::string_view word) {
    Skip();
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  // A string literal in ' or " without escapes.
  std::optional<std::string> String() {
    Skip();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      return std::nullopt;
    }
    const char quote = text_[pos_];
    const size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) return std::nullopt;
    std::string out(text_.substr(pos_ + 1, end - pos_ - 1));
    if (out.find('\\') != std::string::npos) return std::nullopt;
    pos_ = end + 1;
    return out;
  }
  size_t pos() const { return pos_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

Status Refuse(const std::string& why) {
  return Status::Invalid("access boundary: " + why);
}

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// One `resource.name.startsWith(S)` clause: the object names it admits, and whether it
// admits listings (whose resource is the bucket itself).
void AddResourceClause(const std::string& s, GcsBoundary* out) {
  const std::string bucket_name = "projects/_/buckets/" + out->bucket;
  const std::string objects = bucket_name + "/objects/";
  if (StartsWith(s, objects)) {
    out->object_prefixes.push_back(s.substr(objects.size()));
  } else if (StartsWith(objects, s)) {
    out->object_prefixes.push_back("");  // every object of the bucket
  }
  if (StartsWith(bucket_name, s)) out->list_prefixes.push_back("");
}

Status ParseCondition(const std::string& expression, GcsBoundary* out) {
  Cel cel(expression);
  do {
    if (cel.Eat("resource.name.startsWith")) {
      std::optional<std::string> s;
      if (!cel.Eat("(") || !(s = cel.String()) || !cel.Eat(")")) {
        return Refuse("cannot read the resource.name clause at offset " +
                      std::to_string(cel.pos()));
      }
      AddResourceClause(*s, out);
    } else if (cel.Eat("api.getAttribute")) {
      std::optional<std::string> name, fallback, prefix;
      if (!cel.Eat("(") || !(name = cel.String()) || !cel.Eat(",") ||
          !(fallback = cel.String()) || !cel.Eat(")") || !cel.Eat(".startsWith") ||
          !cel.Eat("(") || !(prefix = cel.String()) || !cel.Eat(")")) {
        return Refuse("cannot read the api.getAttribute clause at offset " +
                      std::to_string(cel.pos()));
      }
      if (*name != kListAttribute) {
        return Refuse("unknown attribute '" + *name + "'");
      }
      out->list_prefixes.push_back(*prefix);
      // Requests other than listings read the default: a default that starts with the
      // prefix admits every object.
      if (StartsWith(*fallback, *prefix)) out->object_prefixes.push_back("");
    } else {
      return Refuse("unknown clause at offset " + std::to_string(cel.pos()));
    }
  } while (cel.Eat("||"));
  if (!cel.AtEnd()) {
    return Refuse("unexpected text at offset " + std::to_string(cel.pos()) +
                  " (only clauses joined by || are read)");
  }
  return Status::OK();
}

Result<unsigned> ParseRoles(const nlohmann::json& roles) {
  if (!roles.is_array() || roles.empty()) {
    return Refuse("availablePermissions must be a non-empty array");
  }
  unsigned out = 0;
  for (const auto& role : roles) {
    const std::string r = role.is_string() ? role.get<std::string>() : role.dump();
    if (r == "inRole:roles/storage.objectViewer") {
      out |= kGcsGet | kGcsList;
    } else if (r == "inRole:roles/storage.objectCreator") {
      out |= kGcsCreate;
    } else if (r == "inRole:roles/storage.objectAdmin") {
      out |= kGcsAll;
    } else {
      return Refuse("unknown permission '" + r + "'");
    }
  }
  return out;
}

}  // namespace

std::string GcsBoundary::ToString() const {
  std::string out = "bucket=" + bucket + " permissions=";
  const char* names[] = {"get", "list", "create", "delete", "update"};
  bool first = true;
  for (int i = 0; i < 5; ++i) {
    if ((permissions & (1u << i)) == 0) continue;
    out += std::string(first ? "" : ",") + names[i];
    first = false;
  }
  auto list = [](const std::vector<std::string>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + v[i];
    return s + "]";
  };
  return out + " objects=" + list(object_prefixes) + " lists=" + list(list_prefixes);
}

Result<GcsBoundary> ParseGcsAccessBoundary(const std::string& text) {
  auto json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object() || json.size() != 1 ||
      !json.contains("accessBoundary") || !json["accessBoundary"].is_object()) {
    return Refuse("not a JSON object with accessBoundary");
  }
  const auto& boundary = json["accessBoundary"];
  if (boundary.size() != 1 || !boundary.contains("accessBoundaryRules") ||
      !boundary["accessBoundaryRules"].is_array()) {
    return Refuse("accessBoundary must hold accessBoundaryRules only");
  }
  const auto& rules = boundary["accessBoundaryRules"];
  if (rules.size() != 1) {
    return Refuse("the stand-in reads exactly one rule, got " +
                  std::to_string(rules.size()));
  }
  const auto& rule = rules[0];
  if (!rule.is_object()) return Refuse("a rule must be an object");
  for (const auto& [key, value] : rule.items()) {
    if (key != "availableResource" && key != "availablePermissions" &&
        key != "availabilityCondition") {
      return Refuse("unknown rule field '" + key + "'");
    }
  }
  static const std::regex kResource(
      R"(^//storage\.googleapis\.com/projects/_/buckets/([a-z0-9][a-z0-9._-]{1,221}[a-z0-9])$)");
  std::smatch m;
  const std::string resource =
      rule.contains("availableResource") && rule["availableResource"].is_string()
          ? rule["availableResource"].get<std::string>()
          : "";
  if (!std::regex_match(resource, m, kResource)) {
    return Refuse(
        "availableResource must be //storage.googleapis.com/projects/_/"
        "buckets/<bucket>");
  }
  GcsBoundary out;
  out.bucket = m[1];
  if (!rule.contains("availablePermissions")) return Refuse("no availablePermissions");
  auto roles = ParseRoles(rule["availablePermissions"]);
  if (!roles.ok()) return roles.status();
  out.permissions = *roles;
  if (!rule.contains("availabilityCondition")) {
    // No condition: the whole bucket.
    out.object_prefixes = {""};
    out.list_prefixes = {""};
    return out;
  }
  const auto& condition = rule["availabilityCondition"];
  if (!condition.is_object() || !condition.contains("expression") ||
      !condition["expression"].is_string()) {
    return Refuse("availabilityCondition needs an expression string");
  }
  for (const auto& [key, value] : condition.items()) {
    if (key != "expression" && key != "title" && key != "description") {
      return Refuse("unknown condition field '" + key + "'");
    }
  }
  auto parsed = ParseCondition(condition["expression"].get<std::string>(), &out);
  if (!parsed.ok()) return parsed;
  return out;
}

}  // namespace lance::testing
