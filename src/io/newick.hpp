#pragma once
// Newick trees: branch lengths, internal labels, support values, quoted labels, [comments].
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace hyalign {

struct NewickNode {
  std::string label;            // leaf name or internal label ("" if none); quotes removed, '' → '
  double length = 0.0;          // branch length to the parent
  bool has_length = false;
  std::size_t length_line = 0, length_column = 0;  // where the length is written, for messages
  int parent = -1;
  std::vector<int> children;    // in Newick order
  bool is_leaf() const { return children.empty(); }
};

struct NewickTree {
  std::vector<NewickNode> nodes;
  int root = -1;
};

// `source` names the text in error messages (usually the file name).
// Throws InputError(source, line, problem, column) on malformed input: unbalanced parentheses,
// missing ';', text after ';', bad branch length, empty input, unterminated quote or comment.
NewickTree parse_newick(std::string_view text, std::string_view source);
NewickTree read_newick(const std::string& path);

}  // namespace hyalign
