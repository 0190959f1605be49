#pragma once
// Quoting for values on `#SBATCH` lines. sbatch, not bash, reads those lines (slurm
// src/sbatch/opt.c, _get_argument): it splits them at unquoted white space, honours single and
// double quotes, lets a backslash escape the next character (inside quotes too) and ends the line
// at an unquoted '#'. Bash sees the lines as comments only.
#include <string>

namespace screen::cluster {

// `value` as one sbatch argument: as it is when it is plain (letters, digits and / . _ - + : , = @ %),
// otherwise in double quotes with '\' and '"' backslash-escaped. Control characters must have been
// refused before (a newline would end the line whatever the quotes).
std::string sbatch_quote(const std::string& value);

// A path for --output / --error, where SLURM replaces %A, %a, %j...: a literal '%' is written '%%'.
std::string slurm_filename_literal(const std::string& path);

}  // namespace screen::cluster
