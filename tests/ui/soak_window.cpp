// Window soak benchmark: 50 rounds (offscreen) of what a session does with the workbench:
// open a window, run a profile and press Stop while it records, run another to the end, open a trace,
// compare the three runs, export the run on screen (chrome trace, profile report, HTML report) and
// close the window. Prints resident memory, file descriptors and threads per round and whether, after
// the first rounds (the first 10%: fonts, caches, thread pools), resident memory grows at most 5% and
// no descriptor or thread is left behind.
// Usage: QT_QPA_PLATFORM=offscreen awb_window_soak TRACE [ROUNDS]; exit 1 when a goal fails.
#include <QApplication>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "engine/process_tuning.h"
#include "engine_worker.h"
#include "main_window.h"
#include "process_sample.h"
#include "run_panel.h"
#include "session.h"

using namespace awb;
using namespace awb::ui;

namespace {

using Sample = test::ProcessSample;
Sample sample() { return test::process_sample(); }

[[noreturn]] void fail(const char* what, int round) {
    std::fprintf(stderr, "awb_window_soak: round %d: %s\n", round, what);
    std::exit(2);
}

void one_round(const QString& trace, const QString& out, int round) {
    auto* w = new MainWindow;
    w->show();
    RunSpec spec;
    spec.batch = 1;
    spec.heads = 2;
    spec.kv_heads = 2;
    spec.seq_q = spec.seq_k = 128;
    spec.head_dim = 16;
    spec.threads = 1;
    ProfileOptions many;
    many.wait = 0;
    many.warmup = 0;
    many.active = 200;
    // Stop while recording: pressed on the engine thread right after step 3.
    QObject::connect(
        w->engine()->worker(), &EngineWorker::progress, w->engine()->worker(),
        [w](int step, int total) {
            if (total == 200 && step == 3) w->engine()->cancel();
        },
        Qt::DirectConnection);
    emit w->runPanel()->runRequested(spec, many);
    if (!QTest::qWaitFor([w] { return w->session()->runs().size() == 1; }, 60'000))
        fail("the stopped run never showed", round);
    spec.variant = "sdpa";
    emit w->runPanel()->runRequested(spec, ProfileOptions{});
    if (!QTest::qWaitFor([w] { return w->session()->runs().size() == 2; }, 60'000))
        fail("the second run never showed", round);
    if (!w->openFile(trace) || !QTest::qWaitFor([w] { return w->session()->runs().size() == 3; }, 60'000))
        fail("the trace never opened", round);
    QApplication::processEvents();  // the comparison and the other views follow the session
    QString error;
    if (!w->exportTrace(out + QStringLiteral("/t.json"), &error) ||
        !w->exportReport(out + QStringLiteral("/r.json"), &error) ||
        !w->exportHtmlReport(out + QStringLiteral("/r.html"), &error))
        fail(qPrintable(error), round);
    QTest::qWait(50);  // a large trace's HTML report is written on the pool
    w->close();
    delete w;
    QApplication::processEvents();
}

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: awb_window_soak TRACE [ROUNDS]\n");
        return 2;
    }
    std::printf("allocator: %s\n", tune_allocator_for_steady_state().c_str());
    const QString trace = QString::fromLocal8Bit(argv[1]);
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 50;
    const int settle = std::max(1, rounds / 10);
    QTemporaryDir out;
    Sample base{};
    std::printf("%7s %10s %5s %8s\n", "round", "RSS MiB", "fds", "threads");
    for (int i = 1; i <= rounds; ++i) {
        one_round(trace, out.path(), i);
        const Sample s = sample();
        if (i == settle) base = s;
        if (i == settle || i % 10 == 0 || i == rounds)
            std::printf("%7d %10.1f %5d %8d\n", i, s.rss_mib, s.fds, s.threads);
    }
    const Sample end = sample();
    const double growth = (end.rss_mib - base.rss_mib) / base.rss_mib;
    const bool ok = growth <= 0.05 && end.fds <= base.fds && end.threads <= base.threads;
    std::printf("window soak: RSS %+.1f%% from round %d to %d (goal <= 5%%), fds %+d, threads %+d: %s\n", 100 * growth,
                settle, rounds, end.fds - base.fds, end.threads - base.threads, ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
