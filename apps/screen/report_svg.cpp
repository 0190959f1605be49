#include "apps/screen/report_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace screen::cli {

std::string html_escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

constexpr const char* kBar = "#3b6ea8";
constexpr const char* kInk = "#222";

std::string number(double v) {
  if (std::abs(v) >= 1e5 || (std::abs(v) < 1e-2 && v != 0)) return fmt::format("{:.2g}", v);
  if (std::abs(v - std::round(v)) < 1e-9) return fmt::format("{:.0f}", v);
  return fmt::format("{:.2f}", v);
}

}  // namespace

std::string svg_histogram(const std::vector<double>& values, const std::string& x_label, const std::string& title,
                          int bins) {
  constexpr int W = 640, H = 240, L = 56, R = 16, T = 28, B = 44;
  std::string s = fmt::format(R"(<svg class="figure" role="img" xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" viewBox="0 0 {} {}">)", W, H, W, H);
  s += fmt::format(R"(<title>{}</title><text x="{}" y="18" font-size="14" font-weight="bold" fill="{}">{}</text>)",
                   html_escape(title), L, kInk, html_escape(title));
  if (values.empty()) return s + R"(<text x="60" y="120" font-size="13">no values</text></svg>)";
  const auto [lo_it, hi_it] = std::minmax_element(values.begin(), values.end());
  double lo = *lo_it, hi = *hi_it;
  if (hi <= lo) hi = lo + 1;
  std::vector<long> count(static_cast<std::size_t>(bins), 0);
  for (const double v : values) {
    int b = static_cast<int>((v - lo) / (hi - lo) * bins);
    count[static_cast<std::size_t>(std::clamp(b, 0, bins - 1))]++;
  }
  const long top = std::max<long>(1, *std::max_element(count.begin(), count.end()));
  const double bw = static_cast<double>(W - L - R) / bins;
  for (int b = 0; b < bins; ++b) {
    const double h = static_cast<double>(count[static_cast<std::size_t>(b)]) / top * (H - T - B);
    s += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}"><title>{} to {}: {}</title></rect>)",
                     L + b * bw + 0.5, H - B - h, std::max(bw - 1, 1.0), h, kBar, number(lo + b * (hi - lo) / bins),
                     number(lo + (b + 1) * (hi - lo) / bins), count[static_cast<std::size_t>(b)]);
  }
  s += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}"/>)", L, H - B, W - R, H - B, kInk);
  s += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}"/>)", L, T, L, H - B, kInk);
  for (int k = 0; k <= 4; ++k) {
    const double x = L + k * (W - L - R) / 4.0;
    s += fmt::format(R"(<text x="{:.1f}" y="{}" font-size="11" text-anchor="middle">{}</text>)", x, H - B + 15,
                     number(lo + k * (hi - lo) / 4));
  }
  s += fmt::format(R"(<text x="{}" y="{}" font-size="11" text-anchor="end">{}</text><text x="{}" y="{}" font-size="11" text-anchor="end">0</text>)",
                   L - 6, T + 8, top, L - 6, H - B);
  s += fmt::format(R"(<text x="{}" y="{}" font-size="12" text-anchor="middle">{}</text>)", (L + W - R) / 2, H - 8,
                   html_escape(x_label));
  s += fmt::format(R"svg(<text x="14" y="{}" font-size="12" transform="rotate(-90 14 {})" text-anchor="middle">count</text>)svg",
                   (T + H - B) / 2, (T + H - B) / 2);
  return s + "</svg>";
}

std::string svg_bars(const std::vector<std::pair<std::string, double>>& items, const std::string& x_label,
                     const std::string& title) {
  constexpr int W = 640, L = 190, R = 60, T = 28, row = 18;
  const int H = T + static_cast<int>(items.size()) * row + 36;
  std::string s = fmt::format(R"(<svg class="figure" role="img" xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" viewBox="0 0 {} {}">)", W, H, W, H);
  s += fmt::format(R"(<title>{}</title><text x="8" y="18" font-size="14" font-weight="bold" fill="{}">{}</text>)",
                   html_escape(title), kInk, html_escape(title));
  double top = 0;
  for (const auto& it : items) top = std::max(top, it.second);
  if (top <= 0) top = 1;
  for (std::size_t k = 0; k < items.size(); ++k) {
    const double y = T + static_cast<double>(k) * row;
    const double w = items[k].second / top * (W - L - R);
    std::string label = items[k].first.size() > 28 ? items[k].first.substr(0, 27) + "..." : items[k].first;
    s += fmt::format(R"(<text x="{}" y="{:.1f}" font-size="11" text-anchor="end">{}</text>)", L - 6, y + 12, html_escape(label));
    s += fmt::format(R"(<rect x="{}" y="{:.1f}" width="{:.1f}" height="{}" fill="{}"/>)", L, y + 2, std::max(w, 1.0), row - 4, kBar);
    s += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="11">{}</text>)", L + w + 4, y + 12, number(items[k].second));
  }
  s += fmt::format(R"(<text x="{}" y="{}" font-size="12" text-anchor="middle">{}</text>)", (L + W - R) / 2, H - 10,
                   html_escape(x_label));
  return s + "</svg>";
}

std::string svg_duplex(const std::vector<std::pair<int, int>>& pairs, const std::string& query_letters,
                       const std::string& target_letters, const std::string& query_name, const std::string& target_name) {
  if (pairs.empty()) return "<p>(no intermolecular pairs)</p>";
  // The site: the query from its first to its last paired position (5'->3', left to right), the
  // target from its last to its first (3'->5'), one column per position of the longer strand.
  const int q0 = pairs.front().first, q1 = pairs.back().first;
  int t0 = pairs.front().second, t1 = pairs.front().second;
  for (const auto& p : pairs) {
    t0 = std::min(t0, p.second);
    t1 = std::max(t1, p.second);
  }
  const int nq = q1 - q0 + 1, nt = t1 - t0 + 1, n = std::max(nq, nt);
  const double step = std::clamp(560.0 / n, 6.0, 14.0);
  const int L = 160;
  const int W = L + static_cast<int>(step * n) + 60, H = 120;
  const auto qx = [&](int q) { return L + (q - q0 + 0.5) * step * n / nq; };
  const auto tx = [&](int t) { return L + (t1 - t + 0.5) * step * n / nt; };
  constexpr double yq = 44, yt = 92;
  std::string s = fmt::format(R"(<svg class="figure duplex" role="img" xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" viewBox="0 0 {} {}">)", W, H, W, H);
  s += fmt::format(R"(<title>{} x {}</title>)", html_escape(query_name), html_escape(target_name));
  s += fmt::format(R"(<text x="4" y="{}" font-size="11">5' {}</text><text x="4" y="{}" font-size="11">3' {}</text>)", yq + 4,
                   html_escape(query_name.substr(0, 20)), yt + 4, html_escape(target_name.substr(0, 20)));
  for (const auto& p : pairs)
    s += fmt::format(R"(<line x1="{:.1f}" y1="{}" x2="{:.1f}" y2="{}" stroke="#c0392b" stroke-width="1.5"/>)", qx(p.first),
                     yq + 6, tx(p.second), yt - 12);
  const bool letters = !query_letters.empty() && !target_letters.empty();
  for (int q = q0; q <= q1; ++q) {
    if (letters && q >= 1 && q <= static_cast<int>(query_letters.size()))
      s += fmt::format(R"(<text x="{:.1f}" y="{}" font-size="11" font-family="monospace" text-anchor="middle">{}</text>)", qx(q), yq,
                       query_letters[static_cast<std::size_t>(q - 1)]);
    else
      s += fmt::format(R"(<circle cx="{:.1f}" cy="{}" r="2" fill="{}"/>)", qx(q), yq - 4, kInk);
  }
  for (int t = t0; t <= t1; ++t) {
    if (letters && t >= 1 && t <= static_cast<int>(target_letters.size()))
      s += fmt::format(R"(<text x="{:.1f}" y="{}" font-size="11" font-family="monospace" text-anchor="middle">{}</text>)", tx(t), yt,
                       target_letters[static_cast<std::size_t>(t - 1)]);
    else
      s += fmt::format(R"(<circle cx="{:.1f}" cy="{}" r="2" fill="{}"/>)", tx(t), yt - 4, kInk);
  }
  s += fmt::format(R"(<text x="{:.1f}" y="{}" font-size="10" text-anchor="middle">{}</text><text x="{:.1f}" y="{}" font-size="10" text-anchor="middle">{}</text>)",
                   qx(q0), yq - 16, q0, qx(q1), yq - 16, q1);
  s += fmt::format(R"(<text x="{:.1f}" y="{}" font-size="10" text-anchor="middle">{}</text><text x="{:.1f}" y="{}" font-size="10" text-anchor="middle">{}</text>)",
                   tx(t1), yt + 16, t1, tx(t0), yt + 16, t0);
  return s + "</svg>";
}

}  // namespace screen::cli
