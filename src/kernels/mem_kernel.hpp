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
  mum,           // ... and not inside another such match's reference interval (keep_mums)
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
  struct Occurrence {
    std::uint64_t ref_pos;
    std::uint32_t left, right;  // letters matched before the seed (at most seed_step_) and from its start
  };
  struct Seed {
    std::uint32_t pos;
    index::SaInterval rows;
  };
  // Buffers one thread reuses from query to query.
  struct Scratch {
    std::vector<Seed> seeds;
    std::vector<long> codes;
    std::vector<Occurrence> occurrences;
    std::vector<MemMatch> found;
  };

  MemFinder(const index::SuffixIndex& index, MemParams params);
  // Replaces `out` with the matches of `query` (lower-case letters), sorted.
  void find(std::string_view query, std::vector<MemMatch>& out, Scratch& scratch) const;
  void find(std::string_view query, std::vector<MemMatch>& out) const;
  unsigned seed_length() const { return seed_length_; }
  unsigned seed_step() const { return seed_step_; }

 private:
  void look_up_seeds(std::string_view query, Scratch& scratch) const;
  void find_at_seed(std::string_view query, const Seed& seed, std::vector<Occurrence>& occurrences,
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

// -mum from the reference-unique matches of one query strand, by MUMmer 3.23's rule: a match
// whose reference interval lies inside (or equals) another's is dropped, so a string the query
// holds twice goes (its two matches share a reference interval). Keeps the sorted order.
void keep_mums(std::vector<MemMatch>& matches);

}  // namespace hyalign::kernels
