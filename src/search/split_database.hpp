#pragma once
// --split-database: MPI ranks take the database's chunks in turn and score every query against
// their own; each rank's top hits, with their details, travel to rank 0 packed, and rank 0 merges
// them into its own. A hit ranks by score, then database ordinal, on every rank, so the merged
// lists are those of one process.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/unknown_letters.hpp"
#include "search/top_hits.hpp"

namespace hyalign::search {

// A rank's share of the database: what rank 0 needs beyond the hits (the database's totals for
// the E-values, the letters for the warning, and the counts for the log).
struct DatabaseShare {
  std::size_t chunks_seen = 0;  // the chunks of the whole database, as this rank counted them
  std::size_t chunks = 0, sequences = 0, residues = 0;  // those it scored
  std::size_t cells = 0;  // the cells it scored (for the job's summary)
  std::size_t peak_memory_mib = 0;
  UnknownLetters unknown;
};

// After every rank has scored its chunks: rank 0 merges the other ranks' top hits into `top` and
// returns every rank's share, its own first; the other ranks send theirs and return none. Ranks
// that counted different chunks (different database files) are an error.
std::vector<DatabaseShare> gather_at_rank_zero(DatabaseShare mine, TopHits& top);
// The whole database's: the shares' counts and letters summed.
DatabaseShare summed(const std::vector<DatabaseShare>& shares);
// In a job of several ranks, one log line per rank: its chunks, sequences and peak memory.
void log_shares(const std::vector<DatabaseShare>& shares);

// The share and every query's top hits in compact bytes (varints; names and CIGARs as text).
std::string pack_share(const DatabaseShare& share, const TopHits& top);
// Folds the packed hits into `top` and returns the share they came with.
DatabaseShare merge_packed_share(std::string_view bytes, TopHits& top);

}  // namespace hyalign::search
