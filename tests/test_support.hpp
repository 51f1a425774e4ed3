#pragma once
// Helpers shared by the unit tests.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <random>
#include <string>
#include <system_error>
#include <vector>

#include "index/reference_text.hpp"

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

// The 20 amino acids and the 4 bases, for random sequences.
inline constexpr const char* kAmino = "ARNDCQEGHILKMFPSTWYV";
inline constexpr const char* kDna = "ACGT";

// A random sequence of `length` letters drawn uniformly from `letters`.
inline std::string random_sequence(std::mt19937& rng, const std::string& letters, std::size_t length) {
  std::uniform_int_distribution<std::size_t> pick(0, letters.size() - 1);
  std::string s(length, 'A');
  for (char& c : s) c = letters[pick(rng)];
  return s;
}

// A relative of `s`: substitutions, insertions and deletions at `rate` each.
inline std::string relative_of(std::mt19937& rng, const std::string& s, const std::string& letters, double rate) {
  std::uniform_real_distribution<double> u(0, 1);
  std::uniform_int_distribution<std::size_t> pick(0, letters.size() - 1);
  std::string out;
  for (char c : s) {
    const double x = u(rng);
    if (x < rate) out += letters[pick(rng)];
    else if (x < 2 * rate) continue;
    else if (x < 3 * rate) out += c, out += letters[pick(rng)];
    else out += c;
  }
  return out;
}

// A reference of the given sequences, named seq0, seq1, ...
inline index::ReferenceText reference_of(const std::vector<std::string>& sequences) {
  index::ReferenceText ref;
  for (std::size_t i = 0; i < sequences.size(); ++i) {
    ref.names.push_back("seq" + std::to_string(i));
    ref.starts.push_back(ref.text.size());
    ref.lengths.push_back(sequences[i].size());
    ref.text += sequences[i];
    ref.text.push_back(index::kSeparator);
  }
  return ref;
}

// Lower-case a/c/g/t letters, uniformly random.
inline std::string random_bases(std::mt19937& rng, std::size_t n) {
  std::string s(n, 'a');
  for (char& c : s) c = "acgt"[rng() % 4];
  return s;
}

// The other strand of lower-case letters (anything but a/c/g/t is kept).
inline std::string reverse_complement(std::string s) {
  std::reverse(s.begin(), s.end());
  for (char& c : s) c = c == 'a' ? 't' : c == 'c' ? 'g' : c == 'g' ? 'c' : c == 't' ? 'a' : c;
  return s;
}

}  // namespace hyalign::test
