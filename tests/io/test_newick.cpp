#include "io/newick.hpp"

#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "test_support.hpp"

using namespace hyalign;

namespace {

std::string temp_path(const std::string& name) {
  static const test::TempDir temp;
  return temp.file(name);
}

std::string write_file(const std::string& name, std::string_view content) {
  std::string path = temp_path(name);
  std::ofstream out(path, std::ios::binary);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  return path;
}

int count_leaves(const NewickTree& t) {
  int n = 0;
  for (auto& node : t.nodes) n += node.is_leaf();
  return n;
}

const NewickNode* find(const NewickTree& t, std::string_view label) {
  for (auto& node : t.nodes)
    if (node.label == label) return &node;
  return nullptr;
}

// parse_newick(text, "tree.nwk") must throw a one-line InputError at line:column with `fragment`.
void expect_error(std::string_view text, std::size_t line, std::size_t column, const std::string& fragment) {
  try {
    parse_newick(text, "tree.nwk");
    ADD_FAILURE() << "no InputError for " << text;
  } catch (const InputError& e) {
    std::string m = e.what();
    std::string where = "tree.nwk:" + std::to_string(line) + ":" + std::to_string(column) + ": ";
    EXPECT_EQ(m.rfind(where, 0), 0u) << m << " (wanted " << where << ") for " << text;
    EXPECT_NE(m.find(fragment), std::string::npos) << m << " (wanted " << fragment << ")";
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

}  // namespace

TEST(Newick, Simple) {
  auto t = parse_newick("(A:0.1,B:0.2)C:0.3;", "x");
  ASSERT_EQ(t.nodes.size(), 3u);
  EXPECT_EQ(t.root, 0);
  const auto& root = t.nodes[0];
  EXPECT_EQ(root.label, "C");
  EXPECT_TRUE(root.has_length);
  EXPECT_DOUBLE_EQ(root.length, 0.3);
  EXPECT_EQ(root.parent, -1);
  ASSERT_EQ(root.children.size(), 2u);
  const auto& a = t.nodes[root.children[0]];
  const auto& b = t.nodes[root.children[1]];
  EXPECT_EQ(a.label, "A");
  EXPECT_DOUBLE_EQ(a.length, 0.1);
  EXPECT_EQ(a.parent, 0);
  EXPECT_TRUE(a.is_leaf());
  EXPECT_EQ(b.label, "B");
  EXPECT_DOUBLE_EQ(b.length, 0.2);
}

TEST(Newick, LengthPositionsForMessages) {
  // Positions are found in text order and out of it (an error after them rescans from the start).
  auto t = parse_newick("(A:0.1,\n  (B:-2,C:3):4)\nroot;", "x");
  const NewickNode* b = find(t, "B");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->length_line, 2u);
  EXPECT_EQ(b->length_column, 6u);
  EXPECT_EQ(find(t, "A")->length_column, 4u);
  EXPECT_EQ(find(t, "C")->length_line, 2u);
  EXPECT_EQ(find(t, "C")->length_column, 11u);
  expect_error("(A:1,\n(B:2,C:x));", 2, 8, "bad branch length");
}

TEST(Newick, NumbersLabelsCommentsWhitespace) {
  auto t = parse_newick(
      "[start] ( A_b : 1e-05 , 'quoted '' label, (x)':-2.5E+3,\n"
      "  (c[&&NHX:x=1],d:+.5)0.715:0.17 [c] ,e) [root comment] 'r' : 0.0 ; [trailing]\n",
      "x");
  EXPECT_EQ(count_leaves(t), 5);
  auto* a = find(t, "A_b");
  ASSERT_NE(a, nullptr);
  EXPECT_DOUBLE_EQ(a->length, 1e-05);
  auto* q = find(t, "quoted ' label, (x)");
  ASSERT_NE(q, nullptr);
  EXPECT_DOUBLE_EQ(q->length, -2500.0);
  auto* s = find(t, "0.715");
  ASSERT_NE(s, nullptr);
  EXPECT_FALSE(s->is_leaf());
  EXPECT_DOUBLE_EQ(s->length, 0.17);
  auto* c = find(t, "c");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->has_length);
  EXPECT_DOUBLE_EQ(find(t, "d")->length, 0.5);
  EXPECT_EQ(t.nodes[t.root].label, "r");
  EXPECT_TRUE(t.nodes[t.root].has_length);
  EXPECT_DOUBLE_EQ(t.nodes[t.root].length, 0.0);
}

TEST(Newick, UnnamedNodes) {
  auto t = parse_newick("(,(,));", "x");
  EXPECT_EQ(t.nodes.size(), 5u);
  EXPECT_EQ(count_leaves(t), 3);
  auto single = parse_newick("A;", "x");
  ASSERT_EQ(single.nodes.size(), 1u);
  EXPECT_EQ(single.nodes[0].label, "A");
}

TEST(Newick, DeepCaterpillar) {
  const int depth = 100000;
  std::string text(depth, '(');
  text += "L0";
  for (int i = 1; i <= depth; ++i) text += ",L" + std::to_string(i) + "):0.1";
  text += ";";
  auto t = parse_newick(text, "deep");
  EXPECT_EQ(t.nodes.size(), static_cast<std::size_t>(2 * depth + 1));
  EXPECT_EQ(count_leaves(t), depth + 1);
  int d = 0;
  for (int n = t.nodes.size() - 1; t.nodes[n].parent >= 0; n = t.nodes[n].parent) ++d;
  EXPECT_GE(d, 1);
  // Nested the other way.
  std::string right;
  for (int i = 0; i < depth; ++i) right += "(R" + std::to_string(i) + ",";
  right += "X" + std::string(depth, ')') + ";";
  auto r = parse_newick(right, "deep");
  EXPECT_EQ(count_leaves(r), depth + 1);
}

TEST(Newick, RealFiles) {
  auto q2 = read_newick(HYALIGN_TEST_DATA "/papara/q2_16S/ref.nwk");
  EXPECT_EQ(count_leaves(q2), 508);
  EXPECT_EQ(q2.nodes.size(), 508u + 507u);
  EXPECT_EQ(q2.nodes[q2.root].label, "nodeid_0");
  EXPECT_TRUE(q2.nodes[q2.root].has_length);
  EXPECT_EQ(q2.nodes[q2.root].children.size(), 2u);
  auto* n806 = find(q2, "nodeid_806");
  ASSERT_NE(n806, nullptr);
  EXPECT_DOUBLE_EQ(n806->length, 0.006558851984076742);
  auto* support = find(q2, "0.715");
  ASSERT_NE(support, nullptr);
  EXPECT_DOUBLE_EQ(support->length, 0.1751004600775757);
  EXPECT_NE(find(q2, "151811"), nullptr);

  auto unrooted = read_newick(HYALIGN_TEST_DATA "/papara/q2_16S/ref.unrooted.nwk");
  EXPECT_EQ(count_leaves(unrooted), 508);
  EXPECT_EQ(unrooted.nodes[unrooted.root].children.size(), 3u);

  auto tiny = read_newick(HYALIGN_TEST_DATA "/papara/epa_tiny/ref.tre");
  EXPECT_EQ(count_leaves(tiny), 8);
  EXPECT_DOUBLE_EQ(find(tiny, "A")->length, 0.22795056385811318655);

  auto pyrg = read_newick(HYALIGN_TEST_DATA "/papara/pyrg/ref.tre");
  EXPECT_EQ(count_leaves(pyrg), 65);
}

TEST(Newick, GzipFile) {
  std::string path = temp_path("t.nwk.gz");
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::string text = "((a:1,b:2):3,\nc:4);\n";
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
  auto t = read_newick(path);
  EXPECT_EQ(count_leaves(t), 3);
  EXPECT_DOUBLE_EQ(find(t, "c")->length, 4.0);
}

TEST(Newick, Errors) {
  expect_error("(A,B;", 1, 5, "unbalanced parentheses: 1 '(' not closed (innermost opened at line 1, column 1)");
  expect_error("(A,B));", 1, 6, "')' without a matching '('");
  expect_error("(A,B)", 1, 6, "missing ';'");
  expect_error("(A,B)\n\n", 1, 6, "missing ';'");
  expect_error("(A,(B,C", 1, 8, "2 '(' not closed (innermost opened at line 1, column 4)");
  expect_error("(A,B); x", 1, 8, "after ';'");
  expect_error("(A,B);(C,D);", 1, 7, "after ';'");
  expect_error("(A:abc,B);", 1, 4, "bad branch length 'abc'");
  expect_error("(A:1.5.2,B);", 1, 4, "bad branch length '1.5.2'");
  expect_error("(A:,B);", 1, 3, "missing branch length");
  expect_error("(A:0.1,\n  B:1x);", 2, 5, "bad branch length '1x'");
  expect_error("(A:nan,B);", 1, 4, "bad branch length");
  expect_error("('abc,B);", 1, 2, "unterminated quoted label");
  expect_error("(A[comment,B);", 1, 3, "unterminated comment");
  expect_error("(A,B)]C;", 1, 6, "']' without a matching '['");
  expect_error("A,B;", 1, 2, "',' outside parentheses");
  expect_error("(A B,C);", 1, 4, "unexpected 'B'");
  expect_error("(A,B)'x'y;", 1, 9, "unexpected 'y'");
  expect_error("(A:1:2,B);", 1, 5, "unexpected ':'");
  expect_error("", 1, 1, "empty input");
  expect_error("  \n [only a comment]\n", 3, 1, "empty input");
}

TEST(Newick, FileErrors) {
  auto empty = write_file("empty.nwk", "");
  auto blank = write_file("blank.nwk", "\n\n   \n");
  for (const auto& path : {empty, blank}) {
    try {
      read_newick(path);
      ADD_FAILURE();
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), path + ": empty file");
    }
  }
  auto bad = write_file("bad.nwk", "((a,b),\nc:0.1x);\n");
  try {
    read_newick(bad);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(bad + ":2:3: bad branch length"), std::string::npos) << e.what();
  }
  auto bin = write_file("bin.nwk", std::string_view("(a,b);\n\x7f\x00\x01", 10));
  try {
    read_newick(bin);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(bin + ":2:1: binary"), std::string::npos) << e.what();
  }
  std::string missing = temp_path("missing.nwk");
  EXPECT_THROW(read_newick(missing), InputError);
}
