#pragma once
// Letters an input holds that its alphabet does not, counted so a tool can warn once per input
// ("B ×3, \x01 ×1") instead of once per sequence.
#include <cstddef>
#include <map>
#include <string>

namespace hyalign {

// A letter as a message shows it: itself when printable, else \xNN.
std::string printable_letter(char c);

class UnknownLetters {
 public:
  void add(char c) { ++counts_[c]; }
  void add(const UnknownLetters& other) {
    for (const auto& [c, n] : other.counts_) counts_[c] += n;
  }
  bool empty() const { return counts_.empty(); }
  std::string list() const;  // printable letters as themselves, others as \xNN, each with its count

 private:
  std::map<char, std::size_t> counts_;
};

}  // namespace hyalign
