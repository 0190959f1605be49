#include "stages/energy/params.hpp"

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "common/error.hpp"

namespace screen::energy {

namespace {

struct Table {
  std::vector<int> dims;
  std::vector<double> values;
  std::vector<std::string> words;  // the values as written (Tetraloops: LOOP:bonus)
};

std::map<std::string, Table> parse(const std::string& text, const std::string& source) {
  std::map<std::string, Table> out;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    const auto where = [&] { return fmt::format("{}:{}", source, number); };
    const std::size_t t1 = line.find('\t'), t2 = t1 == std::string::npos ? t1 : line.find('\t', t1 + 1);
    if (t2 == std::string::npos)
      throw InputError(fmt::format("{}: expected name<TAB>dimensions<TAB>values", where()));
    const std::string name = line.substr(0, t1);
    Table t;
    std::size_t count = 1;
    {
      std::istringstream dims(line.substr(t1 + 1, t2 - t1 - 1));
      std::string d;
      while (std::getline(dims, d, 'x')) {
        int v = -1;
        try {
          v = std::stoi(d);
        } catch (const std::exception&) {
        }
        if (v < 0) throw InputError(fmt::format("{}: table {}: bad dimensions", where(), name));
        t.dims.push_back(v);
        count *= static_cast<std::size_t>(v);
      }
    }
    std::istringstream values(line.substr(t2 + 1));
    std::string w;
    while (values >> w) t.words.push_back(w);
    if (t.words.size() != count)
      throw InputError(fmt::format("{}: table {} has {} values, its dimensions say {}", where(), name, t.words.size(), count));
    if (name != "Tetraloops" && name != "Triloops") {
      for (const auto& v : t.words) {
        char* end = nullptr;
        const double x = std::strtod(v.c_str(), &end);
        if (end == v.c_str() || *end != '\0')
          throw InputError(fmt::format("{}: table {}: '{}' is not a number", where(), name, v));
        t.values.push_back(x);
      }
    }
    if (!out.emplace(name, std::move(t)).second) throw InputError(fmt::format("{}: table {} given twice", where(), name));
  }
  return out;
}

const Table& need(const std::map<std::string, Table>& tables, const std::string& name, std::size_t count,
                  const std::string& source) {
  const auto it = tables.find(name);
  if (it == tables.end()) throw InputError(fmt::format("{}: no table {}", source, name));
  if (it->second.words.size() != count)
    throw InputError(fmt::format("{}: table {} has {} values, expected {}", source, name, it->second.words.size(), count));
  return it->second;
}

}  // namespace

Model model_from_table(const std::string& table_text, double celsius, const std::string& source) {
  if (!(celsius >= -50.0 && celsius <= 100.0))
    throw UsageError(fmt::format("temperature {} degrees C: expected -50 to 100", celsius));
  const auto tables = parse(table_text, source);
  auto get = [&](const std::string& name, std::size_t count) -> const std::vector<double>& {
    return need(tables, name, count, source).values;
  };
  auto scalar = [&](const std::string& name) { return get(name, 1)[0]; };

  Model m{};
  m.temperature = celsius;
  const double f = (celsius + scalar("K0")) / scalar("Tmeasure");
  // Vienna 1.x keeps parameters as ints and assigns double expressions to them: truncation toward
  // zero, in this order of operations.
  auto scaled = [f](double v37) { return static_cast<int>(v37 * f); };
  auto by_enthalpy = [f](double h, double g37) { return static_cast<int>(h - (h - g37) * f); };
  auto fill_scaled = [&](int* to, const std::string& name, std::size_t count) {
    const auto& v = get(name, count);
    for (std::size_t k = 0; k < count; ++k) to[k] = scaled(v[k]);
  };
  auto fill_enthalpy = [&](int* to, const std::string& g37, const std::string& h, std::size_t count) {
    const auto& g = get(g37, count);
    const auto& hv = get(h, count);
    for (std::size_t k = 0; k < count; ++k) to[k] = by_enthalpy(hv[k], g[k]);
  };

  fill_scaled(m.hairpin, "hairpin37", kMaxLoop + 1);
  fill_scaled(m.bulge, "bulge37", kMaxLoop + 1);
  fill_scaled(m.internal, "internal_loop37", kMaxLoop + 1);
  m.lxc = scalar("lxc37") * f;
  fill_scaled(m.ninio, "F_ninio37", 5);
  m.max_ninio = static_cast<int>(scalar("MAX_NINIO"));
  m.ml_base = scaled(scalar("ML_BASE37"));
  m.ml_closing = scaled(scalar("ML_closing37"));
  m.terminal_au = static_cast<int>(scalar("TerminalAU"));
  for (int t = 0; t < 8; ++t) m.ml_intern[t] = scaled(scalar("ML_intern37")) + (t > 2 ? m.terminal_au : 0);
  fill_enthalpy(&m.stack[0][0], "stack37", "enthalpies", 64);
  fill_enthalpy(&m.mismatch_interior[0][0][0], "mismatchI37", "mism_H", 200);
  fill_enthalpy(&m.mismatch_hairpin[0][0][0], "mismatchH37", "mism_H", 200);
  fill_enthalpy(&m.mismatch_multi[0][0][0], "mismatchM37", "mism_H", 200);
  fill_enthalpy(&m.dangle5[0][0], "dangle5_37", "dangle5_H", 40);
  fill_enthalpy(&m.dangle3[0][0], "dangle3_37", "dangle3_H", 40);
  for (auto* d : {&m.dangle5[0][0], &m.dangle3[0][0]})
    for (int k = 0; k < 40; ++k) d[k] = d[k] > 0 ? 0 : d[k];  // dangles never cost
  fill_enthalpy(&m.int11[0][0][0][0], "int11_37", "int11_H", 1600);
  fill_enthalpy(&m.int21[0][0][0][0][0], "int21_37", "int21_H", 8000);
  fill_enthalpy(&m.int22[0][0][0][0][0][0], "int22_37", "int22_H", 40000);

  const double tetra_h = scalar("TETRA_ENTH37");
  const auto it = tables.find("Tetraloops");
  if (it == tables.end()) throw InputError(fmt::format("{}: no table Tetraloops", source));
  if (it->second.words.size() > static_cast<std::size_t>(kTetraloops))
    throw InputError(fmt::format("{}: more than {} tetraloops", source, kTetraloops));
  m.tetraloop_count = 0;
  for (const auto& w : it->second.words) {
    const std::size_t colon = w.find(':');
    if (colon != 6) throw InputError(fmt::format("{}: tetraloop '{}': expected six letters, ':' and a bonus", source, w));
    double bonus = 0;
    try {
      bonus = std::stod(w.substr(7));
    } catch (const std::exception&) {
      throw InputError(fmt::format("{}: tetraloop '{}': bad bonus", source, w));
    }
    std::memcpy(m.tetraloop[m.tetraloop_count], w.data(), 6);
    m.tetraloop[m.tetraloop_count][6] = '\0';
    m.tetraloop_bonus[m.tetraloop_count] = by_enthalpy(tetra_h, bonus);
    ++m.tetraloop_count;
  }
  const auto tri = tables.find("Triloops");
  if (tri != tables.end() && !tri->second.words.empty())
    throw InputError(fmt::format("{}: triloop bonuses are not supported (the Turner 1999 set has none)", source));
  return m;
}

const Model& model_at(double celsius) {
  // Models are built once per temperature and kept (a run uses one or two).
  static std::mutex mutex;
  static std::map<double, std::unique_ptr<Model>> models;
  const std::lock_guard<std::mutex> lock(mutex);
  auto& slot = models[celsius];
  if (!slot) slot = std::make_unique<Model>(model_from_table(builtin_table(), celsius, "turner1999_vienna1.tsv (built in)"));
  return *slot;
}

}  // namespace screen::energy
