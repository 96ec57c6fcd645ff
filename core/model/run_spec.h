// RunSpec: what one attention run is (shape, dtype, device, mode, mask, layout) and the checks that
// say, all at once and by field, why a spec cannot run. Pure C++: no torch, no Qt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace awb {

enum class Dtype { Float32, Float64, Float16, BFloat16 };
enum class Mode { Forward, Train };                     // Train = forward + out.square().mean().backward()
enum class MaskKind { None, Causal, Padding, Window };  // Window: causal, within the last `window` keys
enum class Layout { BHND, BNHD };                       // BNHD: a [B,N,H,D] tensor transposed to [B,H,N,D]
enum class SdpaBackend { Auto, Math, Flash, Efficient, CuDNN };
enum class DeviceKind { CPU, CUDA, Other };

struct DeviceSpec {
    DeviceKind kind = DeviceKind::CPU;
    int index = -1;  // -1: the current device of that kind
    bool operator==(const DeviceSpec&) const = default;
};

struct RunSpec {
    std::string variant = "manual";          // a built-in's name, or a module's file stem (module_file.h)
    std::string module;                      // a user's module file (.pt, .pt2), absolute; empty for the built-ins
    std::vector<std::string> module_inputs;  // extra inputs after (q, k, v); empty: the module's metadata
    int64_t batch = 2;
    int64_t heads = 8;
    int64_t kv_heads = 8;
    int64_t seq_q = 512;
    int64_t seq_k = 512;
    int64_t head_dim = 64;
    Dtype dtype = Dtype::Float32;
    DeviceSpec device;
    Mode mode = Mode::Train;
    MaskKind mask = MaskKind::None;
    std::vector<int64_t> key_lengths;  // per batch entry, with MaskKind::Padding
    int64_t window = 0;  // MaskKind::Window: query i sees keys i - window + 1 .. i (Mistral's sliding window)
    Layout layout = Layout::BHND;
    uint64_t seed = 7;
    int threads = 0;  // 0: LibTorch's default
    SdpaBackend sdpa_backend = SdpaBackend::Auto;
    int64_t block_size = 128;  // query and key block of the chunked variant (others ignore it)
    bool operator==(const RunSpec&) const = default;
};

// base run with another variant; options that only apply to one variant (sdpa_backend) are reset
// for the others, so that one spec can drive a list of variants (check, sweep). A variant ending in
// .pt or .pt2 is a module file: variant becomes its stem and module its path; the base's own variant
// name keeps the base's module.
RunSpec with_variant(const RunSpec& base, const std::string& variant);

// The article's experiment for a device: (2, 8, 512, 64), train, fp16 on CUDA and fp32 on CPU.
RunSpec article_spec(DeviceKind device);

// What the machine offers, queried once from LibTorch (see device_caps.h) and passed in so that the
// checks below stay pure and testable.
struct DeviceCaps {
    std::string torch_version;    // "2.11.0", for messages; empty: unknown
    bool cuda_built = false;      // this LibTorch build has CUDA (AWB_WITH_CUDA)
    bool cuda_available = false;  // ... and a GPU is visible
    int cuda_device_count = 0;
    bool cuda_bf16 = false;
    bool cpu_float16 = false;                     // CPU matmul has half kernels (LibTorch >= 2.0)
    bool sdpa_backend_selectable = false;         // LibTorch >= 2.0
    std::vector<std::string> cpu_sdpa_backends;   // SDPA backends usable on the CPU, besides "auto"
    std::vector<std::string> cuda_sdpa_backends;  // ... on CUDA devices
    int64_t cpu_available_bytes = -1;             // -1: unknown
    std::vector<int64_t> cuda_free_bytes;         // per device, -1: unknown
};

struct SpecProblem {
    std::string field;    // RunSpec field name as the CLI spells it, e.g. "kv_heads"
    std::string message;  // names the value and what is allowed
};

std::vector<SpecProblem> validate(const RunSpec& spec, const DeviceCaps& caps);
std::string format_problems(const std::vector<SpecProblem>& problems);  // one line per problem
// A file written when a run ends (a Kineto trace, a memory snapshot): a problem on field when its folder
// takes no files here, found before the run rather than after it.
std::optional<SpecProblem> unwritable_output(const std::string& field, const std::string& path);

// Rough upper estimate of the bytes one run allocates at its peak (inputs, their gradients, the
// [B,H,Nq,Nk] intermediates the variant materialises), used to refuse a spec before allocating.
// sdpa_fused: variant sdpa runs a fused kernel that holds no [Nq, Nk] buffer (sdpa_holds_scores).
int64_t estimate_peak_bytes(const RunSpec& spec, bool sdpa_fused = false);

// Whether scaled_dot_product_attention materialises [B, H, Nq, Nk] for this spec on this LibTorch:
// 1.13 always (math path); 2.x with backend math, and with auto only for float64 on CUDA.
bool sdpa_holds_scores(const RunSpec& spec, const DeviceCaps& caps);
int64_t element_size(Dtype dtype);
int64_t device_available_bytes(const RunSpec& spec, const DeviceCaps& caps);  // -1: unknown

// Model FLOPs of one step (the attention matmuls only): forward 4*B*H*Nq*Nk*D, train 3x that
// (backward = 4 more matmuls: dV, dP, dQ, dK). Causal counts only the visible (query, key) pairs,
// sum over i of min(i+1, Nk), about half; padding only the keys each batch entry has (Nq x its key
// length; the kernels compute the dense size and discard the padded pairs).
double attention_flops(const RunSpec& spec);
// Visible (query, key) pairs per (batch entry, head) of a spec, averaged over the batch: the mask's
// (visible_pairs), or with padding Nq x the mean key length.
double spec_pairs_per_head(const RunSpec& spec);
// (query, key) pairs one head computes: Nq x Nk, or causal top-left aligned as PyTorch's is_causal
// (query i sees keys 0..i, also when Nq != Nk); with a sliding window W > 0 (causal implied) query i
// sees keys max(0, i - W + 1) .. min(i, Nk - 1).
double visible_pairs(int64_t seq_q, int64_t seq_k, bool causal, int64_t window = 0);

// Names: parse returns nullopt on an unknown name; to_string is the canonical spelling.
std::string to_string(Dtype v);
std::string to_string(Mode v);
std::string to_string(MaskKind v);
std::string to_string(Layout v);
std::string to_string(SdpaBackend v);
std::string to_string(const DeviceSpec& v);
std::optional<Dtype> parse_dtype(std::string_view s);
std::optional<Mode> parse_mode(std::string_view s);
std::optional<MaskKind> parse_mask(std::string_view s);
std::optional<Layout> parse_layout(std::string_view s);
std::optional<SdpaBackend> parse_sdpa_backend(std::string_view s);
std::optional<DeviceSpec> parse_device(std::string_view s);

std::string shape_string(const RunSpec& spec);  // "2x8x512x64" (or "2x8/2x128x256x64" with GQA/cross)

}  // namespace awb
