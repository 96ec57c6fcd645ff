// The pickle machine's memo (internal to io/pickle_machine.cpp): slots in pages of 256, a page freed
// when its last slot is forgotten. A streamed snapshot memoizes every trace event's dict and frees it
// right after (forget), so the memo of a trace of millions of events stays a few pages instead of 16
// bytes per event.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "io/pickle_machine.h"

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
        if (p >= pages_.size()) pages_.resize(p + 1);
        if (!pages_[p]) pages_[p] = std::make_unique<Page>();
        Ref& r = pages_[p]->refs[slot % kPage];
        pages_[p]->live += unset(r);
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
        if (--pages_[p]->live == 0) pages_[p].reset();
    }
    uint64_t size() const { return size_; }  // one past the highest slot set: MEMOIZE's next slot
    // SLOT given a value that is gone at once (a streamed event's dict): unset, but counted in size(),
    // as put then forget would leave it.
    void skip(uint64_t slot) {
        forget(slot);
        if (slot >= size_) size_ = slot + 1;
    }
    // Bumped whenever a value the sink made (Ref::made) is replaced or forgotten: what was made of
    // memo references before (RunCache) may not hold after.
    uint64_t epoch() const { return epoch_; }

private:
    static constexpr uint64_t kPage = 256;
    static constexpr Ref kUnset{INT64_MIN, UINT32_MAX, Kind::None};
    static bool unset(const Ref& r) { return r.kind == Kind::None && r.index == UINT32_MAX; }
    struct Page {
        Page() { refs.fill(kUnset); }
        std::array<Ref, kPage> refs;
        uint32_t live = 0;
    };
    std::vector<std::unique_ptr<Page>> pages_;
    uint64_t size_ = 0;
    uint64_t epoch_ = 0;
};

}  // namespace awb::pickle
