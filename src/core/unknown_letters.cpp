#include "core/unknown_letters.hpp"

#include <fmt/format.h>

namespace hyalign {

std::string printable_letter(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u >= 0x21 && u < 0x7f) ? std::string(1, c) : fmt::format("\\x{:02x}", u);
}

std::string UnknownLetters::list() const {
  std::string out;
  for (auto [c, n] : counts_) out += fmt::format("{}{} ×{}", out.empty() ? "" : ", ", printable_letter(c), n);
  return out;
}

}  // namespace hyalign
