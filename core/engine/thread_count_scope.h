// Sets LibTorch's intra-op thread count for a run and restores it after (threads = 0 keeps it).
#pragma once

#include <ATen/Parallel.h>

namespace awb {

class ThreadCountScope {
public:
    explicit ThreadCountScope(int threads) : previous_(at::get_num_threads()) {
        if (threads > 0 && threads != previous_) {
            at::set_num_threads(threads);
            changed_ = true;
        }
    }
    ~ThreadCountScope() {
        if (changed_) at::set_num_threads(previous_);
    }
    ThreadCountScope(const ThreadCountScope&) = delete;
    ThreadCountScope& operator=(const ThreadCountScope&) = delete;

private:
    int previous_;
    bool changed_ = false;
};

}  // namespace awb
