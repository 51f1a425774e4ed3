#include "io/alignment_reader.hpp"

#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "test_support.hpp"

using namespace hyalign;

namespace {

std::string temp_path(const std::string& name) {
  static const test::TempDir temp;
  return temp.file(name);
}

std::string write_file(const std::string& name, std::string_view content) {
  std::string path = temp_path(name);
  std::ofstream out(path, std::ios::binary);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  return path;
}

std::string write_gz(const std::string& name, std::string_view content) {
  std::string path = temp_path(name);
  gzFile f = gzopen(path.c_str(), "wb");
  EXPECT_NE(f, nullptr);
  gzwrite(f, content.data(), static_cast<unsigned>(content.size()));
  gzclose(f);
  return path;
}

RawAlignment read_text(const std::string& name, std::string_view content) {
  return read_alignment(write_file(name, content));
}

// Reading `content` must throw a one-line InputError naming the file, `line` (0: none) and `fragment`.
void expect_error(const std::string& name, std::string_view content, std::size_t line, const std::string& fragment) {
  std::string path = write_file(name, content);
  try {
    read_alignment(path);
    ADD_FAILURE() << "no InputError for " << name;
  } catch (const InputError& e) {
    std::string m = e.what();
    std::string where = line ? path + ":" + std::to_string(line) + ":" : path + ": ";
    EXPECT_NE(m.find(where), std::string::npos) << m << " (wanted " << where << ")";
    EXPECT_NE(m.find(fragment), std::string::npos) << m << " (wanted " << fragment << ")";
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

}  // namespace

TEST(AlignmentReader, PyrgPhylip) {
  auto a = read_alignment(HYALIGN_TEST_DATA "/papara/pyrg/ref.phy");
  ASSERT_EQ(a.rows.size(), 65u);
  EXPECT_EQ(a.columns(), 2054u);
  for (auto& r : a.rows) EXPECT_EQ(r.size(), 2054u);
  EXPECT_EQ(a.names[0], "NC_002754_175930_174323");
  EXPECT_EQ(a.name_lines[0], 2u);
  EXPECT_EQ(a.name_lines[64], 66u);
  EXPECT_EQ(a.rows[0].substr(84, 3), "GTG");
}

TEST(AlignmentReader, Q2PhylipEqualsFasta) {
  auto phy = read_alignment(HYALIGN_TEST_DATA "/papara/q2_16S/ref.phy");
  auto fa = read_alignment(HYALIGN_TEST_DATA "/papara/q2_16S/ref.fasta");
  ASSERT_EQ(phy.rows.size(), 508u);
  EXPECT_EQ(phy.columns(), 1285u);
  EXPECT_EQ(phy.names, fa.names);
  EXPECT_EQ(phy.rows, fa.rows);
  EXPECT_EQ(fa.name_lines[0], 1u);
  EXPECT_EQ(fa.name_lines[1], 3u);
  EXPECT_EQ(phy.name_lines[1], 3u);
}

TEST(AlignmentReader, EpaTinyInterleaved) {
  auto a = read_alignment(HYALIGN_TEST_DATA "/papara/epa_tiny/aln.phy");
  ASSERT_EQ(a.rows.size(), 10u);
  EXPECT_EQ(a.columns(), 705u);
  EXPECT_EQ(a.names.front(), "A");
  EXPECT_EQ(a.names.back(), "J");
  EXPECT_EQ(a.rows[0].substr(0, 12), "ATGGCATATCCC");
  EXPECT_EQ(a.rows[0].substr(60, 12), "CTTCACTTTCAT");
  EXPECT_EQ(a.rows[9].substr(684), "GAAGCATCACTA------AGA");
  EXPECT_EQ(a.name_lines[9], 11u);
}

TEST(AlignmentReader, PhylipLayouts) {
  // Sequential on one line, with spaces inside the data and CRLF.
  auto a = read_text("seq.phy", " 3  8\r\na ACGT ACGT\r\nbb ACGTAC--\r\n\r\nc A-GTACGT\r\n");
  ASSERT_EQ(a.rows.size(), 3u);
  EXPECT_EQ(a.names, (std::vector<std::string>{"a", "bb", "c"}));
  EXPECT_EQ(a.rows[0], "ACGTACGT");
  EXPECT_EQ(a.name_lines, (std::vector<std::size_t>{2, 3, 5}));

  // Sequential, wrapped.
  a = read_text("wrapped.phy", "2 10\nfirst ACGT\nACG\nTAC\nsecond\nAAAAA\nCCCCC\n");
  EXPECT_EQ(a.names, (std::vector<std::string>{"first", "second"}));
  EXPECT_EQ(a.rows[0], "ACGTACGTAC");
  EXPECT_EQ(a.rows[1], "AAAAACCCCC");

  // Interleaved without blank lines.
  a = read_text("inter.phy", "3 6\nx AC\ny GG\nz TT\nGT\nCC\nAA\nAA\nTT\nGG\n");
  EXPECT_EQ(a.rows, (std::vector<std::string>{"ACGTAA", "GGCCTT", "TTAAGG"}));

  // Interleaved with blank lines and leading blanks in later blocks.
  a = read_text("inter2.phy", "2 6\n\nx AC\ny GG\n\n  GT\n  CC\n\n\nA A\nT T\n\n");
  EXPECT_EQ(a.rows, (std::vector<std::string>{"ACGTAA", "GGCCTT"}));
  EXPECT_EQ(a.name_lines, (std::vector<std::size_t>{3, 4}));
}

TEST(AlignmentReader, StrictPhylip) {
  // Names with spaces, and no space before the data.
  auto a = read_text("strict.phy", "3 8\nHomo sapieACGTACGT\nPan       ACGTAC--\nGorilla_goA-GTACGT\n");
  EXPECT_EQ(a.names, (std::vector<std::string>{"Homo_sapie", "Pan", "Gorilla_go"}));
  EXPECT_EQ(a.rows[0], "ACGTACGT");
  EXPECT_EQ(a.rows[2], "A-GTACGT");

  // Strict interleaved.
  a = read_text("strict_inter.phy", "2 8\nSeq numberACG T\nSeq 2     AAAA\n\nACGT\nCCCC\n");
  EXPECT_EQ(a.names, (std::vector<std::string>{"Seq_number", "Seq_2"}));
  EXPECT_EQ(a.rows, (std::vector<std::string>{"ACGTACGT", "AAAACCCC"}));

  // Relaxed wins when both work.
  a = read_text("both.phy", "2 4\nab        ACGT\ncd        ACGT\n");
  EXPECT_EQ(a.names, (std::vector<std::string>{"ab", "cd"}));
}

TEST(AlignmentReader, GzipAndFasta) {
  std::string text = "2 5\nfoo ACGTA\nbar AC-TA\n";
  auto a = read_alignment(write_gz("x.phy.gz", text));
  EXPECT_EQ(a.rows, (std::vector<std::string>{"ACGTA", "AC-TA"}));

  auto f = read_text("x.fa", "\n>foo bar\nAC\nGTA\n>baz\nAC-TA\n");
  EXPECT_EQ(f.names, (std::vector<std::string>{"foo_bar", "baz"}));
  EXPECT_EQ(f.rows, (std::vector<std::string>{"ACGTA", "AC-TA"}));
  EXPECT_EQ(f.name_lines, (std::vector<std::size_t>{2, 5}));
  auto g = read_alignment(write_gz("x.fa.gz", ">a\nAC\n>b\nGT\n"));
  EXPECT_EQ(g.columns(), 2u);
}

TEST(AlignmentReader, PhylipErrors) {
  expect_error("empty.phy", "", 0, "empty file");
  expect_error("blank.phy", "\n \n", 0, "empty file");
  expect_error("hdr1.phy", "3 x\na AC\n", 1, "malformed PHYLIP header");
  expect_error("hdr2.phy", "\n0 5\n", 2, "malformed PHYLIP header");
  expect_error("hdr3.phy", "3 4 5\na ACGT\n", 1, "malformed PHYLIP header");
  expect_error("hdr4.phy", "99999999999999999999999 4\na ACGT\n", 1, "malformed PHYLIP header");
  expect_error("noseq.phy", "3 4\n", 1, "declares 3 sequences, the file has none");
  expect_error("few.phy", "3 4\na ACGT\nb ACGT\n", 1, "declares 3 sequences, the file has 2");
  expect_error("many.phy", "2 4\na ACGT\nb ACGT\nc ACGT\n", 4, "more data after the 2 sequences");
  expect_error("short.phy", "3 4\na ACGT\nb ACG\nc ACGT\n", 3, "sequence 'b' has 3 characters, the PHYLIP header (line 1) says 4");
  expect_error("short_last.phy", "3 4\na ACGT\nb ACGT\nc ACG\n", 4, "sequence 'c' has 3 characters");
  expect_error("long.phy", "3 4\na ACGT\nb ACGTA\nc ACGT\n", 3, "sequence 'b' has 5 characters");
  expect_error("cols.phy", "2 5\na ACGT\nb ACGT\n", 2, "sequence 'a' has 4 characters, the PHYLIP header (line 1) says 5");
  expect_error("dup.phy", "3 4\na ACGT\nb ACGT\na ACGT\n", 4, "duplicate sequence name 'a' (also on line 2)");
  expect_error("inter_short.phy", "2 6\nx AC\ny GG\n\nGT\nCC\n\nAA\nT\n", 3, "sequence 'y' has 5 characters");
  expect_error("inter_block.phy", "2 6\nx AC\ny GG\n\nGT\nCC\n\nAA\n\nTT\n", 8, "interleaved block has 1 lines, expected 2");
  expect_error("bin.phy", std::string_view("2 4\na ACGT\nb AC\0T\n", 18), 3, "binary");
  expect_error("what.phy", "#NEXUS\nbegin data;\n", 1, "not a PHYLIP or FASTA alignment");
  expect_error("reads.fq", "@r\nACGT\n+\nIIII\n", 1, "looks like FASTQ");
}

TEST(AlignmentReader, FastaErrors) {
  expect_error("unequal.fa", ">a\nACGT\n>b\nACGT\n>c\nAC\nG\n", 5,
               "sequence 'c' has 3 characters, the first sequence 'a' (line 1) has 4");
  expect_error("dup.fa", ">a\nACGT\n>b\nACGT\n>a\nACGT\n", 5, "duplicate sequence name 'a' (also on line 1)");
  expect_error("noname.fa", ">a\nACGT\n> \nACGT\n", 3, "empty sequence name");
  expect_error("nores.fa", ">a\n>b\n", 1, "empty");
  expect_error("ctl.fa", ">a\nAC\x1bGT\n", 2, "binary");
}

TEST(AlignmentReader, MissingFile) {
  std::string path = temp_path("missing.phy");
  try {
    read_alignment(path);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}
