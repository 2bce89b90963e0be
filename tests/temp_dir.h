// A fresh directory for one test's files, under the system's temp directory:
// <name>_XXXXXX, made by mkdtemp(3). Empty, with the test failed, if it cannot be made.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>

namespace buzz {

inline std::string make_temp_dir(std::string_view name) {
  std::string dir = (std::filesystem::temp_directory_path() / (std::string(name) + "_XXXXXX")).string();
  if (mkdtemp(dir.data()) != nullptr) return dir;
  ADD_FAILURE() << "cannot make " << dir << ": " << std::strerror(errno);
  return {};
}

}  // namespace buzz
