#pragma once
// Maximal exact matches of one query strand against a reference index (MUMmer's three kinds):
// the fast finder on the suffix index, and the plain scalar definition it is tested against.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/large_memory.hpp"
#include "engine/device_kernel.hpp"
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

// Sorts matches by query position, then reference offset, then length: the order the kernels
// return, and the order hyalign prints but under -mum.
void sort_matches(std::vector<MemMatch>& matches);

// Seeds of k letters at every s-th query position (k + s - 1 = min_length, so every match of at
// least min_length letters holds a seed) extended both ways; uniqueness from the seed's other
// occurrences, or, for seeds with very many, from the suffix array position by position.
class MemFinder {
 public:
  struct Occurrence {
    std::uint64_t ref_pos;
    // Letters matched before the seed (at most seed_step_) and from its start; the latter only
    // where left < seed_step_ (a match found from another seed otherwise), kNotExtended elsewhere.
    std::uint32_t left, right;
  };
  static constexpr std::uint32_t kNotExtended = UINT32_MAX;
  struct Seed {
    std::uint32_t pos;
    index::SaInterval rows;
  };
  // What the search at one query position learnt for the later ones: the suffixes of the rows
  // around it share exactly these many letters with the query there, so inside a long match (two
  // assemblies of one genome) a position does not compare the whole match again.
  struct Carried {
    std::size_t pos = SIZE_MAX;  // the query position searched
    std::array<std::uint64_t, 2> text{UINT64_MAX, UINT64_MAX};
    std::array<std::uint32_t, 2> shared{};
  };
  // Seeds first .. end - 1 (the seed at query position i * seed_step() is i): the matches they
  // report are those that start in query positions (first - 1) * seed_step() + 1 to
  // (end - 1) * seed_step(), so pieces of consecutive seeds share a strand's matches out.
  struct SeedRange {
    std::size_t first = 0, end = SIZE_MAX;
  };
  // Buffers one thread reuses from query to query.
  struct Scratch {
    std::vector<Seed> seeds;
    std::vector<long> codes;
    std::vector<Occurrence> occurrences;
    std::vector<MemMatch> found;
    index::PeriodicRuns query_runs;
    Carried carried;
  };

  // With `piece` (rows of a split suffix array, index/sa_pieces.hpp, cut at prefixes of
  // seed_length() letters), only the seeds whose rows lie in it are followed: the matches found
  // through it, with uniqueness still decided over the whole reference. All rows by default.
  MemFinder(const index::SuffixIndex& index, MemParams params, std::optional<index::SaInterval> piece = {});
  // Per seed (the seed at query position i * seed_step() is i): whether it occurs too often to
  // be extended occurrence by occurrence, for the unique kinds.
  using SeedMarks = std::vector<bool>;
  // Marks the query's seeds that occur too often in this finder's piece (none are unmarked): over
  // every piece of a split array, the whole reference's marks.
  void mark_repeated_seeds(std::string_view query, SeedMarks& marks, Scratch& scratch) const;
  // Replaces `out` with the matches of `query` (lower-case letters), sorted. A finder over a piece
  // of a split array needs `repeated`, the marks of every piece: the way a seed's uniqueness is
  // decided is then the whole reference's, as one piece alone cannot tell.
  void find(std::string_view query, std::vector<MemMatch>& out, Scratch& scratch,
            const SeedMarks* repeated = nullptr) const;
  void find(std::string_view query, std::vector<MemMatch>& out) const;
  // Replaces `out` with the matches that `seeds` report (sorted; -mum's rule not applied), from
  // `query` with its periodic stretches: one piece of a long strand, the strand found once.
  void find_piece(index::RunString query, SeedRange seeds, std::vector<MemMatch>& out, Scratch& scratch) const;
  // Appends the seeds in `seeds` of `query` with their rows to `out`, in order (none for a seed
  // with a letter other than a/c/g/t under -n): under -maxmatch each occurrence is extended, so a
  // piece of seeds costs about its rows, and find_piece then takes the seeds as they are.
  void look_up(std::string_view query, SeedRange seeds, std::vector<Seed>& out, Scratch& scratch) const;
  // As find_piece above, for a run of a strand's seeds looked up before (look_up).
  void find_piece(index::RunString query, std::span<const Seed> seeds, std::vector<MemMatch>& out,
                  Scratch& scratch) const;
  // The seeds of a query of `length` letters.
  std::size_t seeds_in(std::size_t length) const {
    return length >= seed_length_ ? (length - seed_length_) / seed_step_ + 1 : 0;
  }
  unsigned seed_length() const { return seed_length_; }
  unsigned seed_step() const { return seed_step_; }
  const MemParams& params() const { return params_; }

 private:
  void look_up_seeds(std::string_view query, SeedRange seeds, Scratch& scratch) const;
  void find_at_seeds(index::RunString query, std::span<const Seed> seeds, Scratch& scratch,
                     const SeedMarks* repeated, std::vector<MemMatch>& out) const;
  void prefetch_text(std::span<const Seed> seeds) const;
  index::SaInterval rows_in_piece(std::string_view pattern, long code) const;
  void find_at_seed(index::RunString query, const Seed& seed, bool repeated, Scratch& scratch,
                    std::vector<MemMatch>& out) const;
  bool reaches(index::RunString query, std::size_t seed, const Occurrence& o, std::uint32_t right) const;
  void find_unique_at(index::RunString query, std::size_t pos, Carried& carried, std::vector<MemMatch>& out) const;
  bool letters_match(char q, char t) const;
  std::uint32_t extend_right(index::RunString query, std::size_t q, std::uint64_t t,
                             std::size_t most = SIZE_MAX) const;
  std::uint32_t extend_left(std::string_view query, std::size_t q, std::uint64_t t, std::uint32_t most) const;

  const index::SuffixIndex& index_;
  index::RunString text_;
  MemParams params_;
  unsigned seed_length_, seed_step_;
  index::SaInterval piece_;
};

// The definition, letter by letter over every query and reference position: for tests only.
std::vector<MemMatch> find_mems_scalar(std::string_view text, std::string_view query, const MemParams& params);

// -mum from the reference-unique matches of one query strand, by MUMmer 3.23's rule: a match
// whose reference interval lies inside (or equals) another's is dropped, so a string the query
// holds twice goes (its two matches share a reference interval). Keeps the sorted order.
void keep_mums(std::vector<MemMatch>& matches);

// The query strands of a batch as every device takes them: lower-case letters back to back.
struct StrandSet {
  std::string_view letters;
  std::span<const std::uint64_t> starts;  // strand i is letters[starts[i], starts[i + 1])
  std::size_t size() const { return starts.empty() ? 0 : starts.size() - 1; }
  std::string_view strand(std::size_t i) const { return letters.substr(starts[i], starts[i + 1] - starts[i]); }
};

// The matches of strands first .. first + count - 1: strand first + i has
// matches[offsets[i], offsets[i + 1]), sorted, with -mum's rule applied.
struct StrandMatches {
  std::size_t first = 0;
  std::vector<std::uint64_t> offsets{0};
  LargeArray<MemMatch> matches;  // a batch's can take gigabytes: huge pages, and no pass of zeroes on growth
  std::size_t count() const { return offsets.size() - 1; }
  std::span<const MemMatch> of(std::size_t strand) const {
    const std::size_t i = strand - first;
    return std::span<const MemMatch>(matches).subspan(offsets[i], offsets[i + 1] - offsets[i]);
  }
  // The memory it holds.
  std::size_t bytes() const {
    return matches.capacity() * sizeof(MemMatch) + offsets.capacity() * sizeof(std::uint64_t);
  }
};

// A device that finds the matches of a range of strands. Calls from several threads at once are
// allowed (the CPU kernel serves every CPU worker).
class MemKernel : public engine::DeviceKernel {
 public:
  virtual void find(const StrandSet& strands, std::size_t first, std::size_t count, StrandMatches& out) = 0;
};

// The matches of strands [first, first + count) with `finder` on the calling thread, appended to
// `out` (whose `first` the caller set): the CPU kernel's work, and a GPU kernel's for the strands
// it leaves to the CPU.
void find_on_cpu(const MemFinder& finder, const StrandSet& strands, std::size_t first, std::size_t count,
                 StrandMatches& out);
// Appends one strand's sorted matches to `out`, applying -mum's rule when `kind` asks for it.
void append_strand(std::vector<MemMatch>& matches, MemKind kind, StrandMatches& out);
// The matches of the same strands found through each piece of a split suffix array (-mum's rule
// not applied), merged strand by strand into `out` (whose `first` the caller set): sorted, and
// -mum's rule applied over all of a strand's matches when `kind` asks for it.
void merge_piece_matches(std::span<const StrandMatches> pieces, MemKind kind, StrandMatches& out);

// Under -mum, each strand's matches in MUMmer 3.23's printed order (on `threads` threads): by
// reference offset (no two of a strand's MUMs start at one offset). Other kinds keep the kernels'
// order, and nothing is done.
void order_for_output(MemKind kind, std::span<StrandMatches> found, unsigned threads);

std::unique_ptr<MemKernel> make_mem_cpu_kernel(const index::SuffixIndex& index, MemParams params);

// The kernel of GPU `device` (taking at most `memory_limit` bytes of it, 0: what it has free),
// which finds its work on the CPU (on `cpu_threads` threads) once the GPU fails or if it cannot
// take the index: one warning says so, and no strand is lost.
std::unique_ptr<MemKernel> make_mem_kernel_with_fallback(int device, const index::SuffixIndex& index, MemParams params,
                                                         std::size_t memory_limit, unsigned cpu_threads);

}  // namespace hyalign::kernels
