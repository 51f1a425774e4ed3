#include <gtest/gtest.h>
#include <parasail.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "core/score_matrix.hpp"
#include "test_support.hpp"

using hyalign::InputError;
using hyalign::ScoreMatrix;
using hyalign::UsageError;

namespace {

const char* const kNcbiOrder = "ARNDCQEGHILKMFPSTWYVBZX*";

// Files of this test process, removed when it ends.
const hyalign::test::TempDir& temp_dir() {
  static const hyalign::test::TempDir dir;
  return dir;
}

// Writes `text` to a fresh file in the temp dir and returns its path.
std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = temp_dir().file(name);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return path;
}

// The exception message of from_ncbi_file(path), or "" when it does not throw InputError.
std::string load_error(const std::string& path) {
  try {
    ScoreMatrix::from_ncbi_file(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string ncbi_text(const ScoreMatrix& m) {
  std::string text = "# written by the test\n  ";
  for (char c : m.letters()) text += std::string("  ") + c;
  text += "\n";
  for (int a = 0; a < m.size(); ++a) {
    text += m.letters()[a];
    for (int b = 0; b < m.size(); ++b) text.append(" ").append(std::to_string(m.score(a, b)));
    text += "\n";
  }
  return text;
}

}  // namespace

// Every built-in table, letter by letter, against parasail's independent copy of the NCBI matrices.
TEST(ScoreMatrix, BuiltinsMatchParasailLetterByLetter) {
  const std::pair<const char*, const char*> names[] = {
      {"BLOSUM45", "blosum45"}, {"BLOSUM50", "blosum50"}, {"BLOSUM62", "blosum62"}, {"BLOSUM80", "blosum80"},
      {"PAM30", "pam30"},       {"PAM70", "pam70"},       {"PAM250", "pam250"}};
  for (const auto& [ours, theirs] : names) {
    SCOPED_TRACE(ours);
    const ScoreMatrix m = ScoreMatrix::builtin(ours);
    const parasail_matrix_t* p = parasail_matrix_lookup(theirs);
    ASSERT_NE(p, nullptr);
    ASSERT_EQ(p->size, 24);
    EXPECT_EQ(m.name(), ours);
    EXPECT_EQ(m.letters(), kNcbiOrder);
    EXPECT_FALSE(m.is_dna());
    int checked = 0;
    for (const char* a = kNcbiOrder; *a; ++a) {
      for (const char* b = kNcbiOrder; *b; ++b) {
        const int pa = p->mapper[static_cast<unsigned char>(*a)];
        const int pb = p->mapper[static_cast<unsigned char>(*b)];
        const int expected = p->matrix[pa * p->size + pb];
        EXPECT_EQ(m.score(m.encode(*a), m.encode(*b)), expected) << *a << " vs " << *b;
        ++checked;
      }
    }
    EXPECT_EQ(checked, 24 * 24);
    EXPECT_EQ(m.max_score(), p->max);
    EXPECT_EQ(m.min_score(), p->min);
  }
}

TEST(ScoreMatrix, BuiltinNamesAreCaseInsensitiveAndUnknownNamesAreUsageErrors) {
  EXPECT_EQ(ScoreMatrix::builtin("blosum62").name(), "BLOSUM62");
  EXPECT_EQ(ScoreMatrix::builtin("Pam250").name(), "PAM250");
  EXPECT_THROW(ScoreMatrix::builtin("BLOSUM63"), UsageError);
  EXPECT_THROW(ScoreMatrix::builtin(""), UsageError);
  try {
    ScoreMatrix::builtin("nosuch");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("nosuch"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("BLOSUM62"), std::string::npos);
  }
}

TEST(ScoreMatrix, ProteinEncodingAndKnownScores) {
  const ScoreMatrix m = ScoreMatrix::builtin("BLOSUM62");
  EXPECT_EQ(m.size(), 24);
  EXPECT_EQ(m.encode('A'), 0);
  EXPECT_EQ(m.encode('a'), 0);
  EXPECT_EQ(m.encode('*'), 23);
  EXPECT_EQ(m.unknown_code(), 22);
  EXPECT_EQ(m.decode(m.unknown_code()), 'X');
  for (char c : std::string("JjOoUu-.?1 ")) {
    EXPECT_EQ(m.encode(c), m.unknown_code()) << c;
    EXPECT_FALSE(m.is_known(c)) << c;
  }
  for (char c : std::string("ARNDCQEGHILKMFPSTWYVBZX*arndcqeghilkmfpstwyvbzx")) EXPECT_TRUE(m.is_known(c)) << c;
  for (int i = 0; i < m.size(); ++i) EXPECT_EQ(m.encode(m.decode(static_cast<std::uint8_t>(i))), i);
  // Spot checks against the published BLOSUM62.
  EXPECT_EQ(m.score(m.encode('W'), m.encode('W')), 11);
  EXPECT_EQ(m.score(m.encode('C'), m.encode('C')), 9);
  EXPECT_EQ(m.score(m.encode('A'), m.encode('R')), -1);
  EXPECT_EQ(m.score(m.encode('*'), m.encode('*')), 1);
  EXPECT_EQ(m.score(m.encode('*'), m.encode('A')), -4);
  EXPECT_EQ(m.max_score(), 11);
  EXPECT_EQ(m.min_score(), -4);
  // Rows are padded to kMaxCodes with the minimum score.
  for (int a = 0; a < m.size(); ++a) {
    const std::int8_t* row = m.row(static_cast<std::uint8_t>(a));
    for (int b = 0; b < m.size(); ++b) EXPECT_EQ(row[b], m.score(a, b));
    for (int b = m.size(); b < ScoreMatrix::kMaxCodes; ++b) EXPECT_EQ(row[b], m.min_score());
  }
  EXPECT_EQ(ScoreMatrix::builtin("PAM30").min_score(), -17);
  EXPECT_EQ(ScoreMatrix::builtin("PAM30").max_score(), 13);
}

TEST(ScoreMatrix, DnaScoresAndEncoding) {
  const ScoreMatrix m = ScoreMatrix::dna(2, -3);
  EXPECT_EQ(m.name(), "DNA+2/-3");
  EXPECT_TRUE(m.is_dna());
  EXPECT_EQ(m.letters(), "ACGTN");
  EXPECT_EQ(m.unknown_code(), 4);
  EXPECT_EQ(m.encode('T'), 3);
  EXPECT_EQ(m.encode('U'), 3);
  EXPECT_EQ(m.encode('u'), 3);
  EXPECT_EQ(m.encode('g'), 2);
  EXPECT_TRUE(m.is_known('u'));
  for (char c : std::string("RYKMSWBDHVNrykmswbdhvn")) {
    EXPECT_EQ(m.encode(c), 4) << c;
    EXPECT_TRUE(m.is_known(c)) << c;
  }
  for (char c : std::string("XEFIJLOPQZ*-.")) {
    EXPECT_EQ(m.encode(c), 4) << c;
    EXPECT_FALSE(m.is_known(c)) << c;
  }
  for (int a = 0; a < 5; ++a) {
    for (int b = 0; b < 5; ++b) EXPECT_EQ(m.score(a, b), (a == b && a < 4) ? 2 : -3) << a << "," << b;
  }
  EXPECT_EQ(m.score(4, 4), -3);  // N never matches, not even N
  EXPECT_EQ(m.max_score(), 2);
  EXPECT_EQ(m.min_score(), -3);
  EXPECT_EQ(m.row(0)[5], -3);
  EXPECT_EQ(m.row(0)[31], -3);
  EXPECT_EQ(ScoreMatrix::dna(1, -2).name(), "DNA+1/-2");
  EXPECT_THROW(ScoreMatrix::dna(0, -3), UsageError);
  EXPECT_THROW(ScoreMatrix::dna(2, 1), UsageError);
  EXPECT_THROW(ScoreMatrix::dna(200, -3), UsageError);
}

TEST(ScoreMatrix, NcbiFileRoundTripsBuiltin) {
  const ScoreMatrix b62 = ScoreMatrix::builtin("BLOSUM62");
  const std::string path = write_temp("MYBLOSUM62", ncbi_text(b62));
  const ScoreMatrix m = ScoreMatrix::from_ncbi_file(path);
  EXPECT_EQ(m.name(), "MYBLOSUM62");
  EXPECT_EQ(m.letters(), b62.letters());
  EXPECT_FALSE(m.is_dna());
  EXPECT_EQ(m.unknown_code(), b62.unknown_code());
  for (int a = 0; a < 24; ++a)
    for (int b = 0; b < 24; ++b) EXPECT_EQ(m.score(a, b), b62.score(a, b));
  EXPECT_EQ(m.max_score(), 11);
  EXPECT_EQ(m.min_score(), -4);
  EXPECT_EQ(m.encode('J'), m.unknown_code());
}

TEST(ScoreMatrix, NcbiFileLowerCaseCommentsCrlfAndAppendedX) {
  const std::string path = write_temp("small.mat",
                                      "# comment\r\n"
                                      "\r\n"
                                      "   a  c  w\r\n"
                                      "a  4 -1 -3\r\n"
                                      "  # another comment\r\n"
                                      "c -1 +9 -2\r\n"
                                      "w -3 -2 11\r\n");
  const ScoreMatrix m = ScoreMatrix::from_ncbi_file(path);
  EXPECT_EQ(m.name(), "small.mat");
  EXPECT_FALSE(m.is_dna());
  // No X in the file: one is appended, scoring the minimum against everything.
  EXPECT_EQ(m.letters(), "ACWX");
  EXPECT_EQ(m.unknown_code(), 3);
  EXPECT_EQ(m.encode('c'), 1);
  EXPECT_EQ(m.score(m.encode('C'), m.encode('C')), 9);
  EXPECT_EQ(m.score(m.encode('w'), m.encode('A')), -3);
  EXPECT_EQ(m.score(m.encode('Q'), m.encode('A')), -3);
  EXPECT_EQ(m.score(m.encode('A'), 3), -3);
  EXPECT_EQ(m.score(3, 3), -3);
  EXPECT_EQ(m.min_score(), -3);
  EXPECT_EQ(m.max_score(), 11);
  EXPECT_FALSE(m.is_known('Q'));
  EXPECT_TRUE(m.is_known('w'));
}

TEST(ScoreMatrix, NcbiFileNucleotideMatrix) {
  const std::string path = write_temp("NUC.small",
                                      "    A   T   G   C   N\n"
                                      "A   5  -4  -4  -4  -2\n"
                                      "T  -4   5  -4  -4  -2\n"
                                      "G  -4  -4   5  -4  -2\n"
                                      "C  -4  -4  -4   5  -2\n"
                                      "N  -2  -2  -2  -2  -1\n");
  const ScoreMatrix m = ScoreMatrix::from_ncbi_file(path);
  EXPECT_TRUE(m.is_dna());
  EXPECT_EQ(m.letters(), "ATGCN");
  EXPECT_EQ(m.unknown_code(), 4);
  EXPECT_EQ(m.encode('u'), m.encode('T'));
  EXPECT_EQ(m.encode('Z'), 4);
  EXPECT_EQ(m.score(m.encode('N'), m.encode('N')), -1);
}

TEST(ScoreMatrix, NcbiFileErrorsNameFileLineAndColumn) {
  std::string p = write_temp("short_row.mat", "   A  B\nA  1  2\nB  3\n");
  EXPECT_EQ(load_error(p), p + ":3: row 'B' has 1 scores, expected 2 (matrix must be square)");

  p = write_temp("long_row.mat", "   A  B\nA  1  2  3\nB  3 4\n");
  EXPECT_EQ(load_error(p), p + ":2: row 'A' has 3 scores, expected 2 (matrix must be square)");

  p = write_temp("not_int.mat", "# x\n   A  B\nA  1  2\nB  3 1.5\n");
  EXPECT_EQ(load_error(p), p + ":4:6: score '1.5' is not an integer");

  p = write_temp("not_int2.mat", "   A  B\nA  1  x2\nB  3 1\n");
  EXPECT_EQ(load_error(p), p + ":2:7: score 'x2' is not an integer");

  p = write_temp("range.mat", "   A  B\nA  1  200\nB  3 1\n");
  EXPECT_EQ(load_error(p), p + ":2:7: score '200' is out of range (-128..127)");

  p = write_temp("dup_header.mat", "   A  B  a\nA 1 2 3\n");
  EXPECT_EQ(load_error(p), p + ":1:10: duplicate letter 'A' in header row");

  p = write_temp("multi_header.mat", "   A  BC\n");
  EXPECT_EQ(load_error(p), p + ":1:7: header row must list single letters, found 'BC'");

  p = write_temp("dup_row.mat", "   A  B\nA  1  2\na  1  2\nB  1  2\n");
  EXPECT_EQ(load_error(p), p + ":3:1: duplicate row for letter 'A'");

  p = write_temp("bad_row.mat", "   A  B\nA  1  2\nC  1  2\n");
  EXPECT_EQ(load_error(p), p + ":3:1: row letter 'C' is not in the header row");

  p = write_temp("missing_row.mat", "   A  B  C\nA  1  2  3\nC  1  2  3\n\n");
  EXPECT_EQ(load_error(p), p + ":3: matrix is not square: no rows for letter(s) 'B' of the header");

  p = write_temp("empty.mat", "# only comments\n\n");
  EXPECT_EQ(load_error(p), p + ": no header row of letters (empty matrix file?)");

  std::string letters33;
  for (int i = 0; i < 33; ++i) letters33 += std::string(" ") + static_cast<char>('!' + i);
  p = write_temp("too_many.mat", letters33 + "\n");
  EXPECT_EQ(load_error(p), p + ":1: matrix has 33 letters, at most 32 are supported");

  const std::string missing = temp_dir().file("does_not_exist.mat");
  const std::string msg = load_error(missing);
  EXPECT_EQ(msg.rfind(missing + ": cannot open matrix file", 0), 0u) << msg;

  // Every message is one line.
  for (const char* name : {"short_row.mat", "not_int.mat", "empty.mat"}) {
    const std::string m = load_error(temp_dir().file(name));
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

TEST(ScoreMatrix, NcbiFileWith32LettersAndNoXIsRejectedCleanly) {
  std::string header, body;
  std::string letters;
  for (int i = 0; i < 32; ++i) letters += static_cast<char>('0' + i);  // '0'..'O', no X
  for (char c : letters) header += std::string(" ") + c;
  for (char c : letters) {
    body += c;
    for (int i = 0; i < 32; ++i) body += " 1";
    body += "\n";
  }
  const std::string p = write_temp("full.mat", header + "\n" + body);
  EXPECT_EQ(load_error(p), p + ": matrix has 32 letters and no 'X' for unknown residues; at most 31 letters "
                               "are supported without one");
}
