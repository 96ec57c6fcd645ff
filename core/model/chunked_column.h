// Values appended one at a time in chunks of about 4 MiB straight from the system's pages (SystemPages,
// model/huge_pages.h), then taken into one vector of exactly their number, a chunk at a time. A vector
// grown by doubling copies its values at each step and frees the old buffer, which malloc may keep
// resident (the GUI tunes it to: engine/process_tuning.h), so that growing to N values can leave 2N
// behind; this holds the values plus what is left of one chunk, whose untouched pages cost nothing. A
// value keeps its address while the column grows: a full chunk can be read on another thread (the
// snapshot reader hands its events to a replay that way) while later values are appended.
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include "model/huge_pages.h"

namespace awb {

template <class T>
class ChunkedColumn {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>, "values are copied as bytes");
    static constexpr size_t bits_for(size_t bytes) {
        size_t b = 0;
        while ((sizeof(T) << b) < bytes) ++b;
        return b;
    }

public:
    static constexpr size_t kChunkBits = bits_for(size_t(4) << 20);
    static constexpr size_t kChunk = size_t(1) << kChunkBits;  // values a chunk

    ChunkedColumn() = default;
    ChunkedColumn(ChunkedColumn&& o) noexcept : chunks_(std::move(o.chunks_)), size_(std::exchange(o.size_, 0)) {
        o.chunks_.clear();
    }
    ChunkedColumn& operator=(ChunkedColumn&& o) noexcept {
        if (this != &o) {
            clear();
            chunks_ = std::move(o.chunks_);
            o.chunks_.clear();
            size_ = std::exchange(o.size_, 0);
        }
        return *this;
    }
    ChunkedColumn(const ChunkedColumn&) = delete;
    ChunkedColumn& operator=(const ChunkedColumn&) = delete;
    ~ChunkedColumn() { clear(); }

    void push_back(const T& v) {
        if (size_ == chunks_.size() * kChunk) {
            chunks_.push_back(static_cast<T*>(system_pages(kChunk * sizeof(T))));
            prefer_huge_pages(chunks_.back(), kChunk * sizeof(T));
        }
        chunks_[size_ >> kChunkBits][size_ & (kChunk - 1)] = v;
        ++size_;
    }
    T& operator[](size_t i) { return chunks_[i >> kChunkBits][i & (kChunk - 1)]; }
    const T& operator[](size_t i) const { return chunks_[i >> kChunkBits][i & (kChunk - 1)]; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    // Chunk C's values: [C * kChunk, min(size(), (C + 1) * kChunk)).
    const T* chunk(size_t c) const { return chunks_[c]; }

    // Every value, in order, into one vector of exactly their number (asked to be huge pages); each
    // chunk is given back once copied. The column is empty after.
    std::vector<T> take() {
        std::vector<T> all;
        all.reserve(size_);
        prefer_huge_pages(all);
        for (size_t c = 0; c < chunks_.size(); ++c) {
            all.insert(all.end(), chunks_[c], chunks_[c] + std::min(kChunk, size_ - c * kChunk));
            free_system_pages(std::exchange(chunks_[c], nullptr), kChunk * sizeof(T));
        }
        clear();
        return all;
    }
    void clear() {
        for (T* c : chunks_) free_system_pages(c, kChunk * sizeof(T));
        chunks_.clear();
        size_ = 0;
    }

private:
    std::vector<T*> chunks_;
    size_t size_ = 0;
};

}  // namespace awb
