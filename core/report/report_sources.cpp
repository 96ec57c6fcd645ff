#include "report/report_sources.h"

#include <algorithm>
#include <stdexcept>

#include "results/results_file.h"

namespace awb {

namespace {

template <typename T>
void set_once(std::shared_ptr<const T>& slot, std::shared_ptr<const T> value, const std::string& kind,
              const std::string& path) {
    if (slot)
        throw std::runtime_error("'" + path + "': a second " + kind +
                                 "; a report covers one of each (attnwb diff compares two)");
    slot = std::move(value);
}

// A part of the file, sharing its ownership.
template <typename T>
std::shared_ptr<const T> part(const std::shared_ptr<const ResultsFile>& file, const T& member) {
    return std::shared_ptr<const T>(file, &member);
}

}  // namespace

void add_results(ReportSources& s, std::shared_ptr<const ResultsFile> file) {
    const std::string& path = file->path;
    switch (file->kind) {
        case ResultsKind::Trace: set_once(s.run, part(file, *file->run), "profiled run", path); break;
        case ResultsKind::ProfileReport:  // its run without events, and the profile as written
            set_once(s.run, part(file, *file->run), "profiled run", path);
            s.profile = part(file, *file->report);
            s.run_findings = file->findings;
            break;
        case ResultsKind::Bench: set_once(s.bench, part(file, *file->bench), "benchmark", path); break;
        case ResultsKind::Sweep: set_once(s.sweep, part(file, *file->sweep), "sweep", path); break;
        case ResultsKind::Check: set_once(s.check, part(file, *file->check), "correctness check", path); break;
        case ResultsKind::Workspace:
            throw std::runtime_error(
                "'" + path + "' is a workspace: open it in the workbench, or report on the files it was saved from");
        case ResultsKind::MemorySnapshot:
            set_once(s.snapshot, file->snapshot, "memory snapshot", path);
            s.snapshot_timeline = file->snapshot_timeline;
            s.snapshot_name = path;
            break;
    }
}

void complete_sources(ReportSources& s) {
    if (s.run && !s.profile) {  // a run with its events: a report file brings its own profile
        if (!s.analysis) s.analysis = std::make_shared<const RunAnalysis>(analyze_run(*s.run));
        s.profile = std::make_shared<const ProfileReport>(make_report(*s.run, *s.analysis));
    }
    if (s.sweep && !s.sweep_analysis) s.sweep_analysis = std::make_shared<const SweepAnalysis>(analyze_sweep(*s.sweep));
}

Explanation explain_sources(const ReportSources& s) {
    const Measurements m{s.run.get(), s.bench.get(), s.sweep.get(), s.check.get(), s.analysis.get()};
    if (!s.measured()) return {};
    Explanation explanation = explain(m);
    for (const Finding& f : s.run_findings)  // a report file's own, for the rules that need its events
        if (reads_the_run(f.rule)) explanation.findings.push_back(f);
    std::stable_sort(explanation.findings.begin(), explanation.findings.end(),
                     [](const Finding& a, const Finding& b) { return a.weight > b.weight; });
    return explanation;
}

ReportInput report_input(const ReportSources& s, Explanation explanation) {
    ReportInput in;
    in.profile = s.profile.get();
    in.bench = s.bench.get();
    in.sweep = s.sweep.get();
    in.sweep_analysis = s.sweep_analysis.get();
    in.check = s.check.get();
    if (s.analysis) {  // a trace's: its collectives across ranks
        in.collectives = &s.analysis->collectives;
        in.overlap = &s.analysis->overlap;
    }
    in.snapshot = s.snapshot.get();
    in.snapshot_timeline = s.snapshot_timeline.get();
    in.snapshot_name = s.snapshot_name;
    in.explanation = std::move(explanation);
    return in;
}

}  // namespace awb
