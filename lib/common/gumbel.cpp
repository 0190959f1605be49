#include "common/gumbel.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace screen::stats {

namespace {

constexpr double kEulerGamma = 0.57721566490153286;
constexpr double kPi = 3.14159265358979324;

// Negative log-likelihood at (mu, log beta).
double nll(const std::vector<double>& x, std::size_t censored, double threshold, double mu, double log_beta) {
  const double beta = std::exp(log_beta);
  double s = 0;
  for (const double v : x) {
    const double z = (v - mu) / beta;
    s += log_beta + z + std::exp(-z);
  }
  if (censored > 0) s += static_cast<double>(censored) * std::exp(-(threshold - mu) / beta);  // -m log F(T)
  return std::isfinite(s) ? s : std::numeric_limits<double>::infinity();
}

}  // namespace

double GumbelFit::mean() const { return mu + kEulerGamma * beta; }
double GumbelFit::stddev() const { return kPi * beta / std::sqrt(6.0); }

GumbelFit fit_gumbel(const std::vector<double>& observed, std::size_t censored, double threshold) {
  GumbelFit f;
  if (observed.size() < 3) return f;
  double mean = 0, sq = 0;
  for (const double v : observed) mean += v;
  mean /= static_cast<double>(observed.size());
  for (const double v : observed) sq += (v - mean) * (v - mean);
  const double sd = std::sqrt(sq / static_cast<double>(observed.size() - 1));
  if (!(sd > 0)) return f;
  // Nelder-Mead on (mu, log beta) from the moment estimates of the observed values (with censoring
  // the true location lies lower; the simplex walks there).
  const double beta0 = sd * std::sqrt(6.0) / kPi;
  std::array<std::array<double, 2>, 3> p = {{{mean - kEulerGamma * beta0, std::log(beta0)},
                                             {mean - kEulerGamma * beta0 + beta0, std::log(beta0)},
                                             {mean - kEulerGamma * beta0, std::log(beta0) + 0.5}}};
  std::array<double, 3> v{};
  const auto eval = [&](const std::array<double, 2>& q) { return nll(observed, censored, threshold, q[0], q[1]); };
  for (int k = 0; k < 3; ++k) v[static_cast<std::size_t>(k)] = eval(p[static_cast<std::size_t>(k)]);
  for (int it = 0; it < 2000; ++it) {
    std::array<int, 3> o = {0, 1, 2};
    std::sort(o.begin(), o.end(), [&](int a, int b) { return v[static_cast<std::size_t>(a)] < v[static_cast<std::size_t>(b)]; });
    const auto& best = p[static_cast<std::size_t>(o[0])];
    const auto& worst = p[static_cast<std::size_t>(o[2])];
    const double spread = std::abs(v[static_cast<std::size_t>(o[2])] - v[static_cast<std::size_t>(o[0])]);
    if (spread < 1e-10 * (1 + std::abs(v[static_cast<std::size_t>(o[0])])) &&
        std::abs(worst[0] - best[0]) < 1e-9 * (1 + std::abs(best[0])) && std::abs(worst[1] - best[1]) < 1e-9)
      break;
    const auto& mid = p[static_cast<std::size_t>(o[1])];
    const std::array<double, 2> c = {(best[0] + mid[0]) / 2, (best[1] + mid[1]) / 2};
    const auto along = [&](double t) { return std::array<double, 2>{c[0] + t * (worst[0] - c[0]), c[1] + t * (worst[1] - c[1])}; };
    const std::size_t w = static_cast<std::size_t>(o[2]);
    const auto r = along(-1.0);
    const double vr = eval(r);
    if (vr < v[static_cast<std::size_t>(o[0])]) {
      const auto e = along(-2.0);
      const double ve = eval(e);
      if (ve < vr) { p[w] = e; v[w] = ve; } else { p[w] = r; v[w] = vr; }
    } else if (vr < v[static_cast<std::size_t>(o[1])]) {
      p[w] = r;
      v[w] = vr;
    } else {
      const auto k = along(vr < v[w] ? -0.5 : 0.5);
      const double vk = eval(k);
      if (vk < std::min(vr, v[w])) {
        p[w] = k;
        v[w] = vk;
      } else {  // shrink towards the best
        for (const int j : {o[1], o[2]}) {
          auto& q = p[static_cast<std::size_t>(j)];
          q = {(q[0] + best[0]) / 2, (q[1] + best[1]) / 2};
          v[static_cast<std::size_t>(j)] = eval(q);
        }
      }
    }
  }
  const std::size_t b = static_cast<std::size_t>(std::min_element(v.begin(), v.end()) - v.begin());
  if (!std::isfinite(v[b])) return f;
  f.mu = p[b][0];
  f.beta = std::exp(p[b][1]);
  f.ok = f.beta > 0 && std::isfinite(f.mu);
  return f;
}

double gumbel_pvalue(const GumbelFit& f, double x) {
  if (!f.ok) return std::numeric_limits<double>::quiet_NaN();
  // 1 - exp(-e^{-z}), without cancellation when e^{-z} is small.
  return -std::expm1(-std::exp(-(x - f.mu) / f.beta));
}

}  // namespace screen::stats
