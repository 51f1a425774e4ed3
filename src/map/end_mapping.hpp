#pragma once
// One read (one end of a pair) mapped on its own: seeds, chains and their alignment tasks, then,
// once the kernel has scored the tasks, its placements sorted and the reported ones traced back:
// the primary, the supplementary parts (read letters the primary leaves unaligned, aligned
// elsewhere) and the secondary ones (other places for the primary's letters).
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "map/chains.hpp"
#include "map/placements.hpp"
#include "map/seeds.hpp"

namespace hyalign::map {

struct EndResult {
  std::vector<Placement> placements;  // best first
  int primary = -1;                   // index in placements; -1: unmapped
  std::vector<int> supplementary;
  std::vector<int> secondary;
  std::vector<int> listed;  // of the secondary ones, those the primary's record lists in XA (trace_reported's)
  int sub_score = 0;   // AS of the best other placement of the primary's letters (XS)
  std::vector<int> alternatives;  // scores of the other placements of the primary's letters
  // For each supplementary placement, in that order: the scores of the other placements of its
  // letters, and (trace_reported's) its MAPQ, from those, no higher than the primary's, as BWA-MEM's.
  std::vector<std::vector<int>> supplementary_alternatives;
  std::vector<int> supplementary_mapq;
  std::uint32_t seed_weight = 0;
  // Read letters whose seeds had more than -c copies (places may be missing), forward and reverse
  // strand; and, for a read with no mate, those together with the letters in large repeat families.
  std::uint32_t repetitive_letters[2] = {0, 0};
  std::uint32_t family_letters[2] = {0, 0};
  int mapq = 0;
  bool mapped() const { return primary >= 0; }
  bool repetitive() const { return repetitive_letters[0] + repetitive_letters[1] > 0; }
  const Placement& best() const { return placements[static_cast<std::size_t>(primary)]; }
};

// A read's letters as the aligners take them.
struct EndLetters {
  std::vector<std::uint8_t> codes[2];  // forward, reverse complement
  std::string pattern[2];              // a/c/g/t lower case, others 'N': the seeds' search text
  std::int32_t length() const { return static_cast<std::int32_t>(codes[0].size()); }
  void assign(std::string_view letters);
};

// The tasks of one end: what add_end_tasks queued, to collect once they are scored.
struct EndTasks {
  std::vector<std::size_t> ids;
  std::vector<std::uint32_t> weights;
  std::vector<std::int32_t> query_begins;  // where each chain's alignment likely starts on the read
  std::vector<bool> reverse;
  std::vector<LetterSpan> masked;  // read letters the task sees as N: a chain's side (Chain::sides) sees the other so
  std::vector<std::vector<std::uint8_t>> masked_letters;  // those tasks' letters (moved, not copied, as this grows)
  std::vector<Placement> exact;  // chains that are one exact match of the whole read need no task
  std::vector<LetterSpan> repetitive_spans[2];  // each strand's seeds with more than -c copies
  std::vector<LetterSpan> family_spans[2];      // each strand's third-round matches in large families
};

class EndMapper {
 public:
  EndMapper(const index::SuffixIndex& index, const MapParams& params);
  // Seeds (by `seeder`, all ends at once) and chains of each end, each chain queued on `aligner`.
  void add_tasks(std::span<const EndLetters> ends, StrandSeeder& seeder, LocusAligner& aligner,
                 std::span<EndTasks> tasks) const;
  const SeedFinder& seed_finder() const { return seeds_; }
  // After aligner.score_all(): the end's placements, chosen and traced. Equal placements are
  // ordered by `read_number` (sort_placements).
  void collect(const EndTasks& tasks, const LocusAligner& aligner, const EndLetters& letters, std::uint64_t read_number,
               bool has_mate, EndResult& result) const;

 private:
  // `masked`: the read letters the task sees as N (a chain's side sees the other side so).
  void add_task(const Chain& chain, std::span<const std::uint8_t> codes, LetterSpan masked, LocusAligner& aligner,
                EndTasks& t) const;
  // `codes` with the letters `masked` as N, kept in `t`.
  static std::span<const std::uint8_t> masked_letters(const std::vector<std::uint8_t>& codes, LetterSpan masked,
                                                      EndTasks& t);
  const index::SuffixIndex& index_;
  const MapParams& params_;
  SeedFinder seeds_;
};

// Marks primary, supplementary and secondary placements and the sub-optimal scores, from the
// placements' read letters (estimated where not traced back). Placements are sorted best first;
// the first that scores enough is primary (`keep_first`: the pair's choice, which needs only to
// score enough as one end of a pair, pairs_enough), but with -5 the split part nearest the read's
// 5' end is, in pairs too (BWA-MEM does not pair the ends of a split read).
void choose_placements(EndResult& result, std::int32_t read_length, const MapParams& params, bool keep_first = false);

// The secondary placements that the primary's record lists in XA (BWA-MEM's rule): those scoring
// (AS) at least kListedScoreRatio of the primary, when they are -h or fewer; none with -a, whose
// records show them all.
inline constexpr double kListedScoreRatio = 0.8;
std::vector<int> listed_alternatives(const EndResult& result, std::int32_t read_length, const MapParams& params);

// Traces back the placements the records report: the primary, the supplementary ones, and the
// secondary ones with -a (those scoring -D of the primary or more, as BWA-MEM reports them), else
// those listed in XA (which it sets).
void trace_reported(EndResult& result, const EndLetters& letters, const index::SuffixIndex& index,
                    const MapParams& params);

}  // namespace hyalign::map
