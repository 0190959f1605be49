#pragma once
// The row formats of `screen export`: TSV (tab-separated, as every command writes it), CSV (RFC 4180:
// a cell holding a comma, a quote or a line break is quoted, quotes doubled) and BED6 (no header;
// the caller gives the six cells), with an optional choice and order of columns (--columns).
#include <string>
#include <vector>

#include "common/output_file.hpp"

namespace screen::cli {

enum class ExportFormat { tsv, csv, bed };

// "tsv", "csv" or "bed" (UsageError otherwise; "miranda" is the caller's own).
ExportFormat parse_export_format(const std::string& text);
const char* export_extension(ExportFormat f);

class TableWriter {
 public:
  // header: every column of the table. columns: "" for all, or a comma-separated choice of them in
  // the order wanted (UsageError naming the unknown one and the table's columns). BED takes no
  // header and no choice.
  TableWriter(OutputFile& out, ExportFormat format, std::vector<std::string> header, const std::string& columns,
              const std::string& table);
  void row(const std::vector<std::string>& cells);

 private:
  void write_cells(const std::vector<std::string>& cells);
  OutputFile& out_;
  ExportFormat format_;
  std::size_t width_;
  std::vector<std::size_t> pick_;  // empty: every column in order
  std::vector<std::string> picked_;
  std::string line_;
};

// The cells of a tab-separated line (its line break dropped).
std::vector<std::string> split_tabs(const std::string& line);

}  // namespace screen::cli
