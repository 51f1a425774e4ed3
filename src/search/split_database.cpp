#include "search/split_database.hpp"

#include <cstdint>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/log.hpp"
#include "dist/gather.hpp"
#include "dist/job.hpp"

namespace hyalign::search {
namespace {

// Unsigned LEB128: most numbers in a hit (positions, counts, scores) take one to three bytes.
class Packer {
 public:
  void number(std::uint64_t value) {
    for (; value >= 0x80; value >>= 7) bytes_.push_back(static_cast<char>(value | 0x80));
    bytes_.push_back(static_cast<char>(value));
  }
  void text(std::string_view text) {
    number(text.size());
    bytes_ += text;
  }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

class Unpacker {
 public:
  explicit Unpacker(std::string_view bytes) : bytes_(bytes) {}
  std::uint64_t number() {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const auto byte = static_cast<unsigned char>(next_bytes(1)[0]);
      value |= std::uint64_t{byte & 0x7fu} << shift;
      if (byte < 0x80) return value;
    }
    throw damaged();
  }
  std::string_view text() { return next_bytes(number()); }
  bool done() const { return bytes_.empty(); }

 private:
  std::string_view next_bytes(std::uint64_t count) {
    if (count > bytes_.size()) throw damaged();
    const std::string_view taken = bytes_.substr(0, count);
    bytes_.remove_prefix(count);
    return taken;
  }
  // Bytes from another rank of this job: damage is a fault of the transport, not of an input.
  static std::logic_error damaged() { return std::logic_error("search: a rank's packed hits are damaged"); }
  std::string_view bytes_;
};

void pack_counts(Packer& out, const DatabaseShare& share) {
  for (std::size_t n : {share.chunks_seen, share.chunks, share.sequences, share.residues, share.cells, share.peak_memory_mib})
    out.number(n);
  out.number(share.unknown.counts().size());
  for (const auto& [letter, times] : share.unknown.counts()) {
    out.number(static_cast<unsigned char>(letter));
    out.number(times);
  }
}

DatabaseShare unpack_counts(Unpacker& in) {
  DatabaseShare share;
  for (std::size_t* n :
       {&share.chunks_seen, &share.chunks, &share.sequences, &share.residues, &share.cells, &share.peak_memory_mib})
    *n = in.number();
  for (std::uint64_t kinds = in.number(); kinds > 0; --kinds) {
    const auto letter = static_cast<char>(in.number());
    share.unknown.add(letter, in.number());
  }
  return share;
}

// The alignment's score is the hit's, and is not packed twice.
void pack_hit(Packer& out, const engine::ScoredTarget& hit, const HitDetails& details) {
  const kernels::SwAlignment& a = details.alignment;
  out.number(hit.target);
  out.number(static_cast<std::uint32_t>(hit.score));
  for (std::size_t n : {a.query_start, a.query_end, a.target_start, a.target_end, a.length, a.identities,
                        a.mismatches, a.gap_opens, a.gap_columns, details.length})
    out.number(n);
  out.text(a.cigar);
  out.text(details.title);
  out.text(details.target_codes);
}

TopHits::FoundHit unpack_hit(Unpacker& in) {
  TopHits::FoundHit f;
  f.hit.target = in.number();
  f.hit.score = static_cast<int>(static_cast<std::uint32_t>(in.number()));
  kernels::SwAlignment& a = f.details.alignment;
  a.score = f.hit.score;
  for (std::size_t* n : {&a.query_start, &a.query_end, &a.target_start, &a.target_end, &a.length, &a.identities,
                         &a.mismatches, &a.gap_opens, &a.gap_columns, &f.details.length})
    *n = in.number();
  a.cigar = in.text();
  f.details.title = in.text();
  f.details.target_codes = in.text();
  return f;
}

}  // namespace

// Layout: the counts, then for each query with hits: its index, its number of hits, the hits.
std::string pack_share(const DatabaseShare& share, const TopHits& top) {
  Packer out;
  pack_counts(out, share);
  for (std::size_t q = 0; q < top.queries(); ++q) {
    const auto hits = top.of(q);
    if (hits.empty()) continue;
    out.number(q);
    out.number(hits.size());
    for (const engine::ScoredTarget& hit : hits) pack_hit(out, hit, top.details(q, hit.target));
  }
  return out.take();
}

DatabaseShare merge_packed_share(std::string_view bytes, TopHits& top) {
  Unpacker in(bytes);
  DatabaseShare share = unpack_counts(in);
  std::vector<TopHits::FoundHit> found;
  while (!in.done()) {
    const std::uint64_t q = in.number();
    if (q >= top.queries()) throw std::logic_error("search: a rank's packed hits name a query there is not");
    found.clear();
    for (std::uint64_t n = in.number(); n > 0; --n) found.push_back(unpack_hit(in));
    top.merge(q, std::move(found));
  }
  return share;
}

std::vector<DatabaseShare> gather_at_rank_zero(DatabaseShare mine, TopHits& top) {
  mine.peak_memory_mib = static_cast<std::size_t>(peak_memory_mib());
  if (!dist::writes_output()) {
    dist::send_to_rank_zero(pack_share(mine, top));
    return {};
  }
  std::vector<DatabaseShare> shares{std::move(mine)};
  dist::receive_from_other_ranks([&](int rank, std::string_view bytes) {
    shares.push_back(merge_packed_share(bytes, top));
    if (shares.back().chunks_seen != shares.front().chunks_seen)
      throw UsageError(fmt::format("ranks 0 and {} cut the database into different chunks ({} and {}): every rank "
                                   "must read the same database",
                                   rank, shares.front().chunks_seen, shares.back().chunks_seen));
  });
  return shares;
}

DatabaseShare summed(const std::vector<DatabaseShare>& shares) {
  DatabaseShare total;
  total.chunks_seen = shares.empty() ? 0 : shares.front().chunks_seen;
  for (const DatabaseShare& share : shares) {
    total.chunks += share.chunks;
    total.sequences += share.sequences;
    total.residues += share.residues;
    total.cells += share.cells;
    for (const auto& [letter, times] : share.unknown.counts()) total.unknown.add(letter, times);
  }
  return total;
}

void log_shares(const std::vector<DatabaseShare>& shares) {
  if (shares.size() < 2) return;
  for (std::size_t r = 0; r < shares.size(); ++r)
    log_info("  rank {}: {} of {} database chunks, {} sequences, {} residues, peak memory {} MiB", r,
             shares[r].chunks, shares[r].chunks_seen, shares[r].sequences, shares[r].residues,
             shares[r].peak_memory_mib);
}

}  // namespace hyalign::search
