#pragma once
// The row model of the store: one plain struct per table, and for each a Table<Row> trait that
// lists its columns (name + member) and its sort key. Everything generic (HDF5 columns, the
// canonical byte serialisation behind part checksums, ordering, equality) is written once over
// these column lists, so a table's layout lives in exactly one place: here.
//
// On disk every table is a group holding one 1-D dataset per column, all of one length (see
// table_io.hpp and docs/results.md). Column C++ types map to HDF5 types:
//   std::uint8_t -> H5T_STD_U8LE, std::int32_t -> H5T_STD_I32LE, std::int64_t -> H5T_STD_I64LE,
//   std::uint64_t -> H5T_STD_U64LE, double -> H5T_IEEE_F64LE, std::string -> variable-length UTF-8.
//
// Indices: "query" / "target" / "sequence" are 0-based row numbers in /queries or /targets (all sets
// of that side, in manifest order, records in file order). Positions are 1-based inclusive, on the
// target's forward strand (as written in its FASTA file) also for sites found on the reverse strand.
//
// Optional columns (opt_col): "strand" of the pair stages' tables, 0 = forward, 1 = the reverse
// complement (targets[].strand: both). Always written; a file without them (written before they
// existed) reads as forward; a row's checksum covers the value only when it is not 0, so rows of
// forward-only jobs hash as they always did.
// Scores of Nussinov and BPMax are integers in units of 1/score_scale (an attribute of the stage's
// group); miRanda scores are miRanda's integers.
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/sha256.hpp"

namespace screen::seq {
class SequenceSet;
}
namespace screen::nussinov {
struct FoldResult;
}
namespace screen::miranda {
struct PairResult;
}
namespace screen::bpmax {
struct SiteResult;
struct Structure;
}

namespace screen::store {

// ---- Rows ----

// /queries, /targets: one row per screened record.
struct SequenceRow {
  std::string set;                // the manifest's set name
  std::string name;               // record name (header up to the first white space)
  std::uint64_t length = 0;
  std::uint64_t index_in_file = 0;  // 0-based among all records of the file, skipped ones included
};

// /skipped: one row per record not screened.
struct SkippedRow {
  std::string side;               // "query" or "target"
  std::string set;
  std::string name;
  std::uint64_t index_in_file = 0;
  std::uint64_t length = 0;
  std::string reason;
};

// /nussinov/queries, /nussinov/targets: one row per folded sequence of that side.
struct NussinovRow {
  std::uint64_t sequence = 0;     // row in /queries or /targets
  std::int64_t score = 0;         // units of 1/score_scale
  std::string structure;          // dot-bracket; empty when traceback is off
};

// /miranda/hits: one row per reported site.
struct MirandaHitRow {
  std::uint64_t query = 0;
  std::uint64_t target = 0;
  std::uint8_t strand = 0;        // 0: the target as written; 1: its reverse complement
  std::int32_t rank = 0;          // 0-based place in miRanda's report order within the pair
  std::int32_t score = 0;
  std::int32_t qstart = 0, qend = 0;  // 1-based inclusive, as miRanda prints them
  std::int32_t rstart = 0, rend = 0;  // target positions, 1-based inclusive (flanks included)
  std::int32_t align_len = 0;
  double identity = 0.0;          // percent
  double similarity = 0.0;        // percent
  std::string query_aln;          // query 3'->5', flanks lower case
  std::string match_aln;          // '|', ':' or ' ' per column
  std::string target_aln;         // target 5'->3' (of the strand scanned: the reverse complement for strand 1)
  double energy = 0.0;            // duplex free energy, kcal/mol (0 when the run computed none)
};

// /miranda/pairs: one row per (query, target, strand) with at least one hit.
struct MirandaPairRow {
  std::uint64_t query = 0;
  std::uint64_t target = 0;
  std::uint8_t strand = 0;
  std::int64_t total_score = 0;   // sum of the reported hits' scores
  std::int32_t max_score = 0;
  std::int32_t hit_count = 0;     // reported hits
  std::uint8_t truncated = 0;     // 1: max_hits_per_pair was exceeded and further hits dropped
};

// /bpmax/scores: one row per screened (query, target, strand).
struct BpmaxScoreRow {
  std::uint64_t query = 0;
  std::uint64_t target = 0;
  std::uint8_t strand = 0;
  std::int64_t score = 0;         // site score, units of 1/score_scale
  std::int32_t query_begin = 0, query_end = 0;    // site interval on the query, 1-based inclusive
  std::int32_t target_begin = 0, target_end = 0;  // site interval on the target, forward, 1-based inclusive
};

// /bpmax/structures: one row per pair that traceback covered.
struct BpmaxStructureRow {
  std::uint64_t query = 0;
  std::uint64_t target = 0;
  std::uint8_t strand = 0;
  std::int64_t score = 0;         // the site score (= the structure's weight), units of 1/score_scale
  std::string structure;          // joint dot-bracket "query&target": ( ) intramolecular, [ ] intermolecular;
                                  // the target half reads the strand scanned 5'->3'
  std::string inter;              // intermolecular pairs "q:t,q:t,...", 1-based forward positions, by q
};

// /shards: one row per shard of the plan.
struct ShardRow {
  std::int64_t id = 0;
  std::uint64_t unit_begin = 0;   // the shard's work units [unit_begin, unit_end) in plan order
  std::uint64_t unit_end = 0;
  std::string status;             // "complete", or what the engine reports ("failed", "pending")
  double wall_seconds = 0.0;
  std::string device;
  std::string host;
  std::string part;               // part file name (no directory); empty without one
  std::string checksum;           // the part's content checksum
};

// ---- Column lists ----

template <class Row, class T>
struct Column {
  const char* name;
  T Row::*member;
  bool optional = false;  // may be absent on disk (reads as T{}); hashed only when not T{}
};
template <class Row, class T>
constexpr Column<Row, T> col(const char* name, T Row::*member) {
  return {name, member, false};
}
template <class Row, class T>
constexpr Column<Row, T> opt_col(const char* name, T Row::*member) {
  return {name, member, true};
}

// Table<Row>: columns() (a tuple of Column, in on-disk order), key(row) (the sort key; the full
// order is key, then every column in turn) and unique_key (no two rows of a table share a key).
template <class Row>
struct Table;

template <>
struct Table<SequenceRow> {
  static constexpr auto columns() {
    return std::make_tuple(col("set", &SequenceRow::set), col("name", &SequenceRow::name),
                           col("length", &SequenceRow::length), col("index_in_file", &SequenceRow::index_in_file));
  }
  static auto key(const SequenceRow&) { return std::make_tuple(); }
  static constexpr bool unique_key = false;
};

template <>
struct Table<SkippedRow> {
  static constexpr auto columns() {
    return std::make_tuple(col("side", &SkippedRow::side), col("set", &SkippedRow::set), col("name", &SkippedRow::name),
                           col("index_in_file", &SkippedRow::index_in_file), col("length", &SkippedRow::length),
                           col("reason", &SkippedRow::reason));
  }
  static auto key(const SkippedRow&) { return std::make_tuple(); }
  static constexpr bool unique_key = false;
};

template <>
struct Table<NussinovRow> {
  static constexpr auto columns() {
    return std::make_tuple(col("sequence", &NussinovRow::sequence), col("score", &NussinovRow::score),
                           col("structure", &NussinovRow::structure));
  }
  static auto key(const NussinovRow& r) { return std::make_tuple(r.sequence); }
  static constexpr bool unique_key = true;
};

template <>
struct Table<MirandaHitRow> {
  static constexpr auto columns() {
    using R = MirandaHitRow;
    return std::make_tuple(col("query", &R::query), col("target", &R::target), opt_col("strand", &R::strand),
                           col("rank", &R::rank),
                           col("score", &R::score), col("qstart", &R::qstart), col("qend", &R::qend),
                           col("rstart", &R::rstart), col("rend", &R::rend), col("align_len", &R::align_len),
                           col("identity", &R::identity), col("similarity", &R::similarity),
                           col("query_aln", &R::query_aln), col("match_aln", &R::match_aln),
                           col("target_aln", &R::target_aln), col("energy", &R::energy));
  }
  // By pair and strand, then by position on the target (rank keeps report order recoverable).
  static auto key(const MirandaHitRow& r) {
    return std::make_tuple(r.query, r.target, r.strand, r.rstart, r.rend, r.qstart, r.qend, r.rank);
  }
  static constexpr bool unique_key = false;  // (query, target, strand, rank) is unique; checked separately
};

template <>
struct Table<MirandaPairRow> {
  static constexpr auto columns() {
    using R = MirandaPairRow;
    return std::make_tuple(col("query", &R::query), col("target", &R::target), opt_col("strand", &R::strand),
                           col("total_score", &R::total_score),
                           col("max_score", &R::max_score), col("hit_count", &R::hit_count),
                           col("truncated", &R::truncated));
  }
  static auto key(const MirandaPairRow& r) { return std::make_tuple(r.query, r.target, r.strand); }
  static constexpr bool unique_key = true;
};

template <>
struct Table<BpmaxScoreRow> {
  static constexpr auto columns() {
    using R = BpmaxScoreRow;
    return std::make_tuple(col("query", &R::query), col("target", &R::target), opt_col("strand", &R::strand),
                           col("score", &R::score), col("query_begin", &R::query_begin), col("query_end", &R::query_end),
                           col("target_begin", &R::target_begin), col("target_end", &R::target_end));
  }
  static auto key(const BpmaxScoreRow& r) { return std::make_tuple(r.query, r.target, r.strand); }
  static constexpr bool unique_key = true;
};

template <>
struct Table<BpmaxStructureRow> {
  static constexpr auto columns() {
    using R = BpmaxStructureRow;
    return std::make_tuple(col("query", &R::query), col("target", &R::target), opt_col("strand", &R::strand),
                           col("score", &R::score), col("structure", &R::structure), col("inter", &R::inter));
  }
  static auto key(const BpmaxStructureRow& r) { return std::make_tuple(r.query, r.target, r.strand); }
  static constexpr bool unique_key = true;
};

template <>
struct Table<ShardRow> {
  static constexpr auto columns() {
    using R = ShardRow;
    return std::make_tuple(col("id", &R::id), col("unit_begin", &R::unit_begin), col("unit_end", &R::unit_end),
                           col("status", &R::status), col("wall_seconds", &R::wall_seconds),
                           col("device", &R::device), col("host", &R::host), col("part", &R::part),
                           col("checksum", &R::checksum));
  }
  static auto key(const ShardRow& r) { return std::make_tuple(r.id); }
  static constexpr bool unique_key = true;
};

// ---- Generic operations ----

template <class Row, class F>
void for_each_column(F&& f) {
  std::apply([&f](auto... c) { (f(c), ...); }, Table<Row>::columns());
}

// Every column equal (doubles compared bit for bit, so NaN == NaN and 0.0 != -0.0).
template <class Row>
bool rows_equal(const Row& a, const Row& b);

// Strict weak order: key, then every column in on-disk order.
template <class Row>
bool row_less(const Row& a, const Row& b);

// "name=value, ..." for messages and test failures.
template <class Row>
std::string describe(const Row& r);

// The canonical serialisation of a row, fed to h: each column in order; integers as 8-byte
// little-endian two's complement (unsigned values as their 64-bit pattern), doubles as the 8
// little-endian bytes of their IEEE-754 bit pattern, strings as an 8-byte little-endian length
// followed by the bytes.
template <class Row>
void hash_row(Sha256& h, const Row& r);

// Canonical bytes of single values (used by the part header serialisation as well).
void hash_u64(Sha256& h, std::uint64_t v);
void hash_i64(Sha256& h, std::int64_t v);
void hash_f64(Sha256& h, double v);
void hash_str(Sha256& h, const std::string& s);

// ---- From stage results ----

// Rows of the screened records of one set (indices into the set) and of its skipped records.
std::vector<SequenceRow> sequence_rows(const std::string& set_name, const seq::SequenceSet& set);
std::vector<SkippedRow> skipped_rows(const std::string& side, const std::string& set_name, const seq::SequenceSet& set);

NussinovRow nussinov_row(std::uint64_t sequence, const nussinov::FoldResult& r);
// Appends the pair's hits (rank = report order) and, when it has any, its pair row. The indices are
// the caller's (rows of /queries and /targets), not those stored in the PairResult.
void append_miranda_rows(std::uint64_t query, std::uint64_t target, const miranda::PairResult& r,
                         std::vector<MirandaHitRow>& hits, std::vector<MirandaPairRow>& pairs);
BpmaxScoreRow bpmax_score_row(std::uint64_t query, std::uint64_t target, const bpmax::SiteResult& r);
// The structure row of a site result that carries a structure.
BpmaxStructureRow bpmax_structure_row(std::uint64_t query, std::uint64_t target, long long score,
                                      const bpmax::Structure& s);

// Rows of a scan of a target's reverse complement (length `target_length`), made by the functions
// above from positions on that reverse complement: strand set to 1 and every target position p
// turned into its forward-strand position target_length + 1 - p (intervals swap their ends, an empty
// one stays as it is; the intermolecular pairs stay sorted by query position). Alignment and
// structure strings are kept as scanned.
void to_forward_strand(MirandaHitRow& r, std::int64_t target_length);
void to_forward_strand(MirandaPairRow& r);
void to_forward_strand(BpmaxScoreRow& r, std::int64_t target_length);
void to_forward_strand(BpmaxStructureRow& r, std::int64_t target_length);

// The intermolecular pair encoding: "q:t,q:t" (1-based forward positions, sorted by q); "" for none.
std::string encode_inter(const std::vector<std::pair<int, int>>& inter);
// Parses encode_inter's text; throws InputError on anything else.
std::vector<std::pair<int, int>> decode_inter(const std::string& text);

}  // namespace screen::store

#include "store/tables_impl.hpp"
