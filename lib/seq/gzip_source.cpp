#include "seq/gzip_source.hpp"

#include <sys/stat.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#include "common/error.hpp"
#include "seq/input_file.hpp"

namespace screen::seq::detail {

struct FileSource::Inflater {
  z_stream zs{};
  bool member_open = false;  // inside a gzip member (its end not yet seen)
  ~Inflater() { inflateEnd(&zs); }
};

namespace {

// Standard input, read once: every FileSource("-") of the process replays the same bytes (a
// command may read an input twice, e.g. its letters for display).
const std::string& standard_input() {
  static std::mutex mutex;
  static std::unique_ptr<std::string> text;
  const std::lock_guard<std::mutex> lock(mutex);
  if (!text) {
    text = std::make_unique<std::string>();
    char buf[1 << 16];
    std::size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) text->append(buf, n);
    if (std::ferror(stdin)) throw InputError(std::string("standard input: cannot read: ") + std::strerror(errno));
  }
  return *text;
}

}  // namespace

FileSource::FileSource(std::string path) : path_(std::move(path)), file_(nullptr, &std::fclose) {
  if (path_ == kStandardInput) {
    const std::string& text = standard_input();
    // fmemopen takes no empty buffer everywhere: an empty input reads from /dev/null.
    file_.reset(text.empty() ? std::fopen("/dev/null", "rb")
                             : fmemopen(const_cast<char*>(text.data()), text.size(), "rb"));
    if (!file_) throw InputError(std::string("standard input: cannot read: ") + std::strerror(errno));
    path_ = "standard input";
  } else {
    // Checked before opening: fopen on a FIFO without a writer would block forever.
    if (const std::string problem = regular_file_problem(path_); !problem.empty()) throw InputError(path_ + ": " + problem);
    file_.reset(std::fopen(path_.c_str(), "rb"));
    if (!file_) throw InputError(path_ + ": cannot open: " + std::strerror(errno));
  }
  struct stat st {};
  if (fstat(fileno(file_.get()), &st) == 0 && S_ISREG(st.st_mode)) stored_size_ = static_cast<std::uint64_t>(st.st_size);
  raw_.resize(kChunk);
  fill_raw();
  gzip_ = raw_len_ >= 2 && raw_[0] == 0x1f && raw_[1] == 0x8b;
  if (gzip_) {
    inflater_ = std::make_unique<Inflater>();
    // 15 + 16: a 32 KiB window, gzip wrapper only (the content was already seen to be gzip).
    if (inflateInit2(&inflater_->zs, 15 + 16) != Z_OK) gzip_error("cannot start zlib");
    inflater_->zs.next_in = raw_.data();
    inflater_->zs.avail_in = static_cast<uInt>(raw_len_);
    out_.resize(kChunk);
  }
}

FileSource::~FileSource() = default;

void FileSource::fill_raw() {
  raw_len_ = 0;
  raw_pos_ = 0;
  if (raw_eof_) return;
  raw_len_ = std::fread(raw_.data(), 1, raw_.size(), file_.get());
  if (raw_len_ < raw_.size()) {
    if (std::ferror(file_.get())) throw InputError(path_ + ": cannot read: " + std::strerror(errno));
    raw_eof_ = true;
  }
  hash_.update(raw_.data(), raw_len_);
  raw_total_ += raw_len_;
}

bool FileSource::next(const char*& data, std::size_t& size) {
  if (gzip_) return next_gzip(data, size);
  while (raw_pos_ == raw_len_) {
    if (raw_eof_) return false;
    fill_raw();
  }
  data = reinterpret_cast<const char*>(raw_.data()) + raw_pos_;
  size = raw_len_ - raw_pos_;
  raw_pos_ = raw_len_;
  return true;
}

bool FileSource::next_gzip(const char*& data, std::size_t& size) {
  z_stream& zs = inflater_->zs;
  for (;;) {
    if (zs.avail_in == 0) {
      if (raw_eof_) {
        if (inflater_->member_open) gzip_error("truncated gzip data (the file ends inside a gzip member)");
        return false;
      }
      fill_raw();
      zs.next_in = raw_.data();
      zs.avail_in = static_cast<uInt>(raw_len_);
      continue;
    }
    zs.next_out = reinterpret_cast<Bytef*>(out_.data());
    zs.avail_out = static_cast<uInt>(out_.size());
    const uInt in_before = zs.avail_in;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    if (zs.avail_in != in_before) inflater_->member_open = true;
    if (rc == Z_STREAM_END) {
      inflater_->member_open = false;
      if (inflateReset(&zs) != Z_OK) gzip_error("cannot restart zlib");  // a further member may follow
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      gzip_error(zs.msg ? zs.msg : "zlib error " + std::to_string(rc));
    }
    const std::size_t produced = out_.size() - zs.avail_out;
    if (produced > 0) {
      data = out_.data();
      size = produced;
      return true;
    }
  }
}

void FileSource::gzip_error(const std::string& what) const {
  const std::uint64_t at = inflater_ ? raw_total_ - inflater_->zs.avail_in : raw_total_;
  throw InputError(path_ + ": invalid gzip data near compressed byte " + std::to_string(at) + ": " + what);
}

}  // namespace screen::seq::detail
