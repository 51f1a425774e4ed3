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
  void add(char c, std::size_t times = 1) { counts_[c] += times; }
  void add(const UnknownLetters& other) {
    for (const auto& [c, n] : other.counts_) add(c, n);
  }
  bool empty() const { return counts_.empty(); }
  const std::map<char, std::size_t>& counts() const { return counts_; }  // letter -> times seen
  std::string list() const;  // printable letters as themselves, others as \xNN, each with its count

 private:
  std::map<char, std::size_t> counts_;
};

}  // namespace hyalign
