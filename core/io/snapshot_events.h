// A trace's events as they are read (internal to io/memory_snapshot_read.cpp): in chunks, then moved
// into one vector of exactly their number, a chunk at a time. A vector grown by doubling would hold up
// to twice the events, and three times while it moves; this holds the events plus one chunk (4 MiB):
// the chunks' memory is the system's (SystemPages), given back as each is moved, whatever malloc keeps.
#pragma once

#include <algorithm>
#include <vector>

#include "model/huge_pages.h"
#include "model/memory_snapshot.h"

namespace awb {

class EventColumn {
public:
    void push(const SnapshotEvent& e) {
        if (chunks_.empty() || chunks_.back().size() == chunks_.back().capacity()) {
            chunks_.emplace_back();
            // 4096 events (128 KiB), doubling to 128Ki (4 MiB).
            chunks_.back().reserve(size_t(4096) << std::min(chunks_.size() - 1, size_t(5)));
            prefer_huge_pages(chunks_.back());
        }
        chunks_.back().push_back(e);
        ++size_;
    }
    std::vector<SnapshotEvent> take() {
        std::vector<SnapshotEvent> all;
        all.reserve(size_);
        prefer_huge_pages(all);
        for (auto& chunk : chunks_) {
            all.insert(all.end(), chunk.begin(), chunk.end());
            decltype(chunks_)::value_type().swap(chunk);
        }
        chunks_.clear();
        size_ = 0;
        return all;
    }

private:
    std::vector<std::vector<SnapshotEvent, SystemPages<SnapshotEvent>>> chunks_;
    size_t size_ = 0;
};

}  // namespace awb
