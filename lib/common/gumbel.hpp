#pragma once
// The Gumbel (type I extreme-value) distribution of maxima, fitted by maximum likelihood, for the
// significance of screen scores (docs/significance.md): F(x) = exp(-exp(-(x - mu) / beta)).
// A fit may be left-censored: m further values are known only to lie below a threshold (miRanda
// reports no site under its score threshold).
#include <cstddef>
#include <vector>

namespace screen::stats {

struct GumbelFit {
  bool ok = false;   // false: too few values (fewer than 3 observed) or no spread
  double mu = 0;     // location
  double beta = 0;   // scale (> 0)
  double mean() const;    // mu + Euler's gamma beta
  double stddev() const;  // pi beta / sqrt(6)
};

// Maximum likelihood over the observed values and `censored` values below `threshold`.
GumbelFit fit_gumbel(const std::vector<double>& observed, std::size_t censored = 0, double threshold = 0);

// P(X >= x) under the fit (the p-value of a score x); NaN when the fit is not ok.
double gumbel_pvalue(const GumbelFit& f, double x);

}  // namespace screen::stats
