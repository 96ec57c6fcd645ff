// A bounded hand-off between two threads: one produces items (the importer's reader and scanner),
// the other consumes them in order (the parser and converter). The producer waits while `capacity`
// items are pending, so memory stays bounded; an error on either side ends both: the producer's
// reaches the consumer after the items before it, the consumer's stop() makes the producer's next
// push() return false. Used items can be given back for reuse, so their buffers keep their capacity.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <vector>

namespace awb {

template <class T>
class Handoff {
public:
    explicit Handoff(size_t capacity) : capacity_(capacity) {}

    // Producer: waits for room; false once the consumer has stopped (the item is dropped).
    bool push(T item) {
        std::unique_lock lock(mutex_);
        room_.wait(lock, [this] { return stopped_ || pending_.size() < capacity_; });
        if (stopped_) return false;
        pending_.push_back(std::move(item));
        ready_.notify_one();
        return true;
    }

    // Producer: no more items; `error`, when set, is rethrown by pop() after the pending items.
    void close(std::exception_ptr error = nullptr) {
        std::lock_guard lock(mutex_);
        closed_ = true;
        error_ = std::move(error);
        ready_.notify_one();
    }

    // Producer: a used item back from the consumer (its buffers keep their capacity), or a new one.
    T reuse() {
        std::lock_guard lock(mutex_);
        if (spare_.empty()) return T{};
        T item = std::move(spare_.back());
        spare_.pop_back();
        return item;
    }

    // Consumer: the next item in order; nullopt once the producer closed and everything was taken;
    // rethrows the producer's error at that point.
    std::optional<T> pop() {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [this] { return closed_ || !pending_.empty(); });
        if (pending_.empty()) {
            if (error_) std::rethrow_exception(error_);
            return std::nullopt;
        }
        T item = std::move(pending_.front());
        pending_.pop_front();
        room_.notify_one();
        return item;
    }

    // Consumer: an item it is done with, for the producer to reuse.
    void give_back(T item) {
        std::lock_guard lock(mutex_);
        spare_.push_back(std::move(item));
    }

    // Consumer: gives up (an error, a cancel); the producer's pushes fail from now on.
    void stop() {
        std::lock_guard lock(mutex_);
        stopped_ = true;
        room_.notify_all();
    }

    // Either side, once the other is done: frees the used items kept for reuse.
    void drop_spares() {
        std::lock_guard lock(mutex_);
        spare_.clear();
        spare_.shrink_to_fit();
    }

    bool stopped() const {
        std::lock_guard lock(mutex_);
        return stopped_;
    }

private:
    const size_t capacity_;
    mutable std::mutex mutex_;
    std::condition_variable room_, ready_;
    std::deque<T> pending_;
    std::vector<T> spare_;
    std::exception_ptr error_;
    bool closed_ = false;
    bool stopped_ = false;
};

}  // namespace awb
