// The recurrences of docs/energy.md, literally: 1-based positions, full tables, D recomputed where
// it is used. The traceback repeats each minimum's terms and follows the first that attains it.
#include "stages/energy/reference.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <vector>

#include "common/error.hpp"

namespace screen::energy {

int tetraloop_bonus(const Model& m, const char* six) {
  for (int k = 0; k < m.tetraloop_count; ++k)
    if (std::memcmp(m.tetraloop[k], six, 6) == 0) return m.tetraloop_bonus[k];
  return 0;
}

namespace {

int add(int a, int b) { return a >= kInf || b >= kInf ? kInf : a + b; }

class Folder {
 public:
  Folder(const std::string& letters, const Model& m)
      : m_(m), s_(letters), n_(static_cast<int>(letters.size())), code_(n_ + 2, 0), alias_(n_ + 2, 0),
        C_((n_ + 2) * (n_ + 2), kInf), M_((n_ + 2) * (n_ + 2), kInf), F_(n_ + 1, 0) {
    for (int i = 1; i <= n_; ++i) {
      code_[i] = letter_code(s_[static_cast<std::size_t>(i - 1)]);
      alias_[i] = letter_alias(code_[i]);
    }
  }

  int fill() {
    for (int d = 4; d < n_; ++d)
      for (int i = 1; i + d <= n_; ++i) {
        const int j = i + d;
        c(i, j) = c_terms(i, j, nullptr);
        m(i, j) = m_terms(i, j, nullptr);
      }
    for (int j = 5; j <= n_; ++j) F_[j] = f_terms(j, nullptr);
    return n_ >= 1 ? F_[n_] : 0;
  }

  // Tables filled elsewhere (a fast path), for traceback(): C and M for 1 <= i <= j <= n, F(0..n).
  void load(const CellValue& cv, const CellValue& mv_, const std::function<int(int)>& f) {
    for (int i = 1; i <= n_; ++i)
      for (int j = i + 4; j <= n_; ++j) {
        c(i, j) = cv(i, j);
        m(i, j) = mv_(i, j);
      }
    for (int j = 0; j <= n_; ++j) F_[static_cast<std::size_t>(j)] = f(j);
  }

  std::string traceback() {
    std::string out(static_cast<std::size_t>(n_), '.');
    std::vector<Item> stack{{'F', 0, n_}};
    while (!stack.empty()) {
      const Item it = stack.back();
      stack.pop_back();
      if (it.kind == 'F' && it.j <= 4) continue;
      std::vector<Item> next;
      bool found = false;
      int target = 0;
      switch (it.kind) {
        case 'F': target = F_[static_cast<std::size_t>(it.j)]; break;
        case 'C': target = c(it.i, it.j); break;
        case 'M': target = m(it.i, it.j); break;
        default: target = d_value(it.i, it.j); break;
      }
      const Visit take = [&](int v, const std::vector<Item>& parts) {
        if (v != target) return false;
        next = parts;
        found = true;
        return true;
      };
      switch (it.kind) {
        case 'F': f_terms(it.j, take); break;
        case 'C':
          out[static_cast<std::size_t>(it.i - 1)] = '(';
          out[static_cast<std::size_t>(it.j - 1)] = ')';
          c_terms(it.i, it.j, take);
          break;
        case 'M': m_terms(it.i, it.j, take); break;
        default:
          for (int k = it.i + 4; k <= it.j - 5 && !found; ++k)
            if (add(mv(it.i, k), mv(k + 1, it.j)) == target) {
              next = {{'M', it.i, k}, {'M', k + 1, it.j}};
              found = true;
            }
      }
      if (!found) throw Error(ExitCode::internal, "energy reference: traceback found no term");
      stack.insert(stack.end(), next.begin(), next.end());
    }
    return out;
  }

 private:
  struct Item {
    char kind;
    int i, j;
  };
  // A callback gets each term with the parts it is made of; returning true stops the search.
  using Visit = std::function<bool(int, const std::vector<Item>&)>;

  int& c(int i, int j) { return C_[static_cast<std::size_t>(i * (n_ + 2) + j)]; }
  int& m(int i, int j) { return M_[static_cast<std::size_t>(i * (n_ + 2) + j)]; }
  int type(int i, int j) const { return i >= 1 && j <= n_ && j - i >= 4 ? pair_type(code_[i], code_[j]) : 0; }
  int a(int k) const { return alias_[static_cast<std::size_t>(k)]; }
  int au(int t) const { return terminal_penalty(m_, t); }
  int mv(int i, int j) { return i >= 1 && j <= n_ && j - i >= 4 ? m(i, j) : kInf; }
  int cv(int i, int j) { return type(i, j) ? c(i, j) : kInf; }
  int fv(int j) const { return j <= 0 ? 0 : F_[static_cast<std::size_t>(j)]; }
  int d_value(int i, int j) {
    int best = kInf;
    for (int k = i + 4; k <= j - 5; ++k) best = std::min(best, add(mv(i, k), mv(k + 1, j)));
    return best;
  }

  // Each *_terms function returns the minimum over its terms; with a visitor it offers the terms in
  // order and stops at the first the visitor takes (the traceback).
  template <class Offer>
  static bool offer(Offer& visit, int& best, int v, std::initializer_list<Item> parts) {
    if (v < best) best = v;
    if (visit && v < kInf && visit(v, std::vector<Item>(parts))) return true;
    return false;
  }

  int c_terms(int i, int j, const Visit& visit) {
    const int t = type(i, j);
    if (!t) return kInf;
    int best = kInf;
    const int u = j - i - 1;
    const int hp = hairpin_energy(m_, t, u, u == 4 ? tetraloop_bonus(m_, s_.c_str() + i - 1) : 0, a(i + 1), a(j - 1));
    if (offer(visit, best, hp, {})) return best;
    for (int p = i + 1; p <= j - 5; ++p) {
      const int n1 = p - i - 1;
      if (n1 > kMaxLoop) break;
      for (int q = j - 1; q >= p + 4; --q) {
        const int n2 = j - q - 1;
        if (n1 + n2 > kMaxLoop) break;
        const int t2 = type(p, q);
        if (!t2) continue;
        const int e = interior_energy(m_, t, reverse_type(t2), n1, n2, a(i + 1), a(j - 1), a(p - 1), a(q + 1));
        if (offer(visit, best, add(e, c(p, q)), {{'C', p, q}})) return best;
      }
    }
    const int tt = reverse_type(t);
    const int d3 = m_.dangle3[tt][a(i + 1)], d5 = m_.dangle5[tt][a(j - 1)];
    const int close = m_.ml_closing + m_.ml_intern[t];
    if (offer(visit, best, add(close, d_value(i + 1, j - 1)), {{'D', i + 1, j - 1}})) return best;
    if (offer(visit, best, add(close + d3 + m_.ml_base, d_value(i + 2, j - 1)), {{'D', i + 2, j - 1}})) return best;
    if (offer(visit, best, add(close + d5 + m_.ml_base, d_value(i + 1, j - 2)), {{'D', i + 1, j - 2}})) return best;
    if (offer(visit, best, add(close + d5 + d3 + 2 * m_.ml_base, d_value(i + 2, j - 2)), {{'D', i + 2, j - 2}}))
      return best;
    return best;
  }

  int m_terms(int i, int j, const Visit& visit) {
    int best = kInf;
    const int mb = m_.ml_base;
    if (offer(visit, best, add(mv(i + 1, j), mb), {{'M', i + 1, j}})) return best;
    if (offer(visit, best, add(mv(i, j - 1), mb), {{'M', i, j - 1}})) return best;
    if (int t = type(i, j); t && offer(visit, best, add(c(i, j), m_.ml_intern[t]), {{'C', i, j}})) return best;
    if (int t = type(i + 1, j);
        t && offer(visit, best, add(c(i + 1, j), m_.dangle5[t][a(i)] + m_.ml_intern[t] + mb), {{'C', i + 1, j}}))
      return best;
    if (int t = type(i, j - 1);
        t && offer(visit, best, add(c(i, j - 1), m_.dangle3[t][a(j)] + m_.ml_intern[t] + mb), {{'C', i, j - 1}}))
      return best;
    if (int t = type(i + 1, j - 1);
        t && offer(visit, best,
                   add(c(i + 1, j - 1), m_.dangle5[t][a(i)] + m_.dangle3[t][a(j)] + m_.ml_intern[t] + 2 * mb),
                   {{'C', i + 1, j - 1}}))
      return best;
    if (offer(visit, best, d_value(i, j), {{'D', i, j}})) return best;
    return best;
  }

  int f_terms(int j, const Visit& visit) {
    int best = kInf;
    if (offer(visit, best, fv(j - 1), {{'F', 0, j - 1}})) return best;
    if (int t = type(1, j); t && offer(visit, best, add(c(1, j), au(t)), {{'C', 1, j}})) return best;
    if (int t = type(1, j - 1); t && offer(visit, best, add(c(1, j - 1), m_.dangle3[t][a(j)] + au(t)), {{'C', 1, j - 1}}))
      return best;
    for (int i = 2; i <= j - 4; ++i) {
      if (int t = type(i, j); t) {
        if (offer(visit, best, add(fv(i - 1), add(c(i, j), au(t))), {{'F', 0, i - 1}, {'C', i, j}})) return best;
        if (offer(visit, best, add(fv(i - 2), add(c(i, j), m_.dangle5[t][a(i - 1)] + au(t))),
                  {{'F', 0, i - 2}, {'C', i, j}}))
          return best;
      }
      if (int t = type(i, j - 1); t) {
        if (offer(visit, best, add(fv(i - 1), add(c(i, j - 1), m_.dangle3[t][a(j)] + au(t))),
                  {{'F', 0, i - 1}, {'C', i, j - 1}}))
          return best;
        if (offer(visit, best, add(fv(i - 2), add(c(i, j - 1), m_.dangle3[t][a(j)] + m_.dangle5[t][a(i - 1)] + au(t))),
                  {{'F', 0, i - 2}, {'C', i, j - 1}}))
          return best;
      }
    }
    return best;
  }

  const Model& m_;
  const std::string& s_;
  int n_;
  std::vector<int> code_, alias_;
  std::vector<int> C_, M_, F_;
};

}  // namespace

std::string traceback_with_tables(const std::string& letters, const Model& m, const CellValue& c, const CellValue& mm,
                                  const std::function<int(int)>& f) {
  if (letters.size() < 5) return std::string(letters.size(), '.');
  Folder folder(letters, m);
  folder.load(c, mm, f);
  return folder.traceback();
}

FoldResult fold_reference(const std::string& letters, const Model& m, bool with_structure) {
  Folder f(letters, m);
  FoldResult r;
  r.energy = f.fill();
  if (with_structure) r.structure = f.traceback();
  return r;
}

}  // namespace screen::energy
