// Screenshots of the main views with real data, for the README and docs/: profiles the article's workload
// (manual attention, (2, 8, 512, 64), train), shows it in the main window, zooms the timeline to one
// recorded step, selects aten::softmax in the operator table, runs a short sweep for the charts, and
// grabs the window and the views.
// Usage: QT_QPA_PLATFORM=offscreen awb_screenshots OUT_DIR   (scripts/screenshots.sh)
#include <QApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QDockWidget>
#include <QTimer>
#include <QEventLoop>
#include <QDir>
#include <QTabWidget>
#include <QItemSelectionModel>
#include <QMouseEvent>
#include <QTableView>
#include <QVBoxLayout>

#include <cstdio>

#include "collectives_view.h"
#include "ranks_view.h"
#include "comparison_view.h"
#include "engine/process_tuning.h"
#include "engine/sweep_runner.h"
#include "model/sweep_merge.h"
#include "engine_worker.h"
#include "findings_view.h"
#include "io/trace_import.h"
#include "kernel_panel.h"
#include "attention_view.h"
#include "gpu_time_view.h"
#include "main_window.h"
#include "memory_snapshot_view.h"
#include "session.h"
#include "operator_panel.h"
#include "operator_table_model.h"
#include "sweep_chart.h"
#include <qcustomplot.h>
#include "timeline_view.h"

using namespace awb;

// File > Open of path, waiting until the engine thread has read it and the views have settled.
// Selects the operator NAME in the Operators panel (what the Memory snapshot's Operators page follows).
bool select_operator(ui::MainWindow& window, const QString& name) {
    QTableView* operators = window.operatorPanel()->view();
    const QModelIndexList found =
        operators->model()->match(operators->model()->index(0, 0), Qt::DisplayRole, name, 1, Qt::MatchExactly);
    if (found.isEmpty()) return false;
    operators->selectionModel()->setCurrentIndex(found.front(),
                                                 QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    for (int i = 0; i < 5; ++i) QApplication::processEvents();
    return true;
}

bool open_and_wait(ui::MainWindow& window, const QString& path) {
    QEventLoop loop;
    QObject::connect(window.engine(), &ui::EngineThread::resultsOpened, &loop, &QEventLoop::quit, Qt::QueuedConnection);
    QTimer::singleShot(60'000, &loop, &QEventLoop::quit);
    if (!window.openFile(path)) return false;
    loop.exec();
    for (int i = 0; i < 5; ++i) QApplication::processEvents();
    return true;
}

int main(int argc, char** argv) {
    awb::tune_allocator_for_steady_state();  // as attention-workbench does at start-up
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("AttentionWorkbenchScreenshots"));
    const QString out = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QStringLiteral("resources/screenshots");
    QDir().mkpath(out);
    ui::MainWindow window;
    window.resize(1600, 1000);
    window.show();
    for (int i = 0; i < 3; ++i) QApplication::processEvents();
    RunSpec spec;  // the article's workload
    ProfileOptions options;
    const auto result = std::make_shared<const ProfileResult>(profile_run(spec, options));
    window.showResult(result);
    // Zoom to the first recorded step: ProfilerStep#2 under the default schedule.
    for (const auto& e : result->trace.events())
        if (e.name == "ProfilerStep#2") {
            const int64_t pad = (e.end_ns - e.start_ns) / 50;
            window.timeline()->setView({e.start_ns - pad, e.end_ns + pad, 1});
            break;
        }
    auto* table = window.operatorPanel()->view();
    auto* proxy = window.operatorPanel()->proxy();
    for (int r = 0; r < proxy->rowCount(); ++r)
        if (proxy->index(r, ui::OperatorTableModel::column(OpColumn::Name)).data().toString() ==
            QStringLiteral("aten::softmax")) {
            table->selectionModel()->setCurrentIndex(proxy->index(r, 0),
                                                     QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            break;
        }
    // manual vs sdpa side by side (the main window keeps the manual run shown above).
    RunSpec sdpa_spec = spec;
    sdpa_spec.variant = "sdpa";
    {
        ui::ComparisonView view;
        view.resize(1400, 900);
        view.setRuns({{QStringLiteral("#1 manual 2x8x512x64 float32 train"), result, nullptr},
                      {QStringLiteral("#2 sdpa 2x8x512x64 float32 train"),
                       std::make_shared<const ProfileResult>(profile_run(sdpa_spec, options)), nullptr}});
        view.show();
        QApplication::processEvents();
        if (!view.grab().save(out + QStringLiteral("/comparison.png"))) return 1;
    }
    // A sweep over N with the three variants, (1, 4, N, 64) train, profiler off.
    SweepPlan plan;
    plan.base.batch = 1;
    plan.base.heads = plan.base.kv_heads = 4;
    plan.seq_lengths = {256, 512, 1024, 2048};
    plan.variants = {"manual", "sdpa", "chunked"};
    plan.bench.warmup = 1;
    plan.bench.budget_s = 0.3;
    plan.bench.min_repeats = 5;
    const SweepResult sweep = run_sweep(plan);
    window.session()->addSweep(sweep, QStringLiteral("sweep"));
    QApplication::processEvents();
    // The window's chart is as small as its dock; docs/gui.md shows it at a readable size.
    ui::SweepChart big;
    big.resize(900, 560);
    big.addSweep(sweep);
    big.show();
    QApplication::processEvents();
    ui::SweepChart* chart = &big;
    chart->setMetric(ui::SweepChart::Metric::MedianTime);
    bool charts = chart->grab().save(out + QStringLiteral("/sweep-time.png"));
    chart->setMetric(ui::SweepChart::Metric::PeakMemory);
    charts = charts && chart->grab().save(out + QStringLiteral("/sweep-memory.png"));
    chart->setMetric(ui::SweepChart::Metric::Roofline);
    charts = charts && chart->grab().save(out + QStringLiteral("/sweep-roofline.png"));
    // The same sweep run as two shards (as attnwb sweep --shard K/2 would), merged (attnwb merge), the
    // mouse on a point: the read-out names where it ran.
    std::vector<ShardFile> shards;
    for (int k = 0; k < 2; ++k)
        shards.push_back(
            {"sweep-" + std::to_string(k) + "-of-2.json", run_sweep(plan, nullptr, SweepShard{k, 2, "--shard"})});
    const MergeOutcome merged = merge_shards(shards);
    if (!merged.problems.empty()) return 1;
    chart->setSweeps(
        {ui::labelled_sweep(QStringLiteral("merged"), std::make_shared<const SweepResult>(merged.merged))});
    chart->setMetric(ui::SweepChart::Metric::MedianTime);
    QApplication::processEvents();
    {
        const QCPGraph* g = chart->plot()->graph(1);
        const auto point = g->data()->at(2);
        const QPointF at(chart->plot()->xAxis->coordToPixel(point->key),
                         chart->plot()->yAxis->coordToPixel(point->value));
        QMouseEvent move(QEvent::MouseMove, at, chart->plot()->mapToGlobal(at), Qt::NoButton, Qt::NoButton,
                         Qt::NoModifier);
        QApplication::sendEvent(chart->plot(), &move);
        QApplication::processEvents();
    }
    charts = charts && chart->grab().save(out + QStringLiteral("/sweep-merged.png"));
    big.hide();
    // The article's shape at three lengths, profiler off: the run's re-measurement for the checklist.
    SweepPlan article;
    article.seq_lengths = {256, 512, 1024};
    article.variants = {"manual"};
    article.bench.warmup = 1;
    article.bench.budget_s = 0.2;
    article.bench.min_repeats = 3;
    window.session()->addSweep(run_sweep(article), QStringLiteral("article shape"));  // the findings follow
    QApplication::processEvents();
    window.findings()->resize(1100, 760);
    const bool ok = charts && window.grab().save(out + QStringLiteral("/main-window.png")) &&
                    window.findings()->grab().save(out + QStringLiteral("/findings.png")) &&
                    window.timeline()->grab().save(out + QStringLiteral("/timeline.png")) &&
                    window.operatorPanel()->grab().save(out + QStringLiteral("/operator-table.png"));
    // The same window on a small screen (1000x700): docks, tables and timeline keep their places.
    window.resize(1000, 700);
    for (int i = 0; i < 3; ++i) QApplication::processEvents();
    const bool small =
        window.size() == QSize(1000, 700) && window.grab().save(out + QStringLiteral("/main-window-1000x700.png"));
    window.resize(1600, 1000);
    QApplication::processEvents();
    // A Kineto GPU trace (the hand-made 2.x fixture: no GPU on this machine): CPU threads and CUDA streams
    // named from the trace's metadata, aten::matmul selected with arrows to its kernels, the kernel table.
    bool gpu = false;
    try {
        const auto imported =
            std::make_shared<const ImportedTrace>(import_chrome_trace("tests/fixtures/traces/kineto_gpu_2x.json"));
        QWidget page;
        auto* layout = new QVBoxLayout(&page);
        auto* timeline = new ui::TimelineView;
        auto* kernels = new ui::KernelPanel;
        layout->addWidget(timeline, 3);
        layout->addWidget(kernels, 2);
        page.resize(1400, 820);
        page.show();
        QApplication::processEvents();
        timeline->setData(std::make_shared<const ui::TimelineData>(ui::TimelineData::from_trace(imported->trace)),
                          std::shared_ptr<const Trace>(imported, &imported->trace), replay_memory(imported->trace));
        kernels->setRows(kernel_table(imported->trace));
        const auto& events = imported->trace.events();
        for (int i = 0; i < int(events.size()); ++i)
            if (events[size_t(i)].name == "aten::matmul") {
                const int64_t pad = 60000;
                timeline->setView({events[size_t(i)].start_ns - pad, events[size_t(i)].end_ns + 3 * pad, 1});
                timeline->selectEvent(i);
                break;
            }
        QApplication::processEvents();
        gpu = page.grab().save(out + QStringLiteral("/gpu-trace.png"));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpu-trace.png: %s\n", e.what());
    }
    // The same GPU trace opened in the main window at 1600x1000 (File > Open): lanes per thread and
    // stream, a memory track per device, operators with their CUDA columns.
    window.resize(1600, 1000);
    const bool gpu_window = open_and_wait(window, QStringLiteral("tests/fixtures/traces/kineto_gpu_2x.json")) &&
                            window.grab().save(out + QStringLiteral("/gpu-trace-window.png"));
    // The GPU time breakdown of the two-rank fixture (File > Open of its folder): a bar per rank and step.
    bool gpu_time = false;
    if (open_and_wait(window, QStringLiteral("tests/fixtures/traces/multi_rank"))) {
        ui::GpuTimeView view;  // the tab's rows, at a size that shows chart and table together
        view.setRows(window.gpuTime()->model()->rows());
        view.resize(1200, 560);
        view.show();
        for (int i = 0; i < 5; ++i) QApplication::processEvents();
        gpu_time = window.gpuTime()->barCount() == 2 && view.grab().save(out + QStringLiteral("/gpu-time.png"));
    }
    // The Attention tab of PyTorch 2.11's trace of sdpa training (CPU flash forward and backward): the
    // second call selected, the timeline zoomed to it.
    bool attention = false;
    if (open_and_wait(window, QStringLiteral("tests/fixtures/traces/torch2/sdpa_train_stack.pt.trace.json.gz"))) {
        for (auto* dock : window.findChildren<QDockWidget*>())
            if (dock->objectName() == QStringLiteral("attention")) dock->raise();
        for (int i = 0; i < 5; ++i) QApplication::processEvents();
        window.attention()->table()->selectRow(1);
        for (int i = 0; i < 5; ++i) QApplication::processEvents();
        attention =
            window.attention()->model()->rowCount() == 4 && window.grab().save(out + QStringLiteral("/attention.png"));
    }
    // An inference engine's trace: xDiT's Flux (replay and capture_traces/, File > Open of the folder), its
    // SAGE attention replayed from CUDA graphs and attributed to the captured ops, at 1600x1000 and
    // 1000x700. The public traces when they are beside the repository, else the fixture cut from them.
    bool engines = false;
    const QString xdit = QFileInfo::exists(QStringLiteral("../shared/public-traces/tracelens/xdit_flux.1_aiter_sage"))
                             ? QStringLiteral("../shared/public-traces/tracelens/xdit_flux.1_aiter_sage")
                             : QStringLiteral("tests/fixtures/traces/graph_replay/xdit");
    if (open_and_wait(window, xdit)) {
        // A large trace is analysed off the GUI thread after it is read: wait for its calls.
        QElapsedTimer waited;
        waited.start();
        while (waited.elapsed() < 60'000 && window.attention()->model()->rowCount() <= 4)
            QApplication::processEvents(QEventLoop::AllEvents, 50);
        for (auto* dock : window.findChildren<QDockWidget*>())
            if (dock->objectName() == QStringLiteral("attention")) dock->raise();
        for (int i = 0; i < 5; ++i) QApplication::processEvents();
        window.attention()->table()->sortByColumn(ui::AttentionTableModel::column(AttentionColumn::Backend),
                                                  Qt::AscendingOrder);  // "SAGE attention" first
        window.attention()->table()->selectRow(0);
        for (int i = 0; i < 5; ++i) QApplication::processEvents();
        engines = window.attention()->model()->rowCount() > 0 &&
                  window.grab().save(out + QStringLiteral("/attention-engines.png"));
        window.resize(1000, 700);
        for (int i = 0; i < 5; ++i) QApplication::processEvents();
        engines = engines && window.grab().save(out + QStringLiteral("/attention-engines-1000x700.png"));
        window.resize(1600, 1000);
    }
    // The allocator's totals on a memory track (SGLang's decode on MI300X: 141 GiB allocated,
    // reserved above it), kernel names demangled and elided by what differs (HTA's A100 run with cuDNN's
    // CUTLASS convolutions), and a comparison with its verdict (HTA's A100 and V100 steps), each at
    // 1600x1000; the comparison at 1000x700 too.
    auto raise = [&window](const char* name) {
        window.findChild<QDockWidget*>(QString::fromLatin1(name))->raise();
        for (int i = 0; i < 5; ++i) QApplication::processEvents();
    };
    const bool memory =
        open_and_wait(window, QStringLiteral("tests/fixtures/traces/memory_totals/sglang_decode_memory.json")) &&
        window.grab().save(out + QStringLiteral("/memory-totals.png"));
    bool names = open_and_wait(window, QStringLiteral("tests/fixtures/traces/kernel_names/a100_nccl_kernels.json.gz"));
    if (names) {
        raise("kernels");
        names = window.grab().save(out + QStringLiteral("/kernel-names.png"));
    }
    bool verdict = open_and_wait(window, QStringLiteral("tests/fixtures/traces/compare/a100_control_steps.json")) &&
                   open_and_wait(window, QStringLiteral("tests/fixtures/traces/compare/v100_test_steps.json"));
    if (verdict) {
        raise("compare");
        verdict = window.grab().save(out + QStringLiteral("/compare-verdict.png"));
        window.resize(1000, 700);
        for (int i = 0; i < 5; ++i) QApplication::processEvents();
        verdict = verdict && window.grab().save(out + QStringLiteral("/compare-verdict-1000x700.png"));
        window.resize(1600, 1000);
    }
    // A memory snapshot of a real training step (manual attention: the scores held for the backward), at
    // 1600x1000 and 1000x700.
    bool snapshot =
        open_and_wait(window, QStringLiteral("tests/fixtures/memory_snapshots/transformer_manual.pickle.gz"));
    if (snapshot) {
        raise("memory-snapshot");
        snapshot = window.grab().save(out + QStringLiteral("/memory-snapshot.png"));
        window.resize(1000, 700);
        for (int i = 0; i < 5; ++i) QApplication::processEvents();
        snapshot = snapshot && window.grab().save(out + QStringLiteral("/memory-snapshot-1000x700.png"));
        window.resize(1600, 1000);
    }
    // SDPA's snapshot of the same training step compared with manual's (opened before it): the Compare page.
    bool compare =
        snapshot && open_and_wait(window, QStringLiteral("tests/fixtures/memory_snapshots/transformer_sdpa.pickle.gz"));
    if (compare) {
        raise("memory-snapshot");
        window.memorySnapshot()->tabs()->setCurrentIndex(5);
        for (int i = 0; i < 5; ++i) QApplication::processEvents();
        compare = window.grab().save(out + QStringLiteral("/memory-snapshot-compare.png"));
    }
    // A profile and the snapshot of the same run (the article's manual attention on a CPU), the snapshot's
    // Operators page with aten::matmul selected in the Operators panel: its blocks listed and marked.
    bool linked =
        open_and_wait(window, QStringLiteral("tests/fixtures/memory_snapshots/linked/manual.trace.json.gz")) &&
        open_and_wait(window, QStringLiteral("tests/fixtures/memory_snapshots/linked/manual.pickle"));
    if (linked) {
        raise("memory-snapshot");
        window.memorySnapshot()->tabs()->setCurrentIndex(4);
        const bool found = select_operator(window, QStringLiteral("aten::matmul"));
        linked = found && window.grab().save(out + QStringLiteral("/memory-snapshot-operators.png"));
        window.resize(1000, 700);
        for (int i = 0; i < 5; ++i) QApplication::processEvents();
        linked = linked && window.grab().save(out + QStringLiteral("/memory-snapshot-operators-1000x700.png"));
        window.resize(1600, 1000);
    }
    // A real CUDA run (an H100, tests/fixtures/memory_snapshots/gpu/): attnwb profile's snapshot, C++ stacks,
    // with its trace; the timeline, then the Operators page with aten::bmm selected.
    bool cuda =
        open_and_wait(window, QStringLiteral("tests/fixtures/memory_snapshots/gpu/manual.attnwb.trace.json.gz")) &&
        open_and_wait(window, QStringLiteral("tests/fixtures/memory_snapshots/gpu/manual.attnwb.pickle"));
    if (cuda) {
        raise("memory-snapshot");
        window.memorySnapshot()->tabs()->setCurrentIndex(0);
        for (int i = 0; i < 5; ++i) QApplication::processEvents();
        cuda = window.grab().save(out + QStringLiteral("/memory-snapshot-cuda.png"));
        window.memorySnapshot()->tabs()->setCurrentIndex(4);
        cuda = cuda && select_operator(window, QStringLiteral("aten::bmm")) &&
               window.grab().save(out + QStringLiteral("/memory-snapshot-cuda-operators.png"));
        window.resize(1000, 700);
        for (int i = 0; i < 5; ++i) QApplication::processEvents();
        cuda = cuda && window.grab().save(out + QStringLiteral("/memory-snapshot-cuda-operators-1000x700.png"));
        window.resize(1600, 1000);
    }
    // A real 4-rank gloo run (torch 2.11) whose rank 2 arrives late: the Collectives tab with the collective
    // of the largest skew selected, marked on every rank's lane; at 1600x1000 and 1000x700.
    bool collectives = open_and_wait(window, QStringLiteral("tests/fixtures/traces/gloo/straggler"));
    if (collectives) {
        raise("collectives");
        QTableView* table = window.collectives()->collectivesTable();
        table->selectionModel()->setCurrentIndex(table->model()->index(0, 0),
                                                 QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        for (int i = 0; i < 5; ++i) QApplication::processEvents();
        collectives =
            !window.timeline()->markedEvents().empty() && window.grab().save(out + QStringLiteral("/collectives.png"));
        window.resize(1000, 700);
        for (int i = 0; i < 5; ++i) QApplication::processEvents();
        collectives = collectives && window.grab().save(out + QStringLiteral("/collectives-1000x700.png"));
        window.resize(1600, 1000);
        raise("ranks");
        for (int i = 0; i < 20 && window.ranks()->ranks()->rowCount() == 0; ++i) QApplication::processEvents();
        collectives = collectives && window.ranks()->ranks()->rowCount() == 4 &&
                      window.grab().save(out + QStringLiteral("/ranks.png"));
    }
    const bool all = ok && gpu && small && gpu_window && gpu_time && attention && engines && memory && names &&
                     verdict && snapshot && compare && linked && cuda && collectives;
    std::printf("%s screenshots in %s\n", all ? "wrote" : "FAILED to write", qPrintable(out));
    return all ? 0 : 1;
}
