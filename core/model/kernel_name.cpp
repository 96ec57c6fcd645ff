#include "model/kernel_name.h"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>

#if defined(AWB_WITH_LLVM_DEMANGLE)
#include <llvm/Demangle/Demangle.h>
#endif

namespace awb {

// ---- demangling ----

bool is_mangled_name(std::string_view raw) { return raw.rfind("_Z", 0) == 0 || raw.rfind("__Z", 0) == 0; }

namespace {

std::string demangle_uncached(std::string_view raw) {
    std::string symbol(raw.rfind("__Z", 0) == 0 ? raw.substr(1) : raw);
    if (symbol.size() > 3 && symbol.compare(symbol.size() - 3, 3, ".kd") == 0)
        symbol.resize(symbol.size() - 3);  // ROCm's kernel descriptor
    int status = 0;
    char* out = abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status);
#if defined(AWB_WITH_LLVM_DEMANGLE)
    if (!out || status != 0) {  // libstdc++ refuses names over 1024 characters (its recursion guard)
        std::free(out);
        out = llvm::itaniumDemangle(symbol.c_str(), nullptr, nullptr, &status);
    }
#endif
    std::string name = status == 0 && out ? std::string(out) : std::string(raw);
    std::free(out);
    return name;
}

}  // namespace

std::string demangled_kernel_name(std::string_view raw) {
    if (!is_mangled_name(raw)) return std::string(raw);
    static std::mutex mutex;
    static std::unordered_map<std::string, std::string> cache;
    const std::string key(raw);
    {
        const std::lock_guard<std::mutex> lock(mutex);
        if (const auto it = cache.find(key); it != cache.end()) return it->second;
    }
    std::string name = demangle_uncached(raw);  // outside the lock: a long template takes a while
    const std::lock_guard<std::mutex> lock(mutex);
    return cache.try_emplace(key, std::move(name)).first->second;
}

// ---- lengths and middle elision (UTF-8: "…" is one character) ----

namespace {

constexpr std::string_view kEllipsis = "\xE2\x80\xA6";  // …

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The byte offset of character n (the size when the string is shorter).
size_t byte_of_char(std::string_view s, size_t n) {
    size_t chars = 0;
    for (size_t i = 0; i < s.size(); ++i)
        if (!is_continuation(s[i]) && chars++ == n) return i;
    return s.size();
}

// The first `chars` characters.
std::string_view first_chars(std::string_view s, size_t chars) { return s.substr(0, byte_of_char(s, chars)); }

// The last `chars` characters.
std::string_view last_chars(std::string_view s, size_t chars) {
    const size_t total = display_length(s);
    return chars >= total ? s : s.substr(byte_of_char(s, total - chars));
}

// The first width - 1 characters and "…", or s when it fits.
std::string cut_end(std::string_view s, size_t width) {
    if (display_length(s) <= width) return std::string(s);
    if (width == 0) return {};
    return std::string(first_chars(s, width - 1)) + std::string(kEllipsis);
}

}  // namespace

size_t display_length(std::string_view s) {
    return size_t(std::count_if(s.begin(), s.end(), [](char c) { return !is_continuation(c); }));
}

std::string elide_middle(std::string_view name, size_t width) {
    if (display_length(name) <= width) return std::string(name);
    if (width <= 1) return std::string(first_chars(kEllipsis, width));
    const size_t keep = width - 1;
    return std::string(first_chars(name, (keep + 1) / 2)) + std::string(kEllipsis) +
           std::string(last_chars(name, keep / 2));
}

// ---- tokens and families ----

namespace {

bool is_word_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || (static_cast<unsigned char>(c) & 0x80) != 0;
}

// Runs of letters and digits are tokens; every other character is a token of its own.
std::vector<std::string_view> tokenize(std::string_view s) {
    std::vector<std::string_view> out;
    for (size_t i = 0; i < s.size();) {
        size_t j = i + 1;
        if (is_word_char(s[i]))
            while (j < s.size() && is_word_char(s[j])) ++j;
        out.push_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

// Every kernel returns void: the display starts after it.
size_t skip_return_type(std::string_view s) { return s.rfind("void ", 0) == 0 ? 5 : 0; }

// The family a name belongs to and where that key ends: its leading identifier without its return
// type and leading underscores, up to the first character not a letter, digit or ':' ("cutlass::Kernel",
// "Cijk", "ck_tile" -> "ck").
std::pair<std::string, size_t> family_key(std::string_view s) {
    size_t i = skip_return_type(s);
    while (i < s.size() && s[i] == '_') ++i;
    size_t j = i;
    while (j < s.size() && (is_word_char(s[j]) || s[j] == ':')) ++j;
    return {std::string(s.substr(0, j)), j};
}

using Tokens = std::vector<std::string_view>;

// Families of thousands of tokens (CK's templates) are compared by common prefix and suffix only.
constexpr size_t kMaxCells = size_t(4) << 20;

// Which tokens of a are in a longest common subsequence with b (dynamic programming on tokens).
std::vector<bool> lcs_mask(const Tokens& a, const Tokens& b) {
    std::vector<bool> in(a.size(), false);
    const size_t n = a.size(), m = b.size();
    if (n * m > kMaxCells) {  // prefix and suffix
        size_t p = 0, s = 0;
        while (p < n && p < m && a[p] == b[p]) in[p++] = true;
        while (s < n - p && s < m - p && a[n - 1 - s] == b[m - 1 - s]) in[n - 1 - s++] = true;
        return in;
    }
    std::vector<uint32_t> len((n + 1) * (m + 1), 0);  // len[i][j]: LCS of a[i..], b[j..]
    auto at = [&len, m](size_t i, size_t j) -> uint32_t& { return len[i * (m + 1) + j]; };
    for (size_t i = n; i-- > 0;)
        for (size_t j = m; j-- > 0;)
            at(i, j) = a[i] == b[j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    for (size_t i = 0, j = 0; i < n && j < m;) {
        if (a[i] == b[j]) {
            in[i++] = true;
            ++j;
        } else if (at(i + 1, j) >= at(i, j + 1)) {
            ++i;
        } else {
            ++j;
        }
    }
    return in;
}

Tokens masked(const Tokens& t, const std::vector<bool>& keep) {
    Tokens out;
    for (size_t i = 0; i < t.size(); ++i)
        if (keep[i]) out.push_back(t[i]);
    return out;
}

}  // namespace

struct KernelNameElider::Analysed {
    std::string name;
    Tokens tokens;               // views into name
    std::vector<bool> differs;   // not in the family's common tokens
    std::vector<uint32_t> freq;  // per token: how many of the family's names hold it
    size_t key_end = 0;          // bytes: the family key's end
    bool has_family = false;
};

namespace {

// Per token: the number of the family's names that hold it (its document frequency).
void count_frequencies(std::vector<std::shared_ptr<KernelNameElider::Analysed>>& members) {
    std::unordered_map<std::string_view, uint32_t> holders;
    for (const auto& a : members)
        for (std::string_view t : std::set<std::string_view>(a->tokens.begin(), a->tokens.end())) ++holders[t];
    for (auto& a : members) {
        a->freq.resize(a->tokens.size());
        for (size_t i = 0; i < a->tokens.size(); ++i) a->freq[i] = holders[a->tokens[i]];
    }
}

}  // namespace

KernelNameElider::KernelNameElider(const std::vector<std::string>& names) {
    std::map<std::string, std::vector<std::shared_ptr<Analysed>>> families;
    for (const std::string& name : std::set<std::string>(names.begin(), names.end())) {
        auto a = std::make_shared<Analysed>();
        a->name = name;
        a->tokens = tokenize(a->name);
        auto [key, end] = family_key(a->name);
        a->key_end = end;
        families[key].push_back(a);
    }
    for (auto& [key, members] : families) {
        Tokens common = members.front()->tokens;
        for (size_t i = 1; i < members.size(); ++i) common = masked(common, lcs_mask(common, members[i]->tokens));
        count_frequencies(members);
        for (auto& a : members) {
            a->has_family = members.size() > 1;
            a->differs = lcs_mask(a->tokens, common);
            a->differs.flip();
            names_.emplace(a->name, std::move(a));
        }
    }
}

KernelNameElider::~KernelNameElider() = default;
KernelNameElider::KernelNameElider(KernelNameElider&&) noexcept = default;
KernelNameElider& KernelNameElider::operator=(KernelNameElider&&) noexcept = default;

namespace {

bool has_word(std::string_view s) { return std::any_of(s.begin(), s.end(), is_word_char); }

constexpr std::string_view kAnonymous = "(anonymous namespace)::";

// Where the function's qualified name ends (its template arguments or parameters start; the name's
// end for Tensile's Cijk_... and Triton's) and where its last component starts, in bytes.
std::pair<size_t, size_t> function_name(std::string_view s, size_t start) {
    size_t base = start, i = start;
    while (i < s.size() && s[i] != '<' && s[i] != '(') {
        if (s.compare(i, 2, "::") == 0) base = i + 2;
        ++i;
        if (s.compare(i, kAnonymous.size(), kAnonymous) == 0) i += kAnonymous.size(), base = i;  // seen through
    }
    return {i, base};
}

// The index of the token that starts at byte `offset` (or the first after it).
size_t token_at(const Tokens& t, size_t offset) {
    size_t i = 0;
    for (size_t at = 0; i < t.size() && at < offset; ++i) at += t[i].size();
    return i;
}

// The name's head, and the token after it: the function's qualified name without its return type and
// "(anonymous namespace)::", its leading namespaces dropped while it is longer than 45% of the width
// ("at::native::" goes, "vectorized_elementwise_kernel" stays). A function name longer than that
// (Tensile's Cijk_..., FBGEMM's split_embedding_backward_codegen_...): its family key, then whole
// tokens up to that budget; the rest is compared like the template arguments.
size_t head_end(const KernelNameElider::Analysed& a, size_t width, std::string& head) {
    const Tokens& t = a.tokens;
    const size_t budget = width * 45 / 100;
    const auto [end, base] = function_name(a.name, skip_return_type(a.name));
    if (end - base <= budget) {
        head = a.name.substr(base, end - base);
        const size_t start = skip_return_type(a.name);
        for (size_t at = base; at >= start + 3;) {  // the namespaces before it that fit; at: after "::"
            const size_t from = at - 2 > start ? a.name.rfind("::", at - 3) : std::string::npos;
            const size_t part = from == std::string::npos || from < start ? start : from + 2;
            const std::string_view name = std::string_view(a.name).substr(part, at - 2 - part);
            if (name.find('(') != std::string_view::npos || display_length(name) + 2 + display_length(head) > budget)
                break;
            head = std::string(name) + "::" + head;
            at = part;
        }
        return token_at(t, end);
    }
    size_t i = token_at(t, base), offset = 0;
    for (size_t k = 0; k < i; ++k) offset += t[k].size();
    for (; i < t.size() && (offset < a.key_end || display_length(head) + display_length(t[i]) <= budget); ++i) {
        head += t[i];
        offset += t[i].size();
    }
    return i;
}

// The head and the runs of kept tokens after it, a separator between two kept tokens kept, repeats and
// bare punctuation dropped, joined by "…"; "" when no run is left.
std::string assemble(const Tokens& t, size_t first, const std::string& head, const std::vector<bool>& keep) {
    auto kept = [&](size_t k) {
        if (keep[k]) return true;  // a separator between two kept tokens reads as one run
        return !has_word(t[k]) && k > 0 && k + 1 < t.size() && keep[k - 1] && keep[k + 1];
    };
    std::string out = head, between;  // between: the dropped text since the last run
    std::set<std::string> seen;
    bool any = false;
    for (size_t i = first; i < t.size(); ++i) {
        std::string run;
        for (; i < t.size() && kept(i); ++i) run += t[i];
        if (!run.empty() && has_word(run) && seen.insert(run).second) {
            // Punctuation alone between two runs stays ("256x64" "_" "16x4"); anything longer is "…".
            out += (has_word(between) || between.size() > 2 ? std::string(kEllipsis) : between) + run;
            between.clear();
            any = true;
        } else {
            between += run;
        }
        if (i < t.size()) between += t[i];
    }
    if (!any) return {};
    return has_word(between) ? out + std::string(kEllipsis) : out;
}

// The texts of the differing word tokens after `first` that others in the family hold too, in the
// order they go: held by most first, then the latest in the name; those in `keep` last.
std::vector<std::string_view> drop_order(const KernelNameElider::Analysed& a, size_t first,
                                         const std::set<std::string>& keep) {
    std::vector<size_t> order;
    for (size_t i = first; i < a.tokens.size(); ++i)
        if (a.differs[i] && a.freq[i] > 1 && has_word(a.tokens[i])) order.push_back(i);
    auto kept = [&](size_t i) { return keep.count(std::string(a.tokens[i])) > 0; };
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
        if (kept(x) != kept(y)) return kept(y);
        return a.freq[x] != a.freq[y] ? a.freq[x] > a.freq[y] : x > y;
    });
    std::vector<std::string_view> out;
    std::set<std::string_view> seen;
    for (size_t i : order)
        if (seen.insert(a.tokens[i]).second) out.push_back(a.tokens[i]);
    return out;
}

// The head and the tokens that differ from the family's (and those in `keep`); when that is too long,
// the differing tokens that most of the family shares go first (CUTLASS's "tensorop", "s1688gemm"),
// the rarer ones (tile sizes, layouts) stay: the fewest dropped that fit, by bisection.
std::string head_and_differences(const KernelNameElider::Analysed& a, size_t width, const std::set<std::string>& keep) {
    std::string head;
    const size_t first = head_end(a, width, head);
    std::vector<bool> differs = a.differs;
    for (size_t i = first; i < a.tokens.size(); ++i)
        differs[i] = differs[i] || keep.count(std::string(a.tokens[i])) > 0;
    const std::string all = assemble(a.tokens, first, head, differs);
    if (display_length(all) <= width) return all;
    const std::vector<std::string_view> order = drop_order(a, first, keep);
    auto without = [&](size_t n) {  // the first n of the order dropped
        const std::set<std::string_view> drop(order.begin(), order.begin() + std::ptrdiff_t(n));
        std::vector<bool> kept = differs;
        for (size_t i = first; i < a.tokens.size(); ++i) kept[i] = kept[i] && !drop.count(a.tokens[i]);
        return assemble(a.tokens, first, head, kept);
    };
    size_t lo = 0, hi = order.size();  // lo: too long; hi: fits, or all dropped
    while (hi - lo > 1) {
        const size_t mid = (lo + hi) / 2;
        const std::string s = without(mid);
        (!s.empty() && display_length(s) <= width ? hi : lo) = mid;
    }
    std::string out = without(hi);
    return out.empty() ? all : out;
}

}  // namespace

std::string KernelNameElider::shown(std::string_view name, size_t width) const { return shown(name, width, {}); }

std::string KernelNameElider::shown(std::string_view name, size_t width, const std::set<std::string>& keep) const {
    if (display_length(name) <= width) return std::string(name);
    const auto it = names_.find(std::string(name));
    if (it == names_.end()) return elide_middle(name, width);
    const Analysed& a = *it->second;
    const std::string shortened = a.has_family ? head_and_differences(a, width, keep) : std::string();
    // Alone in its family, or nothing differs: its start, which names the kernel (the end is its parameters).
    if (shortened.empty()) return cut_end(name.substr(skip_return_type(name)), width);
    return cut_end(shortened, width);
}

std::set<std::string> KernelNameElider::differing_tokens(std::string_view name) const {
    std::set<std::string> out;
    if (const auto it = names_.find(std::string(name)); it != names_.end())
        for (size_t i = 0; i < it->second->tokens.size(); ++i)
            if (it->second->differs[i] && has_word(it->second->tokens[i]))
                out.insert(std::string(it->second->tokens[i]));
    return out;
}

std::vector<std::string> elide_kernel_names(const std::vector<std::string>& names, size_t width) {
    std::vector<std::string> out;
    out.reserve(names.size());
    const KernelNameElider elider(names);
    for (const std::string& n : names) out.push_back(elider.shown(n, width));
    // Different names shown alike (a family too varied for its common part to be much) are elided
    // again against each other only, what told them apart in earlier rounds kept to the last.
    std::map<std::string, std::set<std::string>> keep;
    for (int round = 0; round < 4; ++round) {
        std::map<std::string, std::set<std::string>> shown_as;
        for (size_t i = 0; i < names.size(); ++i) shown_as[out[i]].insert(names[i]);
        bool changed = false;
        for (const auto& [shown, group] : shown_as) {
            if (group.size() < 2) continue;
            const KernelNameElider among(std::vector<std::string>(group.begin(), group.end()));
            for (const std::string& n : group) keep[n].merge(among.differing_tokens(n));
            for (size_t i = 0; i < names.size(); ++i)
                if (out[i] == shown) {
                    std::string again = among.shown(names[i], width, keep[names[i]]);
                    changed = changed || again != out[i];
                    out[i] = std::move(again);
                }
        }
        if (!changed) break;
    }
    return out;
}

}  // namespace awb
