#pragma once
// The figures of `screen report` as inline SVG (no script, no network): a histogram, a bar chart
// and a duplex diagram (two strands with their intermolecular pairs), and HTML escaping.
#include <string>
#include <utility>
#include <vector>

namespace screen::cli {

std::string html_escape(const std::string& s);

// Counts of `values` in `bins` equal bins between their minimum and maximum.
std::string svg_histogram(const std::vector<double>& values, const std::string& x_label, const std::string& title,
                          int bins = 30);

// One horizontal bar per item (label, value), in the order given.
std::string svg_bars(const std::vector<std::pair<std::string, double>>& items, const std::string& x_label,
                     const std::string& title);

// A duplex: the query 5'->3' on top and the target 3'->5' below, each intermolecular pair (query
// position, target position; 1-based) a line between them. Letters where known (empty: positions
// only), the site's ends numbered.
std::string svg_duplex(const std::vector<std::pair<int, int>>& pairs, const std::string& query_letters,
                       const std::string& target_letters, const std::string& query_name, const std::string& target_name);

}  // namespace screen::cli
