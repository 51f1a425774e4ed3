#pragma once
// Maximal exact matches of one query strand against a reference index (MUMmer's three kinds):
// the fast finder on the suffix index, and the plain scalar definition it is tested against.
#include <cstdint>
#include <string_view>
#include <vector>

#include "index/suffix_index.hpp"

namespace hyalign::kernels {

enum class MemKind {
  maxmatch,      // every maximal match
  mumreference,  // maximal matches whose string occurs once in the reference (MUMmer's default)
  mum,           // ... and once in the query
};

struct MemParams {
  MemKind kind = MemKind::mumreference;
  std::uint32_t min_length = 20;
  bool bases_only = false;  // -n: only a, c, g, t match (any other letter ends a match)
};

struct MemMatch {
  std::uint64_t ref_pos = 0;    // offset in the index text (0-based)
  std::uint32_t query_pos = 0;  // 0-based, on the strand searched
  std::uint32_t length = 0;
  friend bool operator==(const MemMatch&, const MemMatch&) = default;
};

// Sorts matches by query position, then reference offset, then length: the order hyalign prints.
void sort_matches(std::vector<MemMatch>& matches);

// Seeds of k letters at every s-th query position (k + s - 1 = min_length, so every match of at
// least min_length letters holds a seed) extended both ways; uniqueness from the seed's other
// occurrences, or, for seeds with very many, from the suffix array position by position.
class MemFinder {
 public:
  MemFinder(const index::SuffixIndex& index, MemParams params);
  // Appends the matches of `query` (lower-case letters) to `out`, sorted.
  void find(std::string_view query, std::vector<MemMatch>& out) const;
  unsigned seed_length() const { return seed_length_; }
  unsigned seed_step() const { return seed_step_; }

 private:
  struct Occurrence {
    std::uint64_t ref_pos;
    std::uint32_t left, right;  // letters matched before the seed (at most seed_step_) and from its start
  };
  void find_at_seed(std::string_view query, std::size_t seed, std::vector<Occurrence>& occurrences,
                    std::vector<MemMatch>& out) const;
  void find_unique_at(std::string_view query, std::size_t pos, std::vector<MemMatch>& out) const;
  bool letters_match(char q, char t) const;
  std::uint32_t extend_right(std::string_view query, std::size_t q, std::uint64_t t) const;
  std::uint32_t extend_left(std::string_view query, std::size_t q, std::uint64_t t, std::uint32_t most) const;

  const index::SuffixIndex& index_;
  MemParams params_;
  unsigned seed_length_, seed_step_;
};

// The definition, letter by letter over every query and reference position: for tests only.
std::vector<MemMatch> find_mems_scalar(std::string_view text, std::string_view query, const MemParams& params);

// -mum: keeps the matches whose string occurs once in the query (the reference-unique matches
// of one strand, sorted).
void keep_query_unique(std::string_view query, std::vector<MemMatch>& matches);

}  // namespace hyalign::kernels
