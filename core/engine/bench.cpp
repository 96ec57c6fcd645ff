#include "engine/bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "engine/allocation_tracker.h"
#include "engine/cuda_support.h"
#include "engine/engine_guard.h"
#include "engine/environment_probe.h"
#include "engine/roof_probe.h"
#include "engine/thread_count_scope.h"
#include "engine/variants.h"
#include "model/attention_cost.h"

namespace awb {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Runs the spec's step n times back to back and returns the elapsed time: host clock around a
// synchronised loop on CPU, CUDA events on the device's stream on GPU.
class IterationTimer {
public:
    IterationTimer(const RunSpec& spec, const AttentionVariant& variant)
        : spec_(spec),
          variant_(variant),
          cuda_(spec.device.kind == DeviceKind::CUDA),
          device_(std::max(0, spec.device.index)),
          events_(device_) {}

    double run(const AttentionInputs& inputs, at::Tensor& out, int n) {
        if (cuda_) {
            cuda::synchronize(device_);
            events_.start();
            for (int i = 0; i < n; ++i) run_step(variant_, inputs, spec_.mode, out);
            return events_.stop_ns();
        }
        const auto t0 = Clock::now();
        for (int i = 0; i < n; ++i) run_step(variant_, inputs, spec_.mode, out);
        return double(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
    }

private:
    const RunSpec& spec_;
    const AttentionVariant& variant_;
    bool cuda_;
    int device_;
    cuda::EventTimer events_;
};

// Bytes allocated above the level before fresh inputs were made, at the peak of one step.
int64_t measure_peak(const RunSpec& spec, const AttentionVariant& variant, std::string& source) {
    at::Tensor out;
    if (spec.device.kind == DeviceKind::CUDA) {
        const int device = std::max(0, spec.device.index);
        cuda::synchronize(device);
        cuda::reset_peak_memory(device);
        const int64_t base = cuda::memory_allocated(device);
        {
            const AttentionInputs inputs = make_inputs(spec);
            run_step(variant, inputs, spec.mode, out);
            out.reset();
            cuda::synchronize(device);
        }
        source = "cuda allocator peak";
        return cuda::max_memory_allocated(device) - base;
    }
    AllocationTracker tracker;
    {
        const AttentionInputs inputs = make_inputs(spec);
        run_step(variant, inputs, spec.mode, out);
        out.reset();
    }
    source = "cpu allocation tracker";
    return tracker.peak_bytes();
}

void check_cancel(RunObserver* observer) { throw_if_cancelled(observer); }

}  // namespace

BenchResult bench_run(const RunSpec& spec, const BenchOptions& options, RunObserver* observer) {
    validate_or_throw(spec, options);
    BenchResult r;
    r.spec = spec;
    r.options = options;
    r.flops = attention_flops(spec);
    r.bytes = attention_bytes(spec, BytesModel::Ideal);
    const bool cuda = spec.device.kind == DeviceKind::CUDA;
    r.timer = cuda ? "cuda events" : "steady_clock";
    auto progress = [&](int done, int total, const std::string& what) {
        if (observer) observer->on_progress(done, total, what);
    };
    translate_failures("benchmarking " + spec.variant + " " + shape_string(spec), [&] {
        ThreadCountScope threads(spec.threads);
        r.environment = probe_environment(spec);
        auto variant = make_variant(spec);
        variant->prepare(spec);
        IterationTimer timer(spec, *variant);
        {
            const AttentionInputs inputs = make_inputs(spec);
            at::Tensor out;
            progress(0, 1, "cold iteration");
            r.cold_ns = timer.run(inputs, out, 1);
            double last_ns = r.cold_ns;
            for (int i = 0; i < options.warmup; ++i) {
                check_cancel(observer);
                progress(i, options.warmup, "warm-up " + std::to_string(i + 1) + "/" + std::to_string(options.warmup));
                last_ns = timer.run(inputs, out, 1);
            }
            r.warmup_iterations = options.warmup;

            // Calibrate like blocked_autorange: grow the block until one block lasts min_sample_s, so a
            // single slow warm-up iteration cannot leave samples far shorter than asked (untimed runs).
            const double target_ns = options.min_sample_s * 1e9;
            int per_sample = 1;
            double block_ns = last_ns;
            for (int round = 0; round < 12 && block_ns < target_ns && per_sample < 1'000'000; ++round) {
                const double grow = std::ceil(per_sample * target_ns / std::max(block_ns, 1.0));
                per_sample = int(std::clamp(grow, double(per_sample) + 1, std::min(10.0 * per_sample, 1e6)));
                check_cancel(observer);
                block_ns = timer.run(inputs, out, per_sample);
            }
            const double per_iteration = std::max(block_ns / per_sample, 1.0);
            const int expected = std::clamp(int(options.budget_s * 1e9 / (per_iteration * per_sample)),
                                            options.min_repeats, options.max_repeats);
            const auto t0 = Clock::now();
            while (int(r.samples_ns.size()) < options.max_repeats) {
                const int done = int(r.samples_ns.size());
                if (done >= options.min_repeats && seconds_since(t0) >= options.budget_s) break;
                if (done > 0 && observer && observer->finish_requested()) {
                    r.interrupted = true;  // keep the samples timed so far
                    break;
                }
                check_cancel(observer);
                progress(done, std::max(expected, done + 1),
                         "sample " + std::to_string(done + 1) + " (" + std::to_string(per_sample) + " iteration" +
                             (per_sample == 1 ? "" : "s") + ")");
                r.samples_ns.push_back(timer.run(inputs, out, per_sample) / per_sample);
            }
            r.timing = summarize_samples(r.samples_ns, per_sample);
            r.gflops_per_s = r.timing.median_ns > 0 ? r.flops / r.timing.median_ns : 0;  // flop/ns = GFLOP/s
        }  // inputs, gradients and the last output die here
        if (options.measure_memory && !r.interrupted) {
            check_cancel(observer);
            progress(r.timing.repeats, r.timing.repeats, "peak memory (one iteration on fresh inputs)");
            r.peak_bytes = measure_peak(spec, *variant, r.peak_source);
        }
        if (options.measure_roof && !r.interrupted) {
            check_cancel(observer);
            progress(r.timing.repeats, r.timing.repeats, "roof of the device (matmul and copy, once per process)");
            r.roof = run_roof(spec, r.environment.device_name);
        }
    });
    return r;
}

}  // namespace awb
