#pragma once
// SAM optional fields given as text (TAG:TYPE:VALUE, as in a FASTQ comment that `map -C` carries
// over, the way `bwa mem -C` does), checked against the SAM spec's grammar once and kept in BAM's
// binary form, so that each record they go on takes them by one copy.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <htslib/sam.h>

namespace hyalign {

struct SamTag {
  char tag[2] = {0, 0};
  char type = 0;     // BAM's type: A c C s S i I f Z H B
  std::string data;  // the value as BAM stores it (Z and H with their NUL)
};

// The tab-separated fields of `text`. Throws std::invalid_argument naming the field and what is
// wrong with it: not TAG:TYPE:VALUE, an unknown type, a value its type does not allow (an integer
// out of range included), or a tag given twice.
std::vector<SamTag> parse_sam_tags(std::string_view text);

// Appends the tags to `record`. Throws std::bad_alloc when htslib cannot grow it.
void append_sam_tags(bam1_t* record, std::span<const SamTag> tags);

}  // namespace hyalign
