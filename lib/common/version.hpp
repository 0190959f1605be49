#pragma once
// Version of the screen build; the commit is read from git at build time ("unknown" outside git).
namespace screen {
const char* version_string();
const char* git_commit();
}  // namespace screen
