#pragma once
// Many sequences in one contiguous buffer with offsets: no per-sequence allocation, cache-friendly
// scans, and a view kernels take without copying. One container for every tool: residues are
// StateSets for PaPaRa, score-matrix codes for search; ids keep each sequence's position in its
// input (the tie-break rule of every result), so a batch may be reordered or cut from a stream.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/alphabet.hpp"
#include "core/large_memory.hpp"

namespace hyalign {

// Sequence i is residues[offsets[i] .. offsets[i+1]).
template <typename Residue>
struct PackedSequences {
  const Residue* residues = nullptr;
  const std::size_t* offsets = nullptr;
  std::size_t count = 0;
  std::span<const Residue> sequence(std::size_t i) const { return {residues + offsets[i], offsets[i + 1] - offsets[i]}; }
};

// Every array is a LargeArray: huge pages, and no pass of zeroes when a reader sizes it before
// filling it in parallel (batches run to gigabytes of letters and millions of records; zeroing a
// batch's offsets on one thread took longer than filling them on all).
template <typename Residue>
struct SequenceBatch {
  LargeArray<char> names;  // concatenated
  LargeArray<std::size_t> name_offsets{0};
  LargeArray<Residue> residues;
  LargeArray<std::size_t> offsets{0};
  LargeArray<std::size_t> ids;  // position in the input

  std::size_t size() const { return offsets.size() - 1; }
  bool empty() const { return size() == 0; }
  std::string_view name(std::size_t i) const {
    return {names.data() + name_offsets[i], name_offsets[i + 1] - name_offsets[i]};
  }
  std::span<const Residue> sequence(std::size_t i) const {
    return {residues.data() + offsets[i], offsets[i + 1] - offsets[i]};
  }
  std::size_t length(std::size_t i) const { return offsets[i + 1] - offsets[i]; }
  std::size_t total_residues() const { return residues.size(); }
  PackedSequences<Residue> view() const { return {residues.data(), offsets.data(), size()}; }

  // Appends a sequence (id: its input position, by default the next index) and returns its index.
  std::size_t add(std::string_view name, std::span<const Residue> letters) { return add(name, letters, size()); }
  std::size_t add(std::string_view name, std::span<const Residue> letters, std::size_t id) {
    names.insert(names.end(), name.begin(), name.end());
    name_offsets.push_back(names.size());
    residues.insert(residues.end(), letters.begin(), letters.end());
    offsets.push_back(residues.size());
    ids.push_back(id);
    return size() - 1;
  }
  void clear() {
    names.clear();
    name_offsets.assign(1, 0);
    residues.clear();
    offsets.assign(1, 0);
    ids.clear();
  }
};

using StateSequences = SequenceBatch<StateSet>;  // PaPaRa: state sets of an Alphabet
using CodedSequences = SequenceBatch<std::uint8_t>;  // codes of a ScoreMatrix

}  // namespace hyalign
