#include "engine/device_caps.h"

#include <fstream>
#include <sstream>
#include <string>

#include "engine/compat.h"
#include "engine/cuda_support.h"
#include "model/host_memory.h"

namespace awb {

int64_t cpu_available_bytes() { return host_memory().available_bytes; }

DeviceCaps query_device_caps() {
    DeviceCaps caps;
    caps.torch_version = TORCH_VERSION;
#ifdef AWB_WITH_CUDA
    caps.cuda_built = true;
#endif
    caps.cuda_available = cuda::available();
    caps.cuda_device_count = caps.cuda_available ? cuda::device_count() : 0;
    caps.cuda_bf16 = caps.cuda_available && cuda::supports_bf16(0);
    caps.cpu_float16 = compat::kTorch2;
    caps.sdpa_backend_selectable = compat::kTorch2;
    caps.cpu_sdpa_backends = compat::sdpa_backends(false);
    caps.cuda_sdpa_backends = compat::sdpa_backends(true);
    caps.cpu_available_bytes = cpu_available_bytes();
    for (int i = 0; i < caps.cuda_device_count; ++i) caps.cuda_free_bytes.push_back(cuda::free_bytes(i));
    return caps;
}

}  // namespace awb
