#pragma once
// Tables (tables.hpp) on disk: a table is a group holding one chunked, extendible 1-D dataset per
// numeric column (shuffle + deflate + Fletcher-32, h5::Group::create_table_dataset), all of one
// length (the table's rows), and a string-array attribute "columns" naming the columns in order.
//
// A string column NAME is stored as two datasets (the compact encoding of docs/results.md):
//   NAME_bytes  uint8, every row's UTF-8 bytes concatenated, in row order;
//   NAME_end    uint64, one per row: the end (exclusive) of the row's bytes in NAME_bytes;
//               row i is NAME_bytes[NAME_end[i-1] : NAME_end[i]] (with NAME_end[-1] = 0).
// So all text sits in checksummed, compressed chunks (HDF5 1.10 keeps variable-length strings in an
// unchecksummed heap it reads without bounds checks, which a damaged file can crash).
//
// TableWriter appends rows (every column, optional ones included); read_table reads a whole table
// back (an optional column missing from the file reads as its default, tables.hpp).
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "common/error.hpp"
#include "store/h5.hpp"
#include "store/tables.hpp"

namespace screen::store {

template <class T>
struct ColumnType;
template <>
struct ColumnType<std::uint8_t> {
  static hid_t file() { return H5T_STD_U8LE; }
  static hid_t mem() { return H5T_NATIVE_UINT8; }
};
template <>
struct ColumnType<std::int32_t> {
  static hid_t file() { return H5T_STD_I32LE; }
  static hid_t mem() { return H5T_NATIVE_INT32; }
};
template <>
struct ColumnType<std::int64_t> {
  static hid_t file() { return H5T_STD_I64LE; }
  static hid_t mem() { return H5T_NATIVE_INT64; }
};
template <>
struct ColumnType<std::uint64_t> {
  static hid_t file() { return H5T_STD_U64LE; }
  static hid_t mem() { return H5T_NATIVE_UINT64; }
};
template <>
struct ColumnType<double> {
  static hid_t file() { return H5T_IEEE_F64LE; }
  static hid_t mem() { return H5T_NATIVE_DOUBLE; }
};

template <class Row>
std::vector<std::string> column_names() {
  std::vector<std::string> names;
  for_each_column<Row>([&](auto c) { names.emplace_back(c.name); });
  return names;
}

template <class Row>
class TableWriter {
 public:
  TableWriter() = default;
  // Creates group `name` under `parent`; expected_rows sizes the chunks (0: a default).
  TableWriter(h5::Group& parent, const std::string& name, std::uint64_t expected_rows) {
    group_ = parent.create_group(name);
    group_.set_strings("columns", column_names<Row>());
    const std::uint64_t hint = expected_rows == 0 ? 16384 : expected_rows;
    for_each_column<Row>([&](auto c) {
      using T = std::remove_reference_t<decltype(std::declval<Row&>().*(c.member))>;
      if constexpr (std::is_same_v<T, std::string>) {
        const std::string col_name(c.name);
        columns_.push_back(group_.create_table_dataset(col_name + "_bytes", H5T_STD_U8LE, h5::chunk_rows_for(1, hint * 32)));
        columns_.push_back(group_.create_table_dataset(col_name + "_end", H5T_STD_U64LE, h5::chunk_rows_for(8, hint)));
        string_bytes_.push_back(0);
      } else {
        columns_.push_back(group_.create_table_dataset(c.name, ColumnType<T>::file(), h5::chunk_rows_for(sizeof(T), hint)));
      }
    });
  }

  void append(const Row* rows, std::size_t n) {
    if (n == 0) return;
    std::size_t k = 0, s = 0;
    for_each_column<Row>([&](auto c) {
      using T = std::remove_reference_t<decltype(std::declval<Row&>().*(c.member))>;
      if constexpr (std::is_same_v<T, std::string>) {
        std::uint64_t& total = string_bytes_[s++];
        std::string bytes;
        std::vector<std::uint64_t> ends(n);
        for (std::size_t i = 0; i < n; ++i) {
          bytes += rows[i].*(c.member);
          ends[i] = total + bytes.size();
        }
        columns_[k++].append(bytes.data(), bytes.size(), H5T_NATIVE_UINT8);
        columns_[k++].append(ends.data(), n, H5T_NATIVE_UINT64);
        total += bytes.size();
      } else {
        h5::Dataset& ds = columns_[k++];
        std::vector<T> values(n);
        for (std::size_t i = 0; i < n; ++i) values[i] = rows[i].*(c.member);
        ds.append(values.data(), n, ColumnType<T>::mem());
      }
    });
    rows_ += n;
  }
  void append(const std::vector<Row>& rows) { append(rows.data(), rows.size()); }

  std::uint64_t rows() const { return rows_; }
  bool open() const { return group_.valid(); }

  void close() {
    for (auto& ds : columns_) ds.close();
    columns_.clear();
    group_.close();
  }

 private:
  h5::Group group_;
  std::vector<h5::Dataset> columns_;      // per column: one dataset, or NAME_bytes and NAME_end
  std::vector<std::uint64_t> string_bytes_;  // per string column: bytes written so far
  std::uint64_t rows_ = 0;
};

// Writes a whole table at once (chunks sized for it).
template <class Row>
void write_table(h5::Group& parent, const std::string& name, const std::vector<Row>& rows) {
  TableWriter<Row> w(parent, name, rows.size());
  w.append(rows);
  w.close();
}

// Reads table `name` of `parent`; throws ResourceError when a column is missing, of the wrong
// kind, or of a length different from the others.
template <class Row>
std::vector<Row> read_table(const h5::Group& parent, const std::string& name) {
  const h5::Group g = parent.open_group(name);
  std::vector<h5::Dataset> columns;  // per column: one dataset, or NAME_end (then NAME_bytes)
  std::uint64_t n = 0;
  bool first = true;
  auto take_length = [&](const h5::Dataset& ds) {
    const std::uint64_t len = ds.rows();
    if (!first && len != n)
      throw ResourceError(fmt::format("{}: {}: {} rows, other columns of the table have {}", ds.where().file,
                                      ds.where().path, len, n));
    n = len;
    first = false;
  };
  // Optional columns absent from the file (written before they existed) read as their default.
  std::vector<bool> absent;  // per column, in order
  for_each_column<Row>([&](auto c) {
    using T = std::remove_reference_t<decltype(std::declval<Row&>().*(c.member))>;
    if constexpr (std::is_same_v<T, std::string>) {
      absent.push_back(false);
      columns.push_back(g.open_dataset(std::string(c.name) + "_end"));
      take_length(columns.back());
      columns.push_back(g.open_dataset(std::string(c.name) + "_bytes"));
    } else {
      absent.push_back(c.optional && !g.has(c.name));
      if (absent.back()) return;
      columns.push_back(g.open_dataset(c.name));
      take_length(columns.back());
    }
  });
  auto check_class = [](const h5::Dataset& ds, bool want_float) {
    const H5T_class_t cls = ds.type().type_class();
    if ((want_float && cls != H5T_FLOAT) || (!want_float && cls != H5T_INTEGER))
      throw ResourceError(fmt::format("{}: {}: column of an unexpected type", ds.where().file, ds.where().path));
  };
  std::vector<Row> rows(n);
  std::size_t k = 0, column = 0;
  for_each_column<Row>([&](auto c) {
    using T = std::remove_reference_t<decltype(std::declval<Row&>().*(c.member))>;
    if (absent[column++]) return;
    if constexpr (std::is_same_v<T, std::string>) {
      const h5::Dataset& end_ds = columns[k++];
      const h5::Dataset& bytes_ds = columns[k++];
      check_class(end_ds, false);
      check_class(bytes_ds, false);
      std::vector<std::uint64_t> ends(n);
      end_ds.read(ends.data(), 0, n, H5T_NATIVE_UINT64);
      const std::uint64_t total = bytes_ds.rows();
      std::uint64_t prev = 0;
      for (std::uint64_t e : ends) {
        if (e < prev || e > total)
          throw ResourceError(fmt::format("{}: {}: string ends out of order or past the {} bytes of {}", end_ds.where().file,
                                          end_ds.where().path, total, bytes_ds.where().path));
        prev = e;
      }
      if (prev != total)
        throw ResourceError(fmt::format("{}: {}: {} bytes, the rows' strings end at {}", bytes_ds.where().file,
                                        bytes_ds.where().path, total, prev));
      std::string bytes(total, '\0');
      bytes_ds.read(bytes.data(), 0, total, H5T_NATIVE_UINT8);
      prev = 0;
      for (std::uint64_t i = 0; i < n; ++i) {
        rows[i].*(c.member) = bytes.substr(prev, ends[i] - prev);
        prev = ends[i];
      }
    } else {
      const h5::Dataset& ds = columns[k++];
      check_class(ds, std::is_floating_point_v<T>);
      std::vector<T> values(n);
      ds.read(values.data(), 0, n, ColumnType<T>::mem());
      for (std::uint64_t i = 0; i < n; ++i) rows[i].*(c.member) = values[i];
    }
  });
  return rows;
}

}  // namespace screen::store
