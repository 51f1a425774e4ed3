// Accuracy of a mapper on reads simulated by dwgsim, with dwgsim_eval's definition (Debian's dwgsim
// does not ship its evaluator): the truth is in each read's name, a read is placed correctly when
// its primary record lies on the right sequence and strand and starts (POS less the leading clip)
// within -g letters of the simulated start; reads dwgsim made random should stay unmapped. Counts
// per MAPQ threshold.
// usage: hyalign_map_eval [-g 20] [-q 0,1,10,20,30,60] [--tsv] [--wrong FILE] IN.sam|IN.bam|-
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <htslib/sam.h>

namespace {

struct Truth {
  std::string sequence;
  long position[2] = {0, 0};  // 1-based leftmost letter of end 1 and end 2
  int strand[2] = {0, 0};     // 0 forward, 1 reverse
  int random[2] = {0, 0};     // 1: random DNA, not from the genome
};

// dwgsim names reads SEQ_POS1_POS2_STR1_STR2_RAND1_RAND2_E1:S1:I1_E2:S2:I2_NUM[/1|/2]; the
// sequence name may hold '_', so the fields are read from the end.
bool parse_truth(std::string_view name, Truth& t) {
  if (name.size() > 2 && name[name.size() - 2] == '/') name.remove_suffix(2);
  std::vector<std::string_view> fields;
  for (int k = 0; k < 9; ++k) {
    const auto cut = name.rfind('_');
    if (cut == std::string_view::npos) return false;
    fields.push_back(name.substr(cut + 1));
    name = name.substr(0, cut);
  }
  // fields[8..0] = POS1 POS2 STR1 STR2 RAND1 RAND2 E1 E2 NUM
  try {
    t.sequence = std::string(name);
    t.position[0] = std::stol(std::string(fields[8]));
    t.position[1] = std::stol(std::string(fields[7]));
    t.strand[0] = std::stoi(std::string(fields[6]));
    t.strand[1] = std::stoi(std::string(fields[5]));
    t.random[0] = std::stoi(std::string(fields[4]));
    t.random[1] = std::stoi(std::string(fields[3]));
  } catch (const std::exception&) {
    return false;
  }
  return !t.sequence.empty();
}

long leading_clip(const bam1_t* b) {
  const std::uint32_t* cigar = bam_get_cigar(b);
  long clip = 0;
  for (std::uint32_t k = 0; k < b->core.n_cigar; ++k) {
    const int op = bam_cigar_op(cigar[k]);
    if (op != BAM_CSOFT_CLIP && op != BAM_CHARD_CLIP) break;
    clip += bam_cigar_oplen(cigar[k]);
  }
  return clip;
}

struct Counts {
  std::vector<long> correct, wrong, random_mapped;
  long reads = 0, random = 0, unmapped = 0;
};

struct Options {
  long tolerance = 20;
  std::vector<int> thresholds{0, 1, 10, 20, 30, 60};
  bool tsv = false;
  std::string wrong_path, input;
};

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "hyalign_map_eval: %s\n", message.c_str());
  std::exit(2);
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    auto value = [&]() -> std::string {
      if (k + 1 >= argc) fail(a + " needs a value");
      return argv[++k];
    };
    if (a == "-g") {
      o.tolerance = std::atol(value().c_str());
    } else if (a == "-q") {
      o.thresholds.clear();
      const std::string list = value();
      for (std::size_t at = 0; at <= list.size();) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        o.thresholds.push_back(std::atoi(list.substr(at, comma - at).c_str()));
        at = comma + 1;
      }
    } else if (a == "--tsv") {
      o.tsv = true;
    } else if (a == "--wrong") {
      o.wrong_path = value();
    } else if (o.input.empty()) {
      o.input = a;
    } else {
      fail("usage: hyalign_map_eval [-g 20] [-q 0,1,10,20,30,60] [--tsv] [--wrong FILE] IN.sam|IN.bam|-");
    }
  }
  if (o.input.empty()) fail("usage: hyalign_map_eval [-g 20] [-q 0,1,10,20,30,60] [--tsv] [--wrong FILE] IN.sam|IN.bam|-");
  return o;
}

void print(const Options& o, const Counts& c) {
  if (o.tsv) {
    std::printf("threshold\tcorrect\twrong\tbelow_or_unmapped\trandom_mapped\treads\n");
    for (std::size_t k = 0; k < o.thresholds.size(); ++k)
      std::printf("%d\t%ld\t%ld\t%ld\t%ld\t%ld\n", o.thresholds[k], c.correct[k], c.wrong[k],
                  c.reads - c.random - c.correct[k] - c.wrong[k], c.random_mapped[k], c.reads);
    return;
  }
  std::printf("%ld reads (%ld random), %ld unmapped; wrong counts random reads placed\n", c.reads, c.random, c.unmapped);
  std::printf("MAPQ >=  %10s %10s %12s\n", "correct", "wrong", "wrong/10^6");
  for (std::size_t k = 0; k < o.thresholds.size(); ++k) {
    const long placed = c.correct[k] + c.wrong[k];
    std::printf("%7d  %10ld %10ld %12.1f\n", o.thresholds[k], c.correct[k], c.wrong[k],
                placed ? 1e6 * static_cast<double>(c.wrong[k]) / static_cast<double>(placed) : 0.0);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse_options(argc, argv);
  samFile* in = sam_open(o.input.c_str(), "r");
  if (in == nullptr) fail(o.input + ": cannot open");
  sam_hdr_t* header = sam_hdr_read(in);
  if (header == nullptr) fail(o.input + ": no SAM/BAM header");
  samFile* wrong_out = nullptr;
  if (!o.wrong_path.empty()) {
    wrong_out = sam_open(o.wrong_path.c_str(), "w");
    if (wrong_out == nullptr || sam_hdr_write(wrong_out, header) != 0) fail(o.wrong_path + ": cannot write");
  }
  Counts c;
  c.correct.assign(o.thresholds.size(), 0);
  c.wrong.assign(o.thresholds.size(), 0);
  c.random_mapped.assign(o.thresholds.size(), 0);
  bam1_t* b = bam_init1();
  Truth t;
  long record = 0;
  int status;
  while ((status = sam_read1(in, header, b)) >= 0) {
    ++record;
    if (b->core.flag & (BAM_FSECONDARY | BAM_FSUPPLEMENTARY)) continue;
    if (!parse_truth(bam_get_qname(b), t))
      fail(o.input + ": record " + std::to_string(record) + ": '" + bam_get_qname(b) + "' is not a dwgsim read name");
    const int end = (b->core.flag & BAM_FREAD2) ? 1 : 0;
    ++c.reads;
    c.random += t.random[end];
    if (b->core.flag & BAM_FUNMAP) {
      ++c.unmapped;
      continue;
    }
    const bool right = !t.random[end] && t.sequence == sam_hdr_tid2name(header, b->core.tid) &&
                       t.strand[end] == ((b->core.flag & BAM_FREVERSE) ? 1 : 0) &&
                       std::labs(b->core.pos + 1 - leading_clip(b) - t.position[end]) <= o.tolerance;
    for (std::size_t k = 0; k < o.thresholds.size(); ++k) {
      if (b->core.qual < o.thresholds[k]) continue;
      (right ? c.correct : c.wrong)[k] += 1;
      c.random_mapped[k] += t.random[end];
    }
    if (!right && wrong_out != nullptr && sam_write1(wrong_out, header, b) < 0) fail(o.wrong_path + ": cannot write");
  }
  if (status < -1) fail(o.input + ": damaged record after record " + std::to_string(record));
  bam_destroy1(b);
  sam_hdr_destroy(header);
  sam_close(in);
  if (wrong_out != nullptr && sam_close(wrong_out) != 0) fail(o.wrong_path + ": cannot write");
  print(o, c);
  return 0;
}
