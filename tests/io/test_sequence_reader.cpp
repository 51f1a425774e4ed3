#include "io/sequence_reader.hpp"

#include <fcntl.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

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
  EXPECT_EQ(gzwrite(f, content.data(), static_cast<unsigned>(content.size())), static_cast<int>(content.size()));
  gzclose(f);
  return path;
}

std::vector<SequenceRecord> read_all(const std::string& path) {
  SequenceReader reader(path);
  std::vector<SequenceRecord> out;
  SequenceRecord r;
  while (reader.next(r)) out.push_back(r);
  return out;
}

// Reading `content` must throw an InputError on one line naming the file and `line`.
void expect_error(std::string_view content, std::size_t line, const std::string& fragment,
                  const std::string& name = "bad.fa") {
  std::string path = write_file(name, content);
  try {
    read_all(path);
    ADD_FAILURE() << "no InputError for " << name;
  } catch (const InputError& e) {
    std::string m = e.what();
    std::string where = line ? path + ":" + std::to_string(line) + ":" : path + ": ";
    EXPECT_NE(m.find(where), std::string::npos) << m << " (wanted " << where << ")";
    EXPECT_NE(m.find(fragment), std::string::npos) << m << " (wanted " << fragment << ")";
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

// A random FASTA or FASTQ text of `records` records in the shapes the reader takes: wrapped lines,
// blank lines, CRLF ends, whitespace inside sequences, '+name' lines, empty sequences.
std::string random_records(std::mt19937& rng, std::size_t records, bool fastq) {
  std::string text;
  const auto end_line = [&] { text += rng() % 5 == 0 ? "\r\n" : "\n"; };
  for (std::size_t k = 0; k < records; ++k) {
    if (rng() % 7 == 0) end_line();  // a blank line between records
    const std::string name = "r" + std::to_string(k) + (rng() % 3 == 0 ? " some  comment" : "");
    text += (fastq ? "@" : ">") + name;
    end_line();
    const std::size_t letters = rng() % 6 == 0 ? 0 : 1 + rng() % 300;
    const std::size_t width = rng() % 2 == 0 ? 1000 : 1 + rng() % 80;
    std::size_t lines = 0;
    for (std::size_t i = 0; i < letters; ++i) {
      text += "ACGTN"[rng() % 5];
      if (rng() % 50 == 0) text += ' ';
      if ((i + 1) % width == 0 && i + 1 < letters) end_line(), ++lines;
    }
    if (letters > 0) end_line(), ++lines;
    if (!fastq) continue;
    text += rng() % 4 == 0 ? "+" + name : "+";
    end_line();
    for (std::size_t i = 0; i < letters; ++i) {  // wrapped as the sequence was, when it was
      text += static_cast<char>('!' + rng() % 90);
      if (lines > 1 && (i + 1) % width == 0 && i + 1 < letters) end_line();
    }
    end_line();  // an empty sequence's quality is an empty line
  }
  return text;
}

}  // namespace

TEST(SequenceReader, FastaMultiLineAndNames) {
  auto path = write_file("a.fa",
                         "\n  \n>  seq 1   desc\t x \r\nACGT\r\nAC GT\n\n>s2\n>s3\nNN\nnn-\n");
  SequenceReader reader(path);
  EXPECT_EQ(reader.format(), SequenceFormat::fasta);
  EXPECT_EQ(reader.path(), path);
  SequenceRecord r;
  ASSERT_TRUE(reader.next(r));
  EXPECT_EQ(r.name, "seq_1_desc_x");
  EXPECT_EQ(r.comment, "1   desc\t x");  // as written, between the first word and the line's end
  EXPECT_EQ(r.sequence, "ACGTACGT");
  EXPECT_EQ(r.line, 3u);
  EXPECT_TRUE(r.quality.empty());
  ASSERT_TRUE(reader.next(r));
  EXPECT_EQ(r.name, "s2");
  EXPECT_EQ(r.comment, "");
  EXPECT_EQ(r.sequence, "");  // empty sequence is allowed
  EXPECT_EQ(r.line, 7u);
  ASSERT_TRUE(reader.next(r));
  EXPECT_EQ(r.name, "s3");
  EXPECT_EQ(r.sequence, "NNnn-");
  EXPECT_FALSE(reader.next(r));
  EXPECT_FALSE(reader.next(r));
}

TEST(SequenceReader, NoTrailingNewlineAndBom) {
  auto recs = read_all(write_file("bom.fa", "\xEF\xBB\xBF>a\nAC\n>b\nGT"));
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0].name, "a");
  EXPECT_EQ(recs[1].sequence, "GT");
}

TEST(SequenceReader, RealFiles) {
  auto recs = read_all(HYALIGN_TEST_DATA "/papara/q2_16S/ref.fasta");
  ASSERT_EQ(recs.size(), 508u);
  EXPECT_EQ(recs[0].name, "93679");
  EXPECT_EQ(recs[1].name, "206151");
  for (auto& r : recs) EXPECT_EQ(r.sequence.size(), 1285u) << r.name;
  EXPECT_EQ(read_all(HYALIGN_TEST_DATA "/papara/pyrg/query.fasta").size(), 106u);
}

TEST(SequenceReader, GzipAndLargeRecords) {
  // Records and lines crossing the 1 MiB read chunks, and one 3 MiB line.
  std::string text;
  std::vector<std::string> seqs;
  for (int i = 0; i < 300; ++i) {
    std::string s(1000 + i * 37 % 5000, "ACGT"[i % 4]);
    seqs.push_back(s);
    text += ">r" + std::to_string(i) + " some description\n";
    for (std::size_t p = 0; p < s.size(); p += 70) text += s.substr(p, 70) + "\n";
  }
  std::string big(3 << 20, 'G');
  seqs.push_back(big);
  text += ">big\r\n" + big + "\r\n";
  for (const auto& path : {write_file("big.fa", text), write_gz("big.fa.gz", text)}) {
    auto recs = read_all(path);
    ASSERT_EQ(recs.size(), seqs.size());
    for (std::size_t i = 0; i < seqs.size(); ++i) ASSERT_EQ(recs[i].sequence, seqs[i]) << i;
    EXPECT_EQ(recs[5].name, "r5_some_description");
    EXPECT_EQ(recs.back().name, "big");
  }
}

TEST(SequenceReader, Fastq) {
  // The '+' lines: empty, the whole header, or its first word (as some tools write them).
  std::string text = "@r1 x\nACGT\n+r1\nIIII\n\n@r2\nAC\n+r2\n#!\n@r3\n\n+\n\n@r4 1:N\nACG\nTA\n+r4 1:N\nII\nIII\n";
  for (const auto& path : {write_file("a.fq", text), write_gz("a.fq.gz", text)}) {
    SequenceReader reader(path);
    EXPECT_EQ(reader.format(), SequenceFormat::fastq);
    std::vector<SequenceRecord> recs;
    SequenceRecord r;
    while (reader.next(r)) recs.push_back(r);
    ASSERT_EQ(recs.size(), 4u);
    EXPECT_EQ(recs[0].name, "r1_x");
    EXPECT_EQ(recs[0].comment, "x");
    EXPECT_EQ(recs[0].quality, "IIII");
    EXPECT_EQ(recs[1].comment, "");
    EXPECT_EQ(recs[1].sequence, "AC");
    EXPECT_EQ(recs[1].quality, "#!");
    EXPECT_EQ(recs[1].line, 6u);
    EXPECT_EQ(recs[2].sequence, "");
    EXPECT_EQ(recs[3].sequence, "ACGTA");
    EXPECT_EQ(recs[3].quality, "IIIII");
  }
}

TEST(SequenceReader, Stdin) {
  auto path = write_file("stdin.fa", ">x\nAC\n");
  int saved = dup(0);
  int fd = open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  dup2(fd, 0);
  close(fd);
  std::vector<SequenceRecord> recs;
  try {
    recs = read_all("-");
  } catch (...) {
  }
  dup2(saved, 0);
  close(saved);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].sequence, "AC");
}

TEST(SequenceReader, Errors) {
  expect_error("", 0, "empty file", "empty.fa");
  expect_error("\n  \n\t\n", 0, "empty file", "blank.fa");
  expect_error("\n65 2054\nNAME ACGT\n", 2, "looks like a PHYLIP alignment", "aln.phy");
  expect_error("hello\n>a\n", 1, "not a FASTA or FASTQ file", "text.fa");
  expect_error(std::string_view(">a\nACGT\n>b\nAC\0GT\n", 17), 4, "binary", "nul.fa");
  expect_error(">a\nAC\x01GT\n", 2, "byte 0x01", "ctl.fa");
  expect_error(">a\nACGT\n>\nAC\n", 3, "empty sequence name", "noname.fa");
  expect_error(">a\nACGT\n>   \nAC\n", 3, "empty sequence name", "noname2.fa");
  // CR-only line ends read as one line; a CR inside a line of a CRLF file too.
  expect_error(">a\rACGT\r>b\rAC\r", 1, "carriage return inside a line", "mac.fa");
  expect_error(">a\r\nAC\rGT\r\n", 2, "carriage return inside a line", "cr.fa");
  expect_error("@r1\nACGT\n+\nII\rI\n", 4, "carriage return inside a line", "cr.fq");
  // FASTQ
  expect_error("@r1\nACGT\n@r2\nACGT\n+\nIIII\n", 3, "expected a '+' line", "noplus.fq");
  expect_error("@r1\nACGT\n+\nIIII\n@r2\nACGT\nIIII\n", 7, "without a '+' line", "noplus2.fq");
  expect_error("@r1\nACGT\n+\nIIII\n@r2\nACGT\n", 6, "without a '+' line", "trunc1.fq");
  expect_error("@r1\nACGT\n+\nIIII\n@r2\nACGT\n+\n", 7, "file ends inside the quality", "trunc2.fq");
  expect_error("@r1\nACGT\n+\nIII\n@r2\nA\n+\nI\n", 4, "quality has 3 characters, sequence has 4", "short.fq");
  expect_error("@r1\nACGT\n+\nIIIII\n", 4, "quality has 5 characters", "long.fq");
  expect_error("@r1\nACGT\n+\nII I\n", 4, "invalid quality character", "space.fq");
  expect_error("@r1\nACGT\n+r2\nIIII\n", 3, "'+' line names 'r2'", "plusname.fq");
  expect_error("@r1 x\nACGT\n+r1 y\nIIII\n", 3, "'+' line names 'r1_y'", "pluscomment.fq");
  expect_error("@r1\nACGT\n+\nIIII\nACGT\n", 5, "expected '@'", "extra.fq");
}

TEST(SequenceReader, MissingFileAndDirectory) {
  for (std::string path : {temp_path("does_not_exist.fa"), std::filesystem::temp_directory_path().string()}) {
    try {
      SequenceReader reader(path);
      ADD_FAILURE() << "no error for " << path;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
}

TEST(SequenceReader, BinaryGarbageAndTruncatedGzip) {
  // Pseudo-random bytes: must be an InputError, never a crash.
  std::string garbage;
  std::uint32_t x = 12345;
  for (int i = 0; i < 100000; ++i) {
    x = x * 1103515245u + 12345u;
    garbage.push_back(static_cast<char>(x >> 24));
  }
  for (char first : {'>', '@', 'x'}) {
    garbage[0] = first;
    auto path = write_file("garbage.bin", garbage);
    EXPECT_THROW(read_all(path), InputError);
  }
  // A gzip file cut in the middle.
  std::string text;
  for (int i = 0; i < 2000; ++i) text += ">s" + std::to_string(i * 7919) + "\nACGTTGCAAGGCTTAACCGGTATCGATCG" + std::to_string(i) + "\n";
  auto gz = write_gz("cut.fa.gz", text);
  std::ifstream in(gz, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto cut = write_file("cut2.fa.gz", std::string_view(bytes).substr(0, bytes.size() / 2));
  try {
    read_all(cut);
    ADD_FAILURE() << "no error for a truncated gzip file";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(cut + ":"), std::string::npos) << e.what();
  }
}

TEST(SequenceReader, NormalizeName) {
  EXPECT_EQ(normalize_sequence_name("  a  b\tc \r"), "a_b_c");
  EXPECT_EQ(normalize_sequence_name(""), "");
}

TEST(SequenceReader, RecordsPassedOverAreThoseNextReads) {
  std::mt19937 rng(7);
  for (int round = 0; round < 40; ++round) {
    const bool fastq = round % 2 == 1;
    const std::string text = random_records(rng, 1 + rng() % 400, fastq);
    const std::string name = std::string("passed.") + (fastq ? "fq" : "fa");
    for (const std::string& path : {write_file(name, text), write_gz(name + ".gz", text)}) {
      const std::vector<SequenceRecord> all = read_all(path);
      SequenceReader reader(path);
      SequenceRecord record;
      std::size_t letters = 0, line = 0;
      for (std::size_t k = 0; k < all.size(); ++k) {
        if (rng() % 3 == 0) {
          ASSERT_TRUE(reader.next(record)) << path << " record " << k;
          EXPECT_EQ(record.name, all[k].name);
          EXPECT_EQ(record.sequence, all[k].sequence);
          EXPECT_EQ(record.quality, all[k].quality);
          EXPECT_EQ(record.line, all[k].line);
        } else {
          ASSERT_TRUE(reader.pass_over(letters, line)) << path << " record " << k;
          EXPECT_EQ(letters, all[k].sequence.size()) << path << " record " << k;
          EXPECT_EQ(line, all[k].line) << path << " record " << k;
        }
      }
      EXPECT_FALSE(reader.pass_over(letters, line));
      EXPECT_FALSE(reader.next(record));
    }
  }
}

TEST(SequenceReader, RecordsPassedOverAreCheckedForTheirBounds) {
  const std::pair<std::string, std::string> broken[] = {
      {"@a\nACGT\n+\nIII\n", ":4: FASTQ record 'a' (line 1): quality has 3 characters, sequence has 4"},
      {"@a\nACGT\n+\nIIII\n@b x\nAC\n", ":6: FASTQ record 'b_x' (line 5) ends without a '+' line"},
      {"@a\nACGT\n+\nIIII\nAC\n", ":5:1: expected '@' starting a FASTQ record"},
      {"@a\nAC\n+\nII\n@b\nAC\n@c\n", ":7: FASTQ record 'b' (line 5): expected a '+' line"},
      {"@a\nACGT\nAC\n+\nIII", ":5: FASTQ record 'a' (line 1): file ends inside the quality (3 of 6 characters)"},
      // The next record's header, which this reader may read whole, is checked.
      {">a\nAC\n>b\x01\nAC\n", ":3:3: binary data (byte 0x01)"},
  };
  for (const auto& [text, message] : broken) {
    const std::string path = write_file(text.front() == '@' ? "broken.fq" : "broken.fa", text);
    try {
      SequenceReader reader(path);
      std::size_t letters = 0, line = 0;
      while (reader.pass_over(letters, line)) {
      }
      ADD_FAILURE() << "no error passing over " << text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(path + message), std::string::npos) << e.what();
    }
  }
}
