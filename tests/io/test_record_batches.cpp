#include "io/record_batches.hpp"

#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "io/sequence_reader.hpp"
#include "test_support.hpp"

using namespace hyalign;

namespace {

std::string write_file(const test::TempDir& dir, const std::string& name, std::string_view content) {
  std::string path = dir.file(name);
  std::ofstream out(path, std::ios::binary);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  return path;
}

// A FASTA file in one of many layouts: wrapped or one-line sequences, CRLF, blank lines, spaces
// and tabs inside sequence lines, names with several words, empty sequences.
std::string random_fasta(std::mt19937& rng, std::size_t records) {
  std::uniform_int_distribution<int> coin(0, 9);
  const bool crlf = coin(rng) < 2, wrap = coin(rng) < 5;
  const std::string eol = crlf ? "\r\n" : "\n";
  const std::size_t width = 20 + rng() % 60;
  std::string text = coin(rng) < 2 ? "\n\n" : "";
  for (std::size_t r = 0; r < records; ++r) {
    text += ">read" + std::to_string(r) + (coin(rng) < 3 ? " some  description\t" : "") + eol;
    const std::size_t length = coin(rng) == 0 ? 0 : rng() % 400;
    std::string letters;
    for (std::size_t i = 0; i < length; ++i) letters += "ACGTNacgtRY"[rng() % 11];
    for (std::size_t at = 0; at < length; at += wrap ? width : length) {
      std::string line = letters.substr(at, wrap ? width : length);
      if (coin(rng) == 0) {
        const char blank = coin(rng) < 5 ? ' ' : '\t';
        line.insert(line.begin() + static_cast<std::ptrdiff_t>(line.size() / 2), blank);
      }
      text += line + eol;
    }
    if (coin(rng) == 0) text += eol;
  }
  return text;
}

struct Record {
  std::string name, id, letters;
  bool operator==(const Record&) const = default;
};

void append_records(const RecordBatch& batch, std::vector<Record>& records) {
  for (std::size_t i = 0; i < batch.size(); ++i)
    records.push_back({std::string(batch.name(i)), std::string(batch.id(i)), std::string(batch.letters(i))});
}

std::vector<Record> read_in_batches(const std::string& path, unsigned threads, std::size_t letters) {
  RecordBatchReader reader(path, threads);
  EXPECT_TRUE(reader.parallel());
  std::vector<Record> records;
  RecordBatch batch;
  while (reader.next(batch, letters)) append_records(batch, records);
  return records;
}

std::vector<Record> read_one_by_one(const std::string& path) {
  SequenceReader reader(path);
  std::vector<Record> records;
  SequenceRecord record;
  while (reader.next(record))
    records.push_back({record.name, record.name.substr(0, record.id_length), record.sequence});
  return records;
}

TEST(RecordBatchReader, MappedBatchesEqualTheSequenceReaderOnManyLayouts) {
  const test::TempDir dir;
  std::mt19937 rng(12);
  for (int round = 0; round < 40; ++round) {
    const std::size_t records = 1 + rng() % 3000;
    const std::string path = write_file(dir, "reads" + std::to_string(round) + ".fa", random_fasta(rng, records));
    const std::vector<Record> expected = read_one_by_one(path);
    ASSERT_EQ(expected.size(), records);
    for (const unsigned threads : {1u, 3u, 8u})
      for (const std::size_t letters : {std::size_t{1}, std::size_t{5000}, std::size_t{1} << 26})
        ASSERT_EQ(read_in_batches(path, threads, letters), expected)
            << "round " << round << ", " << threads << " threads, batches of " << letters << " letters";
  }
}

// The batches rank `rank` of `ranks` reads, passing over the others' (unit u is rank u mod ranks'),
// by unit.
std::map<std::size_t, std::vector<Record>> rank_batches(const std::string& path, std::size_t letters,
                                                        std::size_t ranks, std::size_t rank) {
  RecordBatchReader reader(path, 2);
  std::map<std::size_t, std::vector<Record>> batches;
  RecordBatch batch;
  for (std::size_t unit = 0;; ++unit) {
    if (unit % ranks != rank) {
      if (!reader.pass_over(letters)) break;
      continue;
    }
    if (!reader.next(batch, letters)) break;
    append_records(batch, batches[unit]);
  }
  return batches;
}

// Ranks that each read their own batches and pass over the others' (MPI jobs) read every record
// once between them, the batches in unit order giving the file's order: mapped FASTA and FASTQ.
TEST(RecordBatchReader, BatchesPassedOverAreThoseOtherRanksRead) {
  const test::TempDir dir;
  std::mt19937 rng(31);
  for (int round = 0; round < 12; ++round) {
    const std::size_t records = 1 + rng() % 2000;
    const std::string fasta = random_fasta(rng, records);
    std::string fastq;
    for (const Record& r : read_one_by_one(write_file(dir, "r.fa", fasta)))
      fastq += "@" + r.name + "\n" + r.letters + "\n+\n" + std::string(r.letters.size(), 'I') + "\n";
    for (const std::string& path : {write_file(dir, "reads.fa", fasta), write_file(dir, "reads.fq", fastq)}) {
      const std::vector<Record> expected = read_one_by_one(path);
      for (const std::size_t ranks : {2u, 3u})
        for (const std::size_t letters : {std::size_t{1}, std::size_t{3000}, std::size_t{40000}}) {
          std::map<std::size_t, std::vector<Record>> units;
          for (std::size_t rank = 0; rank < ranks; ++rank) units.merge(rank_batches(path, letters, ranks, rank));
          std::vector<Record> all;
          for (const auto& [unit, batch] : units) all.insert(all.end(), batch.begin(), batch.end());
          ASSERT_EQ(all, expected) << path << ", round " << round << ", " << ranks << " ranks, batches of "
                                   << letters << " letters";
        }
    }
  }
}

TEST(RecordBatchReader, ControlBytesAreRefusedWithTheirLine) {
  const test::TempDir dir;
  const std::string path = write_file(dir, "bad.fa", ">a\nACGT\n>b\nAC\x01GT\n");
  try {
    read_in_batches(path, 2, std::size_t{1} << 20);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(":4"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("binary data (byte 0x01)"), std::string::npos) << e.what();
  }
}

// CR-only line ends (the file one header line) and a CR inside a sequence line are refused with
// their line and column, as SequenceReader refuses them.
TEST(RecordBatchReader, CarriageReturnsInsideLinesAreRefused) {
  const test::TempDir dir;
  const std::pair<std::string, std::string> cases[] = {{">a\rACGT\r>b\rAC\r", ":1:3:"},
                                                       {">a\r\nACGT\r\n>b\r\nAC\rGT\r\n", ":4:3:"}};
  for (const auto& [text, where] : cases) {
    const std::string path = write_file(dir, "cr.fa", text);
    try {
      read_in_batches(path, 2, std::size_t{1} << 20);
      ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("carriage return inside a line"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
