#pragma once
// The bookkeeping after one cell of the PaPaRa recurrence, shared by the scoring and traceback
// kernels: the cell's S becomes the next row's "up" and the next column's "left", the old "up"
// the next cell's diagonal, and D carries along the column.
namespace hyalign::kernels::simd {

template <typename V>
inline void advance_cell(V& diag, V& up, V& left_s, V& left_d, V s, V del) {
  diag = up;
  up = s;
  left_s = s;
  left_d = del;
}

}  // namespace hyalign::kernels::simd
