#include "store/tables.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstring>

#include "common/error.hpp"
#include "seq/sequence_set.hpp"
#include "stages/bpmax/reference.hpp"
#include "stages/miranda/reference.hpp"
#include "stages/nussinov/reference.hpp"

namespace screen::store {

void hash_u64(Sha256& h, std::uint64_t v) {
  std::uint8_t b[8];
  for (int k = 0; k < 8; ++k) b[k] = static_cast<std::uint8_t>(v >> (8 * k));
  h.update(b, sizeof b);
}

void hash_i64(Sha256& h, std::int64_t v) { hash_u64(h, static_cast<std::uint64_t>(v)); }

void hash_f64(Sha256& h, double v) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  hash_u64(h, bits);
}

void hash_str(Sha256& h, const std::string& s) {
  hash_u64(h, s.size());
  h.update(s.data(), s.size());
}

std::vector<SequenceRow> sequence_rows(const std::string& set_name, const seq::SequenceSet& set) {
  std::vector<SequenceRow> rows;
  rows.reserve(set.size());
  for (const auto& r : set.records()) rows.push_back({set_name, r.name, r.length, r.index_in_file});
  return rows;
}

std::vector<SkippedRow> skipped_rows(const std::string& side, const std::string& set_name,
                                     const seq::SequenceSet& set) {
  std::vector<SkippedRow> rows;
  rows.reserve(set.skipped().size());
  for (const auto& s : set.skipped()) rows.push_back({side, set_name, s.name, s.index_in_file, s.length, s.reason});
  return rows;
}

NussinovRow nussinov_row(std::uint64_t sequence, const nussinov::FoldResult& r) {
  return {sequence, static_cast<std::int64_t>(r.score), r.structure};
}

void append_miranda_rows(std::uint64_t query, std::uint64_t target, const miranda::PairResult& r,
                         std::vector<MirandaHitRow>& hits, std::vector<MirandaPairRow>& pairs) {
  if (r.hits.empty()) return;
  MirandaPairRow pair{query, target, 0, 0, r.hits.front().score, 0, static_cast<std::uint8_t>(r.truncated ? 1 : 0)};
  std::int32_t rank = 0;
  for (const auto& h : r.hits) {
    hits.push_back({query, target, 0, rank++, h.score, h.qstart, h.qend, h.rstart, h.rend, h.align_len, h.identity,
                    h.similarity, h.query_line, h.match_line, h.target_line,
                    h.has_energy ? static_cast<double>(h.energy) / 100.0 : 0.0});
    pair.total_score += h.score;
    pair.max_score = std::max(pair.max_score, h.score);
    ++pair.hit_count;
  }
  pairs.push_back(pair);
}

BpmaxScoreRow bpmax_score_row(std::uint64_t query, std::uint64_t target, const bpmax::SiteResult& r) {
  return {query, target, 0, static_cast<std::int64_t>(r.score), r.query_begin, r.query_end, r.target_begin, r.target_end};
}

BpmaxStructureRow bpmax_structure_row(std::uint64_t query, std::uint64_t target, long long score,
                                      const bpmax::Structure& s) {
  return {query, target, 0, static_cast<std::int64_t>(score), s.dot_bracket, encode_inter(s.inter)};
}

void to_forward_strand(MirandaHitRow& r, std::int64_t target_length) {
  const auto flip = [target_length](std::int32_t p) { return static_cast<std::int32_t>(target_length + 1 - p); };
  const std::int32_t start = r.rstart, end = r.rend;
  r.rstart = flip(end);
  r.rend = flip(start);
  r.strand = 1;
}

void to_forward_strand(MirandaPairRow& r) { r.strand = 1; }

void to_forward_strand(BpmaxScoreRow& r, std::int64_t target_length) {
  r.strand = 1;
  if (r.target_end < r.target_begin) return;  // an empty interval (no site) stays as it is
  const std::int32_t b = r.target_begin, e = r.target_end;
  r.target_begin = static_cast<std::int32_t>(target_length + 1 - e);
  r.target_end = static_cast<std::int32_t>(target_length + 1 - b);
}

void to_forward_strand(BpmaxStructureRow& r, std::int64_t target_length) {
  r.strand = 1;
  std::vector<std::pair<int, int>> inter = decode_inter(r.inter);
  for (auto& [q, t] : inter) t = static_cast<int>(target_length + 1 - t);
  r.inter = encode_inter(inter);
}

std::string encode_inter(const std::vector<std::pair<int, int>>& inter) {
  std::string out;
  for (const auto& [q, t] : inter) {
    if (!out.empty()) out += ',';
    out += fmt::format("{}:{}", q, t);
  }
  return out;
}

std::vector<std::pair<int, int>> decode_inter(const std::string& text) {
  std::vector<std::pair<int, int>> out;
  if (text.empty()) return out;
  const char* p = text.data();
  const char* end = p + text.size();
  auto bad = [&text]() -> InputError {
    return InputError(fmt::format("intermolecular pairs: expected \"q:t,q:t,...\", got \"{}\"", text));
  };
  while (true) {
    int q = 0, t = 0;
    auto r1 = std::from_chars(p, end, q);
    if (r1.ec != std::errc() || r1.ptr == end || *r1.ptr != ':' || q < 1) throw bad();
    auto r2 = std::from_chars(r1.ptr + 1, end, t);
    if (r2.ec != std::errc() || t < 1) throw bad();
    out.emplace_back(q, t);
    if (r2.ptr == end) break;
    if (*r2.ptr != ',' || r2.ptr + 1 == end) throw bad();
    p = r2.ptr + 1;
  }
  return out;
}

}  // namespace screen::store
