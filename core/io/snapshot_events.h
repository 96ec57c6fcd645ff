// A trace's events as they are read (internal to io/memory_snapshot_read.cpp): in chunks, then moved
// into one vector of exactly their number (model/chunked_column.h). With a sink (a replay beside the
// reading), each chunk is handed to it once full, the last one when the events are taken; the sink is
// waited for before they move, or before they are freed when the reading fails.
#pragma once

#include <vector>

#include "model/chunked_column.h"
#include "model/memory_snapshot.h"

namespace awb {

class EventColumn {
public:
    explicit EventColumn(SnapshotEventSink* sink = nullptr, int device = 0) : sink_(sink), device_(device) {}
    EventColumn(EventColumn&&) = default;
    ~EventColumn() {
        if (sink_) sink_->wait();
    }
    void push(const SnapshotEvent& e) {
        events_.push_back(e);
        if (sink_ && events_.size() % events_.kChunk == 0) hand(events_.size() - events_.kChunk);
    }
    std::vector<SnapshotEvent> take() {
        if (sink_) {
            if (const size_t rest = events_.size() % events_.kChunk) hand(events_.size() - rest);
            sink_->wait();
        }
        return events_.take();
    }

private:
    // The events from FIRST (a chunk's first) to the end of its chunk or of the column.
    void hand(size_t first) {
        sink_->take(device_, events_.chunk(first / events_.kChunk), std::min(events_.size() - first, events_.kChunk));
    }

    ChunkedColumn<SnapshotEvent> events_;
    SnapshotEventSink* sink_;
    int device_;
};

}  // namespace awb
