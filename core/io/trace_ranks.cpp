#include "io/trace_ranks.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <map>
#include <set>

#include "model/units.h"

namespace awb::trace_io {

namespace {

std::string file_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

// "a.json, b.json, c.json (+5 more)"
std::string files_text(const std::vector<std::string>& names) {
    std::string out;
    for (size_t i = 0; i < names.size() && i < 3; ++i) out += (i ? ", " : "") + names[i];
    return names.size() > 3 ? out + " (+" + std::to_string(names.size() - 3) + " more)" : out;
}

std::string ranks_text(const std::vector<int32_t>& ranks);

// "12.5 min", "3.4 hours", "401 days" for how far apart two files' events lie.
std::string gap_text(int64_t ns) {
    const double s = double(ns) / 1e9;
    char buf[48];
    if (s >= 2 * 86400)
        std::snprintf(buf, sizeof buf, "%.0f days", s / 86400);
    else if (s >= 2 * 3600)
        std::snprintf(buf, sizeof buf, "%.1f hours", s / 3600);
    else
        std::snprintf(buf, sizeof buf, "%.1f min", s / 60);
    return buf;
}

// What a run holds so far, to test the next file against.
struct RunSoFar {
    RankRun run;
    std::map<int32_t, size_t> ranks;  // rank -> its file
    int world_size = -1;
    std::string backend;
    std::map<std::string, std::vector<int32_t>> groups;  // process group name -> ranks
    int64_t begin_ns = INT64_MAX, end_ns = INT64_MIN;

    void add(size_t i, const ImportedTrace& p) {
        run.files.push_back(i);
        if (p.rank >= 0) ranks.emplace(p.rank, i);
        if (world_size < 0) world_size = p.world_size;
        if (backend.empty()) backend = p.backend;
        for (const ProcessGroup& g : p.process_groups) groups.emplace(g.name, g.ranks);
        if (!p.trace.events().empty()) {
            begin_ns = std::min(begin_ns, p.trace.begin_ns());
            end_ns = std::max(end_ns, p.trace.end_ns());
        }
    }

    // Why p is not a rank of this run; "" when it can be.
    std::string conflict(const ImportedTrace& p, const std::vector<std::string>& paths) const {
        if (p.world_size >= 0 && world_size >= 0 && p.world_size != world_size)
            return "world size " + std::to_string(p.world_size) + ", not " + std::to_string(world_size);
        if (!p.backend.empty() && !backend.empty() && p.backend != backend)
            return "backend " + p.backend + ", not " + backend;
        for (const ProcessGroup& g : p.process_groups)
            if (const auto it = groups.find(g.name); it != groups.end() && it->second != g.ranks)
                return "process group '" + g.name + "' holds ranks " + ranks_text(g.ranks) + ", not " +
                       ranks_text(it->second);
        if (!p.trace.events().empty() && begin_ns <= end_ns) {
            const int64_t gap = std::max(p.trace.begin_ns() - end_ns, begin_ns - p.trace.end_ns());
            if (gap > kSameRunClockGapNs)
                return "its events lie " + gap_text(gap) + " from the others' (another clock, or another recording)";
        }
        if (p.rank >= 0 && ranks.count(p.rank))
            return "rank " + std::to_string(p.rank) + " is already " + file_name(paths[ranks.at(p.rank)]);
        return "";
    }
};

// "0-3, 7" for a sorted list of ranks.
std::string ranks_text(const std::vector<int32_t>& ranks) {
    std::vector<int32_t> r = ranks;
    std::sort(r.begin(), r.end());
    std::string out;
    for (size_t i = 0; i < r.size();) {
        size_t j = i;
        while (j + 1 < r.size() && r[j + 1] == r[j] + 1) ++j;
        out += (out.empty() ? "" : ", ") + std::to_string(r[i]) +
               (j > i + 1    ? "-" + std::to_string(r[j])
                : j == i + 1 ? ", " + std::to_string(r[j])
                             : "");
        i = j + 1;
    }
    return "[" + out + "]";
}

std::string label_of(const RunSoFar& s) {
    if (!s.run.ranked) return std::to_string(s.run.files.size()) + " file(s) that say no rank (no distributedInfo)";
    std::vector<int32_t> ranks;
    for (const auto& [r, file] : s.ranks) ranks.push_back(r);
    std::string text = std::string(ranks.size() == 1 ? "rank " : "ranks ") + ranks_text(ranks).substr(1);
    text.pop_back();
    if (s.world_size >= 0) text += " of " + std::to_string(s.world_size);
    if (!s.backend.empty()) text += " (" + s.backend + ")";
    return text;
}

}  // namespace

std::vector<RankRun> group_rank_files(const std::vector<ImportedTrace>& parts, const std::vector<std::string>& paths) {
    std::vector<RunSoFar> runs;
    RunSoFar unranked;
    unranked.run.ranked = false;
    const bool any_rank = std::any_of(parts.begin(), parts.end(), [](const ImportedTrace& p) { return p.rank >= 0; });
    for (size_t i = 0; i < parts.size(); ++i) {
        const ImportedTrace& p = parts[i];
        if (p.rank < 0 && any_rank) {  // beside ranks, a file that says none is no rank of theirs
            unranked.add(i, p);
            continue;
        }
        std::string why;
        RunSoFar* home = nullptr;
        for (RunSoFar& r : runs) {
            const std::string c = r.conflict(p, paths);
            if (c.empty()) {
                home = &r;
                break;
            }
            if (why.empty()) why = c;
        }
        if (!home) {
            runs.emplace_back();
            runs.back().run.ranked = p.rank >= 0;
            runs.back().run.why_apart = why;
            home = &runs.back();
        }
        home->add(i, p);
    }
    if (!unranked.run.files.empty()) {
        unranked.run.why_apart = "they say no rank (no distributedInfo), the others do";
        runs.push_back(std::move(unranked));
    }
    std::vector<RankRun> out;
    for (RunSoFar& r : runs) {
        r.run.label = label_of(r);
        out.push_back(std::move(r.run));
    }
    return out;
}

std::string mixed_runs_message(const std::vector<RankRun>& runs, const std::vector<std::string>& paths) {
    size_t files = 0;
    for (const RankRun& r : runs) files += r.files.size();
    std::string out = "the " + std::to_string(files) + " traces are not the ranks of one run; they make " +
                      std::to_string(runs.size()) + ":";
    for (const RankRun& r : runs) {
        out += "\n  " + r.label + ":";
        size_t shown = 0;
        for (size_t i : r.files) {
            if (shown++ == 8) {
                out += " ... (" + std::to_string(r.files.size() - 8) + " more)";
                break;
            }
            out += " " + paths[i];
        }
        if (!r.why_apart.empty()) out += "\n    not one run with the first: " + r.why_apart;
    }
    out += "\nOpen one run's files, or open them as separate runs";
    return out;
}

namespace {

// What the run's files say of each other, for ImportNotes::run.
std::vector<std::string> run_notes(const std::vector<ImportedTrace>& parts, const std::vector<std::string>& paths,
                                   bool ranked) {
    std::vector<std::string> notes;
    if (!ranked) {
        notes.push_back("none of the " + std::to_string(parts.size()) +
                        " files says its rank (no distributedInfo): numbered 0-" + std::to_string(parts.size() - 1) +
                        " in the order given");
        return notes;
    }
    int world = -1;
    std::vector<int32_t> ranks;
    for (const ImportedTrace& p : parts) {
        world = std::max(world, p.world_size);
        ranks.push_back(p.rank);
    }
    if (world > int(ranks.size())) {
        std::vector<int32_t> missing;
        std::set<int32_t> have(ranks.begin(), ranks.end());
        for (int32_t r = 0; r < world; ++r)
            if (!have.count(r)) missing.push_back(r);
        notes.push_back(std::to_string(ranks.size()) + " of the run's " + std::to_string(world) +
                        " ranks are in the files; missing " + ranks_text(missing) +
                        ": what joins the ranks (collectives, their waits) is measured over these");
    }
    auto lacking = [&](const char* what, auto&& lacks) {
        std::vector<std::string> names;
        size_t have = 0;
        for (size_t i = 0; i < parts.size(); ++i)
            (lacks(parts[i]) ? names.push_back(file_name(paths[i])) : void(++have));
        if (have == 0 || names.empty()) return;
        std::string list;
        for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
        notes.push_back(list + (names.size() == 1 ? " does" : " do") + " not say " + what + " (the other files do)");
    };
    lacking("the world size", [](const ImportedTrace& p) { return p.world_size < 0; });
    lacking("the backend", [](const ImportedTrace& p) { return p.backend.empty(); });
    lacking("its process groups (pg_config)", [](const ImportedTrace& p) { return p.process_groups.empty(); });
    return notes;
}

}  // namespace

ImportedTrace merge_ranks(std::vector<ImportedTrace> parts, const std::vector<std::string>& paths) {
    const bool ranked = std::all_of(parts.begin(), parts.end(), [](const ImportedTrace& p) { return p.rank >= 0; });
    ImportedTrace out;
    out.notes.run = run_notes(parts, paths, ranked);
    std::vector<std::vector<TraceEvent>> events;  // each part's, in its own order and nesting
    std::vector<MemoryEvent> memory;
    size_t total_memory = 0;
    for (const ImportedTrace& p : parts) total_memory += p.trace.memory().size();
    memory.reserve(total_memory);
    bool one_rank_each = true;  // no part holds several ranks: each part's nesting stays as it is
    TraceMeta meta;
    meta.origin_ns = INT64_MAX;
    std::map<std::string, std::vector<std::string>>
        part_notes;  // a file's own notes (a summary's): the files that say each
    for (size_t i = 0; i < parts.size(); ++i) {
        ImportedTrace& p = parts[i];
        const int32_t rank = ranked ? p.rank : int32_t(i);
        meta.ranks.push_back(rank);
        meta.origin_ns = std::min(meta.origin_ns, p.trace.meta().origin_ns);
        const TraceMeta& part_meta = p.trace.meta();  // take() leaves the meta
        auto [part_events, part_memory] = std::move(p.trace).take();
        for (TraceEvent& e : part_events) {
            one_rank_each = one_rank_each && e.rank == part_events.front().rank;
            e.rank = rank;
        }
        events.push_back(std::move(part_events));
        for (MemoryEvent& m : part_memory) {
            m.rank = rank;
            memory.push_back(m);
        }
        for (const auto& [tid, name] : part_meta.thread_names) meta.thread_names.emplace(tid, name);
        for (const auto& [tid, name] : part_meta.stream_names) meta.stream_names.emplace(tid, name);
        for (const auto& [pid, name] : part_meta.process_names) meta.process_names.emplace(pid, name);
        for (const auto& [tid, pid] : part_meta.thread_process) meta.thread_process.emplace(tid, pid);
        for (const ProcessGroup& g : p.process_groups)
            if (std::none_of(meta.process_groups.begin(), meta.process_groups.end(),
                             [&g](const ProcessGroup& x) { return x.name == g.name; }))
                meta.process_groups.push_back(g);
        meta.legacy_device_spans = meta.legacy_device_spans || part_meta.legacy_device_spans;
        for (const auto& [cat, n] : p.categories) out.categories[cat] += n;
        out.flow_events += p.flow_events;
        out.counter_events += p.counter_events;
        out.metadata_events += p.metadata_events;
        out.instant_events += p.instant_events;
        out.notes.skipped_events += p.notes.skipped_events;
        out.notes.negative_durations += p.notes.negative_durations;
        for (auto& w : p.notes.warnings) out.notes.warnings.push_back(paths[i] + ": " + w);
        for (const std::string& n : p.notes.run) part_notes[n].push_back(file_name(paths[i]));
        out.bytes_read += p.bytes_read;
        out.world_size = std::max(out.world_size, p.world_size);
        if (out.backend.empty()) out.backend = p.backend;
        out.has_base_time = out.has_base_time || p.has_base_time;
        if (out.devices.empty()) out.devices = p.devices;
        if (out.header.empty()) out.header = p.header;
        if (out.extra.is_null()) out.extra = p.extra;
    }
    for (const auto& [note, files] : part_notes) out.notes.run.push_back(files_text(files) + ": " + note);
    std::sort(meta.ranks.begin(), meta.ranks.end());
    meta.world_size = out.world_size;
    meta.backend = out.backend;
    out.process_groups = meta.process_groups;
    meta.source = paths.front();
    out.trace_name = std::to_string(parts.size()) + " ranks of one run";
    if (one_rank_each) {
        out.trace = Trace::merge(std::move(events), std::move(memory), std::move(meta));
    } else {  // a file of several ranks (a run saved whole) given as one rank: its threads nest together now
        std::vector<TraceEvent> all;
        size_t total = 0;
        for (const auto& part : events) total += part.size();
        all.reserve(total);
        for (auto& part : events) {
            std::move(part.begin(), part.end(), std::back_inserter(all));
            std::vector<TraceEvent>().swap(part);
        }
        out.trace = Trace::build(std::move(all), std::move(memory), std::move(meta));
    }
    return out;
}

}  // namespace awb::trace_io
