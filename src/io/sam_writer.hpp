#pragma once
// SAM or BAM output through htslib (BAM when the path ends in .bam), complete or not at all (the
// file is an AtomicOutput), every write checked through the close.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include <htslib/sam.h>

namespace hyalign {

class SamWriter {
 public:
  // `header` is the whole SAM header text; `threads` compress BAM blocks.
  // BAM is compressed at `bam_level` (0-9) on `threads` threads.
  SamWriter(const std::string& path, const std::string& header, unsigned threads, int bam_level);
  ~SamWriter();
  SamWriter(const SamWriter&) = delete;
  SamWriter& operator=(const SamWriter&) = delete;

  const sam_hdr_t* header() const;
  bool binary() const;
  // SAM: lines already formatted (sam_format1 against header()).
  void write_text(std::string_view lines);
  // BAM: records, in order.
  void write_records(bam1_t* const* records, std::size_t count);
  // Flushes, checks and puts the output in place.
  void commit();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hyalign
