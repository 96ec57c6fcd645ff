#include "model/huge_pages.h"

#include <cstdint>
#include <cstdlib>

#if defined(__unix__)
#include <sys/mman.h>
#endif

namespace awb {

void prefer_huge_pages(const void* data, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr uintptr_t kHuge = uintptr_t(2) << 20;
    const uintptr_t first = (reinterpret_cast<uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
    const uintptr_t last = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kHuge - 1);
    if (last > first)
        madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);  // refused: 4 KiB pages, as before
#else
    (void)data;
    (void)bytes;
#endif
}

void* system_pages(size_t bytes) {
#if defined(__unix__)
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return p;
#else
    if (void* p = std::malloc(bytes)) return p;
    throw std::bad_alloc();
#endif
}

void free_system_pages(void* p, size_t bytes) {
    if (!p) return;
#if defined(__unix__)
    munmap(p, bytes);
#else
    (void)bytes;
    std::free(p);
#endif
}

}  // namespace awb
