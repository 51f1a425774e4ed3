#include "core/score_matrix.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace hyalign {

namespace detail {
// Defined in score_matrix_data.cpp: 24 x 24 scores in kProteinLetters order, or nullptr.
const std::int8_t* builtin_matrix_scores(std::string_view name);
}  // namespace detail

namespace {

constexpr std::string_view kProteinLetters = "ARNDCQEGHILKMFPSTWYVBZX*";
constexpr std::string_view kBuiltinNames[] = {"BLOSUM45", "BLOSUM50", "BLOSUM62", "BLOSUM80",
                                              "PAM30",    "PAM70",    "PAM250"};
// IUPAC ambiguity codes: known DNA letters that score like N.
constexpr std::string_view kIupacAmbiguous = "RYKMSWBDHV";

char upper(char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); }

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = upper(c);
  return out;
}

struct Token {
  std::string_view text;
  std::size_t column;  // 1-based
};

std::vector<Token> split_whitespace(std::string_view line) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i >= line.size()) break;
    std::size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    tokens.push_back({line.substr(start, i - start), start + 1});
  }
  return tokens;
}

// An NCBI matrix file's letters (upper case, header order) and a row of scores per letter (empty
// until its row is read).
struct NcbiMatrixText {
  std::string letters;
  std::vector<std::vector<int>> rows;
};

// The header row: one letter per column.
std::string parse_header_row(const std::vector<Token>& tokens, const std::string& path, std::size_t line_no) {
  std::string letters;
  for (const Token& t : tokens) {
    if (t.text.size() != 1)
      throw InputError(path, line_no, fmt::format("header row must list single letters, found '{}'", excerpt(t.text)),
                       t.column);
    const char c = upper(t.text[0]);
    if (letters.find(c) != std::string::npos)
      throw InputError(path, line_no, fmt::format("duplicate letter {} in header row", shown_character(c)), t.column);
    letters += c;
  }
  if (letters.size() > static_cast<std::size_t>(ScoreMatrix::kMaxCodes))
    throw InputError(path, line_no,
                     fmt::format("matrix has {} letters, at most {} are supported", letters.size(),
                                 ScoreMatrix::kMaxCodes));
  return letters;
}

// One score: an integer (a leading '+' allowed) in -128..127.
int parse_score(const Token& t, const std::string& path, std::size_t line_no) {
  std::string_view text = t.text;
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  long value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range ||
      (ec == std::errc() && ptr == text.data() + text.size() && (value < -128 || value > 127)))
    throw InputError(path, line_no, fmt::format("score '{}' is out of range (-128..127)", excerpt(t.text)), t.column);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty())
    throw InputError(path, line_no, fmt::format("score '{}' is not an integer", excerpt(t.text)), t.column);
  return static_cast<int>(value);
}

// A score row: a letter of the header, then one score per header letter.
void parse_score_row(const std::vector<Token>& tokens, NcbiMatrixText& matrix, const std::string& path,
                     std::size_t line_no) {
  const Token& head = tokens[0];
  if (head.text.size() != 1)
    throw InputError(path, line_no, fmt::format("row must start with a single letter, found '{}'", excerpt(head.text)),
                     head.column);
  const char c = upper(head.text[0]);
  const auto index = matrix.letters.find(c);
  if (index == std::string::npos)
    throw InputError(path, line_no, fmt::format("row letter {} is not in the header row", shown_character(c)), head.column);
  if (!matrix.rows[index].empty())
    throw InputError(path, line_no, fmt::format("duplicate row for letter {}", shown_character(c)), head.column);
  if (tokens.size() - 1 != matrix.letters.size())
    throw InputError(path, line_no,
                     fmt::format("row {} has {} scores, expected {} (matrix must be square)", shown_character(c),
                                 tokens.size() - 1, matrix.letters.size()));
  std::vector<int>& row = matrix.rows[index];
  row.reserve(matrix.letters.size());
  for (std::size_t i = 1; i < tokens.size(); ++i) row.push_back(parse_score(tokens[i], path, line_no));
}

// The file's header and rows, every letter's row present ('#' lines and blank ones skipped).
NcbiMatrixText read_ncbi_matrix(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, fmt::format("cannot open matrix file: {}", std::strerror(errno)));
  NcbiMatrixText matrix;
  std::size_t line_no = 0, last_line = 0;
  std::string line;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto tokens = split_whitespace(line);
    if (tokens.empty() || tokens[0].text[0] == '#') continue;
    last_line = line_no;
    if (!matrix.letters.empty()) {
      parse_score_row(tokens, matrix, path, line_no);
      continue;
    }
    matrix.letters = parse_header_row(tokens, path, line_no);
    matrix.rows.assign(matrix.letters.size(), {});
  }
  if (in.bad()) throw InputError(path, "read error");
  if (matrix.letters.empty()) throw InputError(path, "no header row of letters (empty matrix file?)");
  std::string missing;
  for (std::size_t i = 0; i < matrix.letters.size(); ++i)
    if (matrix.rows[i].empty()) missing += matrix.letters[i];
  if (!missing.empty())
    throw InputError(path, last_line,
                     fmt::format("matrix is not square: no rows for letter(s) '{}' of the header", missing));
  return matrix;
}

// A nucleotide matrix: A, C, G and T, and nothing outside the IUPAC nucleotide codes.
bool nucleotide_letters(std::string_view letters) {
  bool dna = true;
  for (char c : std::string_view("ACGT")) dna = dna && letters.find(c) != std::string_view::npos;
  for (char c : letters) dna = dna && std::string_view("ACGTUNRYKMSWBDHVX").find(c) != std::string_view::npos;
  return dna;
}

}  // namespace

// Access to ScoreMatrix's private state for the factory functions below.
class ScoreMatrixBuilder {
 public:
  // Makes `letter` (either case) encode as `code` and count as known.
  static void alias(ScoreMatrix& m, char letter, std::uint8_t code) {
    for (char c : {upper(letter), static_cast<char>(std::tolower(static_cast<unsigned char>(letter)))}) {
      m.encode_[static_cast<unsigned char>(c)] = code;
      m.known_[static_cast<unsigned char>(c)] = true;
    }
  }
};

void ScoreMatrix::finish() {
  const int n = size();
  // Every byte starts out unknown; the alphabet's letters (both cases) map to their codes.
  encode_.fill(unknown_);
  known_.fill(false);
  for (int i = 0; i < n; ++i) {
    const char c = letters_[i];
    for (char v : {c, static_cast<char>(std::tolower(static_cast<unsigned char>(c)))}) {
      encode_[static_cast<unsigned char>(v)] = static_cast<std::uint8_t>(i);
      known_[static_cast<unsigned char>(v)] = true;
    }
  }
  int lo = std::numeric_limits<int>::max(), hi = std::numeric_limits<int>::min();
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      lo = std::min(lo, score(a, b));
      hi = std::max(hi, score(a, b));
    }
  }
  if (n == 0) lo = hi = 0;
  min_ = lo;
  max_ = hi;
  // Padding: codes >= size() score min_score() in every row and column.
  for (int a = 0; a < kMaxCodes; ++a) {
    for (int b = 0; b < kMaxCodes; ++b) {
      if (a >= n || b >= n) table_[a * kMaxCodes + b] = static_cast<std::int8_t>(min_);
    }
  }
}

ScoreMatrix ScoreMatrix::builtin(std::string_view name) {
  const std::string canonical = upper(name);
  const std::int8_t* scores = detail::builtin_matrix_scores(canonical);
  if (scores == nullptr) {
    std::string known;
    for (auto n : kBuiltinNames) known += (known.empty() ? "" : ", ") + std::string(n);
    throw UsageError(fmt::format("unknown substitution matrix '{}': no file of that name, nor a built-in one ({})",
                                 name, known));
  }
  ScoreMatrix m;
  m.name_ = canonical;
  m.dna_ = false;
  m.letters_ = std::string(kProteinLetters);
  m.unknown_ = static_cast<std::uint8_t>(kProteinLetters.find('X'));
  const int n = static_cast<int>(kProteinLetters.size());
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) m.table_[a * kMaxCodes + b] = scores[a * n + b];
  m.finish();
  return m;
}

ScoreMatrix ScoreMatrix::dna(int match, int mismatch) {
  if (match <= 0 || match > 127)
    throw UsageError(fmt::format("DNA match score must be between 1 and 127, got {}", match));
  if (mismatch >= 0 || mismatch < -128)
    throw UsageError(fmt::format("DNA mismatch score must be between -128 and -1, got {}", mismatch));
  ScoreMatrix m;
  m.name_ = fmt::format("DNA{:+d}/{:+d}", match, mismatch);
  m.dna_ = true;
  m.letters_ = "ACGTN";
  m.unknown_ = 4;  // N
  for (int a = 0; a < 5; ++a)
    for (int b = 0; b < 5; ++b)
      m.table_[a * kMaxCodes + b] = static_cast<std::int8_t>(a == b && a < 4 ? match : mismatch);
  m.finish();
  ScoreMatrixBuilder::alias(m, 'U', 3);  // RNA: U reads as T
  for (char c : kIupacAmbiguous) ScoreMatrixBuilder::alias(m, c, m.unknown_);
  return m;
}

ScoreMatrix ScoreMatrix::from_ncbi_file(const std::string& path) {
  const NcbiMatrixText text = read_ncbi_matrix(path);
  ScoreMatrix m;
  m.name_ = std::filesystem::path(path).filename().string();
  m.letters_ = text.letters;
  const int n = static_cast<int>(text.letters.size());
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) m.table_[a * kMaxCodes + b] = static_cast<std::int8_t>(text.rows[a][b]);
  m.dna_ = nucleotide_letters(text.letters);
  // The unknown code: N for nucleotides, else X; without that letter, an extra one is appended that
  // scores the matrix minimum against everything.
  const char preferred = m.dna_ ? 'N' : 'X';
  const auto found = text.letters.find(preferred);
  if (found == std::string::npos && n >= kMaxCodes)
    throw InputError(path, fmt::format("matrix has {} letters and no '{}' for unknown residues; at most {} "
                                       "letters are supported without one",
                                       n, preferred, kMaxCodes - 1));
  m.unknown_ = found != std::string::npos ? static_cast<std::uint8_t>(found) : m.append_lowest_letter(preferred);
  m.finish();
  if (m.dna_ && text.letters.find('U') == std::string::npos) ScoreMatrixBuilder::alias(m, 'U', m.encode('T'));
  return m;
}

std::uint8_t ScoreMatrix::append_lowest_letter(char letter) {
  const int n = size();
  int lo = table_[0];
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) lo = std::min<int>(lo, table_[a * kMaxCodes + b]);
  letters_ += letter;
  for (int i = 0; i <= n; ++i) {
    table_[n * kMaxCodes + i] = static_cast<std::int8_t>(lo);
    table_[i * kMaxCodes + n] = static_cast<std::int8_t>(lo);
  }
  return static_cast<std::uint8_t>(n);
}

}  // namespace hyalign
