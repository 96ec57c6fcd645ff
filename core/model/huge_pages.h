// Large buffers about to be filled (a snapshot's millions of trace events, its replay's curves) asked to
// be backed by transparent huge pages: a page fault per 2 MiB instead of one per 4 KiB, which for a
// 1 GB snapshot is a few hundred faults instead of some 200,000. Linux in THP's "madvise" mode
// (Debian's default) gives huge pages only to memory that asks; elsewhere this does nothing.
#pragma once

#include <cstddef>

namespace awb {

// Advice only, for the whole 2 MiB pages inside [data, data + bytes) (none: nothing done).
void prefer_huge_pages(const void* data, size_t bytes);

// A vector's reserved storage (call it after reserve, before the elements are written).
template <class Vector>
void prefer_huge_pages(const Vector& v) {
    prefer_huge_pages(v.data(), v.capacity() * sizeof(typename Vector::value_type));
}

}  // namespace awb
