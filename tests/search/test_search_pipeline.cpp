// hyalign search end to end against parasail: with -k as large as the database, every reported
// score must equal parasail's Smith-Waterman score for that pair, every pair with a positive score
// must be reported, and every reported alignment must re-score to its score. Run with the CPU
// kernels and with the GPU (skipped with a message where no usable GPU is present).
#include <gtest/gtest.h>
#include <parasail.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "core/log.hpp"
#include "engine/devices.hpp"
#include "search/search.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace hyalign;

namespace {

using test::TempDir;

std::string random_sequence(std::mt19937& rng, const std::string& letters, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += letters[rng() % letters.size()];
  return s;
}

// The score of aligned letters (BLAST's qseq and sseq, gaps as '-') under parasail's matrix and
// BLAST's gap costs (open + length * extend).
long score_of_letters(const std::string& qseq, const std::string& sseq, const parasail_matrix_t* m, int open,
                      int extend) {
  long score = 0;
  for (std::size_t i = 0; i < qseq.size(); ++i) {
    const bool gap = qseq[i] == '-' || sseq[i] == '-';
    const bool opens = gap && (i == 0 || (qseq[i] == '-' ? qseq[i - 1] != '-' : sseq[i - 1] != '-'));
    if (gap)
      score -= extend + (opens ? open : 0);
    else
      score += m->matrix[m->size * m->mapper[static_cast<unsigned char>(qseq[i])] +
                         m->mapper[static_cast<unsigned char>(sseq[i])]];
  }
  return score;
}

// score for (query id, db id + strand) from "qseqid sseqid score sstrand qseq sseq" output (strand:
// plus or minus for DNA, N/A for protein); every row's aligned letters must re-score to its score.
std::map<std::pair<std::string, std::string>, int> run(const search::SearchOptions& o, const parasail_matrix_t* m) {
  search::run_search(o);
  std::ifstream in(o.out);
  std::map<std::pair<std::string, std::string>, int> scores;
  std::string q, s, strand, qseq, sseq;
  int score;
  while (in >> q >> s >> score >> strand >> qseq >> sseq) {
    EXPECT_TRUE(scores.insert({{q, s + " " + strand}, score}).second) << q << " " << s;
    EXPECT_EQ(qseq.size(), sseq.size()) << q << " " << s;
    EXPECT_EQ(score_of_letters(qseq, sseq, m, *o.gap_open, *o.gap_extend), score) << q << " " << s << " " << strand;
  }
  return scores;
}

// The 20 real UniProt proteins of tests/data/sw/queries20.fasta, in file order.
std::vector<std::string> real_proteins() {
  std::ifstream in(HYALIGN_TEST_DATA "/sw/queries20.fasta");
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line[0] == '>') out.emplace_back();
    else if (!out.empty()) out.back() += line;
  }
  return out;
}

void check_against_parasail(engine::DeviceChoice device, bool dna, const std::string& matrix_name, int open, int extend,
                            std::vector<std::string> queries = {}, std::vector<std::string> db = {}) {
  Log::instance().set_quiet(true);
  TempDir dir;
  std::mt19937 rng(dna ? 5 : 17);
  const std::string letters = dna ? "ACGT" : "ARNDCQEGHILKMFPSTWYV";
  if (queries.empty()) {
    for (std::size_t n : {1, 2, 17, 64, 255, 333}) queries.push_back(random_sequence(rng, letters, n));
    for (int d = 0; d < 150; ++d) db.push_back(random_sequence(rng, letters, 1 + rng() % (d % 10 == 0 ? 1500 : 300)));
    db.push_back(queries[4] + queries[5]);  // a long exact match
  }
  std::ofstream qf(dir.path / "q.fa"), df(dir.path / "db.fa");
  for (std::size_t i = 0; i < queries.size(); ++i) qf << ">q" << i << " query\n" << queries[i] << "\n";
  for (std::size_t i = 0; i < db.size(); ++i) df << ">d" << i << "\n" << db[i] << "\n";
  qf.close();
  df.close();

  search::SearchOptions o;
  o.queries = (dir.path / "q.fa").string();
  o.database = (dir.path / "db.fa").string();
  o.type = dna ? search::SequenceType::dna : search::SequenceType::protein;
  o.matrix = matrix_name;
  o.gap_open = open;
  o.gap_extend = extend;
  o.top = db.size() * (dna ? 2 : 1);  // DNA: a hit on each strand
  o.outfmt = "6 qseqid sseqid score sstrand qseq sseq";
  o.out = (dir.path / "out.tsv").string();
  o.threads = 2;
  o.chunk_residues = 5000;  // several chunks
  o.device = device;
  const parasail_matrix_t* matrix = dna ? parasail_matrix_create("ACGT", 2, -3) : parasail_matrix_lookup(matrix_name.c_str());
  ASSERT_NE(matrix, nullptr);
  const auto scores = run(o, matrix);

  const std::vector<std::string> strands = dna ? std::vector<std::string>{"plus", "minus"} : std::vector<std::string>{"N/A"};
  for (std::size_t q = 0; q < queries.size(); ++q)
    for (const std::string& strand : strands) {
      std::string query = queries[q];
      if (strand == "minus") {
        std::reverse(query.begin(), query.end());
        for (char& c : query) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : 'A';
      }
      for (std::size_t d = 0; d < db.size(); ++d) {
        // parasail's open is the cost of a gap's first position: BLAST's open + extend.
        parasail_result_t* r = parasail_sw(query.c_str(), static_cast<int>(query.size()), db[d].c_str(),
                                           static_cast<int>(db[d].size()), open + extend, extend, matrix);
        const int expected = parasail_result_get_score(r);
        parasail_result_free(r);
        const auto it = scores.find({"q" + std::to_string(q), "d" + std::to_string(d) + " " + strand});
        if (expected > 0) {
          ASSERT_NE(it, scores.end()) << "q" << q << " d" << d << " " << strand << " (parasail score " << expected
                                      << ") not reported";
          ASSERT_EQ(it->second, expected) << "q" << q << " d" << d << " " << strand;
        } else {
          EXPECT_EQ(it, scores.end()) << "zero-score pair reported";
        }
      }
    }
  if (dna) parasail_matrix_free(const_cast<parasail_matrix_t*>(matrix));
}

class SearchPipeline : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "gpu" && engine::usable_gpus().empty())
      GTEST_SKIP() << "SKIPPED: no usable GPU: " << engine::gpu_unavailable_reason();
  }
  engine::DeviceChoice device() const { return engine::parse_device_choice(GetParam()); }
};

}  // namespace

TEST_P(SearchPipeline, ProteinScoresEqualParasail) { check_against_parasail(device(), false, "blosum62", 11, 1); }
TEST_P(SearchPipeline, ProteinOtherMatrixEqualsParasail) { check_against_parasail(device(), false, "pam30", 9, 1); }
TEST_P(SearchPipeline, DnaScoresEqualParasail) { check_against_parasail(device(), true, "", 5, 2); }

// Real proteins: the five shortest of the bundled UniProt set against all twenty.
TEST_P(SearchPipeline, RealProteinsEqualParasail) {
  std::vector<std::string> all = real_proteins();
  ASSERT_EQ(all.size(), 20u);
  std::vector<std::string> shortest = all;
  std::sort(shortest.begin(), shortest.end(), [](const auto& a, const auto& b) { return a.size() < b.size(); });
  shortest.resize(5);
  check_against_parasail(device(), false, "blosum62", 11, 1, shortest, all);
}

INSTANTIATE_TEST_SUITE_P(Devices, SearchPipeline, ::testing::Values("cpu", "gpu"),
                         [](const auto& info) { return info.param; });
