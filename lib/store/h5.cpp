#include "store/h5.hpp"

#include <fmt/format.h>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <utility>

#include "common/error.hpp"

namespace screen::store::h5 {

namespace {

struct ErrorStack {
  std::string text;
  std::string system;  // the operating system's message, when a read or write failed ("File too large")
};

herr_t collect_error(unsigned /*n*/, const H5E_error2_t* e, void* data) {
  auto* stack = static_cast<ErrorStack*>(data);
  if (e->desc && stack->system.empty()) {
    // The file driver's message: "... errno = 27, error message = 'File too large', ..."
    const std::string desc = e->desc;
    const std::string key = "error message = '";
    const auto at = desc.find(key);
    if (at != std::string::npos) {
      const auto end = desc.find('\'', at + key.size());
      if (end != std::string::npos) stack->system = desc.substr(at + key.size(), end - at - key.size());
    }
  }
  std::string* out = &stack->text;
  if (out->size() > 600) return 0;
  if (!out->empty()) out->append("; ");
  out->append(e->func_name ? e->func_name : "?");
  out->append(": ");
  out->append(e->desc ? e->desc : "(no description)");
  return 0;
}

// The error stack as one line; an operating-system error (a failed read or write) comes first.
std::string take_error_stack() {
  ErrorStack stack;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collect_error, &stack);
  H5Eclear2(H5E_DEFAULT);
  std::string msg = std::move(stack.text);
  if (msg.size() > 600) msg = msg.substr(0, 600) + " ...";
  if (!stack.system.empty()) msg = stack.system + (msg.empty() ? "" : " (HDF5: " + msg + ")");
  return msg;
}

// Releases the memory HDF5 allocated for variable-length strings read into `ptrs`.
void reclaim_strings(std::vector<char*>& ptrs, hid_t mem_type, const Where& w) {
  if (ptrs.empty()) return;
  Dataspace space = Dataspace::simple(ptrs.size(), ptrs.size(), w);
  check(H5Dvlen_reclaim(mem_type, space.id(), H5P_DEFAULT, ptrs.data()), w, "H5Dvlen_reclaim");
}

}  // namespace

Where Where::child(const std::string& name) const {
  Where w{file, path};
  if (w.path.empty() || w.path.back() != '/') w.path.push_back('/');
  w.path += name;
  return w;
}

void silence_errors() {
  // A file whose close failed on a write error (disk full, EFBIG) stays open inside HDF5 1.10 and
  // its clean-up at exit (H5_term_library) then crashes on it; a process that exits needs none, and
  // every file this program writes is closed (or removed) explicitly. Must precede any HDF5 call.
  static const bool no_atexit = [] { return H5dont_atexit() >= 0; }();
  (void)no_atexit;
  thread_local bool silenced = false;  // the automatic printing is a per-thread setting
  if (silenced) return;
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  silenced = true;
}

std::string unreadable_reason(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::strerror(errno);
  if (S_ISDIR(st.st_mode)) return "a folder, not an HDF5 file";
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  std::ifstream in(path, std::ios::binary);
  if (!in) return fmt::format("cannot be opened for reading: {}", std::strerror(errno));
  // HDF5's format signature; files this program writes have no user block, so it is at offset 0.
  static const char kSignature[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
  char head[8] = {};
  in.read(head, sizeof head);
  if (in.gcount() == 0) return "an empty file, not an HDF5 file";
  if (in.gcount() < 8 || std::memcmp(head, kSignature, sizeof head) != 0) return "not an HDF5 file";
  return "";
}

void fail(const Where& w, const std::string& call) {
  const std::string stack = take_error_stack();
  throw ResourceError(fmt::format("{}: {}: {} failed{}{}", w.file.empty() ? "(no file)" : w.file,
                                  w.path.empty() ? "/" : w.path, call, stack.empty() ? "" : ": ", stack));
}

hid_t check_id(hid_t r, const Where& w, const char* call) {
  if (r < 0) fail(w, call);
  return r;
}
herr_t check(herr_t r, const Where& w, const char* call) {
  if (r < 0) fail(w, call);
  return r;
}
htri_t check_tri(htri_t r, const Where& w, const char* call) {
  if (r < 0) fail(w, call);
  return r;
}

// ---- Handle ----

Handle::Handle(Handle&& o) noexcept
    : id_(std::exchange(o.id_, -1)), closer_(o.closer_), where_(std::move(o.where_)) {}

Handle& Handle::operator=(Handle&& o) noexcept {
  if (this != &o) {
    if (id_ >= 0 && closer_) closer_(id_);
    id_ = std::exchange(o.id_, -1);
    closer_ = o.closer_;
    where_ = std::move(o.where_);
  }
  return *this;
}

Handle::~Handle() {
  if (id_ >= 0 && closer_) {
    if (closer_(id_) < 0) H5Eclear2(H5E_DEFAULT);
  }
}

void Handle::close() {
  if (id_ < 0) return;
  const hid_t id = std::exchange(id_, -1);
  if (closer_ && closer_(id) < 0) fail(where_, "close");
}

// ---- Dataspace ----

Dataspace::Dataspace(hid_t id, Where w) : Handle(id, H5Sclose, std::move(w)) {}

Dataspace Dataspace::scalar(const Where& w) { return Dataspace(check_id(H5Screate(H5S_SCALAR), w, "H5Screate"), w); }
Dataspace Dataspace::null(const Where& w) { return Dataspace(check_id(H5Screate(H5S_NULL), w, "H5Screate"), w); }

Dataspace Dataspace::simple(hsize_t n, hsize_t max_n, const Where& w) {
  const hsize_t dims[1] = {n};
  const hsize_t maxdims[1] = {max_n};
  return Dataspace(check_id(H5Screate_simple(1, dims, maxdims), w, "H5Screate_simple"), w);
}

hsize_t Dataspace::points() const {
  const hssize_t n = H5Sget_simple_extent_npoints(id_);
  if (n < 0) fail(where_, "H5Sget_simple_extent_npoints");
  return static_cast<hsize_t>(n);
}

void Dataspace::select(hsize_t first, hsize_t n) {
  const hsize_t start[1] = {first};
  const hsize_t count[1] = {n};
  check(H5Sselect_hyperslab(id_, H5S_SELECT_SET, start, nullptr, count, nullptr), where_, "H5Sselect_hyperslab");
}

// ---- Datatype ----

Datatype::Datatype(hid_t id, Where w) : Handle(id, H5Tclose, std::move(w)) {}

Datatype Datatype::copy(hid_t predefined, const Where& w) {
  return Datatype(check_id(H5Tcopy(predefined), w, "H5Tcopy"), w);
}

Datatype Datatype::utf8_string(const Where& w) {
  Datatype t = copy(H5T_C_S1, w);
  check(H5Tset_size(t.id(), H5T_VARIABLE), w, "H5Tset_size");
  check(H5Tset_cset(t.id(), H5T_CSET_UTF8), w, "H5Tset_cset");
  return t;
}

Datatype Datatype::compound(std::size_t size, const Where& w) {
  return Datatype(check_id(H5Tcreate(H5T_COMPOUND, size), w, "H5Tcreate"), w);
}

void Datatype::insert(const char* name, std::size_t offset, hid_t member_type) {
  check(H5Tinsert(id_, name, offset, member_type), where_, "H5Tinsert");
}

std::size_t Datatype::size() const {
  const std::size_t s = H5Tget_size(id_);
  if (s == 0) fail(where_, "H5Tget_size");
  return s;
}

bool Datatype::is_variable_string() const {
  return check_tri(H5Tis_variable_str(id_), where_, "H5Tis_variable_str") > 0;
}

H5T_class_t Datatype::type_class() const {
  const H5T_class_t c = H5Tget_class(id_);
  if (c == H5T_NO_CLASS) fail(where_, "H5Tget_class");
  return c;
}

// ---- PropList, Attribute ----

PropList::PropList(hid_t id, Where w) : Handle(id, H5Pclose, std::move(w)) {}
PropList PropList::create(hid_t cls, const Where& w) { return PropList(check_id(H5Pcreate(cls), w, "H5Pcreate"), w); }

Attribute::Attribute(hid_t id, Where w) : Handle(id, H5Aclose, std::move(w)) {}
Dataspace Attribute::space() const { return Dataspace(check_id(H5Aget_space(id_), where_, "H5Aget_space"), where_); }
Datatype Attribute::type() const { return Datatype(check_id(H5Aget_type(id_), where_, "H5Aget_type"), where_); }

// ---- Object: attributes ----

bool Object::has_attribute(const std::string& name) const {
  return check_tri(H5Aexists(id_, name.c_str()), where_, fmt::format("H5Aexists({})", name).c_str()) > 0;
}

void Object::remove_attribute(const std::string& name) {
  check(H5Adelete(id_, name.c_str()), where_, fmt::format("H5Adelete({})", name).c_str());
}

Attribute Object::open_attribute(const std::string& name) const {
  const Where w{where_.file, where_.path + " @" + name};
  if (!has_attribute(name)) throw ResourceError(fmt::format("{}: {}: attribute missing", w.file, w.path));
  return Attribute(check_id(H5Aopen(id_, name.c_str(), H5P_DEFAULT), w, "H5Aopen"), w);
}

void Object::write_attribute(const std::string& name, hid_t file_type, const Dataspace& space, hid_t mem_type,
                             const void* buf) {
  const Where w{where_.file, where_.path + " @" + name};
  if (has_attribute(name)) remove_attribute(name);
  Attribute a(check_id(H5Acreate2(id_, name.c_str(), file_type, space.id(), H5P_DEFAULT, H5P_DEFAULT), w, "H5Acreate2"),
              w);
  if (buf) check(H5Awrite(a.id(), mem_type, buf), w, "H5Awrite");
  a.close();
}

void Object::read_scalar(const std::string& name, hid_t mem_type, void* buf) const {
  Attribute a = open_attribute(name);
  if (a.space().points() != 1)
    throw ResourceError(fmt::format("{}: {}: expected one value", a.where().file, a.where().path));
  check(H5Aread(a.id(), mem_type, buf), a.where(), "H5Aread");
}

void Object::set_int(const std::string& name, std::int64_t v) {
  write_attribute(name, H5T_STD_I64LE, Dataspace::scalar(where_), H5T_NATIVE_INT64, &v);
}
void Object::set_uint(const std::string& name, std::uint64_t v) {
  write_attribute(name, H5T_STD_U64LE, Dataspace::scalar(where_), H5T_NATIVE_UINT64, &v);
}
void Object::set_double(const std::string& name, double v) {
  write_attribute(name, H5T_IEEE_F64LE, Dataspace::scalar(where_), H5T_NATIVE_DOUBLE, &v);
}
void Object::set_bool(const std::string& name, bool v) {
  const std::uint8_t b = v ? 1 : 0;
  write_attribute(name, H5T_STD_U8LE, Dataspace::scalar(where_), H5T_NATIVE_UINT8, &b);
}
namespace {
// A fixed-length, NUL-padded UTF-8 string type of `size` bytes (at least 1).
Datatype fixed_string(std::size_t size, const Where& w) {
  Datatype t = Datatype::copy(H5T_C_S1, w);
  check(H5Tset_size(t.id(), std::max<std::size_t>(size, 1)), w, "H5Tset_size");
  check(H5Tset_strpad(t.id(), H5T_STR_NULLPAD), w, "H5Tset_strpad");
  check(H5Tset_cset(t.id(), H5T_CSET_UTF8), w, "H5Tset_cset");
  return t;
}
}  // namespace

void Object::set_string(const std::string& name, const std::string& v) { set_strings_impl(name, {v}, true); }

void Object::set_strings(const std::string& name, const std::vector<std::string>& v) { set_strings_impl(name, v, false); }

void Object::set_strings_impl(const std::string& name, const std::vector<std::string>& v, bool scalar) {
  std::size_t size = 1;
  for (const auto& s : v) size = std::max(size, s.size());
  const Datatype t = fixed_string(size, where_);
  if (v.empty()) {
    write_attribute(name, t.id(), Dataspace::null(where_), t.id(), nullptr);
    return;
  }
  std::vector<char> buf(v.size() * size, '\0');
  for (std::size_t k = 0; k < v.size(); ++k) std::memcpy(buf.data() + k * size, v[k].data(), v[k].size());
  write_attribute(name, t.id(), scalar ? Dataspace::scalar(where_) : Dataspace::simple(v.size(), v.size(), where_),
                  t.id(), buf.data());
}

std::int64_t Object::get_int(const std::string& name) const {
  std::int64_t v = 0;
  read_scalar(name, H5T_NATIVE_INT64, &v);
  return v;
}
std::uint64_t Object::get_uint(const std::string& name) const {
  std::uint64_t v = 0;
  read_scalar(name, H5T_NATIVE_UINT64, &v);
  return v;
}
double Object::get_double(const std::string& name) const {
  double v = 0;
  read_scalar(name, H5T_NATIVE_DOUBLE, &v);
  return v;
}
bool Object::get_bool(const std::string& name) const {
  std::uint8_t v = 0;
  read_scalar(name, H5T_NATIVE_UINT8, &v);
  return v != 0;
}

std::string Object::get_string(const std::string& name) const {
  std::vector<std::string> v = get_strings(name);
  if (v.size() != 1) throw ResourceError(fmt::format("{}: {} @{}: expected one string", where_.file, where_.path, name));
  return v[0];
}

std::vector<std::string> Object::get_strings(const std::string& name) const {
  Attribute a = open_attribute(name);
  const Where& w = a.where();
  const Datatype ft = a.type();
  if (ft.type_class() != H5T_STRING) throw ResourceError(fmt::format("{}: {}: not a string", w.file, w.path));
  const hsize_t n = a.space().points();
  std::vector<std::string> out;
  if (n == 0) return out;
  out.reserve(n);
  if (ft.is_variable_string()) {
    const Datatype mt = Datatype::utf8_string(w);
    std::vector<char*> ptrs(n, nullptr);
    check(H5Aread(a.id(), mt.id(), ptrs.data()), w, "H5Aread");
    for (char* p : ptrs) out.emplace_back(p ? p : "");
    reclaim_strings(ptrs, mt.id(), w);
  } else {
    const std::size_t size = ft.size();
    const Datatype mt = Datatype::copy(ft.id(), w);  // same size and padding: no conversion
    std::vector<char> buf(n * size);
    check(H5Aread(a.id(), mt.id(), buf.data()), w, "H5Aread");
    for (hsize_t k = 0; k < n; ++k) {
      const char* p = buf.data() + k * size;
      out.emplace_back(p, strnlen(p, size));
    }
  }
  return out;
}

// ---- Dataset ----

Dataset::Dataset(hid_t id, Where w) : Object(id, H5Dclose, std::move(w)) {}
Dataspace Dataset::space() const { return Dataspace(check_id(H5Dget_space(id_), where_, "H5Dget_space"), where_); }
Datatype Dataset::type() const { return Datatype(check_id(H5Dget_type(id_), where_, "H5Dget_type"), where_); }
hsize_t Dataset::rows() const { return space().points(); }

void Dataset::append(const void* data, hsize_t n, hid_t mem_type) {
  if (n == 0) return;
  const hsize_t old = rows();
  const hsize_t size[1] = {old + n};
  check(H5Dset_extent(id_, size), where_, "H5Dset_extent");
  Dataspace file_space = space();
  file_space.select(old, n);
  const Dataspace mem_space = Dataspace::simple(n, n, where_);
  check(H5Dwrite(id_, mem_type, mem_space.id(), file_space.id(), H5P_DEFAULT, data), where_, "H5Dwrite");
}

void Dataset::read(void* data, hsize_t first, hsize_t n, hid_t mem_type) const {
  if (n == 0) return;
  Dataspace file_space = space();
  if (first + n > file_space.points())
    throw ResourceError(fmt::format("{}: {}: read of rows [{}, {}) past the end ({} rows)", where_.file, where_.path,
                                    first, first + n, file_space.points()));
  file_space.select(first, n);
  const Dataspace mem_space = Dataspace::simple(n, n, where_);
  check(H5Dread(id_, mem_type, mem_space.id(), file_space.id(), H5P_DEFAULT, data), where_, "H5Dread");
}

void Dataset::append_strings(const std::vector<std::string>& v) {
  if (v.empty()) return;
  std::vector<const char*> ptrs;
  ptrs.reserve(v.size());
  for (const auto& s : v) ptrs.push_back(s.c_str());
  const Datatype t = Datatype::utf8_string(where_);
  append(ptrs.data(), ptrs.size(), t.id());
}

std::vector<std::string> Dataset::read_strings(hsize_t first, hsize_t n) const {
  std::vector<std::string> out;
  if (n == 0) return out;
  if (!type().is_variable_string())
    throw ResourceError(fmt::format("{}: {}: not a variable-length string dataset", where_.file, where_.path));
  const Datatype t = Datatype::utf8_string(where_);
  std::vector<char*> ptrs(n, nullptr);
  read(ptrs.data(), first, n, t.id());
  out.reserve(n);
  for (char* p : ptrs) out.emplace_back(p ? p : "");
  reclaim_strings(ptrs, t.id(), where_);
  return out;
}

// ---- Group ----

Group::Group(hid_t id, Where w) : Object(id, H5Gclose, std::move(w)) {}

bool Group::has(const std::string& name) const {
  return check_tri(H5Lexists(id_, name.c_str(), H5P_DEFAULT), where_.child(name), "H5Lexists") > 0;
}

Group Group::create_group(const std::string& name) {
  const Where w = where_.child(name);
  return Group(check_id(H5Gcreate2(id_, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), w, "H5Gcreate2"), w);
}

Group Group::open_group(const std::string& name) const {
  const Where w = where_.child(name);
  return Group(check_id(H5Gopen2(id_, name.c_str(), H5P_DEFAULT), w, "H5Gopen2"), w);
}

Dataset Group::open_dataset(const std::string& name) const {
  const Where w = where_.child(name);
  return Dataset(check_id(H5Dopen2(id_, name.c_str(), H5P_DEFAULT), w, "H5Dopen2"), w);
}

namespace {
herr_t collect_name(hid_t /*group*/, const char* name, const H5L_info_t* /*info*/, void* data) {
  static_cast<std::vector<std::string>*>(data)->emplace_back(name);
  return 0;
}
}  // namespace

std::vector<std::string> Group::children() const {
  std::vector<std::string> names;
  hsize_t idx = 0;
  check(H5Literate(id_, H5_INDEX_NAME, H5_ITER_INC, &idx, collect_name, &names), where_, "H5Literate");
  return names;
}

Dataset Group::create_table_dataset(const std::string& name, hid_t type, hsize_t chunk_rows, int deflate_level) {
  const Where w = where_.child(name);
  const Dataspace space = Dataspace::simple(0, H5S_UNLIMITED, w);
  const PropList dcpl = PropList::create(H5P_DATASET_CREATE, w);
  const hsize_t chunk[1] = {std::max<hsize_t>(chunk_rows, 1)};
  check(H5Pset_chunk(dcpl.id(), 1, chunk), w, "H5Pset_chunk");
  check(H5Pset_shuffle(dcpl.id()), w, "H5Pset_shuffle");
  check(H5Pset_deflate(dcpl.id(), static_cast<unsigned>(deflate_level)), w, "H5Pset_deflate");
  const H5T_class_t cls = H5Tget_class(type);
  if (cls == H5T_NO_CLASS) fail(w, "H5Tget_class");
  const bool variable = cls == H5T_VLEN || (cls == H5T_STRING && check_tri(H5Tis_variable_str(type), w, "H5Tis_variable_str") > 0);
  if (!variable) check(H5Pset_fletcher32(dcpl.id()), w, "H5Pset_fletcher32");  // HDF5 refuses it on variable-length data
  return Dataset(check_id(H5Dcreate2(id_, name.c_str(), type, space.id(), H5P_DEFAULT, dcpl.id(), H5P_DEFAULT), w,
                          "H5Dcreate2"),
                 w);
}

// ---- File ----

File::File(hid_t id, Where w) : Group(id, H5Fclose, std::move(w)) {}

namespace {
PropList file_access(const Where& w) {
  PropList fapl = PropList::create(H5P_FILE_ACCESS, w);
  check(H5Pset_libver_bounds(fapl.id(), H5F_LIBVER_V18, H5F_LIBVER_LATEST), w, "H5Pset_libver_bounds");
  check(H5Pset_fclose_degree(fapl.id(), H5F_CLOSE_SEMI), w, "H5Pset_fclose_degree");
  return fapl;
}
}  // namespace

File File::create(const std::string& path) {
  silence_errors();
  const Where w{path, "/"};
  const PropList fapl = file_access(w);
  return File(check_id(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.id()), w, "H5Fcreate"), w);
}

File File::open(const std::string& path, bool writable) {
  silence_errors();
  const Where w{path, "/"};
  const PropList fapl = file_access(w);
  return File(check_id(H5Fopen(path.c_str(), writable ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl.id()), w, "H5Fopen"), w);
}

void File::flush() { check(H5Fflush(id_, H5F_SCOPE_LOCAL), where_, "H5Fflush"); }

hsize_t chunk_rows_for(std::size_t elem_size, std::uint64_t rows) {
  const std::uint64_t target = (256u * 1024u) / std::max<std::size_t>(elem_size, 1);
  return static_cast<hsize_t>(std::max<std::uint64_t>(1, std::min(target, rows)));
}

}  // namespace screen::store::h5
