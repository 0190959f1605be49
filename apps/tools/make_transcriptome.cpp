// make_transcriptome: writes a synthetic "human transcriptome" FASTA for the transcriptome-scale
// benchmark (README, Performance): N records with log-normal lengths (median about 2,500 nt)
// clamped to [41, 205,012] nt, uniform random A/C/G/T, 60 letters a line, gzip-compressed when the
// output name ends in .gz. Records 1 and 2 take the range's two ends (41 and 205,012 nt) so every
// generated set spans the thesis's range. The same arguments give the same bytes on every platform:
// std::mt19937_64 is fully specified, and the uniform and normal variates are computed here from its
// raw bits (Box-Muller), not by std::*_distribution, whose output differs between standard libraries.
#include <CLI/CLI.hpp>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr std::uint64_t kDefaultSeed = 20190402;  // fixed: the default set is reproducible
constexpr double kPi = 3.14159265358979323846;

struct Options {
  std::size_t count = 32000;
  std::uint64_t seed = kDefaultSeed;
  double median = 2500;
  double sigma = 1.0;  // of ln(length)
  std::size_t min_length = 41;
  std::size_t max_length = 205012;
  std::string output = "data/generated/human_transcripts.fa.gz";
};

// Uniform in (0, 1) from the top 53 bits: never 0, so log() is safe.
double uniform_open(std::mt19937_64& rng) {
  return (static_cast<double>(rng() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

std::size_t lognormal_length(std::mt19937_64& rng, const Options& o) {
  const double u1 = uniform_open(rng), u2 = uniform_open(rng);
  const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
  const double len = std::round(std::exp(std::log(o.median) + o.sigma * z));
  const double clamped = std::clamp(len, static_cast<double>(o.min_length), static_cast<double>(o.max_length));
  return static_cast<std::size_t>(clamped);
}

// Output sink: gzip or plain.
class Writer {
 public:
  Writer(const std::string& path, bool gzip) : gzip_(gzip) {
    if (gzip_)
      gz_ = gzopen(path.c_str(), "wb6");
    else
      plain_ = std::fopen(path.c_str(), "wb");
    if (!gz_ && !plain_) throw std::runtime_error("cannot write " + path);
  }
  ~Writer() {
    if (gz_) gzclose(gz_);
    if (plain_) std::fclose(plain_);
  }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  void write(const std::string& s) {
    if (s.empty()) return;
    bool ok = gzip_ ? gzwrite(gz_, s.data(), static_cast<unsigned>(s.size())) == static_cast<int>(s.size())
                    : std::fwrite(s.data(), 1, s.size(), plain_) == s.size();
    if (!ok) throw std::runtime_error("write failed (disk full?)");
  }
  void close() {
    int rc = gzip_ ? gzclose(gz_) : std::fclose(plain_);
    gz_ = nullptr;
    plain_ = nullptr;
    if (rc != 0) throw std::runtime_error("closing the output failed");
  }

 private:
  bool gzip_;
  gzFile gz_ = nullptr;
  std::FILE* plain_ = nullptr;
};

void generate(const Options& o) {
  namespace fs = std::filesystem;
  const fs::path out(o.output);
  if (out.has_parent_path()) fs::create_directories(out.parent_path());
  const std::string tmp = o.output + ".tmp";
  const bool gzip = out.extension() == ".gz";
  const int digits = std::max(6, static_cast<int>(std::to_string(o.count).size()));

  std::mt19937_64 rng(o.seed);
  std::vector<std::size_t> lengths;
  lengths.reserve(o.count);
  std::size_t total = 0;
  {
    Writer w(tmp, gzip);
    std::string line, block;
    for (std::size_t i = 0; i < o.count; ++i) {
      std::size_t len = i == 0 ? o.min_length : i == 1 ? o.max_length : lognormal_length(rng, o);
      lengths.push_back(len);
      total += len;
      std::string number = std::to_string(i + 1);
      number.insert(0, static_cast<std::size_t>(digits) - std::min(number.size(), static_cast<std::size_t>(digits)), '0');
      block = ">synth_tx_" + number + " len=" + std::to_string(len) + "\n";
      std::uint64_t bits = 0;
      int left = 0;
      for (std::size_t k = 0; k < len; ++k) {
        if (left == 0) {
          bits = rng();
          left = 32;
        }
        block += "ACGT"[bits & 3];
        bits >>= 2;
        --left;
        if ((k + 1) % 60 == 0 || k + 1 == len) block += '\n';
      }
      w.write(block);
    }
    w.close();
  }
  fs::rename(tmp, out);

  std::sort(lengths.begin(), lengths.end());
  std::fprintf(stderr, "make_transcriptome: wrote %s: %zu transcripts, %zu nt (lengths %zu..%zu, median %zu), seed %llu\n",
               o.output.c_str(), o.count, total, lengths.empty() ? 0 : lengths.front(),
               lengths.empty() ? 0 : lengths.back(), lengths.empty() ? 0 : lengths[lengths.size() / 2],
               static_cast<unsigned long long>(o.seed));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Write a synthetic transcriptome FASTA (log-normal lengths, fixed seed; deterministic)",
               "make_transcriptome"};
  Options o;
  app.add_option("-n,--count", o.count, "Number of transcripts")->capture_default_str()->check(CLI::Range(1, 100000000));
  app.add_option("-s,--seed", o.seed, "Random seed (std::mt19937_64)")->capture_default_str();
  app.add_option("--median", o.median, "Median length (nt)")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--sigma", o.sigma, "Standard deviation of ln(length)")->capture_default_str()->check(CLI::Range(0.0, 5.0));
  app.add_option("--min-length", o.min_length, "Shortest length (nt)")->capture_default_str()->check(CLI::Range(1, 100000000));
  app.add_option("--max-length", o.max_length, "Longest length (nt)")->capture_default_str()->check(CLI::Range(1, 100000000));
  app.add_option("-o,--output", o.output, "Output FASTA (gzip when it ends in .gz)")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (o.min_length > o.max_length) {
    std::fprintf(stderr, "make_transcriptome: --min-length exceeds --max-length\n");
    return 2;
  }
  try {
    generate(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_transcriptome: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
