#include "io/coded_sequences.hpp"

#include <algorithm>

#include "core/log.hpp"
#include "io/database.hpp"
#include "io/sequence_reader.hpp"

namespace hyalign {
namespace {

class FastaSource final : public SequenceSource {
 public:
  FastaSource(const std::string& path, const ScoreMatrix& matrix, std::size_t max_residues)
      : reader_(path), matrix_(matrix), max_residues_(std::max<std::size_t>(1, max_residues)) {}
  bool next_chunk(CodedSequences& chunk) override {
    chunk.clear();
    if (pending_) {
      add_coded(chunk, std::string_view(record_.name).substr(0, record_.id_length), record_.sequence, matrix_,
                next_id_++, unknown_);
      pending_ = false;
    }
    while (reader_.next(record_)) {
      if (chunk.size() > 0 && chunk.residues.size() + record_.sequence.size() > max_residues_) {
        pending_ = true;
        return true;
      }
      add_coded(chunk, std::string_view(record_.name).substr(0, record_.id_length), record_.sequence, matrix_,
                next_id_++, unknown_);
    }
    return chunk.size() > 0;
  }
  const UnknownLetters& unknown_letters() const override { return unknown_; }

 private:
  SequenceReader reader_;
  const ScoreMatrix& matrix_;
  std::size_t max_residues_;
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
    if (c == '-' || c == '.') continue;  // alignment gaps are not residues
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
                                               std::size_t max_residues, unsigned threads) {
  if (path != "-" && is_database(path)) return open_database(path, matrix, threads);
  return std::make_unique<FastaSource>(path, matrix, max_residues);
}

}  // namespace hyalign
