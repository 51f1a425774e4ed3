#pragma once
// Residue alphabets as bit sets: DNA uses 4 bits (A=1 C=2 G=4 T=8, IUPAC codes are unions),
// protein uses one bit per amino acid in 32 bits. The gap/unknown symbol is the full set, so
// "shares a state" is a plain AND for every symbol including ambiguity codes.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hyalign {

using StateSet = std::uint32_t;

enum class AlphabetKind { dna, protein };

class Alphabet {
 public:
  static const Alphabet& dna();
  static const Alphabet& protein();
  static const Alphabet& of(AlphabetKind kind) { return kind == AlphabetKind::dna ? dna() : protein(); }

  AlphabetKind kind() const { return kind_; }
  // 0 for a character outside the alphabet.
  StateSet encode(char c) const { return encode_[static_cast<unsigned char>(c)]; }
  bool is_valid(char c) const { return encode(c) != 0; }
  StateSet gap_set() const { return gap_; }
  bool is_gap(StateSet s) const { return s == gap_; }
  // The canonical upper-case letter of a set; the gap set is '-'. Sets with no letter give '?'.
  char decode(StateSet s) const;
  // Every distinct set a residue letter can have, gap excluded (DNA: 14, protein: 22). Kernels index
  // their per-query score tables by position in this list.
  const std::vector<StateSet>& residue_sets() const { return residue_sets_; }

 private:
  Alphabet(AlphabetKind kind, std::string_view letters,
           std::initializer_list<std::pair<char, std::string_view>> ambiguity_codes,
           std::string_view gap_chars);
  AlphabetKind kind_;
  StateSet gap_ = 0;
  std::array<StateSet, 256> encode_{};
  std::string letters_;  // letter i has set 1 << i
  std::array<std::pair<StateSet, char>, 16> codes_{};  // ambiguity sets and their letters
  std::size_t code_count_ = 0;
  std::vector<StateSet> residue_sets_;
};

}  // namespace hyalign
