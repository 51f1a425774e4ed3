#pragma once
// hyalign map: short reads (single or paired) placed on a genome, SAM or BAM out, as `bwa mem`
// and `minimap2 -ax sr` do. The steps, one file each: read_pairs (input), seeds (exact matches from
// the suffix index), chains (seeds grouped by locus), placements (the (read, locus) alignments on
// the extension kernel, traced back), pairing (insert sizes, mate rescue, pair choice), mapq,
// sam_records (the records), this file's run (batches read, mapped on all threads, written in order).
#include <string>
#include <vector>

#include "engine/cpu_features.hpp"
#include "engine/devices.hpp"
#include "index/reference_text.hpp"
#include "kernels/scalar/extend_scalar.hpp"

namespace hyalign::map {

struct MapParams {
  kernels::ExtendScoring scoring;  // -A -B -O -E -L (BWA-MEM's defaults)
  unsigned min_seed = 19;           // -k: shortest exact match that seeds a locus
  double reseed_factor = 1.5;       // -r: matches longer than min_seed * this are searched again for copies
  unsigned max_occurrences = 500;   // -c: a match with more copies seeds this many of them
  unsigned band_margin = 16;        // -w: band half-width beyond the seeds' diagonals
  int min_score = 30;               // -T: placements whose best stretch scores less are not reported
  int unpaired_penalty = 17;        // -U: a pair placed as two unpaired reads scores this much less
  double drop_ratio = 0.5;          // -D: a chain weighing less than this fraction of a better one that
                                    //     covers the same read letters is not aligned
  unsigned max_chains = 500;        // chains aligned per read (as many as a seed may have copies)
  unsigned max_rescues = 50;        // -m: placements of one end whose mate is searched near them
  bool skip_rescue = false;         // -S: no mate rescue
  bool skip_pairing = false;        // -P: each end's primary its own best (pairs still flagged proper by insert size)
  bool primary5 = false;            // -5: of a split read's parts, the one nearest the read's 5' end is primary
  bool all_alignments = false;      // -a: secondary placements as records (flag 256)
  unsigned listed_alternatives = 5; // -h: a primary's other places, as good within kListedScoreRatio, listed in
                                    //     XA when there are this many or fewer (not with -a, as in bwa mem)
  bool mark_secondary = false;      // -M: split parts as secondary instead of supplementary
  bool soft_clip_supplementary = false;  // -Y
  double insert_mean = 0, insert_sd = 0;  // -I: given insert-size distribution (0: estimated)
  kernels::ExtendAligner aligner = kernels::extend_align_scalar;  // traces placements back (--kernel's, set by run_map)
};

struct MapOptions {
  std::string reference;  // FASTA (plain or gzip) or an index file from `map index` / `mem index`
  std::string reads1, reads2;
  bool interleaved = false;  // -p: reads1 holds both ends of each pair
  std::string out = "-";     // SAM, or BAM when the name ends in .bam
  int bam_level = 1;         // -l: BAM compression level (6, samtools' default, saved 2 % of a Klebsiella BAM and
                             // took 30 % longer end to end at 16 threads)
  std::string read_group;    // -R: a whole @RG line (tabs written as \t)
  bool comment_tags = false;  // -C: each read's comment (SAM tags) on its records, as bwa mem -C
  std::string command_line;  // for @PG
  unsigned threads = 1;
  engine::DeviceChoice device = engine::DeviceChoice::cpu;
  engine::KernelChoice kernel = engine::KernelChoice::automatic;
  std::size_t batch_bases = 2'000'000;  // -K: read letters per part, whose pairs give its insert sizes (a batch
                                        // holds a part per few threads)
  MapParams params;
};

void run_map(const MapOptions& options);
// SAM needs distinct, non-empty reference sequences: InputError naming `path` where they are not.
void check_reference(const index::ReferenceText& ref, const std::string& path);

}  // namespace hyalign::map
