#include "map/sam_records.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/nucleotides.hpp"

namespace hyalign::map {
namespace {

using kernels::CigarOp;

// A reference letter as MD shows it: upper case; N for what is no letter (MD holds letters only).
char md_letter(char c) {
  if (c >= 'a' && c <= 'z') return static_cast<char>(c - 'a' + 'A');
  return c >= 'A' && c <= 'Z' ? c : 'N';
}

// The read's letters and base qualities (Phred, not ASCII) on the strand aligned.
void strand_sequence(const Read& read, bool reverse, std::string& letters, std::string& quality) {
  letters = read.letters;
  quality.resize(read.quality.size());
  for (std::size_t i = 0; i < read.quality.size(); ++i)
    quality[i] = static_cast<char>(std::max(0, static_cast<unsigned char>(read.quality[i]) - 33));
  if (!reverse) return;
  reverse_complement_letters(letters);
  std::reverse(quality.begin(), quality.end());
}

std::vector<std::uint32_t> bam_cigar(const Placement& p, bool hard_clip) {
  std::vector<std::uint32_t> cigar;
  for (const auto& run : p.cigar) {
    const int op = run.op == CigarOp::soft_clip && hard_clip ? BAM_CHARD_CLIP : static_cast<int>(run.op);
    cigar.push_back(bam_cigar_gen(run.length, op));
  }
  return cigar;
}

// NM and MD of a placement against the reference text.
void edit_tags(const Placement& p, const EndLetters& letters, std::string_view text, int& nm, std::string& md) {
  const auto& codes = letters.codes[p.reverse];
  std::size_t q = 0, t = static_cast<std::size_t>(p.text_begin);
  int same = 0;
  nm = 0;
  md.clear();
  for (const auto& run : p.cigar) {
    switch (run.op) {
      case CigarOp::soft_clip: q += run.length; break;
      case CigarOp::insertion:
        q += run.length;
        nm += static_cast<int>(run.length);
        break;
      case CigarOp::deletion:
        fmt::format_to(std::back_inserter(md), "{}^", same);
        same = 0;
        for (std::uint32_t k = 0; k < run.length; ++k) md.push_back(md_letter(text[t++]));
        nm += static_cast<int>(run.length);
        break;
      case CigarOp::match:
        for (std::uint32_t k = 0; k < run.length; ++k, ++q, ++t) {
          const std::uint8_t ref = base_code_of(text[t]);
          if (ref == codes[q] && ref < 4) {
            ++same;
            continue;
          }
          fmt::format_to(std::back_inserter(md), "{}{}", same, md_letter(text[t]));
          same = 0;
          ++nm;
        }
        break;
    }
  }
  fmt::format_to(std::back_inserter(md), "{}", same);
}

void append_int(bam1_t* b, const char tag[2], int value) {
  if (bam_aux_update_int(b, tag, value) != 0) throw std::bad_alloc();
}
void append_text(bam1_t* b, const char tag[2], const std::string& value) {
  if (bam_aux_append(b, tag, 'Z', static_cast<int>(value.size() + 1), reinterpret_cast<const std::uint8_t*>(value.c_str())) != 0)
    throw std::bad_alloc();
}

}  // namespace

std::vector<std::string> own_tags(bool read_group) {
  std::vector<std::string> tags{"NM", "MD", "AS", "XS", "MC", "SA", "XA"};
  if (read_group) tags.emplace_back("RG");
  return tags;
}

std::string cigar_text(const Placement& p) {
  std::string out;
  for (const auto& run : p.cigar) fmt::format_to(std::back_inserter(out), "{}{}", run.length, "MIDNSHP=X"[static_cast<int>(run.op)]);
  return out;
}

struct RecordBuilder::Fields {
  std::int32_t mate_tid = -1;
  std::int64_t mate_pos = -1;
  std::int64_t template_length = 0;
  std::uint16_t mate_flags = 0;  // 0x8, 0x20
  std::string mate_cigar;
};

RecordBuilder::RecordBuilder(const index::ReferenceText& reference, RecordOptions options)
    : reference_(reference), options_(std::move(options)) {}

std::int64_t RecordBuilder::one_based_position(const Placement& p) const {
  return p.text_begin - static_cast<std::int64_t>(reference_.starts[p.sequence]) + 1;
}

int RecordBuilder::edit_distance(const Placement& p, const EndLetters& letters) const {
  int nm = 0;
  std::string md;
  edit_tags(p, letters, std::string_view(reference_.text), nm, md);
  return nm;
}

std::string RecordBuilder::alignment_summary(const Placement& p, int mapq, const EndLetters& letters) const {
  return fmt::format("{},{},{},{},{},{};", reference_.names[p.sequence], one_based_position(p), p.reverse ? '-' : '+',
                     cigar_text(p), mapq, edit_distance(p, letters));
}

std::string RecordBuilder::listed_places(const EndResult& r, const EndLetters& letters) const {
  std::string out;
  for (int k : r.listed) {
    const Placement& p = r.placements[static_cast<std::size_t>(k)];
    fmt::format_to(std::back_inserter(out), "{},{}{},{},{};", reference_.names[p.sequence], p.reverse ? '-' : '+',
                   one_based_position(p), cigar_text(p), edit_distance(p, letters));
  }
  return out;
}

bam1_t* RecordBuilder::build(const EndRecordInput& end, const Placement* p, const EndRecordInput* mate,
                             const Fields& fields, std::uint16_t flag, int mapq, Letters shown, int sub_score) const {
  const Read& read = *end.read;
  const bool reverse = p != nullptr && p->reverse;
  std::string letters, quality;
  if (shown != Letters::none) strand_sequence(read, reverse, letters, quality);
  const bool hard_clip = shown == Letters::aligned;
  std::vector<std::uint32_t> cigar;
  std::int32_t tid = fields.mate_tid;
  std::int64_t pos = fields.mate_pos;
  if (p != nullptr) {
    cigar = bam_cigar(*p, hard_clip);
    tid = static_cast<std::int32_t>(p->sequence);
    pos = p->text_begin - static_cast<std::int64_t>(reference_.starts[p->sequence]);
    if (hard_clip) {
      letters = letters.substr(static_cast<std::size_t>(p->query_begin), static_cast<std::size_t>(p->query_end - p->query_begin));
      if (!quality.empty()) quality = quality.substr(static_cast<std::size_t>(p->query_begin), letters.size());
    }
  }
  bam1_t* b = bam_init1();
  if (b == nullptr) throw std::bad_alloc();
  const int status = bam_set1(b, read.name.size(), read.name.c_str(), flag | fields.mate_flags, tid, pos,
                              static_cast<std::uint8_t>(mapq), cigar.size(), cigar.empty() ? nullptr : cigar.data(),
                              fields.mate_tid, fields.mate_pos, fields.template_length, letters.size(),
                              letters.empty() ? nullptr : letters.data(), quality.empty() ? nullptr : quality.data(), 64);
  if (status < 0) {
    bam_destroy1(b);
    throw InputError(read.name, "the read cannot be written as a SAM record (name longer than 254 characters?)");
  }
  if (p != nullptr) {
    int nm = 0;
    std::string md;
    edit_tags(*p, *end.letters, std::string_view(reference_.text), nm, md);
    append_int(b, "NM", nm);
    append_text(b, "MD", md);
    append_int(b, "AS", sam_score(*p, end.letters->length(), options_.scoring));
    append_int(b, "XS", sub_score);
  }
  if (mate != nullptr && !fields.mate_cigar.empty()) append_text(b, "MC", fields.mate_cigar);
  if (!options_.read_group_id.empty()) append_text(b, "RG", options_.read_group_id);
  append_sam_tags(b, read.tags);
  return b;
}

RecordBuilder::Fields RecordBuilder::mate_fields(const Placement* mine, const EndResult& mate, int end_number) const {
  Fields fields;
  if (!mate.mapped()) {
    fields.mate_flags |= BAM_FMUNMAP;
    if (mine != nullptr) {  // an unmapped mate sits at its mate's place
      fields.mate_tid = static_cast<std::int32_t>(mine->sequence);
      fields.mate_pos = mine->text_begin - static_cast<std::int64_t>(reference_.starts[mine->sequence]);
    }
    return fields;
  }
  const Placement& other = mate.best();
  if (other.reverse) fields.mate_flags |= BAM_FMREVERSE;
  fields.mate_tid = static_cast<std::int32_t>(other.sequence);
  fields.mate_pos = other.text_begin - static_cast<std::int64_t>(reference_.starts[other.sequence]);
  fields.mate_cigar = cigar_text(other);
  if (mine != nullptr && mine->sequence == other.sequence) {
    const std::int64_t left = std::min(mine->text_begin, other.text_begin);
    const std::int64_t right = std::max(mine->text_end, other.text_end);
    const bool leftmost = mine->text_begin < other.text_begin || (mine->text_begin == other.text_begin && end_number == 0);
    fields.template_length = leftmost ? right - left : left - right;
  }
  return fields;
}

void RecordBuilder::add(const EndRecordInput& end, const EndRecordInput* mate, int end_number, bool proper,
                        std::vector<bam1_t*>& out) const {
  const EndResult& r = *end.result;
  std::uint16_t flag = 0;
  Fields fields;
  const Placement* mine = r.mapped() ? &r.best() : nullptr;
  if (mate != nullptr) {
    flag |= BAM_FPAIRED | (end_number == 0 ? BAM_FREAD1 : BAM_FREAD2);
    if (proper) flag |= BAM_FPROPER_PAIR;
    fields = mate_fields(mine, *mate->result, end_number);
  }
  if (mine == nullptr) {
    Fields own = fields;
    own.template_length = 0;
    out.push_back(build(end, nullptr, mate, own, flag | BAM_FUNMAP, 0, Letters::whole, 0));
    return;
  }
  // SA: every part of a split read, each with its own MAPQ, on each part's record (without its own).
  std::vector<std::string> parts;
  if (!r.supplementary.empty()) {
    parts.push_back(alignment_summary(*mine, r.mapq, *end.letters));
    for (std::size_t i = 0; i < r.supplementary.size(); ++i)
      parts.push_back(alignment_summary(r.placements[static_cast<std::size_t>(r.supplementary[i])],
                                        r.supplementary_mapq[i], *end.letters));
  }
  auto with_parts = [&](bam1_t* b, std::size_t part) {
    if (!parts.empty()) {
      std::string others;
      for (std::size_t i = 0; i < parts.size(); ++i)
        if (i != part) others += parts[i];
      append_text(b, "SA", others);
    }
    out.push_back(b);
  };
  bam1_t* primary =
      build(end, mine, mate, fields, flag | (mine->reverse ? BAM_FREVERSE : 0), r.mapq, Letters::whole, r.sub_score);
  if (!r.listed.empty()) append_text(primary, "XA", listed_places(r, *end.letters));
  with_parts(primary, 0);
  const std::uint16_t split_flag = options_.mark_secondary ? BAM_FSECONDARY : BAM_FSUPPLEMENTARY;
  const Letters split_letters = options_.soft_clip_supplementary ? Letters::whole : Letters::aligned;
  for (std::size_t i = 0; i < r.supplementary.size(); ++i) {
    const Placement& p = r.placements[static_cast<std::size_t>(r.supplementary[i])];
    Fields own = fields;
    own.template_length = 0;
    int sub = 0;
    for (int score : r.supplementary_alternatives[i]) sub = std::max(sub, score);
    with_parts(build(end, &p, mate, own, flag | split_flag | (p.reverse ? BAM_FREVERSE : 0), r.supplementary_mapq[i],
                     split_letters, sub),
               i + 1);
  }
  if (!options_.secondary) return;
  for (int k : r.secondary) {
    const Placement& p = r.placements[static_cast<std::size_t>(k)];
    Fields own = fields;
    own.template_length = 0;
    out.push_back(build(end, &p, mate, own, flag | BAM_FSECONDARY | (p.reverse ? BAM_FREVERSE : 0), 0, Letters::none,
                        r.sub_score));
  }
}

}  // namespace hyalign::map
