#pragma once
// Nucleotides as 2-bit codes for the aligners: a/c/g/t (either case) are 0-3, anything else
// (N, IUPAC ambiguity letters) is 4. The complement of a code is 3 - code; 4 stays 4.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hyalign {

inline constexpr std::uint8_t kOtherBase = 4;

inline constexpr std::array<std::uint8_t, 256> kBaseCodes = [] {
  std::array<std::uint8_t, 256> codes{};
  codes.fill(kOtherBase);
  codes['A'] = codes['a'] = 0;
  codes['C'] = codes['c'] = 1;
  codes['G'] = codes['g'] = 2;
  codes['T'] = codes['t'] = 3;
  return codes;
}();

constexpr std::uint8_t base_code_of(char c) { return kBaseCodes[static_cast<unsigned char>(c)]; }
constexpr std::uint8_t complement_code(std::uint8_t code) { return code < 4 ? static_cast<std::uint8_t>(3 - code) : code; }

// Each nucleotide letter's complement, IUPAC codes included, in the same case; N for any other byte.
inline constexpr std::array<char, 256> kComplementLetters = [] {
  std::array<char, 256> table{};
  table.fill('N');
  const char* from = "ACGTRYKMSWBDHVNacgtrykmswbdhvn";
  const char* to = "TGCAYRMKSWVHDBNtgcayrmkswvhdbn";
  for (int i = 0; from[i] != 0; ++i) table[static_cast<unsigned char>(from[i])] = to[i];
  return table;
}();

// `letters` reverse-complemented in place.
inline void reverse_complement_letters(std::string& letters) {
  std::reverse(letters.begin(), letters.end());
  for (char& c : letters) c = kComplementLetters[static_cast<unsigned char>(c)];
}

}  // namespace hyalign
