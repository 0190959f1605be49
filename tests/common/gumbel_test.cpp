// The Gumbel fit of the significance columns (docs/significance.md) on samples drawn from known
// distributions: the parameters come back, censored below a threshold too, and the p-values of the
// sample are uniform.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "common/gumbel.hpp"

namespace screen::stats {
namespace {

std::vector<double> gumbel_sample(double mu, double beta, std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(1e-12, 1.0);
  std::vector<double> x(n);
  for (auto& v : x) v = mu - beta * std::log(-std::log(u(rng)));
  return x;
}

TEST(Gumbel, FitRecoversTheParameters) {
  for (const auto& [mu, beta] : {std::pair<double, double>{10, 3}, {150, 12}, {-5, 0.5}}) {
    const GumbelFit f = fit_gumbel(gumbel_sample(mu, beta, 20000, 7));
    ASSERT_TRUE(f.ok);
    EXPECT_NEAR(f.mu, mu, 0.03 * beta) << mu;
    EXPECT_NEAR(f.beta, beta, 0.03 * beta) << mu;
    EXPECT_NEAR(f.mean(), mu + 0.5772 * beta, 0.05 * beta);
    EXPECT_NEAR(f.stddev(), 1.2825 * beta, 0.05 * beta);
  }
}

TEST(Gumbel, CensoredFitRecoversTheParameters) {
  // Only values at or above the threshold are seen (as miRanda reports only sites over its score
  // threshold); the others are counted.
  const double mu = 100, beta = 8;
  for (const double threshold : {mu, mu + beta, mu + 2.5 * beta}) {
    const auto x = gumbel_sample(mu, beta, 200000, 11);
    std::vector<double> seen;
    for (const double v : x)
      if (v >= threshold) seen.push_back(v);
    const GumbelFit f = fit_gumbel(seen, x.size() - seen.size(), threshold);
    ASSERT_TRUE(f.ok) << threshold;
    EXPECT_NEAR(f.mu, mu, 0.06 * beta) << threshold;
    EXPECT_NEAR(f.beta, beta, 0.06 * beta) << threshold;
    // Ignoring the censored values would place the distribution far too high.
    EXPECT_GT(fit_gumbel(seen).mu, mu + 0.5 * beta) << threshold;
  }
}

TEST(Gumbel, PvaluesOfTheSampleAreUniform) {
  const auto x = gumbel_sample(20, 4, 20000, 3);
  const GumbelFit f = fit_gumbel(x);
  ASSERT_TRUE(f.ok);
  std::size_t below_05 = 0, below_50 = 0;
  for (const double v : x) {
    const double p = gumbel_pvalue(f, v);
    ASSERT_GE(p, 0.0);
    ASSERT_LE(p, 1.0);
    below_05 += p < 0.05;
    below_50 += p < 0.5;
  }
  EXPECT_NEAR(static_cast<double>(below_05) / x.size(), 0.05, 0.008);
  EXPECT_NEAR(static_cast<double>(below_50) / x.size(), 0.5, 0.02);
  // Far in the tail the p-value stays positive and tiny (no cancellation to 0).
  const double tail = gumbel_pvalue(f, f.mu + 40 * f.beta);
  EXPECT_GT(tail, 0.0);
  EXPECT_LT(tail, 1e-15);
}

TEST(Gumbel, TooFewOrConstantValuesGiveNoFit) {
  EXPECT_FALSE(fit_gumbel({1, 2}).ok);
  EXPECT_FALSE(fit_gumbel({5, 5, 5, 5}).ok);
  EXPECT_TRUE(std::isnan(gumbel_pvalue(GumbelFit{}, 3.0)));
}

}  // namespace
}  // namespace screen::stats
