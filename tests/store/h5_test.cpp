// RAII wrappers over HDF5: attributes, columns, compound rows, strings, and errors that name the
// file and the object.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "store/h5.hpp"
#include "store/table_io.hpp"
#include "store_test_util.hpp"

namespace screen::store {

// /miranda/pairs as written before the strand column existed (reading old files).
struct PairRowWithoutStrand {
  std::uint64_t query = 0, target = 0;
  std::int64_t total_score = 0;
  std::int32_t max_score = 0, hit_count = 0;
  std::uint8_t truncated = 0;
};
template <>
struct Table<PairRowWithoutStrand> {
  static constexpr auto columns() {
    using R = PairRowWithoutStrand;
    return std::make_tuple(col("query", &R::query), col("target", &R::target), col("total_score", &R::total_score),
                           col("max_score", &R::max_score), col("hit_count", &R::hit_count),
                           col("truncated", &R::truncated));
  }
  static auto key(const PairRowWithoutStrand& r) { return std::make_tuple(r.query, r.target); }
  static constexpr bool unique_key = true;
};

namespace {

using testing::TempDir;

// The message of the ResourceError `f` throws ("" and a test failure when it throws nothing).
template <class F>
std::string resource_error(F&& f) {
  try {
    f();
  } catch (const ResourceError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ResourceError";
  return "";
}

TEST(H5, AttributesRoundTrip) {
  TempDir dir;
  const std::string path = dir.file("a.h5");
  {
    h5::File f = h5::File::create(path);
    h5::Group g = f.create_group("g");
    g.set_int("i", -1234567890123LL);
    g.set_uint("u", 18446744073709551615ULL);
    g.set_double("d", 0.1);
    g.set_bool("yes", true);
    g.set_bool("no", false);
    g.set_string("s", "stage \xce\xb1 params\nline 2");
    g.set_string("empty", "");
    g.set_strings("list", {"a", "", "ccc"});
    g.set_strings("none", {});
    g.set_int("i", 7);  // replaced, not duplicated
    g.close();
    f.close();
  }
  const h5::File f = h5::File::open(path);
  const h5::Group g = f.open_group("g");
  EXPECT_EQ(g.get_int("i"), 7);
  EXPECT_EQ(g.get_uint("u"), 18446744073709551615ULL);
  EXPECT_EQ(g.get_double("d"), 0.1);
  EXPECT_TRUE(g.get_bool("yes"));
  EXPECT_FALSE(g.get_bool("no"));
  EXPECT_EQ(g.get_string("s"), "stage \xce\xb1 params\nline 2");
  EXPECT_EQ(g.get_string("empty"), "");
  EXPECT_EQ(g.get_strings("list"), (std::vector<std::string>{"a", "", "ccc"}));
  EXPECT_TRUE(g.get_strings("none").empty());
  EXPECT_TRUE(g.has_attribute("list"));
  EXPECT_FALSE(g.has_attribute("nothing"));
  EXPECT_EQ(f.children(), (std::vector<std::string>{"g"}));
}

TEST(H5, ErrorsNameTheFileAndTheObject) {
  TempDir dir;
  const std::string missing = dir.file("missing.h5");
  std::string msg = resource_error([&] { h5::File::open(missing); });
  EXPECT_NE(msg.find(missing), std::string::npos) << msg;
  EXPECT_NE(msg.find("H5Fopen"), std::string::npos) << msg;

  const std::string path = dir.file("e.h5");
  h5::File f = h5::File::create(path);
  h5::Group g = f.create_group("grp");
  msg = resource_error([&] { g.open_dataset("nope"); });
  EXPECT_NE(msg.find(path + ": /grp/nope: H5Dopen2 failed"), std::string::npos) << msg;
  msg = resource_error([&] { g.create_group("sub").create_group("x").open_group("deeper"); });
  EXPECT_NE(msg.find("/grp/sub/x/deeper"), std::string::npos) << msg;
  msg = resource_error([&] { (void)g.get_int("absent"); });
  EXPECT_NE(msg.find("/grp @absent"), std::string::npos) << msg;
  EXPECT_NE(msg.find("missing"), std::string::npos) << msg;
  g.set_string("text", "x");
  msg = resource_error([&] { (void)g.get_int("text"); });  // no string -> integer conversion
  EXPECT_NE(msg.find("/grp @text: H5Aread failed"), std::string::npos) << msg;
  msg = resource_error([&] { g.create_group("sub"); });    // exists already
  EXPECT_NE(msg.find("/grp/sub: H5Gcreate2 failed"), std::string::npos) << msg;

  // Not an HDF5 file at all.
  const std::string text = dir.file("text.h5");
  testing::spit(text, "just some text, not HDF5\n");
  msg = resource_error([&] { h5::File::open(text); });
  EXPECT_NE(msg.find(text), std::string::npos) << msg;
}

TEST(H5, HandlesCloseOnDestructionAndCloseIsChecked) {
  TempDir dir;
  const std::string path = dir.file("c.h5");
  h5::File f = h5::File::create(path);
  {
    h5::Group g = f.create_group("g");
    h5::Dataset d = g.create_table_dataset("col", H5T_STD_I32LE, 16);
    const std::int32_t v[3] = {1, 2, 3};
    d.append(v, 3, H5T_NATIVE_INT32);
  }  // g and d closed here: the file closes cleanly (the "semi" close degree refuses open objects)
  EXPECT_EQ(H5Fget_obj_count(f.id(), H5F_OBJ_ALL), 1);
  {
    h5::Group kept = f.open_group("g");
    const std::string msg = resource_error([&] { f.close(); });  // an object still open: checked, reported
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
  }
  // The failed close left the id released; a moved-from handle is invalid and closes nothing.
  h5::File g = h5::File::open(path);
  h5::File moved = std::move(g);
  EXPECT_FALSE(g.valid());  // NOLINT(bugprone-use-after-move)
  EXPECT_TRUE(moved.valid());
  EXPECT_EQ(moved.open_group("g").open_dataset("col").rows(), 3u);
}

TEST(H5, ChunkedCompressedColumnsAppendAndRead) {
  TempDir dir;
  const std::string path = dir.file("col.h5");
  h5::File f = h5::File::create(path);
  h5::Dataset d = f.create_table_dataset("x", H5T_STD_I64LE, 1000);
  std::vector<std::int64_t> a(2500), b(10);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::int64_t>(i * i) - 7;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = -static_cast<std::int64_t>(i);
  d.append(a.data(), a.size(), H5T_NATIVE_INT64);
  d.append(b.data(), 0, H5T_NATIVE_INT64);  // nothing
  d.append(b.data(), b.size(), H5T_NATIVE_INT64);
  ASSERT_EQ(d.rows(), 2510u);
  std::vector<std::int64_t> back(2510);
  d.read(back.data(), 0, back.size(), H5T_NATIVE_INT64);
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(back[i], a[i]);
  for (std::size_t i = 0; i < b.size(); ++i) ASSERT_EQ(back[2500 + i], b[i]);
  std::vector<std::int64_t> part(5);
  d.read(part.data(), 2498, 5, H5T_NATIVE_INT64);
  EXPECT_EQ(part[0], a[2498]);
  EXPECT_EQ(part[2], b[0]);
  const std::string msg = resource_error([&] { d.read(part.data(), 2508, 5, H5T_NATIVE_INT64); });
  EXPECT_NE(msg.find("/x"), std::string::npos) << msg;

  // Chunked; shuffle, deflate, then a Fletcher-32 checksum.
  const hid_t dcpl = H5Dget_create_plist(d.id());
  ASSERT_GE(dcpl, 0);
  EXPECT_EQ(H5Pget_layout(dcpl), H5D_CHUNKED);
  hsize_t chunk = 0;
  EXPECT_EQ(H5Pget_chunk(dcpl, 1, &chunk), 1);
  EXPECT_EQ(chunk, 1000u);
  ASSERT_EQ(H5Pget_nfilters(dcpl), 3);
  unsigned flags = 0;
  unsigned values[8] = {};
  unsigned conf = 0;
  std::size_t nelem = 8;
  EXPECT_EQ(H5Pget_filter2(dcpl, 0, &flags, &nelem, values, 0, nullptr, &conf), H5Z_FILTER_SHUFFLE);
  nelem = 8;
  EXPECT_EQ(H5Pget_filter2(dcpl, 1, &flags, &nelem, values, 0, nullptr, &conf), H5Z_FILTER_DEFLATE);
  EXPECT_EQ(values[0], static_cast<unsigned>(h5::kTableDeflateLevel));  // deflate level
  EXPECT_EQ(h5::kTableDeflateLevel, 1);
  nelem = 8;
  EXPECT_EQ(H5Pget_filter2(dcpl, 2, &flags, &nelem, values, 0, nullptr, &conf), H5Z_FILTER_FLETCHER32);
  H5Pclose(dcpl);
}

TEST(H5, CompoundRows) {
  struct Rec {
    std::int32_t a;
    double b;
    std::uint8_t c;
  };
  TempDir dir;
  const std::string path = dir.file("compound.h5");
  {
    h5::File f = h5::File::create(path);
    h5::Datatype t = h5::Datatype::compound(sizeof(Rec), f.where());
    t.insert("a", offsetof(Rec, a), H5T_NATIVE_INT32);
    t.insert("b", offsetof(Rec, b), H5T_NATIVE_DOUBLE);
    t.insert("c", offsetof(Rec, c), H5T_NATIVE_UINT8);
    h5::Dataset d = f.create_table_dataset("recs", t.id(), h5::chunk_rows_for(sizeof(Rec), 3));
    const Rec rows[3] = {{1, 0.5, 7}, {-2, 1e300, 0}, {3, -0.0, 255}};
    d.append(rows, 2, t.id());
    d.append(rows + 2, 1, t.id());
  }
  const h5::File f = h5::File::open(path);
  const h5::Dataset d = f.open_dataset("recs");
  h5::Datatype t = h5::Datatype::compound(sizeof(Rec), f.where());
  t.insert("a", offsetof(Rec, a), H5T_NATIVE_INT32);
  t.insert("b", offsetof(Rec, b), H5T_NATIVE_DOUBLE);
  t.insert("c", offsetof(Rec, c), H5T_NATIVE_UINT8);
  std::vector<Rec> back(d.rows());
  ASSERT_EQ(back.size(), 3u);
  d.read(back.data(), 0, 3, t.id());
  EXPECT_EQ(back[0].a, 1);
  EXPECT_EQ(back[1].b, 1e300);
  EXPECT_EQ(back[2].c, 255);
  EXPECT_EQ(d.type().type_class(), H5T_COMPOUND);
}

TEST(H5, VariableLengthStrings) {
  TempDir dir;
  const std::string path = dir.file("s.h5");
  std::string long_one(300000, '.');
  for (std::size_t i = 0; i < long_one.size(); i += 7) long_one[i] = '(';
  const std::vector<std::string> v = {"", "ACGU", "\xc3\xa9t\xc3\xa9", long_one, "a\tb\nc"};
  {
    h5::File f = h5::File::create(path);
    const h5::Datatype t = h5::Datatype::utf8_string(f.where());
    h5::Dataset d = f.create_table_dataset("s", t.id(), 2);
    d.append_strings(v);
    d.append_strings({});
  }
  const h5::File f = h5::File::open(path);
  const h5::Dataset d = f.open_dataset("s");
  EXPECT_TRUE(d.type().is_variable_string());
  EXPECT_EQ(d.read_strings(0, d.rows()), v);
  EXPECT_EQ(d.read_strings(3, 1), std::vector<std::string>{long_one});
}

TEST(H5, TablesRoundTripAndColumnLengthsAreChecked) {
  TempDir dir;
  const std::string path = dir.file("t.h5");
  const std::vector<SkippedRow> rows = {{"query", "mirs", "hsa-1", 3, 12, "shorter than min_length 18"},
                                        {"target", "utr", "NM_1", 9, 0, "invalid character 'X' at line 5, column 3"}};
  {
    h5::File f = h5::File::create(path);
    write_table(f, "skipped", rows);
    write_table(f, "empty", std::vector<ShardRow>{});
  }
  {
    const h5::File f = h5::File::open(path);
    testing::expect_rows_equal(read_table<SkippedRow>(f, "skipped"), rows, "skipped");
    EXPECT_TRUE(read_table<ShardRow>(f, "empty").empty());
    EXPECT_EQ(f.open_group("skipped").get_strings("columns"),
              (std::vector<std::string>{"side", "set", "name", "index_in_file", "length", "reason"}));
    // A table read as another row type misses columns: reported with the path.
    const std::string msg = resource_error([&] { read_table<NussinovRow>(f, "skipped"); });
    EXPECT_NE(msg.find("/skipped/sequence"), std::string::npos) << msg;
  }
  {
    h5::File f = h5::File::open(path, true);
    h5::Dataset len = f.open_group("skipped").open_dataset("length");
    const std::uint64_t extra = 1;
    len.append(&extra, 1, H5T_NATIVE_UINT64);
  }
  const h5::File f = h5::File::open(path);
  const std::string msg = resource_error([&] { read_table<SkippedRow>(f, "skipped"); });
  EXPECT_NE(msg.find("/skipped/"), std::string::npos) << msg;
  EXPECT_NE(msg.find("3 rows"), std::string::npos) << msg;
}

TEST(Tables, OrderEqualityAndCanonicalHash) {
  MirandaHitRow a;
  a.query = 1;
  a.target = 2;
  a.rstart = 10;
  MirandaHitRow b = a;
  EXPECT_TRUE(rows_equal(a, b));
  EXPECT_FALSE(row_less(a, b));
  b.rstart = 9;
  EXPECT_TRUE(row_less(b, a));   // position on the target orders hits of a pair
  b = a;
  b.target = 1;
  b.rstart = 99;
  EXPECT_TRUE(row_less(b, a));   // the pair first
  b = a;
  b.query_aln = "x";
  EXPECT_FALSE(rows_equal(a, b));
  EXPECT_TRUE(row_less(a, b));   // ties broken by every column
  b = a;
  b.identity = -0.0;
  EXPECT_FALSE(rows_equal(a, b));  // bit for bit

  auto digest = [](const auto& r) {
    Sha256 h;
    hash_row(h, r);
    return h.hex_digest();
  };
  NussinovRow n1{3, 10, "((...))"}, n2{3, 10, "((...))"};
  EXPECT_EQ(digest(n1), digest(n2));
  n2.structure = "(.....)";
  EXPECT_NE(digest(n1), digest(n2));
  // Strings are length-prefixed: moving a character between columns changes the hash.
  BpmaxStructureRow s1{0, 0, 0, 0, "ab", "c"}, s2{0, 0, 0, 0, "a", "bc"};
  EXPECT_NE(digest(s1), digest(s2));
  // The serialisation is fixed: sequence 1, score -1, structure "" is these 24 bytes.
  Sha256 expect;
  const unsigned char bytes[24] = {1, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                   0, 0, 0, 0, 0, 0, 0, 0};
  expect.update(bytes, sizeof bytes);
  EXPECT_EQ(digest(NussinovRow{1, -1, ""}), expect.hex_digest());
}

TEST(Tables, OptionalStrandColumnReadsOldFilesAndKeepsOldChecksums) {
  TempDir dir;
  const std::string path = dir.file("old.h5");
  {
    h5::File f = h5::File::create(path);
    write_table(f, "pairs", std::vector<PairRowWithoutStrand>{{2, 5, 300, 160, 2, 0}, {3, 1, 150, 150, 1, 1}});
    write_table(f, "now", std::vector<MirandaPairRow>{{2, 5, 1, 300, 160, 2, 0}});
  }
  h5::File f = h5::File::open(path);
  const auto old = read_table<MirandaPairRow>(f, "pairs");  // no strand column: forward
  ASSERT_EQ(old.size(), 2u);
  EXPECT_EQ(old[0].strand, 0);
  EXPECT_EQ(old[1].target, 1u);
  EXPECT_EQ(old[1].truncated, 1);
  const auto now = read_table<MirandaPairRow>(f, "now");
  ASSERT_EQ(now.size(), 1u);
  EXPECT_EQ(now[0].strand, 1);
  EXPECT_EQ(now[0].total_score, 300);
  // A forward row hashes as the row without the column did; the reverse strand changes the hash.
  auto digest = [](const auto& row) {
    Sha256 h;
    hash_row(h, row);
    return h.hex_digest();
  };
  MirandaPairRow forward{2, 5, 0, 300, 160, 2, 0};
  EXPECT_EQ(digest(forward), digest(PairRowWithoutStrand{2, 5, 300, 160, 2, 0}));
  MirandaPairRow reverse = forward;
  reverse.strand = 1;
  EXPECT_NE(digest(forward), digest(reverse));
  EXPECT_TRUE(row_less(forward, reverse));
}

TEST(Tables, ReverseStrandRowsTakeForwardPositions) {
  // A 100-nt target: position p of its reverse complement is forward position 101 - p.
  MirandaHitRow h;
  h.rstart = 10;
  h.rend = 30;
  to_forward_strand(h, 100);
  EXPECT_EQ(h.strand, 1);
  EXPECT_EQ(h.rstart, 71);
  EXPECT_EQ(h.rend, 91);
  BpmaxScoreRow s;
  s.target_begin = 1;
  s.target_end = 20;
  to_forward_strand(s, 100);
  EXPECT_EQ(s.target_begin, 81);
  EXPECT_EQ(s.target_end, 100);
  BpmaxScoreRow empty;  // no site: 1..0 stays
  empty.target_begin = 1;
  empty.target_end = 0;
  to_forward_strand(empty, 100);
  EXPECT_EQ(empty.target_begin, 1);
  EXPECT_EQ(empty.target_end, 0);
  BpmaxStructureRow st;
  st.inter = "1:20,2:19,5:3";
  to_forward_strand(st, 100);
  EXPECT_EQ(st.inter, "1:81,2:82,5:98");
  EXPECT_EQ(st.strand, 1);
}

TEST(Tables, InterEncoding) {
  EXPECT_EQ(encode_inter({}), "");
  EXPECT_EQ(encode_inter({{1, 30}, {2, 29}}), "1:30,2:29");
  EXPECT_EQ(decode_inter("1:30,2:29"), (std::vector<std::pair<int, int>>{{1, 30}, {2, 29}}));
  EXPECT_TRUE(decode_inter("").empty());
  for (const char* bad : {"1", "1:", ":2", "1:2,", "1:2;3:4", "0:5", "a:b", "1:2,,3:4"})
    EXPECT_THROW(decode_inter(bad), InputError) << bad;
}

}  // namespace
}  // namespace screen::store
