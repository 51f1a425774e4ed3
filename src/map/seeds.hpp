#pragma once
// Seeds of a read: exact matches between the read (either strand) and the reference, found in the
// suffix index. From the read's start, the longest match is taken and the search goes on after
// the letter that ended it (so the seeds of a read with a few errors tile it). A long seed with few
// copies is searched again from inside for shorter matches with more copies: the near-copies of a
// repeat, which decide how sure a placement is. After a seed, a search across the letter that
// ended it finds the copies that agree with the read there; a match too short to seed is extended
// backwards, so a seed that the scan's jump past a chance match began inside of is found
// (kernels/seed_search.hpp). Last, BWA-MEM's third round: from the read's start on, the shortest
// match with fewer than 20 copies, every copy a seed, finds the near-identical copies of a repeat
// family that the longest matches pass over; where that match is longer than k + 1 letters, its
// prefix one letter shorter (20 copies or more, not all of them seeds) is noted: a large family's
// letters.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "index/suffix_index.hpp"
#include "kernels/seed_search.hpp"
#include "map/map.hpp"

namespace hyalign::map {

// One occurrence of an exact match: read[query_begin, query_begin + length) (of the strand given)
// equals the reference text from text_pos on.
struct SeedHit {
  std::uint32_t text_pos = 0;
  std::uint32_t query_begin = 0;
  std::uint32_t length = 0;
  bool reverse = false;
  std::int64_t diagonal() const { return static_cast<std::int64_t>(text_pos) - query_begin; }
};

// Read letters [begin, end).
struct LetterSpan {
  std::uint32_t begin = 0, end = 0;
};

// Letters in the union of read intervals given sorted by begin, `span(x)` being x's interval.
template <typename Iterator, typename ToSpan>
std::uint32_t letters_in_union(Iterator first, Iterator last, ToSpan span) {
  std::uint32_t covered = 0, end = 0;
  for (; first != last; ++first) {
    const LetterSpan s = span(*first);
    if (s.end > std::max(s.begin, end)) covered += s.end - std::max(s.begin, end);
    end = std::max(end, s.end);
  }
  return covered;
}

// One strand of one read to seed, and where its hits go.
struct SeedQuery {
  std::string_view pattern;  // lower-case a/c/g/t; any other letter never matches
  bool reverse = false;
  std::vector<SeedHit>* hits = nullptr;
  std::vector<LetterSpan>* repetitive = nullptr;  // the letters of each seed with more than -c copies (sampled)
  std::vector<LetterSpan>* family = nullptr;      // letters of large families: third-round matches less a letter
};

class SeedFinder {
 public:
  SeedFinder(const index::SuffixIndex& index, const MapParams& params);
  // Appends each query's hits. The queries' searches run in lockstep, a step of each in turn, so
  // that the index reads of one (three dependent cache misses per search: the prefix table, the
  // suffix array, the text) overlap those of the others.
  void find(std::span<const SeedQuery> queries) const;

 private:
  struct Search;
  struct Match {
    std::uint32_t length = 0;
    index::SaInterval rows;
  };
  bool next_search(Search& s) const;
  void look_up_prefix(Search& s) const;
  void read_rows(Search& s) const;
  void finish_search(Search& s) const;
  void finish_third_round_search(Search& s) const;
  // Suffix-array intervals at most this big are read whole, not searched.
  static std::uint32_t rows_read_whole(const Search& s);
  // The longest prefix of `pattern` found at least `copies` times, given the rows of its first
  // `depth` letters; with `back`, the rows a match too short to seed is extended back along.
  Match longest_match(std::string_view pattern, index::SaInterval rows, std::uint32_t depth, std::uint32_t copies,
                      kernels::BackCopies* back = nullptr) const;
  // The letters `pattern` shares with the rows around where it sorts in `rows` (those of its first
  // `depth` letters), into `shared`: every row when there are `whole` or fewer, else `around` on
  // each side. Returns the rows read.
  index::SaInterval read_neighbours(std::string_view pattern, index::SaInterval rows, std::uint32_t depth,
                                    std::uint32_t around, std::uint32_t whole, std::uint32_t* shared) const;
  // The third round's match: the shortest prefix of `pattern` longer than min_seed letters with
  // fewer than kernels::kRareMaxCopies copies (its rows may be none), given the rows of its first
  // `depth` letters.
  Match rare_match(std::string_view pattern, index::SaInterval rows, std::uint32_t depth) const;
  std::uint32_t common_prefix(std::string_view pattern, std::uint32_t text_pos, std::uint32_t from) const;

  const index::SuffixIndex& index_;
  std::uint32_t min_seed_, reseed_length_, max_occurrences_;
};

// The seed search's parameters as a device kernel takes them.
kernels::SeedSearchParams seed_search_params(const MapParams& params);

// Seeds a worker's strands, on the CPU or on a GPU: the same hits in the same order (each strand's
// in the order its search meets them) and the same repetitive and family letters.
class StrandSeeder {
 public:
  virtual ~StrandSeeder() = default;
  virtual void find(std::span<const SeedQuery> queries) = 0;
};

// A GPU's search, one call per find(): (patterns, matches, ends) as kernels::cuda::SeedGpuSearcher.
using GpuSeedSearch = std::function<void(std::span<const std::string_view>, std::vector<kernels::SeedMatch>&,
                                         std::vector<std::uint32_t>&)>;

std::unique_ptr<StrandSeeder> make_cpu_seeder(const SeedFinder& finder);
// Searches on the GPU and, once a call fails, on the CPU from then on (that call's strands again),
// telling `on_failure` why.
std::unique_ptr<StrandSeeder> make_gpu_seeder(GpuSeedSearch search, const SeedFinder& backup,
                                              const index::SuffixIndex& index, const MapParams& params,
                                              std::function<void(const std::string&)> on_failure);

}  // namespace hyalign::map
