// miRanda fast CPU path for one pair: scan candidates, then the reference's post-processing with
// windowed tracebacks.
#include "stages/miranda/cpu.hpp"

#include <algorithm>
#include <utility>

#include "common/error.hpp"

namespace screen::miranda {

int alignment_window_begin(int query_length, int end_column, int score, int gain, const ScoreModel& m) {
  const int span = max_positive_span(query_length, m);
  if (span < 0) return 1;
  // The cheapest gap cost, as max_positive_span takes it (positive).
  int g = -m.extend;
  for (const int c : {-m.open, -m.seed_open, -m.seed_extend}) g = std::min(g, c);
  const int extra = score >= gain ? 0 : (gain - score) / g;
  const long long begin = static_cast<long long>(end_column) - query_length - extra - 2;
  // Never a longer window than the reference's bound (both are exact).
  const int reference = traceback_window_begin(query_length, end_column, m);
  return static_cast<int>(std::max<long long>({1LL, begin, static_cast<long long>(reference)}));
}

PairResult finish_pair(const SeqView& query, const SeqView& target, const Params& params,
                       const ScoreModel& model, std::vector<Candidate> candidates,
                       std::size_t query_index, std::size_t target_index, bool defer_energy) {
  HitCollector collector(query, target, params, query_index, target_index, defer_energy);
  if (candidates.empty()) return collector.take();
  sort_candidates(candidates);
  const std::vector<Candidate> survivors = suppress_diagonals(candidates);
  const int lq = static_cast<int>(query.length);

  // Traceback windows, merged where they overlap or nearly touch, so that no column is computed
  // twice: survivors can be many (low thresholds), and their windows overlap.
  struct Window {
    int begin = 1, end = 0;
    std::vector<std::size_t> members;  // survivors traced on this window
  };
  std::vector<std::size_t> by_begin(survivors.size());
  std::vector<int> begins(survivors.size());
  const int gain = max_cell_gain(lq, model);
  for (std::size_t k = 0; k < survivors.size(); ++k) {
    by_begin[k] = k;
    begins[k] = alignment_window_begin(lq, survivors[k].j, survivors[k].score, gain, model);
  }
  std::sort(by_begin.begin(), by_begin.end(), [&](std::size_t a, std::size_t b) {
    return begins[a] != begins[b] ? begins[a] < begins[b] : a < b;
  });
  std::vector<Window> windows;
  for (const std::size_t k : by_begin) {
    const int b = begins[k], e = survivors[k].j;
    if (windows.empty() || b > windows.back().end + 1) {
      windows.push_back(Window{b, e, {}});
    } else {
      windows.back().end = std::max(windows.back().end, e);
    }
    windows.back().members.push_back(k);
  }

  std::vector<Alignment> traced(survivors.size());
  thread_local DpMatrix m;  // reused from pair to pair (no allocation per pair)
  for (const Window& w : windows) {
    m.compute(query, target, model, w.begin, w.end);
    for (const std::size_t k : w.members) {
      const Candidate& c = survivors[k];
      traced[k] = trace_back(m, c);
      if (traced[k].score != c.score || m.best(c.i, c.j).state != c.state) {
        throw Error(ExitCode::internal, "miranda: a traceback window did not reproduce its candidate");
      }
    }
  }
  for (const Alignment& a : traced) {
    if (!collector.offer(a)) break;
  }
  return collector.take();
}

PairResult align_pair_cpu(const SeqView& query, const SeqView& target, const Params& params,
                          std::size_t query_index, std::size_t target_index, ScanIsa isa) {
  const ScoreModel model = make_score_model(params);
  if (query.length == 0 || target.length == 0 ||
      max_positive_span(static_cast<int>(query.length), model) < 0) {
    return align_pair(query, target, params, query_index, target_index);
  }
  return finish_pair(query, target, params, model, scan_candidates(query, target, model, isa), query_index,
                     target_index);
}

}  // namespace screen::miranda
