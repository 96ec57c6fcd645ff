// The pickle machine's memo (internal to io/pickle_machine.cpp): slots in pages of 256, a page given
// back when its last slot is forgotten. A streamed snapshot memoizes every trace event's dict and frees
// it right after (forget), so those cost a few pages, not 16 bytes per event; what stays (torch 2.11's
// compile_context str of every event, every alloc's frames list) takes pages by the hundred thousand,
// carved from blocks of 2 MiB backed by huge pages (model/huge_pages.h).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "io/pickle_machine.h"
#include "model/huge_pages.h"

namespace awb::pickle {

class Memo {
public:
    // The value in SLOT, nullptr when it was never set or was forgotten.
    const Ref* get(uint64_t slot) const {
        const uint64_t p = slot / kPage;
        if (p >= pages_.size() || !pages_[p]) return nullptr;
        const Ref& r = pages_[p]->refs[slot % kPage];
        return unset(r) ? nullptr : &r;
    }
    void put(uint64_t slot, Ref v) {
        const uint64_t p = slot / kPage;
        if (p >= pages_.size()) {
            pages_.resize(p + 1);
            live_.resize(p + 1);
        }
        if (!pages_[p]) pages_[p] = new_page();
        Ref& r = pages_[p]->refs[slot % kPage];
        live_[p] += unset(r);
        epoch_ += r.made;
        r = v;
        if (slot >= size_) size_ = slot + 1;
    }
    void forget(uint64_t slot) {
        const uint64_t p = slot / kPage;
        if (p >= pages_.size() || !pages_[p]) return;
        Ref& r = pages_[p]->refs[slot % kPage];
        if (unset(r)) return;
        epoch_ += r.made;
        r = kUnset;
        if (--live_[p] == 0) {
            spare_.push_back(pages_[p]);
            pages_[p] = nullptr;
        }
    }
    uint64_t size() const { return size_; }  // one past the highest slot set: MEMOIZE's next slot
    // Bumped whenever a value the sink made (Ref::made) is replaced or forgotten: what was made of
    // memo references before (RunCache) may not hold after.
    uint64_t epoch() const { return epoch_; }

private:
    static constexpr uint64_t kPage = 256;
    static constexpr Ref kUnset{INT64_MIN, UINT32_MAX, Kind::None};
    static bool unset(const Ref& r) { return r.kind == Kind::None && r.index == UINT32_MAX; }
    struct Page {
        std::array<Ref, kPage> refs;
    };
    static_assert(sizeof(Page) == 4096);
    static constexpr size_t kBlock = size_t(2) << 20;  // a block: one huge page of pages
    Page* new_page() {
        if (spare_.empty()) {  // a block, raw and aligned: asked for a huge page before anything is written to it
            blocks_.emplace_back(::operator new(kBlock, std::align_val_t(kBlock)));
            prefer_huge_pages(blocks_.back().get(), kBlock);
            for (size_t i = kBlock / sizeof(Page); i-- > 0;)
                spare_.push_back(static_cast<Page*>(blocks_.back().get()) + i);
        }
        Page* page = ::new (static_cast<void*>(spare_.back())) Page;
        spare_.pop_back();
        page->refs.fill(kUnset);
        return page;
    }
    struct Release {
        void operator()(void* p) const { ::operator delete(p, std::align_val_t(kBlock)); }
    };
    std::vector<Page*> pages_;                            // by slot / kPage; nullptr: none set
    std::vector<uint32_t> live_;                          // by page: its slots set
    std::vector<std::unique_ptr<void, Release>> blocks_;  // the raw memory the pages are made in
    std::vector<Page*> spare_;                            // pages of the blocks not in use
    uint64_t size_ = 0;
    uint64_t epoch_ = 0;
};

}  // namespace awb::pickle
