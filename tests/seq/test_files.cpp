#include "test_files.hpp"

#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace screen::seq::test {

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::string read_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot read " + path);
  std::string bytes;
  char buf[65536];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, n);
  std::fclose(f);
  return bytes;
}

void write_gzip(const std::string& path, const std::string& content, int level) {
  const std::string mode = "wb" + std::to_string(level);
  gzFile gz = gzopen(path.c_str(), mode.c_str());
  if (!gz) throw std::runtime_error("gzopen failed for " + path);
  std::size_t done = 0;
  while (done < content.size()) {
    const unsigned n = static_cast<unsigned>(std::min<std::size_t>(content.size() - done, 1u << 20));
    if (gzwrite(gz, content.data() + done, n) != static_cast<int>(n)) {
      gzclose(gz);
      throw std::runtime_error("gzwrite failed for " + path);
    }
    done += n;
  }
  if (gzclose(gz) != Z_OK) throw std::runtime_error("gzclose failed for " + path);
}

std::string gzip_bytes(const std::string& content, int level) {
  char tmpl[] = "/tmp/screen-seq-gz-XXXXXX";
  const int fd = mkstemp(tmpl);
  if (fd < 0) throw std::runtime_error("mkstemp failed");
  close(fd);
  write_gzip(tmpl, content, level);
  std::string bytes = read_file(tmpl);
  std::remove(tmpl);
  return bytes;
}

std::string random_fasta(std::mt19937_64& rng, int records, int min_len, int max_len, int width,
                         const std::string& eol, const std::string& alphabet) {
  std::uniform_int_distribution<int> len(min_len, max_len);
  std::uniform_int_distribution<std::size_t> letter(0, alphabet.size() - 1);
  std::string out;
  for (int r = 0; r < records; ++r) {
    out += ">r" + std::to_string(r) + " random record " + std::to_string(r) + eol;
    const int n = len(rng);
    for (int i = 0; i < n; ++i) {
      out += alphabet[letter(rng)];
      if ((i + 1) % width == 0 || i + 1 == n) out += eol;
    }
  }
  return out;
}

}  // namespace screen::seq::test
