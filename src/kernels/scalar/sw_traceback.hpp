#pragma once
// What the full-matrix traceback (sw_align_scalar) and the linear-space one (sw_align_linear) share,
// so that they take the same decisions by construction: one cell of the recurrence with its
// traceback bits, and the walk back from the end cell over those bits.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>

#include "kernels/scalar/sw_scalar.hpp"

namespace hyalign::kernels::sw_detail {

constexpr int kMinusInfinity = std::numeric_limits<int>::min() / 4;

// Traceback byte of one cell: bits 0-1 the source of H, bit 2 E extends, bit 3 F extends.
enum : std::uint8_t { kStop = 0, kDiag = 1, kFromE = 2, kFromF = 3, kEExtends = 4, kFExtends = 8 };

struct Cell {
  int h;
  std::uint8_t bits;
};

// H(i,j) and its traceback byte from H(i-1,j-1) (`diag`), H(i,j-1) (`left`), H(i-1,j) (`up`) and the
// substitution score; `e` and `f` come in as E(i,j-1) and F(i-1,j) and leave as E(i,j) and F(i,j).
// Ties (sw_scalar.cpp): diagonal, then E, then F; a gap opens rather than extends.
inline Cell sw_cell(int diag, int left, int up, int& e, int& f, int substitution, int extend, int open_extend) {
  std::uint8_t bits = 0;
  const int e_open = left - open_extend, e_ext = e - extend;
  if (e_ext > e_open) bits |= kEExtends;
  e = std::max(e_ext, e_open);
  const int f_open = up - open_extend, f_ext = f - extend;
  if (f_ext > f_open) bits |= kFExtends;
  f = std::max(f_ext, f_open);
  const int match = diag + substitution;
  int h;
  if (match >= e && match >= f) h = match, bits |= kDiag;
  else if (e >= f) h = e, bits |= kFromE;
  else h = f, bits |= kFromF;
  if (h <= 0) h = 0, bits &= ~std::uint8_t{3};  // H = 0: a start (kStop)
  return {h, bits};
}

// The alignment ending at (end_i, end_j) with `score`, walked back over bits_at(i, j) (1 <= i, j;
// called with j never increasing, so a caller may compute the bits block by block).
template <typename BitsAt>
SwAlignment trace_back(std::span<const std::uint8_t> query, std::span<const std::uint8_t> target, int score,
                       std::size_t end_i, std::size_t end_j, BitsAt&& bits_at) {
  SwAlignment out;
  out.score = score;
  std::string ops;  // one of M, I, D per column, backwards
  std::size_t i = end_i, j = end_j;
  enum class State { h, e, f } state = State::h;
  for (;;) {
    if (state == State::h) {
      if (i == 0 || j == 0) break;
      const std::uint8_t source = bits_at(i, j) & 3;
      if (source == kStop) break;
      if (source == kDiag) {
        ops.push_back('M');
        if (query[i - 1] == target[j - 1]) ++out.identities;
        else ++out.mismatches;
        --i, --j;
      } else {
        state = source == kFromE ? State::e : State::f;
      }
    } else if (state == State::e) {  // target residue j against a gap
      ops.push_back('D');
      state = (bits_at(i, j) & kEExtends) ? State::e : State::h;
      --j;
    } else {  // query residue i against a gap
      ops.push_back('I');
      state = (bits_at(i, j) & kFExtends) ? State::f : State::h;
      --i;
    }
  }
  out.query_start = i + 1;
  out.target_start = j + 1;
  out.query_end = end_i;
  out.target_end = end_j;
  std::reverse(ops.begin(), ops.end());
  out.length = ops.size();
  for (std::size_t k = 0; k < ops.size();) {
    std::size_t run = 1;
    while (k + run < ops.size() && ops[k + run] == ops[k]) ++run;
    if (ops[k] != 'M') ++out.gap_opens, out.gap_columns += run;
    out.cigar += std::to_string(run);
    out.cigar += ops[k];
    k += run;
  }
  return out;
}

}  // namespace hyalign::kernels::sw_detail
