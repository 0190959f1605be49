#include "stages/energy/cpu.hpp"

#include <omp.h>

#include <algorithm>
#include <iterator>

#include "stages/energy/reference.hpp"

namespace screen::energy {

// The table loops vectorise; with AVX2 they take eight cells at a time (min of 32-bit integers,
// which SSE2 lacks), chosen at run time.
#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__))
#define SCREEN_ENERGY_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SCREEN_ENERGY_CLONES
#endif

namespace {

inline int add(int a, int b) { return a >= kInf || b >= kInf ? kInf : a + b; }

}  // namespace

void DuplexFolder::reserve(int n) {
  if (n <= cap_) return;
  cap_ = std::max(n, 2 * cap_);
  const auto cells = static_cast<std::size_t>(cap_ + 2) * static_cast<std::size_t>(cap_ + 2);
  type_.assign(cells, 0);
  alias_.assign(static_cast<std::size_t>(cap_) + 2, 0);
  code_.assign(static_cast<std::size_t>(cap_) + 2, 0);
  C_.assign(cells, kInf);
  M_.assign(cells, kInf);
  D_.assign(cells, kInf);
  Cmi_.assign(cells, kInf);
  Mt_.assign(cells, kInf);
  Cau_.assign(cells, kInf);
  CauT_.assign(cells, kInf);
  F_.assign(static_cast<std::size_t>(cap_) + 1, 0);
}

SCREEN_ENERGY_CLONES int DuplexFolder::energy(const std::string& letters, const Model& m) {
  const int n = static_cast<int>(letters.size());
  if (n < 5) return 0;  // no pair fits: every letter unpaired
  reserve(n);
  const int w = cap_ + 2;  // row length of the (i, j) tables
  std::vector<int>& code = code_;
  for (int i = 1; i <= n; ++i) {
    code[static_cast<std::size_t>(i)] = letter_code(letters[static_cast<std::size_t>(i - 1)]);
    alias_[static_cast<std::size_t>(i)] = letter_alias(code[static_cast<std::size_t>(i)]);
  }
  alias_[0] = alias_[static_cast<std::size_t>(n) + 1] = 0;
  const int* a = alias_.data();
  std::int8_t* T = type_.data();
  int* C = C_.data();
  int* M = M_.data();
  int* D = D_.data();
  int* Cmi = Cmi_.data();
  int* Mt = Mt_.data();
  int* Cau = Cau_.data();
  int* CauT = CauT_.data();
  // The loop tables derive from the model's internal, bulge and asymmetry values: rebuilt when
  // those differ from the ones they were made from (not by the model's address, which a later
  // model may reuse).
  const bool same_source = std::equal(std::begin(m.internal), std::end(m.internal), std::begin(loop_src_internal_)) &&
                           std::equal(std::begin(m.bulge), std::end(m.bulge), std::begin(loop_src_bulge_)) &&
                           m.ninio[2] == loop_src_ninio_ && m.max_ninio == loop_src_max_ninio_ && loop_made_;
  if (!same_source) {
    loops_ = make_loop_tables(m);
    std::copy(std::begin(m.internal), std::end(m.internal), std::begin(loop_src_internal_));
    std::copy(std::begin(m.bulge), std::end(m.bulge), std::begin(loop_src_bulge_));
    loop_src_ninio_ = m.ninio[2];
    loop_src_max_ninio_ = m.max_ninio;
    loop_made_ = true;
  }
  auto at = [w](int i, int j) { return static_cast<std::size_t>(i) * static_cast<std::size_t>(w) + static_cast<std::size_t>(j); };
  for (int i = 1; i <= n; ++i)
    for (int j = i; j <= n; ++j)
      T[at(i, j)] = static_cast<std::int8_t>(j - i >= 4 ? pair_type(code[static_cast<std::size_t>(i)], code[static_cast<std::size_t>(j)]) : 0);
  // Tables of spans below 4 hold INF (no pair, no branch); spans grow from 4.
  for (int i = 1; i <= n + 1; ++i)
    for (int j = std::max(0, i - 1); j <= std::min(n, i + 3); ++j) {
      C[at(i, j)] = kInf;
      M[at(i, j)] = kInf;
      if (j >= 0 && i <= n) Mt[at(j, i)] = kInf;
      D[at(i, j)] = kInf;
      Cmi[at(i, j)] = kInf;
      Cau[at(i, j)] = kInf;
      if (j >= 0 && i <= n) CauT[at(j, i)] = kInf;
    }
  const int mb = m.ml_base;
  for (int d = 4; d < n; ++d) {
    for (int i = 1; i + d <= n; ++i) {
      const int j = i + d;
      // D(i, j): two or more branches.
      // M(k+1, j) read from the transposed copy, so that both operands run along memory (the loop
      // vectorises); values stay at or below kInf, so sums need no test.
      int dv = kInf;
      {
        const int* mi = M + at(i, 0);
        const int* mj = Mt + at(j, 0);
        for (int k = i + 4; k <= j - 5; ++k) dv = std::min(dv, mi[k] + mj[k + 1]);
        dv = std::min(dv, kInf);
      }
      D[at(i, j)] = dv;
      // C(i, j).
      const int t = T[at(i, j)];
      int cv = kInf;
      if (t) {
        const int u = j - i - 1;
        cv = hairpin_energy(m, t, u, u == 4 ? tetraloop_bonus(m, letters.c_str() + i - 1) : 0, a[i + 1], a[j - 1]);
        const int si = a[i + 1], sj = a[j - 1];
        // Stacks, bulges and the small internal loops (1x1, 1x2, 2x1, 2x2) by their own tables.
        auto two_pair = [&](int p, int q) {
          if (q - p < 4) return;
          const int t2 = T[at(p, q)];
          const int c = C[at(p, q)];
          if (!t2 || c >= kInf) return;
          cv = std::min(cv, interior_energy(m, t, reverse_type(t2), p - i - 1, j - q - 1, si, sj, a[p - 1], a[q + 1]) + c);
        };
        two_pair(i + 1, j - 1);  // stack
        two_pair(i + 1, j - 2);  // bulges of one letter (they add the stack)
        two_pair(i + 2, j - 1);
        // Bulges of 2 to 30 letters: bulge[n] + AU(t) + (C + AU of the inner pair), a min over table
        // sums along a row of Cau (3' side bulge) and along a row of its transpose (5' side).
        {
          const int au = terminal_penalty(m, t);
          int best = kInf;
          const int* row = Cau + at(i + 1, 0);  // inner pair (i+1, q), q = j-1-n
          for (int q = std::max(i + 5, j - 1 - kMaxLoop); q <= j - 3; ++q) best = std::min(best, loops_.bulge_rev[q - (j - 1) + kMaxLoop] + row[q]);
          const int* col = CauT + at(j - 1, 0);  // inner pair (p, j-1), p = i+1+n
          for (int p = i + 3; p <= std::min(j - 5, i + 1 + kMaxLoop); ++p) best = std::min(best, loops_.bulge[p - i - 1] + col[p]);
          if (best < kInf) cv = std::min(cv, best + au);
        }
        two_pair(i + 2, j - 2);
        two_pair(i + 2, j - 3);
        two_pair(i + 3, j - 2);
        two_pair(i + 3, j - 3);
        // The other internal loops: internal[n1 + n2] + asymmetry (L) + the outer mismatch + the
        // inner pair's C and mismatch (Cmi): a min over table sums.
        // (The outer mismatch is the same for every such loop: added once to their minimum.)
        int best_internal = kInf;
        for (int n1 = 1; n1 < kMaxLoop; ++n1) {
          const int p = i + 1 + n1;
          const int n2max = std::min(kMaxLoop - n1, j - 5 - p);
          if (n2max < 1) break;
          // q = j - 1 - n2 ascending; generic_rev[n1][kMaxLoop - n2]: both run along memory.
          const int* row = Cmi + at(p, 0);
          const int* lr = loops_.generic_rev[n1] + kMaxLoop - (j - 1);
          int best = kInf;
          for (int q = j - 1 - n2max; q <= j - 2; ++q) best = std::min(best, lr[q] + row[q]);
          best_internal = std::min(best_internal, best);
        }
        if (best_internal < kInf) cv = std::min(cv, best_internal + m.mismatch_interior[t][si][sj]);
        const int tt = reverse_type(t);
        const int d3 = m.dangle3[tt][a[i + 1]], d5 = m.dangle5[tt][a[j - 1]];
        const int close = m.ml_closing + m.ml_intern[t];
        int ml = D[at(i + 1, j - 1)];
        ml = std::min(ml, add(D[at(i + 2, j - 1)], d3 + mb));
        ml = std::min(ml, add(D[at(i + 1, j - 2)], d5 + mb));
        ml = std::min(ml, add(D[at(i + 2, j - 2)], d5 + d3 + 2 * mb));
        cv = std::min(cv, add(ml, close));
      }
      C[at(i, j)] = cv;
      Cmi[at(i, j)] = t && cv < kInf ? cv + m.mismatch_interior[reverse_type(t)][a[j + 1]][a[i - 1]] : kInf;
      Cau[at(i, j)] = CauT[at(j, i)] = t && cv < kInf ? cv + terminal_penalty(m, t) : kInf;
      // M(i, j).
      int mv = std::min(add(M[at(i + 1, j)], mb), add(M[at(i, j - 1)], mb));
      if (t) mv = std::min(mv, add(cv, m.ml_intern[t]));
      if (const int t1 = T[at(i + 1, j)])
        mv = std::min(mv, add(C[at(i + 1, j)], m.dangle5[t1][a[i]] + m.ml_intern[t1] + mb));
      if (const int t1 = T[at(i, j - 1)])
        mv = std::min(mv, add(C[at(i, j - 1)], m.dangle3[t1][a[j]] + m.ml_intern[t1] + mb));
      if (const int t1 = T[at(i + 1, j - 1)])
        mv = std::min(mv, add(C[at(i + 1, j - 1)], m.dangle5[t1][a[i]] + m.dangle3[t1][a[j]] + m.ml_intern[t1] + 2 * mb));
      M[at(i, j)] = Mt[at(j, i)] = std::min(mv, dv);
    }
  }
  // F: the exterior loop.
  int* F = F_.data();
  for (int j = 0; j <= std::min(n, 4); ++j) F[j] = 0;
  auto fv = [F](int j) { return j <= 0 ? 0 : F[j]; };
  for (int j = 5; j <= n; ++j) {
    int best = F[j - 1];
    if (const int t = T[at(1, j)]) best = std::min(best, add(C[at(1, j)], terminal_penalty(m, t)));
    if (const int t = T[at(1, j - 1)]) best = std::min(best, add(C[at(1, j - 1)], m.dangle3[t][a[j]] + terminal_penalty(m, t)));
    for (int i = 2; i <= j - 4; ++i) {
      if (const int t = T[at(i, j)]) {
        const int c = C[at(i, j)];
        if (c < kInf) {
          const int au = terminal_penalty(m, t);
          best = std::min(best, fv(i - 1) + c + au);
          best = std::min(best, fv(i - 2) + c + m.dangle5[t][a[i - 1]] + au);
        }
      }
      if (const int t = T[at(i, j - 1)]) {
        const int c = C[at(i, j - 1)];
        if (c < kInf) {
          const int au = terminal_penalty(m, t), d3 = m.dangle3[t][a[j]];
          best = std::min(best, fv(i - 1) + c + d3 + au);
          best = std::min(best, fv(i - 2) + c + d3 + m.dangle5[t][a[i - 1]] + au);
        }
      }
    }
    F[j] = best;
  }
  return F[n];
}

std::vector<int> fold_energies(const std::vector<std::string>& letters, const Model& m, int threads) {
  std::vector<int> out(letters.size(), 0);
  const long long count = static_cast<long long>(letters.size());
  if (threads <= 0) threads = omp_get_max_threads();
#pragma omp parallel num_threads(threads) if (threads > 1 && count > 1)
  {
    DuplexFolder folder;
#pragma omp for schedule(dynamic, 64)
    for (long long k = 0; k < count; ++k)
      out[static_cast<std::size_t>(k)] = folder.energy(letters[static_cast<std::size_t>(k)], m);
  }
  return out;
}

DuplexFolder& thread_duplex_folder() {
  thread_local DuplexFolder folder;
  return folder;
}

}  // namespace screen::energy
