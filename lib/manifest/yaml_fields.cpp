#include "manifest/yaml_fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string_view>

#include "common/error.hpp"
#include "manifest/ascii_lower.hpp"
#include "manifest/did_you_mean.hpp"
#include "manifest/param_rules.hpp"

namespace screen::manifest {

namespace {

std::string join(const std::vector<std::string>& words, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) out += (i ? sep : "") + words[i];
  return out;
}

// Every control byte; sizeof includes the terminating NUL, which counts too.
constexpr char kControl[] =
    "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17"
    "\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f";

bool usable(const YAML::Mark& mark) { return mark.line >= 0 && mark.column >= 0; }

std::string child_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

}  // namespace

void Problems::add(const YAML::Mark& mark, const std::string& path, const std::string& problem) {
  // One line per problem, whatever a key or value holds: control characters are shown escaped.
  std::string message = path.empty() ? problem : path + ": " + problem;
  if (message.find_first_of(std::string_view(kControl, sizeof kControl)) != std::string::npos) {
    const std::string q = rules::quoted_for_message(message, message.size());
    message = q.substr(1, q.size() - 2);
  }
  long line = usable(mark) ? mark.line + 1 : 0, column = usable(mark) ? mark.column + 1 : 0;
  found_.push_back({line, column, located(file_, line, column, message)});
}

std::vector<std::string> Problems::messages() const {
  std::vector<Found> sorted = found_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Found& a, const Found& b) {
    return a.line != b.line ? a.line < b.line : a.column < b.column;
  });
  std::vector<std::string> out;
  for (auto& f : sorted) out.push_back(std::move(f.message));
  return out;
}

std::string Problems::joined() const { return join(messages(), "\n"); }

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null: return "an empty value";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Scalar: return rules::quoted_for_message(node.Scalar(), node.Scalar().size() > 40 ? 37 : 40);
  }
  return "an unknown value";
}

std::optional<long long> Field::integer() const {
  if (node_.IsScalar()) {
    const std::string& s = node_.Scalar();
    std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    bool digits = i < s.size();
    for (std::size_t k = i; k < s.size(); ++k) digits = digits && std::isdigit(static_cast<unsigned char>(s[k]));
    if (digits) {
      errno = 0;
      long long v = std::strtoll(s.c_str(), nullptr, 10);
      if (errno != ERANGE) return v;
      problem(fmt::format("{} is too large", s));
      return std::nullopt;
    }
  }
  problem("expected an integer, got " + describe(node_));
  return std::nullopt;
}

std::optional<long long> Field::integer(long long min, long long max) const {
  auto v = integer();
  if (!v) return v;
  if (*v < min) {
    problem(fmt::format("must be >= {} (got {})", min, *v));
    return std::nullopt;
  }
  if (*v > max) {
    problem(fmt::format("must be <= {} (got {})", max, *v));
    return std::nullopt;
  }
  return v;
}

std::optional<double> Field::number() const {
  if (node_.IsScalar()) {
    const std::string& s = node_.Scalar();
    bool plain = !s.empty();
    bool any_digit = false;
    for (char c : s) {
      any_digit = any_digit || std::isdigit(static_cast<unsigned char>(c));
      plain = plain && (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' ||
                        c == 'e' || c == 'E');
    }
    if (plain && any_digit) {
      char* end = nullptr;
      double v = std::strtod(s.c_str(), &end);
      if (end == s.c_str() + s.size() && std::isfinite(v)) return v;
    }
  }
  problem("expected a number, got " + describe(node_));
  return std::nullopt;
}

std::optional<bool> Field::boolean() const {
  if (node_.IsScalar()) {
    const std::string s = ascii_lower(node_.Scalar());
    if (s == "true" || s == "yes" || s == "on") return true;
    if (s == "false" || s == "no" || s == "off") return false;
  }
  problem("expected true or false, got " + describe(node_));
  return std::nullopt;
}

std::optional<std::string> Field::text() const {
  if (!node_.IsScalar() || node_.Scalar().empty()) {
    problem("expected text, got " + describe(node_));
    return std::nullopt;
  }
  if (!accept(rules::text_value(node_.Scalar()))) return std::nullopt;
  return node_.Scalar();
}

bool Field::accept(const std::string& rule_problem) const {
  if (rule_problem.empty()) return true;
  problem(rule_problem);
  return false;
}

std::optional<std::string> Field::choice(const std::vector<std::string>& choices) const {
  if (node_.IsScalar()) {
    for (const auto& c : choices)
      if (node_.Scalar() == c) return c;
  }
  std::string message = "must be one of " + join(choices, ", ") + " (got " + describe(node_) + ")";
  if (node_.IsScalar()) {
    if (auto near = closest_match(node_.Scalar(), choices)) message += "; did you mean '" + *near + "'?";
  }
  problem(message);
  return std::nullopt;
}

bool Field::is_word(const std::string& word) const { return node_.IsScalar() && node_.Scalar() == word; }

std::optional<std::vector<Field>> Field::items(const std::string& expected) const {
  if (!node_.IsSequence()) {
    problem("expected " + expected + ", got " + describe(node_));
    return std::nullopt;
  }
  std::vector<Field> out;
  std::size_t i = 0;
  for (const auto& item : node_) {
    YAML::Mark m = usable(item.Mark()) && !item.IsNull() ? item.Mark() : mark_;
    out.emplace_back(item, m, fmt::format("{}[{}]", path_, i), *problems_);
    ++i;
  }
  return out;
}

Section::Section(const Field& field, std::vector<std::string> keys) : self_(field) {
  const YAML::Node& node = field.node();
  if (node.IsNull() || !node.IsDefined()) {
    ok_ = true;
    return;
  }
  if (!node.IsMap()) {
    field.problem("expected a mapping (key: value lines), got " + describe(node));
    return;
  }
  ok_ = true;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const YAML::Node k = it->first;  // copies: the iterator hands out temporaries
    const YAML::Node value = it->second;
    const YAML::Mark key_mark = k.Mark();
    if (!k.IsScalar()) {
      Field(k, key_mark, field.path(), self_.problems()).problem("expected a key name, got " + describe(k));
      continue;
    }
    const std::string key = k.Scalar();
    const std::string path = child_path(field.path(), key);
    bool known = false;
    for (const auto& valid : keys) known = known || valid == key;
    if (!known) {
      std::string message = "unknown key";
      if (auto near = closest_match(key, keys))
        message += " (did you mean '" + *near + "'?)";
      else
        message += " (valid keys: " + join(keys, ", ") + ")";
      Field(k, key_mark, path, self_.problems()).problem(message);
      continue;
    }
    bool duplicate = false;
    for (const auto& e : entries_) {
      if (e.key == key) {
        Field(k, key_mark, path, self_.problems())
            .problem(fmt::format("duplicate key (first given at line {})", e.key_mark.line + 1));
        duplicate = true;
      }
    }
    if (duplicate) continue;
    entries_.push_back({key, value, key_mark});
    order_.push_back(key);
  }
}

bool Section::has(const std::string& key) const {
  for (const auto& e : entries_)
    if (e.key == key) return true;
  return false;
}

Field Section::operator[](const std::string& key) const {
  const std::string path = child_path(self_.path(), key);
  for (const auto& e : entries_) {
    if (e.key != key) continue;
    YAML::Mark m = (e.value.IsNull() || !usable(e.value.Mark())) ? e.key_mark : e.value.Mark();
    return Field(e.value, m, path, self_.problems());
  }
  return Field(YAML::Node(YAML::NodeType::Null), self_.mark(), path, self_.problems());
}

void Section::missing(const std::string& key, const std::string& hint) const {
  Field(YAML::Node(), self_.mark(), child_path(self_.path(), key), self_.problems())
      .problem("required" + (hint.empty() ? std::string() : " (" + hint + ")"));
}

}  // namespace screen::manifest
