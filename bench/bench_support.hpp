#pragma once
// Helpers shared by the benchmark programs.
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#ifndef HYALIGN_DATA_DIR
#define HYALIGN_DATA_DIR "tests/data"
#endif

namespace hyalign::bench {

// The sequences of a plain FASTA file (exits with a message when it cannot be read).
inline std::vector<std::string> read_fasta(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    fmt::print(stderr, "cannot read {}\n", path);
    std::exit(1);
  }
  std::vector<std::string> seqs;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (line[0] == '>') seqs.emplace_back();
    else if (!seqs.empty()) seqs.back() += line;
  }
  return seqs;
}

inline double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace hyalign::bench
