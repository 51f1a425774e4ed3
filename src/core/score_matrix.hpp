#pragma once
// Substitution matrices for local alignment search. Residues are small codes (0 .. size()-1) in the
// matrix's own letter order; letters outside the alphabet map to the "unknown" code (X for protein,
// N for DNA), which callers report with a warning.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hyalign {

class ScoreMatrix {
 public:
  static constexpr int kMaxCodes = 32;

  // BLOSUM45, BLOSUM50, BLOSUM62, BLOSUM80, PAM30, PAM70, PAM250 (name case-insensitive).
  // Throws UsageError for any other name.
  static ScoreMatrix builtin(std::string_view name);
  // NCBI matrix format ('#' comments, a header row of letters, one row per letter). Throws
  // InputError(file, line, problem) on malformed input (non-square, non-integer, duplicate letters,
  // more than 32 letters). Lower-case letters map like upper case.
  static ScoreMatrix from_ncbi_file(const std::string& path);
  // DNA: A C G T N (U reads as T); match / mismatch scores; N and other IUPAC codes score `mismatch`
  // against everything, N included.
  static ScoreMatrix dna(int match, int mismatch);

  const std::string& name() const { return name_; }
  bool is_dna() const { return dna_; }
  int size() const { return static_cast<int>(letters_.size()); }
  const std::string& letters() const { return letters_; }
  std::uint8_t unknown_code() const { return unknown_; }
  // Code of a letter (case-insensitive); unknown_code() for letters outside the alphabet.
  std::uint8_t encode(char c) const { return encode_[static_cast<unsigned char>(c)]; }
  bool is_known(char c) const { return known_[static_cast<unsigned char>(c)]; }
  char decode(std::uint8_t code) const { return letters_[code]; }
  int score(std::uint8_t a, std::uint8_t b) const { return table_[a * kMaxCodes + b]; }
  // Row of `a`: kMaxCodes entries, codes >= size() score min_score().
  const std::int8_t* row(std::uint8_t a) const { return table_.data() + a * kMaxCodes; }
  int max_score() const { return max_; }
  int min_score() const { return min_; }

 private:
  ScoreMatrix() = default;
  void finish();  // fills encode tables, padding, min/max from letters_ and table_
  // Appends `letter`, scoring the matrix minimum against every letter and itself; returns its code.
  std::uint8_t append_lowest_letter(char letter);
  std::string name_;
  bool dna_ = false;
  std::string letters_;
  std::uint8_t unknown_ = 0;
  std::array<std::uint8_t, 256> encode_{};
  std::array<bool, 256> known_{};
  std::array<std::int8_t, kMaxCodes * kMaxCodes> table_{};
  int max_ = 0, min_ = 0;
  friend class ScoreMatrixBuilder;
};

}  // namespace hyalign
