#pragma once
// Typed reading of YAML values with their locations, collecting every problem instead of stopping
// at the first. Internal to the manifest loader.
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace screen::manifest {

// The problems found so far, each "file:line:column: field.path: problem".
class Problems {
 public:
  explicit Problems(std::string file) : file_(std::move(file)) {}
  void add(const YAML::Mark& mark, const std::string& path, const std::string& problem);
  bool empty() const { return found_.empty(); }
  std::vector<std::string> messages() const;  // in file order (line, column), then as found
  std::string joined() const;                 // the same, one per line

 private:
  struct Found {
    long line, column;  // 1-based; 0 = unknown
    std::string message;
  };
  std::string file_;
  std::vector<Found> found_;
};

// "a list", "a mapping", "an empty value", "'text'": what a node holds, for "expected X, got Y".
std::string describe(const YAML::Node& node);

// One value of the manifest with its field path and location. Getters return nullopt (and record
// a problem naming the expected type) when the value has the wrong type.
class Field {
 public:
  Field(YAML::Node node, YAML::Mark mark, std::string path, Problems& problems)
      : node_(std::move(node)), mark_(mark), path_(std::move(path)), problems_(&problems) {}

  const YAML::Node& node() const { return node_; }
  const YAML::Mark& mark() const { return mark_; }
  const std::string& path() const { return path_; }
  void problem(const std::string& text) const { problems_->add(mark_, path_, text); }
  Problems& problems() const { return *problems_; }

  std::optional<long long> integer() const;                  // "expected an integer, got ..."
  std::optional<long long> integer(long long min, long long max) const;  // and "must be >= min (got v)"
  std::optional<double> number() const;                      // integer or decimal
  std::optional<bool> boolean() const;                       // true/false (yes/no, on/off)
  // Any non-empty scalar without control characters, at most 4096 bytes (rules::text_value).
  std::optional<std::string> text() const;
  // One of `choices` ("must be one of a, b, c (got 'x')", with a did-you-mean).
  std::optional<std::string> choice(const std::vector<std::string>& choices) const;
  bool is_word(const std::string& word) const;               // a scalar equal to `word`
  // A rule's verdict (param_rules.hpp): true when `rule_problem` is empty, else records it.
  bool accept(const std::string& rule_problem) const;

  // Elements of a list (items are named path[i]); nullopt and a problem when not a list.
  std::optional<std::vector<Field>> items(const std::string& expected) const;

 private:
  YAML::Node node_;
  YAML::Mark mark_;
  std::string path_;
  Problems* problems_;
};

// A mapping read as one manifest section. Construction reports a non-mapping value, unknown keys
// (with a did-you-mean among `keys`) and duplicate keys. An empty value counts as an empty mapping.
class Section {
 public:
  Section(const Field& field, std::vector<std::string> keys);

  bool ok() const { return ok_; }  // it is a mapping (or empty)
  bool has(const std::string& key) const;
  // The value of `key` (present() checked by has()); for an absent key, an empty value located at
  // the section.
  Field operator[](const std::string& key) const;
  // The valid keys present, in the order they appear in the manifest.
  const std::vector<std::string>& order() const { return order_; }
  const Field& self() const { return self_; }
  // A required key is missing: "field.path: required (...)" located at the section.
  void missing(const std::string& key, const std::string& hint) const;

 private:
  struct Entry {
    std::string key;
    YAML::Node value;
    YAML::Mark key_mark;
  };
  Field self_;
  bool ok_ = false;
  std::vector<Entry> entries_;
  std::vector<std::string> order_;
};

}  // namespace screen::manifest
