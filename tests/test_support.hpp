#pragma once
// Helpers shared by the unit tests.
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <system_error>

namespace hyalign::test {

// A scratch folder, unique per test process and object, removed with the object.
struct TempDir {
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("hyalign_test_" + std::to_string(::getpid()) + "_" + std::to_string(next_id()));
  TempDir() { std::filesystem::create_directories(path); }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path / name).string(); }

 private:
  static int next_id() {
    static std::atomic<int> id{0};
    return id++;
  }
};

}  // namespace hyalign::test
