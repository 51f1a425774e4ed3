#pragma once
// Many sequences in one contiguous buffer with offsets: no per-sequence allocation, cache-friendly scans.
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/alphabet.hpp"

namespace hyalign {

class SequenceArena {
 public:
  std::size_t add(std::string_view name, std::span<const StateSet> residues);
  std::size_t size() const { return name_offsets_.size() - 1; }
  bool empty() const { return size() == 0; }
  std::string_view name(std::size_t i) const {
    return std::string_view(names_).substr(name_offsets_[i], name_offsets_[i + 1] - name_offsets_[i]);
  }
  std::span<const StateSet> residues(std::size_t i) const {
    return std::span<const StateSet>(residues_).subspan(offsets_[i], offsets_[i + 1] - offsets_[i]);
  }
  std::size_t length(std::size_t i) const { return offsets_[i + 1] - offsets_[i]; }
  std::size_t total_residues() const { return residues_.size(); }
  std::size_t max_length() const { return max_length_; }

 private:
  std::string names_;
  std::vector<std::size_t> name_offsets_{0};
  std::vector<StateSet> residues_;
  std::vector<std::size_t> offsets_{0};
  std::size_t max_length_ = 0;
};

}  // namespace hyalign
