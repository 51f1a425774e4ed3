#include "core/alphabet.hpp"

#include <algorithm>
#include <cctype>

namespace hyalign {

Alphabet::Alphabet(AlphabetKind kind, std::string_view letters,
                   std::initializer_list<std::pair<char, std::string_view>> ambiguity_codes,
                   std::string_view gap_chars)
    : kind_(kind), letters_(letters) {
  auto set_of = [&](std::string_view members) {
    StateSet s = 0;
    for (char m : members) s |= StateSet{1} << letters_.find(m);
    return s;
  };
  gap_ = set_of(letters);
  auto assign = [&](char c, StateSet s) {
    encode_[static_cast<unsigned char>(std::toupper(static_cast<unsigned char>(c)))] = s;
    encode_[static_cast<unsigned char>(std::tolower(static_cast<unsigned char>(c)))] = s;
  };
  for (char c : letters) assign(c, set_of(std::string_view(&c, 1)));
  for (auto [c, members] : ambiguity_codes) {
    StateSet s = set_of(members);
    assign(c, s);
    if (s != gap_) codes_[code_count_++] = {s, c};
  }
  for (char c : gap_chars) assign(c, gap_);
  for (unsigned char c = 'A'; c <= 'Z'; ++c) {
    const StateSet s = encode_[c];
    if (s != 0 && s != gap_ && std::find(residue_sets_.begin(), residue_sets_.end(), s) == residue_sets_.end())
      residue_sets_.push_back(s);
  }
}

const Alphabet& Alphabet::dna() {
  static const Alphabet alphabet(AlphabetKind::dna, "ACGT",
                                 {{'U', "T"}, {'M', "AC"}, {'R', "AG"}, {'W', "AT"}, {'S', "CG"},
                                  {'Y', "CT"}, {'K', "GT"}, {'V', "ACG"}, {'H', "ACT"}, {'D', "AGT"},
                                  {'B', "CGT"}},
                                 "-N?.");
  return alphabet;
}

const Alphabet& Alphabet::protein() {
  static const Alphabet alphabet(AlphabetKind::protein, "ARNDCQEGHILKMFPSTWYV", {{'B', "DN"}, {'Z', "EQ"}},
                                 "-X?.");
  return alphabet;
}

char Alphabet::decode(StateSet s) const {
  if (s == gap_) return '-';
  if (s != 0 && (s & (s - 1)) == 0) {
    unsigned bit = static_cast<unsigned>(__builtin_ctz(s));
    if (bit < letters_.size()) return letters_[bit];
  }
  for (std::size_t i = 0; i < code_count_; ++i)
    if (codes_[i].first == s) return codes_[i].second;
  return '?';
}

}  // namespace hyalign
