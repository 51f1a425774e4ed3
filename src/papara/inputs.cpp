#include "papara/inputs.hpp"

#include <algorithm>
#include <filesystem>
#include <span>
#include <unordered_map>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/unknown_letters.hpp"
#include "io/alignment_reader.hpp"
#include "io/sequence_reader.hpp"

namespace hyalign::papara {
namespace {

// Removes gap/unknown residues and characters outside the alphabet (collected for one warning).
void encode_query(std::string_view text, const Alphabet& alphabet, UnknownLetters& unknown,
                  std::vector<StateSet>& residues) {
  residues.clear();
  for (char c : text) {
    StateSet s = alphabet.encode(c);
    if (s == 0) {
      unknown.add(c);
    } else if (!alphabet.is_gap(s)) {
      residues.push_back(s);
    }
  }
}

// Where a name was defined: a file and line (line 0: the alignment's header, for its row names).
// Formatted only for an error message, not for each of possibly millions of reads.
struct Origin {
  const std::string* path;
  std::size_t line;
  std::string describe() const { return line ? fmt::format("{}:{}", *path, line) : *path; }
};

const char* alphabet_name(const Alphabet& alphabet) { return alphabet.kind() == AlphabetKind::dna ? "DNA" : "protein"; }

// Per row of the alignment, the tree leaf of its name, or -1 for a row that is no leaf (a query).
// Every leaf must have a row.
std::vector<int> leaves_of_rows(const PaparaTree& tree, const RawAlignment& raw, const std::string& alignment_path) {
  std::unordered_map<std::string, std::size_t> row_of_name;
  for (std::size_t r = 0; r < raw.names.size(); ++r) row_of_name.emplace(raw.names[r], r);
  std::vector<int> leaf_of_row(raw.names.size(), -1);
  std::vector<std::string> missing;
  for (int n : tree.postorder()) {
    const TreeNode& node = tree.nodes()[n];
    if (!node.is_leaf()) continue;
    auto it = row_of_name.find(node.name);
    if (it == row_of_name.end())
      missing.push_back(node.name);
    else
      leaf_of_row[it->second] = n;
  }
  if (missing.empty()) return leaf_of_row;
  std::string list;
  for (std::size_t i = 0; i < missing.size() && i < 10; ++i) list += (i ? ", " : "") + missing[i];
  if (missing.size() > 10) list += fmt::format(", ... ({} in all)", missing.size());
  throw InputError(alignment_path, fmt::format("{} tree leaves have no row in the alignment: {}", missing.size(), list));
}

// The reference rows' states (row-major, every column), each character checked against the
// alphabet, and which columns hold a residue in some row.
struct EncodedRows {
  std::vector<StateSet> states;
  std::vector<bool> has_residue;
};

EncodedRows encode_reference_rows(const RawAlignment& raw, std::span<const std::size_t> rows, const Alphabet& alphabet,
                                  const std::string& alignment_path) {
  const std::size_t width = raw.columns();
  EncodedRows out{std::vector<StateSet>(rows.size() * width), std::vector<bool>(width, false)};
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const std::string& row = raw.rows[rows[k]];
    for (std::size_t c = 0; c < width; ++c) {
      const StateSet s = alphabet.encode(row[c]);
      if (s == 0)
        throw InputError(alignment_path, raw.name_lines[rows[k]],
                         fmt::format("row '{}', column {}: character '{}' is not a valid {} symbol", raw.names[rows[k]],
                                     c + 1, printable_letter(row[c]), alphabet_name(alphabet)));
      out.states[k * width + c] = s;
      if (!alphabet.is_gap(s)) out.has_residue[c] = true;
    }
  }
  return out;
}

// The reference alignment of the leaves' rows, without the columns that are gaps in all of them
// (PaPaRa's column masking); sets each leaf's row and the longest name.
void build_reference(RawAlignment& raw, std::span<const std::size_t> rows, const std::vector<int>& leaf_of_row,
                     const EncodedRows& encoded, const std::string& alignment_path, PaparaInputs& in) {
  const std::size_t width = raw.columns();
  std::vector<std::size_t> kept;
  for (std::size_t c = 0; c < width; ++c)
    if (encoded.has_residue[c]) kept.push_back(c);
  ReferenceAlignment& ref = in.reference;
  ref.columns = kept.size();
  ref.states.resize(rows.size() * kept.size());
  std::size_t literal_gaps = 0;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const std::size_t r = rows[k];
    std::string masked;
    masked.reserve(kept.size());
    for (std::size_t j = 0; j < kept.size(); ++j) {
      masked.push_back(raw.rows[r][kept[j]]);
      ref.states[k * kept.size() + j] = encoded.states[k * width + kept[j]];
    }
    literal_gaps += static_cast<std::size_t>(std::count(masked.begin(), masked.end(), '-'));
    in.leaf_row[leaf_of_row[r]] = static_cast<int>(k);
    in.longest_name = std::max(in.longest_name, raw.names[r].size());
    ref.names.push_back(std::move(raw.names[r]));
    ref.raw_rows.push_back(std::move(masked));
  }
  const std::size_t cells = ref.row_count() * ref.columns;
  ref.gap_fraction = cells ? static_cast<double>(literal_gaps) / static_cast<double>(cells) : 0.0;
  if (ref.columns == 0) throw InputError(alignment_path, "the reference alignment has only gap columns");
}

// The queries: the query file's records first, then the alignment's rows that are no tree leaf;
// names unique among them and the reference's.
void load_queries(const InputPaths& paths, const RawAlignment& raw, const std::vector<int>& leaf_of_row,
                  const Alphabet& alphabet, PaparaInputs& in) {
  UnknownLetters unknown;
  std::unordered_map<std::string, Origin> seen;
  for (const std::string& name : in.reference.names) seen.emplace(name, Origin{&paths.alignment, 0});
  std::vector<StateSet> residues;  // one buffer for every query
  auto add_query = [&](const std::string& name, std::string_view text, Origin where) {
    if (name.empty()) throw InputError(where.describe(), "a query has an empty name");
    auto [it, inserted] = seen.emplace(name, where);
    if (!inserted)
      throw InputError(where.describe(), fmt::format("duplicate name '{}' (also in {})", name, it->second.describe()));
    in.longest_name = std::max(in.longest_name, name.size());
    encode_query(text, alphabet, unknown, residues);
    in.queries.add(name, residues);
  };
  if (paths.queries) {
    // An uncompressed file holds at most one residue per byte: one allocation, instead of a
    // buffer copied (and faulted in) again at every doubling.
    std::error_code size_error;
    const auto bytes = std::filesystem::file_size(*paths.queries, size_error);
    if (!size_error && !paths.queries->ends_with(".gz")) in.queries.residues.reserve(bytes);
    SequenceReader reader(*paths.queries);
    SequenceRecord record;
    while (reader.next(record)) add_query(record.name, record.sequence, Origin{&*paths.queries, record.line});
    if (in.queries.empty()) throw InputError(*paths.queries, "no query sequences");
  }
  // The leaves' rows were moved into the reference; the others are intact.
  for (std::size_t r = 0; r < raw.names.size(); ++r)
    if (leaf_of_row[r] < 0) add_query(raw.names[r], raw.rows[r], Origin{&paths.alignment, raw.name_lines[r]});
  if (in.queries.empty())
    throw UsageError("no queries: give a query file (-q) or alignment rows that are not in the tree");
  if (!unknown.empty())
    log_warning("queries contain characters outside the {} alphabet, removed: {}", alphabet_name(alphabet),
                unknown.list());
}

}  // namespace

PaparaInputs load_inputs(const InputPaths& paths, const Alphabet& alphabet, bool need_branch_lengths) {
  PaparaTree tree(read_newick(paths.tree), paths.tree, need_branch_lengths);
  RawAlignment raw = read_alignment(paths.alignment);
  const std::vector<int> leaf_of_row = leaves_of_rows(tree, raw, paths.alignment);
  PaparaInputs in{std::move(tree), {}, {}, {}, 0};
  in.leaf_row.assign(in.tree.nodes().size(), -1);
  std::vector<std::size_t> reference_rows;
  for (std::size_t r = 0; r < raw.names.size(); ++r)
    if (leaf_of_row[r] >= 0) reference_rows.push_back(r);
  const EncodedRows encoded = encode_reference_rows(raw, reference_rows, alphabet, paths.alignment);
  build_reference(raw, reference_rows, leaf_of_row, encoded, paths.alignment, in);
  load_queries(paths, raw, leaf_of_row, alphabet, in);
  return in;
}

}  // namespace hyalign::papara
