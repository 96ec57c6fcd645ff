// Profiler-off benchmark of one spec: cold iteration, warm-up, then timed samples that adapt to a
// time budget (like torch.utils.benchmark's blocked_autorange), and the peak memory of one
// iteration. No torch in this header.
#pragma once

#include "model/bench_stats.h"
#include "model/run_observer.h"

namespace awb {

// Validates (throws InvalidInput naming every problem), then runs on the calling thread. Polls the
// observer between samples (throws Cancelled); LibTorch failures throw RunFailed.
BenchResult bench_run(const RunSpec& spec, const BenchOptions& options, RunObserver* observer = nullptr);

}  // namespace awb
