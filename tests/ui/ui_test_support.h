// Helpers shared by the Qt test classes (tests/ui/test_ui*.cpp): closing failure message boxes,
// opening a file in the main window and waiting for it, hand-made operator rows, a tiny spec, and a
// profile stopped after a given step.
#pragma once

#include <QApplication>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

#include <memory>
#include <optional>

#include "engine_worker.h"
#include "main_window.h"
#include "model/operator_row.h"
#include "model/profile_options.h"
#include "model/profile_result.h"
#include "model/run_spec.h"

namespace awb::ui::test {

// A failure shows one message box; offscreen it would block the test: the timer closes each as it appears.
inline void close_message_boxes(QTimer& closer) {
    QObject::connect(&closer, &QTimer::timeout, [] {
        for (QWidget* w : QApplication::topLevelWidgets())
            if (w->inherits("QMessageBox")) w->close();
    });
    closer.start(100);
}

// File > Open reads on the engine thread: waits until the file has been read and the window has
// shown it (its queued slot ran). False when the window refused it or it did not open in time.
inline bool open_and_wait(MainWindow& window, const QString& path) {
    QSignalSpy opened(window.engine(), &EngineThread::resultsOpened);
    if (!window.openFile(path)) return false;
    if (opened.isEmpty() && !opened.wait(60'000)) return false;
    QCoreApplication::processEvents();
    return true;
}

inline OperatorRow row(const char* name, int64_t calls, int64_t self_ns, int64_t mem = 0) {
    OperatorRow r;
    r.name = name;
    r.calls = calls;
    r.self_cpu_ns = self_ns;
    r.cpu_total_ns = self_ns * 2;
    r.cpu_memory_bytes = mem;
    return r;
}

inline RunSpec tiny_spec() {
    RunSpec s;
    s.batch = 1;
    s.heads = s.kv_heads = 2;
    s.seq_q = s.seq_k = 32;
    s.head_dim = 16;
    s.threads = 1;
    return s;
}

// Profiles tiny_spec at N = 256 with `warmup` then `active` steps and presses Stop on the engine thread
// right after step stop_after (where a click between steps lands): the run delivered, null when the
// job was cancelled instead, nothing when it did not end within 2 minutes.
inline std::optional<std::shared_ptr<const ProfileResult>> stop_profile_after(int warmup, int active, int stop_after) {
    EngineThread engine;
    QSignalSpy cancelled(&engine, &EngineThread::cancelled);
    QSignalSpy done(&engine, &EngineThread::profileFinished);
    ProfileOptions options;
    options.wait = 0;
    options.warmup = warmup;
    options.active = active;
    RunSpec s = tiny_spec();
    s.seq_q = s.seq_k = 256;
    QObject::connect(
        engine.worker(), &EngineWorker::progress, engine.worker(),
        [&engine, stop_after](int step) {
            if (step == stop_after) engine.cancel();
        },
        Qt::DirectConnection);
    engine.profile(s, options);
    if (!QTest::qWaitFor([&] { return !cancelled.isEmpty() || !done.isEmpty(); }, 120'000)) return std::nullopt;
    return done.isEmpty() ? nullptr : done.at(0).at(0).value<std::shared_ptr<const ProfileResult>>();
}

}  // namespace awb::ui::test
