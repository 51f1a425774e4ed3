#pragma once
// A reference genome as one text for an index: its sequences lower-cased (matching ignores case,
// as MUMmer's does), each followed by a separator byte that no query letter equals, so no match
// crosses from one sequence into the next.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hyalign::index {

inline constexpr char kSeparator = '\0';

// ASCII lower case (the C locale's tolower, without a call per letter).
constexpr char lower_case(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; }

struct ReferenceText {
  std::string text;                  // sequence 0, separator, sequence 1, separator, ...
  std::vector<std::string> names;    // first word of each FASTA header
  std::vector<std::uint64_t> starts;  // offset of each sequence in text
  std::vector<std::uint64_t> lengths;

  std::size_t sequences() const { return names.size(); }
  // The sequence that holds text offset `pos` (not a separator).
  std::size_t sequence_at(std::uint64_t pos) const;
  std::size_t longest_name() const;
};

// Reads every record of a FASTA/FASTQ file (plain or gzip). Throws InputError for a file with no
// sequence letters or a reference too long for the index (kMaxTextLength).
ReferenceText read_reference(const std::string& path);

inline constexpr std::uint64_t kMaxTextLength = (std::uint64_t{1} << 32) - 2;  // 32-bit suffix array

}  // namespace hyalign::index
