#include "io/coded_sequences.hpp"

#include <algorithm>
#include <utility>

#include "core/log.hpp"
#include "io/database.hpp"
#include "io/sequence_reader.hpp"

namespace hyalign {
namespace {

bool is_alignment_gap(char c) { return c == '-' || c == '.'; }  // not residues

std::size_t residue_count(std::string_view letters) {
  return static_cast<std::size_t>(
      std::count_if(letters.begin(), letters.end(), [](char c) { return !is_alignment_gap(c); }));
}

class FastaSource final : public SequenceSource {
 public:
  FastaSource(const std::string& path, const ScoreMatrix& matrix, std::size_t max_residues,
              std::size_t first_chunk_at_least)
      : reader_(path), matrix_(matrix), max_residues_(std::max<std::size_t>(1, max_residues)),
        first_chunk_at_least_(first_chunk_at_least) {}
  bool next_chunk(CodedSequences& chunk) override {
    chunk.clear();
    return next_records([&] {
      add_coded(chunk, title_of(record_), record_.sequence, matrix_, next_id_, unknown_);
      return chunk.length(chunk.size() - 1);
    });
  }
  bool skip_chunk() override {
    return next_records([&] { return residue_count(record_.sequence); });
  }
  const UnknownLetters& unknown_letters() const override { return unknown_; }

 private:
  // Hands the records of the next chunk to take(), which returns the residues it counted; the
  // chunk ends before the record that would take it past max_residues_ (the first one also with
  // the record that takes it to first_chunk_at_least_), so kept and skipped chunks end alike.
  // False when no record was left.
  template <class Take>
  bool next_records(Take take) {
    const std::size_t at_least = std::exchange(first_chunk_at_least_, 0);
    std::size_t records = 0, residues = 0;
    const auto take_record = [&] {
      residues += take();
      ++next_id_, ++records;
    };
    if (pending_) take_record();
    pending_ = false;
    while (reader_.next(record_)) {
      if (records > 0 && residues + record_.sequence.size() > max_residues_) {
        pending_ = true;
        return true;
      }
      take_record();
      if (at_least > 0 && residues >= at_least) return true;
    }
    return records > 0;
  }

  SequenceReader reader_;
  const ScoreMatrix& matrix_;
  std::size_t max_residues_;
  std::size_t first_chunk_at_least_;  // 0 once the first chunk is read
  SequenceRecord record_;
  bool pending_ = false;
  std::size_t next_id_ = 0;
  UnknownLetters unknown_;
};

}  // namespace

std::size_t encode_residues(std::string_view letters, const ScoreMatrix& matrix, std::uint8_t* out,
                            UnknownLetters& unknown) {
  std::size_t n = 0;
  for (char c : letters) {
    if (is_alignment_gap(c)) continue;
    if (!matrix.is_known(c)) unknown.add(c);
    out[n++] = matrix.encode(c);
  }
  return n;
}

void add_coded(CodedSequences& batch, std::string_view name, std::string_view letters, const ScoreMatrix& matrix,
               std::size_t id, UnknownLetters& unknown) {
  batch.names.insert(batch.names.end(), name.begin(), name.end());
  batch.name_offsets.push_back(batch.names.size());
  const std::size_t start = batch.residues.size();
  batch.residues.resize(start + letters.size());
  batch.residues.resize(start + encode_residues(letters, matrix, batch.residues.data() + start, unknown));
  batch.offsets.push_back(batch.residues.size());
  batch.ids.push_back(id);
}

void warn_unknown_letters(const UnknownLetters& unknown, const ScoreMatrix& matrix, std::string_view source) {
  if (unknown.empty()) return;
  log_warning("{}: letters outside the {} alphabet were read as {}: {}", source, matrix.name(),
              matrix.decode(matrix.unknown_code()), unknown.list());
}

std::unique_ptr<SequenceSource> open_sequences(const std::string& path, const ScoreMatrix& matrix,
                                               std::size_t max_residues, unsigned threads,
                                               std::size_t first_chunk_at_least) {
  if (path != "-" && is_database(path)) return open_database(path, matrix, threads);
  return std::make_unique<FastaSource>(path, matrix, max_residues, first_chunk_at_least);
}

}  // namespace hyalign
