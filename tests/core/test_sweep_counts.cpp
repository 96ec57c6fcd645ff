// A sweep's count of points and its refused fits read the same in every place that prints them: the
// CLI's text, the HTML report (and the GUI, tests/ui/test_ui_workspace.cpp): measured points out of
// the planned ones, what became of the rest, and "no fit: 2 points (a fit needs 3)" instead of an
// exponent with R^2 1.000 and an interval.
#include <gtest/gtest.h>

#include "analysis/results_text.h"
#include "analysis/sweep_analysis.h"
#include "report/report_html.h"

using namespace awb;

namespace {

SweepPoint point(const char* variant, int64_t n, PointStatus status = PointStatus::Ok) {
    SweepPoint p;
    p.spec.variant = variant;
    p.spec.seq_q = p.spec.seq_k = n;
    p.status = status;
    p.bench.spec = p.spec;
    const double x = double(n);
    p.bench.timing = {5, 1, x * x, 0.9 * x * x, 1.1 * x * x, 0.9 * x * x, 1.1 * x * x, x * x};
    p.bench.samples_ns = {0.9 * x * x, x * x, 1.1 * x * x, x * x, 0.95 * x * x};
    p.bench.peak_bytes = int64_t(8 * x * x);
    if (status != PointStatus::Ok) p.reason = "out of memory";
    return p;
}

// 12 planned: manual at 3 lengths, sdpa at 2, then one point out of memory; the rest never ran.
SweepResult stopped_sweep() {
    SweepResult r;
    r.planned_points = 12;
    for (int64_t n : {128, 256, 512}) r.points.push_back(point("manual", n));
    for (int64_t n : {128, 256}) r.points.push_back(point("sdpa", n));
    r.points.push_back(point("sdpa", 512, PointStatus::Failed));
    r.stopped_early = true;
    return r;
}

}  // namespace

TEST(SweepCounts, OneCountOfMeasuredPointsAndTheRest) {
    SweepResult r = stopped_sweep();
    EXPECT_EQ(sweep_count_text(r), "5 of 12 planned points measured; 1 failed, 6 not run, stopped early");
    r.points.push_back(point("manual", 1024, PointStatus::Refused));
    r.points.push_back(point("manual", 2048, PointStatus::Cancelled));
    r.stopped_early = false;
    EXPECT_EQ(sweep_count_text(r), "5 of 12 planned points measured; 1 failed, 1 refused, 1 cancelled, 4 not run");
    SweepResult whole;
    whole.planned_points = 2;
    whole.points = {point("manual", 128), point("manual", 256)};
    EXPECT_EQ(sweep_count_text(whole), "2 of 2 planned points measured");
}

TEST(SweepCounts, FitsOfFewerThanThreePointsAreRefusedEverywhere) {
    const SweepResult r = stopped_sweep();
    const SweepAnalysis a = analyze_sweep(r);
    int refused = 0, fitted = 0;
    for (const SeriesFit& f : a.fits) {
        const bool sdpa = f.series.rfind("sdpa", 0) == 0;
        EXPECT_EQ(f.fit.valid, !sdpa) << f.series << " " << f.metric;
        EXPECT_FALSE(sdpa && f.exponent_interval.valid);  // no interval of a fit that is not there
        (sdpa ? refused : fitted) += 1;
    }
    EXPECT_EQ(refused, 2);  // time and memory
    EXPECT_EQ(fitted, 2);
    const std::string text = format_analysis(a);
    EXPECT_NE(text.find("sdpa float32 2x8xNx64 train"), std::string::npos) << text;
    size_t refusals = 0;
    for (size_t at = text.find("no fit: 2 points (a fit needs 3)"); at != std::string::npos;
         at = text.find("no fit: 2 points (a fit needs 3)", at + 1))
        ++refusals;
    EXPECT_EQ(refusals, 2u) << text;
    for (size_t at = text.find("  ", 0), end; at != std::string::npos; at = text.find("\n  ", end)) {
        end = text.find('\n', at + 1);
        const std::string line = text.substr(at, end - at);
        if (line.find("sdpa") == std::string::npos) continue;
        EXPECT_EQ(line.find("k ="), std::string::npos) << line;  // no exponent, no r^2, no interval
        EXPECT_EQ(line.find("r^2"), std::string::npos) << line;
    }
    ReportInput in;
    in.sweep = &r;
    const SweepAnalysis analysis = analyze_sweep(r);
    in.sweep_analysis = &analysis;
    const std::string html = html_report(in);
    EXPECT_NE(html.find("5 of 12 planned points measured; 1 failed, 6 not run, stopped early"), std::string::npos);
    EXPECT_NE(html.find("no fit: 2 points (a fit needs 3)"), std::string::npos);
}
