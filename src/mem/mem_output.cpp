#include "mem/mem_output.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>

namespace hyalign::mem {
namespace {

constexpr std::size_t kWidth = 8;  // printf's %8lu
constexpr std::string_view kHeader = "> ", kReverse = " Reverse", kLengthLabel = "  Len = ", kGap = "  ";

std::size_t digits(std::uint64_t value) {
  std::size_t count = 1;
  for (; value >= 10; value /= 10) ++count;
  return count;
}

// The columns of a number no larger than `largest`: 8, or as many as its digits.
std::size_t number_width(std::uint64_t largest) { return std::max(kWidth, digits(largest)); }

char* copy(char* to, std::string_view text) {
  std::memcpy(to, text.data(), text.size());
  return to + text.size();
}

// "00" to "99": numbers are written two digits at a time.
constexpr auto kDigitPairs = [] {
  std::array<char, 200> pairs{};
  for (int i = 0; i < 100; ++i) {
    pairs[2 * i] = static_cast<char>('0' + i / 10);
    pairs[2 * i + 1] = static_cast<char>('0' + i % 10);
  }
  return pairs;
}();

// Writes `value` right-aligned in 8 columns (a wider number takes the columns it needs, as with
// printf's %8lu) and returns the end.
char* write_number(char* to, std::uint64_t value) {
  if (value >= 100'000'000) return std::to_chars(to, to + 20, value).ptr;
  std::memset(to, ' ', kWidth);
  char* digit = to + kWidth;
  for (; value >= 100; value /= 100) {
    digit -= 2;
    std::memcpy(digit, &kDigitPairs[value % 100 * 2], 2);
  }
  if (value >= 10)
    std::memcpy(digit - 2, &kDigitPairs[value * 2], 2);
  else
    digit[-1] = static_cast<char>('0' + value);
  return to + kWidth;
}

}  // namespace

SectionWriter::SectionWriter(const index::ReferenceText& ref, const SectionStyle& style)
    : ref_(ref), style_(style) {
  std::uint64_t longest = 0;
  for (const std::uint64_t length : ref.lengths) longest = std::max(longest, length);
  ref_width_ = number_width(longest);
  if (!style.reference_names) return;
  // Two spaces, the name, and spaces up to the longest name's end and two more: made once, so a
  // line copies its sequence's column whole.
  column_ = style.name_width + 2 * kGap.size();
  columns_.assign(ref.sequences() * column_, ' ');
  for (std::size_t seq = 0; seq < ref.sequences(); ++seq)
    ref.names[seq].copy(columns_.data() + seq * column_ + kGap.size(), style.name_width);
}

std::size_t SectionWriter::bound(std::string_view name, bool reverse, std::string_view strand,
                                 std::span<const kernels::MemMatch> matches, bool with_header) const {
  const std::size_t header = !with_header ? 0
                                          : kHeader.size() + name.size() + (reverse ? kReverse.size() : 0) +
                                                (style_.show_lengths ? kLengthLabel.size() + digits(strand.size()) : 0) + 1;
  // A query position or a length is at most the strand's length.
  const std::size_t line = column_ + ref_width_ + 2 * (kGap.size() + number_width(strand.size())) + 1;
  std::size_t letters = 0;
  if (style_.show_substrings)
    for (const kernels::MemMatch& m : matches) letters += m.length + 1;
  return header + matches.size() * line + letters;
}

char* SectionWriter::write(char* to, std::string_view name, bool reverse, std::string_view strand,
                           std::span<const kernels::MemMatch> matches, bool header) const {
  if (header) {
    to = copy(to, kHeader);
    to = copy(to, name);
    if (reverse) to = copy(to, kReverse);
    if (style_.show_lengths) {
      to = copy(to, kLengthLabel);
      to = std::to_chars(to, to + 20, strand.size()).ptr;
    }
    *to++ = '\n';
  }
  for (const kernels::MemMatch& m : matches) {
    const std::size_t seq = ref_.sequence_at(m.ref_pos);
    to = copy(to, {columns_.data() + seq * column_, column_});
    to = copy(write_number(to, m.ref_pos - ref_.starts[seq] + 1), kGap);
    // -c prints a reverse match at the forward-strand position of its first letter.
    const std::uint64_t query_pos =
        reverse && style_.forward_positions ? strand.size() - m.query_pos : std::uint64_t{m.query_pos} + 1;
    to = copy(write_number(to, query_pos), kGap);
    to = write_number(to, m.length);
    *to++ = '\n';
    if (style_.show_substrings) {
      to = copy(to, strand.substr(m.query_pos, m.length));
      *to++ = '\n';
    }
  }
  return to;
}

}  // namespace hyalign::mem
