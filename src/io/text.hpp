#pragma once
// Small text helpers the line-based readers share.
#include <string>
#include <string_view>

namespace hyalign::text {

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

// Every reader's error for a carriage return inside a line: a file with CR-only line ends
// (classic Mac OS) reads as one long line.
inline constexpr std::string_view kCarriageReturnInside =
    "carriage return inside a line: a file with CR-only line ends? (tr '\\r' '\\n' converts them)";

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// Whether `s` ends with `tail` (given in lower case), in either case: a file name's ending.
inline bool ends_with_any_case(std::string_view s, std::string_view tail) {
  if (s.size() < tail.size()) return false;
  s.remove_prefix(s.size() - tail.size());
  for (std::size_t i = 0; i < tail.size(); ++i)
    if ((s[i] >= 'A' && s[i] <= 'Z' ? static_cast<char>(s[i] - 'A' + 'a') : s[i]) != tail[i]) return false;
  return true;
}

// Whether s holds whitespace: one pass over all of s without branches, which compilers vectorize.
inline bool has_space(std::string_view s) {
  unsigned char any = 0;  // bytes and bitwise operators: what GCC vectorizes
  for (char c : s) any |= static_cast<unsigned char>((c == ' ') | (static_cast<unsigned char>(c - '\t') <= '\r' - '\t'));
  return any != 0;
}

// The characters of s that are not whitespace: what append_without_space appends.
inline std::size_t count_without_space(std::string_view s) {
  if (!has_space(s)) return s.size();
  std::size_t n = 0;
  for (char c : s) n += !is_space(c);
  return n;
}

// Appends s to out without any whitespace.
inline void append_without_space(std::string& out, std::string_view s) {
  if (!has_space(s)) {
    out.append(s);
    return;
  }
  for (char c : s)
    if (!is_space(c)) out.push_back(c);
}

}  // namespace hyalign::text
