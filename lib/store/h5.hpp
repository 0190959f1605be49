#pragma once
// h5: small RAII wrappers over HDF5 C API ids (File, Group, Dataset, Dataspace, Datatype, PropList,
// Attribute). Each owns one id and closes it on destruction. Every HDF5 call is checked: a negative
// return throws screen::ResourceError "<file>: <object path>: <call> failed: <HDF5's messages>".
// HDF5's own printing of its error stack is switched off (silence_errors); the stack is captured
// into the message instead.
//
// Files are created with the 1.8 object format as the lowest bound (superblock v2, object headers
// with checksums, so damaged metadata is reported rather than misread) and the "semi" close
// degree (closing a file with objects still open is an error, not a silent delay), so a file is
// really closed when File::close() returns.
//
// Use this layer from one thread at a time (one file is never shared between threads).
#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace screen::store::h5 {

// Where an object lives, for messages: the file's path and the object's path inside it.
struct Where {
  std::string file;
  std::string path = "/";
  Where child(const std::string& name) const;
};

// Switches off HDF5's automatic printing of errors for the calling thread (the library is built
// thread-safe, where that setting is per thread); cheap after the first call on a thread. Called by
// File::create/open, which begin every use of this layer (a file is used by the thread that opened it).
void silence_errors();

// Why `path` cannot be an HDF5 file to read, in words ("no such file", "a folder", "empty", "not
// an HDF5 file", strerror), or "" when it exists, is readable and starts with HDF5's signature.
// Checked without HDF5, so nothing is printed and nothing is left on HDF5's error stack.
std::string unreadable_reason(const std::string& path);

// Throws ResourceError naming w.file, w.path and `call`, with HDF5's error stack (then cleared).
[[noreturn]] void fail(const Where& w, const std::string& call);
// Returns `r` unless it is negative, then fail(w, call).
hid_t check_id(hid_t r, const Where& w, const char* call);
herr_t check(herr_t r, const Where& w, const char* call);
htri_t check_tri(htri_t r, const Where& w, const char* call);

// An owned id; moves, never copies. close() is checked; the destructor closes unchecked.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer closer, Where where) : id_(id), closer_(closer), where_(std::move(where)) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& o) noexcept;
  Handle& operator=(Handle&& o) noexcept;
  ~Handle();

  hid_t id() const { return id_; }
  bool valid() const { return id_ >= 0; }
  const Where& where() const { return where_; }
  void close();  // checked; a no-op when not valid

 protected:
  hid_t id_ = -1;
  Closer closer_ = nullptr;
  Where where_;
};

class Dataspace : public Handle {
 public:
  Dataspace() = default;
  Dataspace(hid_t id, Where w);
  static Dataspace scalar(const Where& w);
  static Dataspace null(const Where& w);
  static Dataspace simple(hsize_t n, hsize_t max_n, const Where& w);  // 1-D; max_n may be H5S_UNLIMITED
  hsize_t points() const;                                              // elements (0 for a null space)
  void select(hsize_t first, hsize_t n);                               // 1-D hyperslab
};

class Datatype : public Handle {
 public:
  Datatype() = default;
  Datatype(hid_t id, Where w);
  static Datatype copy(hid_t predefined, const Where& w);   // e.g. H5T_STD_I64LE
  static Datatype utf8_string(const Where& w);              // variable-length UTF-8 string
  static Datatype compound(std::size_t size, const Where& w);
  void insert(const char* name, std::size_t offset, hid_t member_type);  // compound member
  std::size_t size() const;
  bool is_variable_string() const;
  H5T_class_t type_class() const;
};

class PropList : public Handle {
 public:
  PropList() = default;
  PropList(hid_t id, Where w);
  static PropList create(hid_t cls, const Where& w);
};

class Attribute : public Handle {
 public:
  Attribute() = default;
  Attribute(hid_t id, Where w);
  Dataspace space() const;
  Datatype type() const;
};

class Dataset;
// Deflate level of every table column. Level 1, not zlib's default 6: folds' dot-bracket text is
// most of a job's bytes, and at 6 a merge spent 68% of its time deflating it (perf); the whole
// flagship job on four GPUs took 18 s from its last unit to results.h5. Files grow by about a
// quarter (docs/performance.md, Session 16).
inline constexpr int kTableDeflateLevel = 1;

class Group;

// An object that carries attributes: a file (its root group), a group or a dataset.
class Object : public Handle {
 public:
  using Handle::Handle;

  bool has_attribute(const std::string& name) const;
  void remove_attribute(const std::string& name);

  // Writers replace an existing attribute of the same name.
  void set_int(const std::string& name, std::int64_t v);       // 64-bit signed integer
  void set_uint(const std::string& name, std::uint64_t v);     // 64-bit unsigned integer
  void set_double(const std::string& name, double v);          // IEEE double
  void set_bool(const std::string& name, bool v);              // 8-bit unsigned 0 / 1
  // Strings are written as fixed-length, NUL-padded UTF-8 (kept in the object header, which HDF5
  // checksums, rather than in the unchecksummed global heap): a scalar, or a 1-D array padded to
  // its longest element (a null dataspace when empty). A string must not contain NUL.
  void set_string(const std::string& name, const std::string& v);
  void set_strings(const std::string& name, const std::vector<std::string>& v);

  // Readers throw ResourceError when the attribute is missing or not of a convertible kind.
  std::int64_t get_int(const std::string& name) const;
  std::uint64_t get_uint(const std::string& name) const;
  double get_double(const std::string& name) const;
  bool get_bool(const std::string& name) const;
  std::string get_string(const std::string& name) const;  // variable or fixed length
  std::vector<std::string> get_strings(const std::string& name) const;

 private:
  Attribute open_attribute(const std::string& name) const;
  void write_attribute(const std::string& name, hid_t file_type, const Dataspace& space, hid_t mem_type,
                       const void* buf);
  void read_scalar(const std::string& name, hid_t mem_type, void* buf) const;
  void set_strings_impl(const std::string& name, const std::vector<std::string>& v, bool scalar);
};

class Dataset : public Object {
 public:
  Dataset() = default;
  Dataset(hid_t id, Where w);
  Dataspace space() const;
  Datatype type() const;
  hsize_t rows() const;  // current extent of a 1-D dataset

  // Appends n elements of memory type mem_type at the end (extends the dataset).
  void append(const void* data, hsize_t n, hid_t mem_type);
  // Reads n elements starting at `first` into data (memory type mem_type).
  void read(void* data, hsize_t first, hsize_t n, hid_t mem_type) const;
  // Variable-length UTF-8 string datasets (Datatype::utf8_string). Their text lives in HDF5's global
  // heap, which HDF5 1.10 does not checksum and reads without bounds checks: do not use them for
  // data that must survive damage (the store's tables use the encoding of table_io.hpp instead).
  void append_strings(const std::vector<std::string>& v);
  std::vector<std::string> read_strings(hsize_t first, hsize_t n) const;
};

class Group : public Object {
 public:
  Group() = default;
  Group(hid_t id, Handle::Closer closer, Where w) : Object(id, closer, std::move(w)) {}
  Group(hid_t id, Where w);

  bool has(const std::string& name) const;  // a link of that name exists (one level, no '/')
  Group create_group(const std::string& name);
  Group open_group(const std::string& name) const;
  Dataset open_dataset(const std::string& name) const;
  std::vector<std::string> children() const;  // link names, in name order

  // An empty, extendible, chunked 1-D dataset of file type `type` (a primitive, a string or a
  // compound type), filtered with shuffle, deflate and a Fletcher-32 checksum per chunk (so damaged
  // data is reported by HDF5 on reading; not for variable-length types, where HDF5 does not allow it).
  // chunk_rows is clamped to >= 1.
  Dataset create_table_dataset(const std::string& name, hid_t type, hsize_t chunk_rows,
                               int deflate_level = kTableDeflateLevel);
};

class File : public Group {
 public:
  File() = default;
  static File create(const std::string& path);  // truncates an existing file
  static File open(const std::string& path, bool writable = false);
  void flush();                                  // H5Fflush (local scope)

 private:
  File(hid_t id, Where w);
};

// Chunk length for a table column of `elem_size`-byte elements expected to hold about `rows`
// rows: about 256 KiB a chunk, never more than needed for `rows`, at least 1.
hsize_t chunk_rows_for(std::size_t elem_size, std::uint64_t rows);

}  // namespace screen::store::h5
