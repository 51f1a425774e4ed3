#pragma once
// The map's seed search on a GPU: a thread per strand runs the search of map/seeds.cpp (the longest
// match from each start, reseeding inside long seeds with few copies) over the suffix index copied
// to the GPU, and returns the same matches in the same order (kernels/seed_search.hpp).
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "index/suffix_index.hpp"
#include "kernels/seed_search.hpp"

namespace hyalign::kernels::cuda {

// One thread's searches: its own stream and buffers.
class SeedGpuSearcher {
 public:
  virtual ~SeedGpuSearcher() = default;
  // Pattern q's matches are matches[ends[q - 1], ends[q]) (from 0 for q = 0); both are replaced.
  // Patterns are lower-case a/c/g/t; any other letter never matches.
  virtual void find(std::span<const std::string_view> patterns, std::vector<SeedMatch>& matches,
                    std::vector<std::uint32_t>& ends) = 0;
};

// The suffix index on one GPU, shared by its searchers.
class SeedGpuKernel {
 public:
  virtual ~SeedGpuKernel() = default;
  virtual std::unique_ptr<SeedGpuSearcher> make_searcher() const = 0;
  virtual double device_seconds() const = 0;  // kernel time of all its searchers so far
};

// Throws std::runtime_error where there is no CUDA or the index does not fit on `device`.
std::unique_ptr<SeedGpuKernel> make_seed_gpu_kernel(int device, const index::SuffixIndex& index,
                                                    SeedSearchParams params);

}  // namespace hyalign::kernels::cuda
