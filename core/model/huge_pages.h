// Large buffers about to be filled (a snapshot's millions of trace events, its replay's curves) asked to
// be backed by transparent huge pages: a page fault per 2 MiB instead of one per 4 KiB, which for a
// 1 GB snapshot is a few hundred faults instead of some 200,000. Linux in THP's "madvise" mode
// (Debian's default) gives huge pages only to memory that asks; elsewhere this does nothing.
#pragma once

#include <cstddef>
#include <new>

namespace awb {

// Advice only, for the whole 2 MiB pages inside [data, data + bytes) (none: nothing done).
void prefer_huge_pages(const void* data, size_t bytes);

// A vector's reserved storage (call it after reserve, before the elements are written).
template <class Vector>
void prefer_huge_pages(const Vector& v) {
    prefer_huge_pages(v.data(), v.capacity() * sizeof(typename Vector::value_type));
}

// Memory straight from the system (mmap), given back to it when freed (munmap) whatever malloc's own
// settings: the GUI keeps what it frees for reuse (engine/process_tuning.h), so a reading's transient
// buffers (a snapshot's chunks of events, 220 MB for a 1 GB file) would otherwise stay resident beside
// what they were copied into. For buffers of 128 KiB and more; a failure is std::bad_alloc.
void* system_pages(size_t bytes);
void free_system_pages(void* p, size_t bytes);

template <class T>
struct SystemPages {
    using value_type = T;
    SystemPages() = default;
    template <class U>
    SystemPages(const SystemPages<U>&) {}
    T* allocate(size_t n) { return static_cast<T*>(system_pages(n * sizeof(T))); }
    void deallocate(T* p, size_t n) { free_system_pages(p, n * sizeof(T)); }
    template <class U>
    bool operator==(const SystemPages<U>&) const {
        return true;
    }
};

}  // namespace awb
