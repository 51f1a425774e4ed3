#include "papara/output.hpp"

#include <algorithm>
#include <string>

namespace hyalign::papara {

using kernels::PaparaAlignment;

void write_papara_alignment(AtomicOutput& out, AlignmentFormat format, const PaparaInputs& inputs,
                            const Alphabet& alphabet, const std::vector<PaparaAlignment>& alignments,
                            bool no_reference_gaps) {
  const ReferenceAlignment& ref = inputs.reference;
  const std::size_t columns = ref.columns;

  // Width of each insertion slot: the longest run of residues any query puts there.
  std::vector<std::size_t> slot_width(columns + 1, 0);
  if (!no_reference_gaps) {
    std::vector<std::size_t> count(columns + 1, 0);
    for (const PaparaAlignment& a : alignments) {
      for (std::int32_t place : a.residue_place)
        if (place < 0) ++count[PaparaAlignment::slot_of(place)];
      for (std::size_t s = 0; s <= columns; ++s) {
        slot_width[s] = std::max(slot_width[s], count[s]);
        count[s] = 0;
      }
    }
  }
  std::size_t width = columns;
  for (std::size_t w : slot_width) width += w;
  // Output position of each reference column.
  std::vector<std::size_t> column_position(columns);
  std::vector<std::size_t> slot_start(columns + 1);
  for (std::size_t c = 0, pos = 0; c <= columns; ++c) {
    slot_start[c] = pos;
    pos += slot_width[c];
    if (c < columns) column_position[c] = pos++;
  }

  AlignmentWriter writer(out, format, ref.row_count() + inputs.queries.size(), width, inputs.longest_name);
  std::string row;
  for (std::size_t r = 0; r < ref.row_count(); ++r) {
    row.assign(width, '-');
    const StateSet* states = ref.row_states(r);
    for (std::size_t c = 0; c < columns; ++c)
      row[column_position[c]] = no_reference_gaps ? alphabet.decode(states[c]) : ref.raw_rows[r][c];
    writer.add_row(ref.names[r], row);
  }
  std::vector<std::size_t> used(columns + 1);
  for (std::size_t q = 0; q < inputs.queries.size(); ++q) {
    row.assign(width, '-');
    const auto residues = inputs.queries.sequence(q);
    const auto& places = alignments[q].residue_place;
    // Insertions are flushed left in every slot but the first, which is flushed right.
    std::fill(used.begin(), used.end(), 0);
    std::size_t first_slot_count = 0;
    for (std::int32_t place : places)
      if (place == PaparaAlignment::slot_code(0)) ++first_slot_count;
    for (std::size_t k = 0; k < residues.size(); ++k) {
      const std::int32_t place = places[k];
      const char letter = alphabet.decode(residues[k]);
      if (place >= 0) {
        row[column_position[static_cast<std::size_t>(place)]] = letter;
      } else if (!no_reference_gaps) {
        const std::size_t s = PaparaAlignment::slot_of(place);
        const std::size_t offset = s == 0 ? slot_width[0] - first_slot_count : 0;
        row[slot_start[s] + offset + used[s]++] = letter;
      }
    }
    writer.add_row(inputs.queries.name(q), row);
  }
}

}  // namespace hyalign::papara
