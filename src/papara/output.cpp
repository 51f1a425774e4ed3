#include "papara/output.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/parallel.hpp"
#include "dist/job.hpp"

namespace hyalign::papara {
namespace {

using kernels::PaparaAlignment;

// Where each reference column and insertion slot lands in the output rows.
struct OutputLayout {
  std::size_t width = 0;
  std::vector<std::size_t> slot_width;       // the longest run of residues any query puts in a slot
  std::vector<std::size_t> slot_start;       // output position of each slot's first character
  std::vector<std::size_t> column_position;  // output position of each reference column
};

// A query's insertions into one slot are consecutive residues (places follow the query in order),
// so each run of one slot code is that slot's count for the query.
void widen_slots(const PaparaAlignment& a, std::vector<std::size_t>& slot_width) {
  const auto& places = a.residue_place;
  for (std::size_t k = 0; k < places.size();) {
    if (places[k] >= 0) {
      ++k;
      continue;
    }
    std::size_t run = 1;
    while (k + run < places.size() && places[k + run] == places[k]) ++run;
    std::size_t& w = slot_width[PaparaAlignment::slot_of(places[k])];
    w = std::max(w, run);
    k += run;
  }
}

// The widest insertion of every rank's queries into each slot: the ranks' widths are merged.
void widen_slots_over_ranks(std::vector<std::size_t>& slot_width) {
  std::vector<std::uint64_t> widths(slot_width.begin(), slot_width.end());
  dist::max_over_ranks(widths);
  std::copy(widths.begin(), widths.end(), slot_width.begin());
}

OutputLayout layout_of(std::size_t columns, const std::vector<PaparaAlignment>& alignments, bool no_reference_gaps,
                       unsigned threads) {
  OutputLayout layout;
  layout.slot_width.assign(columns + 1, 0);
  if (!no_reference_gaps) {
    const std::size_t parts = std::min<std::size_t>(std::max(1u, threads), alignments.size() / 1024 + 1);
    std::vector<std::vector<std::size_t>> part_width(parts, std::vector<std::size_t>(columns + 1, 0));
    parallel_for(parts, threads, [&](std::size_t p, unsigned) {
      for (std::size_t q = alignments.size() * p / parts; q < alignments.size() * (p + 1) / parts; ++q)
        widen_slots(alignments[q], part_width[p]);
    });
    for (const auto& widths : part_width)
      for (std::size_t s = 0; s <= columns; ++s) layout.slot_width[s] = std::max(layout.slot_width[s], widths[s]);
    widen_slots_over_ranks(layout.slot_width);
  }
  layout.width = columns;
  for (std::size_t w : layout.slot_width) layout.width += w;
  layout.column_position.resize(columns);
  layout.slot_start.resize(columns + 1);
  for (std::size_t c = 0, pos = 0; c <= columns; ++c) {
    layout.slot_start[c] = pos;
    pos += layout.slot_width[c];
    if (c < columns) layout.column_position[c] = pos++;
  }
  return layout;
}

// One query's output row. Insertions are flushed left in every slot but the first, which is
// flushed right.
void fill_query_row(std::string& row, const OutputLayout& layout, std::span<const StateSet> residues,
                    const std::vector<std::int32_t>& places, const Alphabet& alphabet, bool no_reference_gaps,
                    std::vector<std::size_t>& used) {
  row.assign(layout.width, '-');
  std::fill(used.begin(), used.end(), 0);
  std::size_t first_slot_count = 0;
  for (std::int32_t place : places)
    if (place == PaparaAlignment::slot_code(0)) ++first_slot_count;
  for (std::size_t k = 0; k < residues.size(); ++k) {
    const std::int32_t place = places[k];
    const char letter = alphabet.decode(residues[k]);
    if (place >= 0) {
      row[layout.column_position[static_cast<std::size_t>(place)]] = letter;
    } else if (!no_reference_gaps) {
      const std::size_t s = PaparaAlignment::slot_of(place);
      const std::size_t offset = s == 0 ? layout.slot_width[0] - first_slot_count : 0;
      row[layout.slot_start[s] + offset + used[s]++] = letter;
    }
  }
}

}  // namespace

// The header and the reference rows.
void write_reference_rows(AtomicOutput& out, AlignmentFormat format, const PaparaInputs& inputs,
                          const Alphabet& alphabet, const OutputLayout& layout, bool no_reference_gaps) {
  const ReferenceAlignment& ref = inputs.reference;
  AlignmentWriter writer(out, format, ref.row_count() + inputs.queries.size(), layout.width, inputs.longest_name);
  std::string row;
  for (std::size_t r = 0; r < ref.row_count(); ++r) {
    row.assign(layout.width, '-');
    const StateSet* states = ref.row_states(r);
    for (std::size_t c = 0; c < ref.columns; ++c)
      row[layout.column_position[c]] = no_reference_gaps ? alphabet.decode(states[c]) : ref.raw_rows[r][c];
    writer.add_row(ref.names[r], row);
  }
}

void write_papara_alignment(AtomicOutput* out, dist::OrderedOutput& ordered, AlignmentFormat format,
                            const PaparaInputs& inputs, const RankQueries& queries, const Alphabet& alphabet,
                            bool no_reference_gaps, unsigned threads) {
  const std::size_t columns = inputs.reference.columns;
  const OutputLayout layout = layout_of(columns, queries.alignments, no_reference_gaps, threads);
  if (out != nullptr) write_reference_rows(*out, format, inputs, alphabet, layout, no_reference_gaps);

  // Each unit's queries in rounds of blocks: threads format a round's blocks, which are then
  // written in order, so memory stays at a few blocks per thread however many queries there are.
  const AlignmentWriter writer(format, inputs.longest_name);
  constexpr std::size_t kRowsPerBlock = 1024;
  const std::size_t blocks_per_round = 4 * std::max(1u, threads);
  std::vector<std::string> blocks(blocks_per_round);
  struct WorkerRow {
    std::string row;
    std::vector<std::size_t> used;
  };
  std::vector<WorkerRow> scratch(std::max(1u, threads), WorkerRow{{}, std::vector<std::size_t>(columns + 1)});
  queries.units.for_each_mine([&](std::size_t unit, std::size_t first, std::size_t last) {
    for (std::size_t round_start = first; round_start < last; round_start += blocks_per_round * kRowsPerBlock) {
      parallel_for(blocks_per_round, threads, [&](std::size_t b, unsigned worker) {
        std::string& block = blocks[b];
        block.clear();
        WorkerRow& own = scratch[worker];
        const std::size_t begin = std::min(last, round_start + b * kRowsPerBlock);
        const std::size_t end = std::min(last, begin + kRowsPerBlock);
        for (std::size_t q = begin; q < end; ++q) {
          fill_query_row(own.row, layout, queries.sequences.sequence(q), queries.alignments[q].residue_place, alphabet,
                         no_reference_gaps, own.used);
          writer.format_row(block, queries.sequences.name(q), own.row);
        }
      });
      for (const std::string& block : blocks) ordered.write(unit, block);
    }
    ordered.end(unit);
  });
}

}  // namespace hyalign::papara
