#pragma once
// SAM or BAM output through htslib (BAM when the path ends in .bam), complete or not at all (the
// file is an AtomicOutput), every write checked through the close.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include <htslib/sam.h>

namespace hyalign {

// A SAM header as htslib holds it, parsed from the whole header text: records are formatted
// against it, also where no SamWriter is (MPI ranks other than 0).
class SamHeader {
 public:
  explicit SamHeader(std::string text);  // throws UsageError for a header htslib cannot parse
  ~SamHeader();
  SamHeader(const SamHeader&) = delete;
  SamHeader& operator=(const SamHeader&) = delete;
  const sam_hdr_t* get() const { return header_; }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  sam_hdr_t* header_ = nullptr;
};

// Whether records for `path` are BAM (the name ends in .bam, in either case) rather than SAM text.
bool is_bam_path(std::string_view path);
// A UsageError for an output name that promises another format (.cram, .gz): plain SAM there would
// be silently wrong.
void check_sam_path(std::string_view path);

// A BAM record appended to `out` as bytes (its fields and data, as this program holds them), so
// that records can be handed over in one buffer, between threads or ranks, to write_packed().
void pack_record(const bam1_t* record, std::string& out);

class SamWriter {
 public:
  // Writes `header` first; BAM is compressed at `bam_level` (0-9) on `threads` threads.
  SamWriter(const std::string& path, const SamHeader& header, unsigned threads, int bam_level);
  ~SamWriter();
  SamWriter(const SamWriter&) = delete;
  SamWriter& operator=(const SamWriter&) = delete;

  bool binary() const;
  // SAM: lines already formatted (sam_format1 against the header).
  void write_text(std::string_view lines);
  // BAM: whole records from pack_record, in order.
  void write_packed(std::string_view records);
  // Flushes, checks and puts the output in place.
  void commit();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hyalign
