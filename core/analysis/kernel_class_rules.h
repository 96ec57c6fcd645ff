// The rules that give a device kernel, copy or set its class (kernel_class.h), in the order they are
// checked: one table, from which classify_kernel decides, `attnwb inspect --kernel-classes` prints
// the list, and the GUI's tooltip and docs/inspect.md's list are made. Pure C++.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/kernel_class.h"

namespace awb {

// What a rule looks at.
enum class KernelRuleBasis : uint8_t {
    EventKind,       // the event's kind: a copy (gpu_memcpy) or a set (gpu_memset)
    Name,            // the kernel's name, lower-cased: substrings (any / all / none)
    AttentionRules,  // the attention rules' kernel names (attention_rules.h); the class from the rule's library
    OpAbove,         // an op the kernel was launched under: the SDPA math op, a library's attention op, a convolution
    LaunchingOp,     // the op that launched it, by its exact name
};

struct KernelClassRule {
    KernelClass cls;
    KernelRuleBasis basis;
    std::vector<std::string_view> any;   // Name: one of these substrings; LaunchingOp / OpAbove: op names
    std::vector<std::string_view> all;   // Name: and each of these
    std::vector<std::string_view> none;  // Name: and none of these
    std::string_view strip;              // Name: taken out of the name first ("fbgemm" holds "gemm" but is no GEMM)
    std::string_view says;               // what the rule catches, for people
};

const std::vector<KernelClassRule>& kernel_class_rules();
// The first rule of that class on that basis (the communication rule by name, the SDPA math op's rule).
const KernelClassRule& kernel_class_rule(KernelClass cls, KernelRuleBasis basis);

// Whether a Name rule holds for a lower-cased kernel name.
bool name_rule_holds(const KernelClassRule& rule, const std::string& lower_name);

// The rules as a numbered list (attnwb inspect --kernel-classes; docs/inspect.md holds the same text).
std::string format_kernel_class_rules();

// "GEMM, convolution, attention (flash), ..., other": every class in the order of KernelClass.
std::string kernel_class_names();

}  // namespace awb
