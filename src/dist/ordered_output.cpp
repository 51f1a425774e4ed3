#include "dist/ordered_output.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/log.hpp"
#include "dist/job.hpp"
#include "dist/transport.hpp"

namespace hyalign::dist {
namespace {

using transport::Channel;

// Tags on the output channel.
constexpr int kPiece = 2, kUnitEnd = 3, kDone = 4;

// Every rank cuts the input into units itself; ranks that disagree (a file that differs between
// nodes) are an error, not a hang or a wrong output.
UsageError disagreement(int rank) {
  return UsageError(fmt::format("ranks 0 and {} cut the input into different units: every rank must read the same "
                                "input files",
                                rank));
}

std::string encode(const std::vector<std::uint64_t>& values) {
  std::string bytes(values.size() * sizeof(std::uint64_t), '\0');
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::vector<std::uint64_t> decode(const std::string& bytes) {
  std::vector<std::uint64_t> values(bytes.size() / sizeof(std::uint64_t));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), values.size() * sizeof(std::uint64_t));
  return values;
}

}  // namespace

void OrderedOutput::note_first_output() {
  if (first_output_ < 0) first_output_ = system_microseconds();
}

void OrderedOutput::write(std::size_t unit, std::string_view piece) {
  note_first_output();
  if (rank() == 0) {
    write_units_before(unit);
    if (!piece.empty()) write_(piece);
    return;
  }
  if (!piece.empty()) transport::send(Channel::output, 0, kPiece, piece);
}

void OrderedOutput::end(std::size_t unit) {
  note_first_output();
  ++ended_;
  if (rank() == 0) {
    write_units_before(unit);
    next_ = unit + 1;
  } else {
    transport::send(Channel::output, 0, kUnitEnd, {});
  }
}

void OrderedOutput::write_units_before(std::size_t unit) {
  if (unit < next_) throw std::logic_error("dist: units written out of order");
  for (; next_ < unit; ++next_) {
    if (owner(next_) == 0) throw std::logic_error("dist: rank 0 skipped one of its units");
    receive_unit(next_);
  }
}

void OrderedOutput::receive_unit(std::size_t unit) {
  const int from = owner(unit);
  std::string message;
  for (;;) {
    const int tag = transport::receive(Channel::output, from, message);
    if (tag == kUnitEnd) return;
    if (tag == kDone) throw disagreement(from);
    write_(message);
  }
}

std::vector<RankShare> OrderedOutput::finish(std::size_t units, std::vector<std::uint64_t> counts) {
  note_first_output();
  // Times travel as microseconds of the system clock, each rank's own start first.
  const auto as_word = [](std::int64_t microseconds) { return static_cast<std::uint64_t>(microseconds); };
  if (rank() != 0) {
    std::vector<std::uint64_t> done{ended_, as_word(start_microseconds()), as_word(first_output_)};
    done.insert(done.end(), counts.begin(), counts.end());
    transport::send(Channel::output, 0, kDone, encode(done));
    return {{ended_, std::move(counts)}};
  }
  write_units_before(units);
  const auto since_start = [](std::uint64_t microseconds) {
    return static_cast<double>(static_cast<std::int64_t>(microseconds) - start_microseconds()) / 1e6;
  };
  std::vector<RankShare> shares{{ended_, std::move(counts), 0.0, since_start(as_word(first_output_))}};
  std::string message;
  for (int from = 1; from < size(); ++from) {
    if (transport::receive(Channel::output, from, message) != kDone) throw disagreement(from);
    const std::vector<std::uint64_t> done = decode(message);
    if (done.size() < 3) throw disagreement(from);
    shares.push_back({static_cast<std::size_t>(done[0]), std::vector<std::uint64_t>(done.begin() + 3, done.end()),
                      since_start(done[1]), since_start(done[2])});
  }
  return shares;
}

std::vector<std::uint64_t> summed(const std::vector<RankShare>& shares) {
  std::vector<std::uint64_t> total;
  for (const RankShare& share : shares) {
    total.resize(std::max(total.size(), share.counts.size()), 0);
    for (std::size_t k = 0; k < share.counts.size(); ++k) total[k] += share.counts[k];
  }
  return total;
}

void log_shares(const std::vector<RankShare>& shares, std::size_t k, std::string_view what,
                const std::function<std::string(const RankShare&)>& more) {
  if (shares.size() < 2) return;
  for (std::size_t r = 0; r < shares.size(); ++r)
    log_info("  rank {}: {} unit{}, {} {}{}; started at {:+.2f} s, first output at {:.2f} s", r, shares[r].units,
             shares[r].units == 1 ? "" : "s", k < shares[r].counts.size() ? shares[r].counts[k] : 0, what,
             more ? more(shares[r]) : "", shares[r].started, shares[r].first_output);
}

std::function<std::string(const RankShare&)> cells_and_seconds(std::size_t cells, std::size_t microseconds) {
  return [=](const RankShare& share) {
    const auto count = [&](std::size_t k) { return k < share.counts.size() ? static_cast<double>(share.counts[k]) : 0.0; };
    return fmt::format(", {:.3g} cells in {:.2f} s", count(cells), count(microseconds) / 1e6);
  };
}

}  // namespace hyalign::dist
