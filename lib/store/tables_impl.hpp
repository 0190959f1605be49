#pragma once
// Template definitions for tables.hpp (included at its end; not a header to include directly).
#include <cstring>
#include <string>
#include <type_traits>

#include <fmt/format.h>

namespace screen::store {

namespace detail {

template <class T>
bool value_equal(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, double>) {
    std::uint64_t x = 0, y = 0;
    std::memcpy(&x, &a, sizeof x);
    std::memcpy(&y, &b, sizeof y);
    return x == y;
  } else {
    return a == b;
  }
}

// -1, 0, 1; doubles by total order of their values, NaN after everything (then by bits).
template <class T>
int value_compare(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, double>) {
    if (a < b) return -1;
    if (b < a) return 1;
    std::uint64_t x = 0, y = 0;
    std::memcpy(&x, &a, sizeof x);
    std::memcpy(&y, &b, sizeof y);
    return x < y ? -1 : (y < x ? 1 : 0);
  } else {
    if (a < b) return -1;
    if (b < a) return 1;
    return 0;
  }
}

template <class T>
void hash_value(Sha256& h, const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    hash_str(h, v);
  } else if constexpr (std::is_same_v<T, double>) {
    hash_f64(h, v);
  } else if constexpr (std::is_signed_v<T>) {
    hash_i64(h, static_cast<std::int64_t>(v));
  } else {
    hash_u64(h, static_cast<std::uint64_t>(v));
  }
}

template <class T>
std::string format_value(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return fmt::format("\"{}\"", v);
  } else if constexpr (std::is_same_v<T, std::uint8_t>) {
    return fmt::format("{}", static_cast<unsigned>(v));
  } else {
    return fmt::format("{}", v);
  }
}

}  // namespace detail

template <class Row>
bool rows_equal(const Row& a, const Row& b) {
  bool eq = true;
  for_each_column<Row>([&](auto c) { eq = eq && detail::value_equal(a.*(c.member), b.*(c.member)); });
  return eq;
}

template <class Row>
bool row_less(const Row& a, const Row& b) {
  const auto ka = Table<Row>::key(a);
  const auto kb = Table<Row>::key(b);
  if (ka < kb) return true;
  if (kb < ka) return false;
  int cmp = 0;
  for_each_column<Row>([&](auto c) {
    if (cmp == 0) cmp = detail::value_compare(a.*(c.member), b.*(c.member));
  });
  return cmp < 0;
}

template <class Row>
std::string describe(const Row& r) {
  std::string out;
  for_each_column<Row>([&](auto c) {
    if (!out.empty()) out += ", ";
    out += c.name;
    out += '=';
    out += detail::format_value(r.*(c.member));
  });
  return out;
}

template <class Row>
void hash_row(Sha256& h, const Row& r) {
  for_each_column<Row>([&](auto c) {
    using T = std::remove_reference_t<decltype(r.*(c.member))>;
    if (!c.optional || !(r.*(c.member) == T{})) detail::hash_value(h, r.*(c.member));
  });
}

}  // namespace screen::store
