// ScratchDir: a fresh, empty directory for one test (a data directory to
// restart a relay on, a backup's target, certificates), made with mkdtemp
// under $TMPDIR or /tmp and removed with everything in it when the object
// goes — kept, its path printed, when BUZZ_KEEP_TEST_DIRS is set, like the
// directories RelayProcess makes.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>  // mkdtemp

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace buzz::test {

class ScratchDir {
 public:
  // `name` says whose it is in the directory's name (buzz-<name>-XXXXXX).
  explicit ScratchDir(const std::string& name) {
    const char* tmp = std::getenv("TMPDIR");
    std::string root = std::string(tmp && *tmp ? tmp : "/tmp") + "/buzz-" + name + "-XXXXXX";
    if (::mkdtemp(root.data()) == nullptr) {
      ADD_FAILURE() << "mkdtemp " << root;
      return;
    }
    path_ = std::move(root);
  }
  ~ScratchDir() {
    if (path_.empty()) return;
    if (std::getenv("BUZZ_KEEP_TEST_DIRS")) {
      std::fprintf(stderr, "kept %s\n", path_.c_str());
      return;
    }
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }
  // A path inside it.
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;  // empty when mkdtemp failed
};

}  // namespace buzz::test
