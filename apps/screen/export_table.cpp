#include "apps/screen/export_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "common/error.hpp"

namespace screen::cli {

ExportFormat parse_export_format(const std::string& text) {
  if (text == "tsv") return ExportFormat::tsv;
  if (text == "csv") return ExportFormat::csv;
  if (text == "bed") return ExportFormat::bed;
  throw UsageError(fmt::format("--format must be tsv, csv, bed or miranda, not '{}'", text));
}

const char* export_extension(ExportFormat f) { return f == ExportFormat::csv ? "csv" : f == ExportFormat::bed ? "bed" : "tsv"; }

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::size_t end = line.size();
  while (end > 0 && (line[end - 1] == '\n' || line[end - 1] == '\r')) --end;
  std::size_t at = 0;
  for (;;) {
    const std::size_t tab = line.find('\t', at);
    if (tab == std::string::npos || tab >= end) {
      out.push_back(line.substr(at, end - at));
      return out;
    }
    out.push_back(line.substr(at, tab - at));
    at = tab + 1;
  }
}

namespace {

void append_csv_cell(std::string& line, const std::string& cell) {
  if (cell.find_first_of(",\"\r\n") == std::string::npos) {
    line += cell;
    return;
  }
  line += '"';
  for (const char c : cell) {
    if (c == '"') line += '"';
    line += c;
  }
  line += '"';
}

}  // namespace

TableWriter::TableWriter(OutputFile& out, ExportFormat format, std::vector<std::string> header,
                         const std::string& columns, const std::string& table)
    : out_(out), format_(format), width_(header.size()) {
  if (format == ExportFormat::bed) {
    if (!columns.empty()) throw UsageError("--columns does not apply to --format bed (BED6 has fixed columns)");
    return;
  }
  if (!columns.empty()) {
    std::istringstream in(columns);
    std::string name;
    while (std::getline(in, name, ',')) {
      const auto it = std::find(header.begin(), header.end(), name);
      if (it == header.end()) {
        std::string all;
        for (const auto& h : header) all += (all.empty() ? "" : ", ") + h;
        throw UsageError(fmt::format("--columns: the {} table has no column '{}'; its columns: {}", table, name, all));
      }
      pick_.push_back(static_cast<std::size_t>(it - header.begin()));
    }
    if (pick_.empty()) throw UsageError("--columns: no column named");
  }
  write_cells(header);
}

void TableWriter::row(const std::vector<std::string>& cells) {
  if (format_ != ExportFormat::bed && cells.size() != width_)
    throw Error(ExitCode::internal, fmt::format("export: a row of {} cells in a table of {} columns", cells.size(), width_));
  write_cells(cells);
}

void TableWriter::write_cells(const std::vector<std::string>& cells) {
  line_.clear();
  const std::size_t n = pick_.empty() ? cells.size() : pick_.size();
  for (std::size_t k = 0; k < n; ++k) {
    const std::string& cell = cells[pick_.empty() ? k : pick_[k]];
    if (k > 0) line_ += format_ == ExportFormat::csv ? ',' : '\t';
    if (format_ == ExportFormat::csv)
      append_csv_cell(line_, cell);
    else
      line_ += cell;
  }
  line_ += '\n';
  out_.write(line_);
}

}  // namespace screen::cli
