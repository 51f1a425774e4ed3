#pragma once
// The SAM/BAM records of one read or pair, built with htslib: flags, positions, CIGAR, mate fields
// and template length, and the tags NM, MD, AS, XS, MC, SA, XA and RG, then those of the read's
// comment (-C).
#include <string>
#include <vector>

#include <htslib/sam.h>

#include "index/reference_text.hpp"
#include "map/end_mapping.hpp"
#include "map/read_input.hpp"

namespace hyalign::map {

struct RecordOptions {
  std::string read_group_id;  // RG:Z on every record when not empty
  bool secondary = false;     // -a
  bool mark_secondary = false;  // -M
  bool soft_clip_supplementary = false;  // -Y
  kernels::ExtendScoring scoring;
};

// One end as the records need it.
struct EndRecordInput {
  const Read* read = nullptr;
  const EndResult* result = nullptr;
  const EndLetters* letters = nullptr;
};

class RecordBuilder {
 public:
  RecordBuilder(const index::ReferenceText& reference, RecordOptions options);
  // The records of a single read (mate == nullptr) or of one end of a pair (end 0 or 1), appended
  // to `out` (the caller owns them).
  void add(const EndRecordInput& end, const EndRecordInput* mate, int end_number, bool proper,
           std::vector<bam1_t*>& out) const;

 private:
  struct Fields;
  // The mate's fields of an end's records (RNEXT, PNEXT, TLEN, MC and the mate's flags), `mine` the
  // end's primary placement or null.
  Fields mate_fields(const Placement* mine, const EndResult& mate, int end_number) const;
  // A record's SEQ and QUAL: the whole read (its clips soft), the letters aligned (its clips hard:
  // split parts, as BWA-MEM writes them, -M's too), or none ('*': secondary placements).
  enum class Letters { whole, aligned, none };
  // `sub_score`: the best other placement of the letters it aligns, for XS.
  bam1_t* build(const EndRecordInput& end, const Placement* placement, const EndRecordInput* mate,
                const Fields& fields, std::uint16_t flag, int mapq, Letters shown, int sub_score) const;
  std::int64_t one_based_position(const Placement& p) const;  // on its reference sequence
  int edit_distance(const Placement& p, const EndLetters& letters) const;  // NM
  std::string alignment_summary(const Placement& p, int mapq, const EndLetters& letters) const;
  // XA's text: the listed placements as BWA-MEM writes them (name,strand and position,CIGAR,NM;).
  std::string listed_places(const EndResult& r, const EndLetters& letters) const;
  const index::ReferenceText& reference_;
  RecordOptions options_;
};

// The tags the records carry of their own (RG with a read group): a read's comment may not repeat them.
std::vector<std::string> own_tags(bool read_group);

// The CIGAR of a placement as SAM text.
std::string cigar_text(const Placement& p);

}  // namespace hyalign::map
