#include "io/blast_tabular.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"

namespace hyalign {
namespace {

constexpr std::array<std::pair<std::string_view, int>, 25> kColumnNames{{
    {"qseqid", 0}, {"sseqid", 1}, {"pident", 2}, {"length", 3}, {"mismatch", 4}, {"gapopen", 5}, {"qstart", 6},
    {"qend", 7}, {"sstart", 8}, {"send", 9}, {"evalue", 10}, {"bitscore", 11}, {"score", 12}, {"qlen", 13},
    {"slen", 14}, {"nident", 15}, {"gaps", 16}, {"sstrand", 17}, {"qseq", 18}, {"sseq", 19}, {"positive", 20},
    {"ppos", 21},   {"qcovs", 22},  {"qcovhsp", 23}, {"stitle", 24}}};

// BLAST+'s tabular formatting of E-values and bit scores (2.12: three significant digits below
// 0.0009, bit scores over 99.9 cut to an integer, not rounded).
std::string format_evalue(double e) {
  if (e < 1.0e-180) return "0.0";
  if (e < 0.0009) return fmt::format("{:.2e}", e);
  if (e < 0.1) return fmt::format("{:.3f}", e);
  if (e < 1.0) return fmt::format("{:.2f}", e);
  if (e < 10.0) return fmt::format("{:.1f}", e);
  return fmt::format("{:.0f}", e);
}
std::string format_bitscore(double b) {
  if (b > 99999) return fmt::format("{:.3e}", b);
  if (b > 99.9) return fmt::format("{}", static_cast<long>(b));
  return fmt::format("{:.1f}", b);
}

// BLAST+'s whole percent for the coverage columns: rounded, but 100 only when all is covered.
std::string format_percent_covered(std::size_t covered, std::size_t length) {
  if (covered >= length) return "100";
  return fmt::format("{}", std::min(99L, std::lround(100.0 * static_cast<double>(covered) / static_cast<double>(length))));
}

// pident and ppos: the share of the alignment's columns, in BLAST's decimals for each.
double percent_of_columns(std::size_t count, std::size_t length) {
  return length ? 100.0 * static_cast<double>(count) / static_cast<double>(length) : 0.0;
}

}  // namespace

TabularFormat::Column TabularFormat::column_named(std::string_view name) {
  auto it = std::find_if(kColumnNames.begin(), kColumnNames.end(), [&](const auto& c) { return c.first == name; });
  if (it == kColumnNames.end())
    throw UsageError(fmt::format("--outfmt: unknown column '{}' (supported: std {})", name, supported_columns()));
  return static_cast<Column>(it->second);
}

TabularFormat TabularFormat::parse(std::string_view outfmt) {
  TabularFormat f;
  std::vector<std::string_view> words;
  std::size_t pos = 0;
  constexpr std::string_view kSpace = " \t";
  while (pos < outfmt.size()) {
    const std::size_t start = outfmt.find_first_not_of(kSpace, pos);
    if (start == std::string_view::npos) break;
    const std::size_t end = std::min(outfmt.find_first_of(kSpace, start), outfmt.size());
    words.push_back(outfmt.substr(start, end - start));
    pos = end;
  }
  if (words.empty() || words[0] != "6")
    throw UsageError(fmt::format("--outfmt '{}': only BLAST tabular format 6 is supported", outfmt));
  // BLAST+'s 12 default columns, which "std" stands for too.
  constexpr std::array<std::string_view, 12> kStandard{"qseqid", "sseqid", "pident", "length", "mismatch", "gapopen",
                                                       "qstart", "qend",   "sstart", "send",   "evalue",   "bitscore"};
  if (words.size() == 1) words.push_back("std");
  for (std::size_t i = 1; i < words.size(); ++i) {
    if (words[i] == "std") {
      for (std::string_view standard : kStandard) f.columns_.push_back(column_named(standard));
      continue;
    }
    f.columns_.push_back(column_named(words[i]));
  }
  return f;
}

bool TabularFormat::needs_aligned_letters() const {
  return std::any_of(columns_.begin(), columns_.end(), [](Column c) {
    return c == Column::qseq || c == Column::sseq || c == Column::positive || c == Column::ppos;
  });
}

bool TabularFormat::needs_subject_cover() const {
  return std::find(columns_.begin(), columns_.end(), Column::qcovs) != columns_.end();
}

std::string TabularFormat::supported_columns() {
  std::string s;
  for (const auto& c : kColumnNames) s.append(s.empty() ? "" : " ").append(c.first);
  return s;
}

std::string TabularFormat::line(const TabularHit& h) const {
  std::string line;
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    if (i) line += '\t';
    switch (columns_[i]) {
      case Column::qseqid: line += h.qseqid; break;
      case Column::sseqid: line += h.sseqid; break;
      case Column::pident:
        line += fmt::format("{:.3f}", percent_of_columns(h.nident, h.length));
        break;
      case Column::length: line += fmt::format("{}", h.length); break;
      case Column::mismatch: line += fmt::format("{}", h.mismatch); break;
      case Column::gapopen: line += fmt::format("{}", h.gapopen); break;
      case Column::qstart: line += fmt::format("{}", h.qstart); break;
      case Column::qend: line += fmt::format("{}", h.qend); break;
      case Column::sstart: line += fmt::format("{}", h.sstart); break;
      case Column::send: line += fmt::format("{}", h.send); break;
      case Column::evalue: line += h.evalue ? format_evalue(*h.evalue) : "NA"; break;
      case Column::bitscore: line += h.bitscore ? format_bitscore(*h.bitscore) : "NA"; break;
      case Column::score: line += fmt::format("{}", h.score); break;
      case Column::qlen: line += fmt::format("{}", h.qlen); break;
      case Column::slen: line += fmt::format("{}", h.slen); break;
      case Column::nident: line += fmt::format("{}", h.nident); break;
      case Column::gaps: line += fmt::format("{}", h.gaps); break;
      case Column::sstrand: line += h.sstrand; break;
      case Column::stitle: line += h.stitle; break;
      case Column::qseq: line += h.qseq; break;
      case Column::sseq: line += h.sseq; break;
      case Column::positive: line += fmt::format("{}", h.positive); break;
      case Column::ppos: line += fmt::format("{:.2f}", percent_of_columns(h.positive, h.length)); break;
      case Column::qcovs: line += format_percent_covered(h.subject_query_cover, h.qlen); break;
      case Column::qcovhsp: line += format_percent_covered(h.qend + 1 - h.qstart, h.qlen); break;
    }
  }
  line += '\n';
  return line;
}

}  // namespace hyalign
