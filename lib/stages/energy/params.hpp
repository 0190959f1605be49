#pragma once
// The Turner 1999 parameter table (data/energy/turner1999_vienna1.tsv, built into the program) and
// its rescaling to a temperature, as Vienna RNA 1.x does it (docs/energy.md, "Parameters at a
// temperature").
#include <string>

#include "stages/energy/energy_model.hpp"

namespace screen::energy {

// The model at `celsius` degrees (miRanda's default is 30). Throws UsageError outside -50..100.
const Model& model_at(double celsius);

// The same from a parameter table's text (the built-in one's layout), for tests of the parser.
Model model_from_table(const std::string& table_text, double celsius, const std::string& source);

// The built-in table's text.
const std::string& builtin_table();

}  // namespace screen::energy
