#pragma once
// Typed errors carried from the library to the CLI's edge, each with the exit code the CLI returns.
// Library code throws; apps/screen turns the exception into one message and that exit code.
#include <stdexcept>
#include <string>

namespace screen {

enum class ExitCode : int {
  ok = 0,
  internal = 1,         // a bug or an unexpected failure
  usage = 2,            // bad command line
  manifest = 3,         // the job manifest is invalid
  input = 4,            // an input file (FASTA, pairs) is unreadable or malformed
  not_implemented = 5,  // a subcommand or option a later release provides
  resource = 6,         // GPU, memory or disk problem
  conflict = 7,         // lock held, or a resume refused (inputs or manifest changed)
  interrupted = 130,    // SIGINT
  terminated = 143,     // SIGTERM
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ExitCode code() const noexcept { return code_; }

 private:
  ExitCode code_;
};

// A malformed or unreadable input file; the message names file, line and column where known.
class InputError : public Error {
 public:
  explicit InputError(const std::string& message) : Error(ExitCode::input, message) {}
};

// An invalid manifest; the message names file:line:column and the field path.
class ManifestError : public Error {
 public:
  explicit ManifestError(const std::string& message) : Error(ExitCode::manifest, message) {}
};

class UsageError : public Error {
 public:
  explicit UsageError(const std::string& message) : Error(ExitCode::usage, message) {}
};

class NotImplementedError : public Error {
 public:
  explicit NotImplementedError(const std::string& message)
      : Error(ExitCode::not_implemented, message) {}
};

class ResourceError : public Error {
 public:
  explicit ResourceError(const std::string& message) : Error(ExitCode::resource, message) {}
};

class ConflictError : public Error {
 public:
  explicit ConflictError(const std::string& message) : Error(ExitCode::conflict, message) {}
};

// "file:line:column: message" with the parts that are known (line/column 0 = unknown).
std::string located(const std::string& file, long line, long column, const std::string& message);

}  // namespace screen
