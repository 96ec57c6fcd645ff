// Kernel names as people read them. Traces name device kernels as the compiler does: CUDA's Kineto
// traces mostly demangled ("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>(...)"),
// ROCm's and some CUDA kernels Itanium-mangled ("_ZN7ck_tile6kentryILi1ENS_12Rmsnorm2dFwd..."). The
// tables show the demangled name; the raw name stays in tooltips and exports.
//
// Long names (CUTLASS, Tensile's Cijk_..., CK's templates) share most of their text with their
// neighbours: cutting them in the middle makes three different GEMMs look identical. The elider keeps
// what tells them apart instead: for each family of names (same leading identifier: "cutlass::Kernel",
// "Cijk", "ck_tile::kentry") the tokens every member has (the template boilerplate, found as the longest
// common token subsequence of the family) are dropped, and the name's head plus the tokens that differ
// (tile sizes, layouts, alignment) are kept, joined by "…". A name that fits is shown whole; one with
// no family falls back to middle elision. Pure C++.
#pragma once

#include <cstddef>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace awb {

// The demangled name of an Itanium-mangled symbol ("_Z..." with abi::__cxa_demangle; a ROCm ".kd"
// suffix is dropped first); any other name, or one that does not demangle, as it is. Cached per
// distinct name (thread-safe): a trace of 100k kernels has a few hundred names.
std::string demangled_kernel_name(std::string_view raw);
bool is_mangled_name(std::string_view raw);  // starts with "_Z" (or macOS's "__Z")

// "head…tail" within width characters (UTF-8 "…" counts as one); the name itself when it fits.
std::string elide_middle(std::string_view name, size_t width);

// The names shown together (a table's, a timeline's), already demangled, analysed once; then each one
// shortened for any width. Names not given to the constructor get middle elision.
class KernelNameElider {
public:
    explicit KernelNameElider(const std::vector<std::string>& names);
    ~KernelNameElider();
    KernelNameElider(KernelNameElider&&) noexcept;
    KernelNameElider& operator=(KernelNameElider&&) noexcept;

    // At most width characters: the name when it fits, else its head and the parts that differ from
    // its family's, else (no family, or still too long) cut with "…".
    std::string shown(std::string_view name, size_t width) const;
    // The same, keeping the tokens `keep` (texts that tell it from names shown alike) to the last.
    std::string shown(std::string_view name, size_t width, const std::set<std::string>& keep) const;
    // The texts of the name's tokens that differ from its family's common part (none for a name not given).
    std::set<std::string> differing_tokens(std::string_view name) const;

    struct Analysed;  // per name: its tokens and which of them tell it apart

private:
    std::unordered_map<std::string, std::shared_ptr<const Analysed>> names_;
};

// The names shortened to width characters each, in the same order (KernelNameElider over all of them).
std::vector<std::string> elide_kernel_names(const std::vector<std::string>& names, size_t width);

// Characters of a UTF-8 string (code points), as the width above counts them.
size_t display_length(std::string_view s);

}  // namespace awb
