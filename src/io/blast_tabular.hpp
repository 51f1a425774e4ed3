#pragma once
// BLAST tabular output (-outfmt 6): the default 12 columns or a custom list such as
// "6 qseqid sseqid score qlen slen" or "6 std qlen slen" (std: the default 12). Numbers are formatted as BLAST+ formats them.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hyalign {

struct TabularHit {
  std::string_view qseqid, sseqid;
  std::string_view stitle;  // the subject's id and description
  std::size_t length = 0, nident = 0, mismatch = 0, gapopen = 0, gaps = 0;
  std::size_t qstart = 0, qend = 0, sstart = 0, send = 0, qlen = 0, slen = 0;
  int score = 0;
  std::optional<double> evalue, bitscore;  // absent when no statistics exist for the scoring
  std::string_view sstrand = "N/A";        // plus or minus for DNA, as BLAST writes it
  // Filled only where the format has a column of them (needs_aligned_letters).
  std::string qseq, sseq;    // the aligned letters, gaps as '-'
  std::size_t positive = 0;  // aligned pairs the matrix scores above 0
  // Filled only where the format has qcovs (needs_subject_cover): the query letters that this
  // row's and the query's other rows on the same subject cover together.
  std::size_t subject_query_cover = 0;
};

class TabularFormat {
 public:
  // "6" or "6 col col ...". Throws UsageError for another format number or an unknown column.
  static TabularFormat parse(std::string_view outfmt);
  std::string line(const TabularHit& hit) const;  // with its newline
  // Whether a column shows the aligned letters (qseq, sseq) or what they give (positive, ppos).
  bool needs_aligned_letters() const;
  bool needs_subject_cover() const;  // qcovs
  static std::string supported_columns();

 private:
  enum class Column { qseqid, sseqid, pident, length, mismatch, gapopen, qstart, qend, sstart, send, evalue, bitscore,
                      score, qlen, slen, nident, gaps, sstrand, qseq, sseq, positive, ppos, qcovs, qcovhsp, stitle };
  static Column column_named(std::string_view name);  // UsageError for a name BLAST's list lacks here
  std::vector<Column> columns_;
};

}  // namespace hyalign
