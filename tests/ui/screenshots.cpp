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

// Where the shots go, and the window they are taken of.
struct Shots {
    ui::MainWindow& window;
    QString out;

    static void settle(int turns = 5) {
        for (int i = 0; i < turns; ++i) QApplication::processEvents();
    }
    bool save(QWidget* widget, const char* name) const {
        return widget->grab().save(out + QLatin1Char('/') + QLatin1String(name) + QStringLiteral(".png"));
    }
    // The window at 1600x1000 as NAME.png, and at 1000x700 as NAME-1000x700.png (docks, tables and
    // timeline keep their places on a small screen).
    bool bothSizes(const char* name) const {
        bool ok = save(&window, name);
        window.resize(1000, 700);
        settle();
        ok = ok && window.size() == QSize(1000, 700) && save(&window, (std::string(name) + "-1000x700").c_str());
        window.resize(1600, 1000);
        settle(1);
        return ok;
    }
    void raise(const char* dock) const {
        window.findChild<QDockWidget*>(QString::fromLatin1(dock))->raise();
        settle();
    }
    bool open(const char* path) const { return open_and_wait(window, QString::fromLatin1(path)); }
};

// The article's workload profiled and shown, zoomed to its first recorded step (ProfilerStep#2 under
// the default schedule), aten::softmax selected in the operator table.
std::shared_ptr<const ProfileResult> show_article(ui::MainWindow& window, const RunSpec& spec,
                                                  const ProfileOptions& options) {
    const auto result = std::make_shared<const ProfileResult>(profile_run(spec, options));
    window.showResult(result);
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
    return result;
}

// manual vs sdpa side by side (the main window keeps the manual run shown).
bool comparison_shot(const Shots& shots, std::shared_ptr<const ProfileResult> manual, const RunSpec& spec,
                     const ProfileOptions& options) {
    RunSpec sdpa_spec = spec;
    sdpa_spec.variant = "sdpa";
    ui::ComparisonView view;
    view.resize(1400, 900);
    view.setRuns({{QStringLiteral("#1 manual 2x8x512x64 float32 train"), std::move(manual), nullptr},
                  {QStringLiteral("#2 sdpa 2x8x512x64 float32 train"),
                   std::make_shared<const ProfileResult>(profile_run(sdpa_spec, options)), nullptr}});
    view.show();
    QApplication::processEvents();
    return shots.save(&view, "comparison");
}

// The mouse on the third point of the chart's second curve: the read-out names where it ran.
void hover_point(ui::SweepChart* chart) {
    const QCPGraph* g = chart->plot()->graph(1);
    const auto point = g->data()->at(2);
    const QPointF at(chart->plot()->xAxis->coordToPixel(point->key), chart->plot()->yAxis->coordToPixel(point->value));
    QMouseEvent move(QEvent::MouseMove, at, chart->plot()->mapToGlobal(at), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(chart->plot(), &move);
    QApplication::processEvents();
}

// A sweep over N with the three variants, (1, 4, N, 64) train, profiler off, in the session and its
// charts at a readable size (the window's is as small as its dock); the same sweep run as two shards
// (attnwb sweep --shard K/2) and merged (attnwb merge), a point hovered; then the article's shape at
// three lengths, the run's re-measurement for the checklist.
bool sweep_shots(const Shots& shots) {
    SweepPlan plan;
    plan.base.batch = 1;
    plan.base.heads = plan.base.kv_heads = 4;
    plan.seq_lengths = {256, 512, 1024, 2048};
    plan.variants = {"manual", "sdpa", "chunked"};
    plan.bench.warmup = 1;
    plan.bench.budget_s = 0.3;
    plan.bench.min_repeats = 5;
    const SweepResult sweep = run_sweep(plan);
    shots.window.session()->addSweep(sweep, QStringLiteral("sweep"));
    QApplication::processEvents();
    ui::SweepChart chart;
    chart.resize(900, 560);
    chart.addSweep(sweep);
    chart.show();
    QApplication::processEvents();
    chart.setMetric(ui::SweepChart::Metric::MedianTime);
    bool ok = shots.save(&chart, "sweep-time");
    chart.setMetric(ui::SweepChart::Metric::PeakMemory);
    ok = ok && shots.save(&chart, "sweep-memory");
    chart.setMetric(ui::SweepChart::Metric::Roofline);
    ok = ok && shots.save(&chart, "sweep-roofline");
    std::vector<ShardFile> shards;
    for (int k = 0; k < 2; ++k)
        shards.push_back(
            {"sweep-" + std::to_string(k) + "-of-2.json", run_sweep(plan, nullptr, SweepShard{k, 2, "--shard"})});
    const MergeOutcome merged = merge_shards(shards);
    if (!merged.problems.empty()) return false;
    chart.setSweeps({ui::labelled_sweep(QStringLiteral("merged"), std::make_shared<const SweepResult>(merged.merged))});
    chart.setMetric(ui::SweepChart::Metric::MedianTime);
    QApplication::processEvents();
    hover_point(&chart);
    ok = ok && shots.save(&chart, "sweep-merged");
    chart.hide();
    SweepPlan article;
    article.seq_lengths = {256, 512, 1024};
    article.variants = {"manual"};
    article.bench.warmup = 1;
    article.bench.budget_s = 0.2;
    article.bench.min_repeats = 3;
    shots.window.session()->addSweep(run_sweep(article), QStringLiteral("article shape"));  // the findings follow
    QApplication::processEvents();
    return ok;
}

// The main window and its views with the article's run, at 1600x1000 and 1000x700.
bool window_shots(const Shots& shots) {
    ui::MainWindow& window = shots.window;
    window.findings()->resize(1100, 760);
    const bool ok = shots.save(&window, "main-window") && shots.save(window.findings(), "findings") &&
                    shots.save(window.timeline(), "timeline") && shots.save(window.operatorPanel(), "operator-table");
    window.resize(1000, 700);
    Shots::settle(3);
    const bool small = window.size() == QSize(1000, 700) && shots.save(&window, "main-window-1000x700");
    window.resize(1600, 1000);
    QApplication::processEvents();
    return ok && small;
}

// A Kineto GPU trace (the hand-made 2.x fixture: no GPU on this machine): CPU threads and CUDA streams
// named from the trace's metadata, aten::matmul selected with arrows to its kernels, the kernel table.
bool gpu_trace_shot(const Shots& shots) {
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
        return shots.save(&page, "gpu-trace");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpu-trace.png: %s\n", e.what());
        return false;
    }
}

// The same GPU trace opened in the main window (File > Open): lanes per thread and stream, a memory
// track per device, operators with their CUDA columns; then the GPU time breakdown of the two-rank
// fixture (its folder): a bar per rank and step.
bool gpu_window_shots(const Shots& shots) {
    ui::MainWindow& window = shots.window;
    window.resize(1600, 1000);
    const bool opened =
        shots.open("tests/fixtures/traces/kineto_gpu_2x.json") && shots.save(&window, "gpu-trace-window");
    if (!opened || !shots.open("tests/fixtures/traces/multi_rank")) return false;
    ui::GpuTimeView view;  // the tab's rows, at a size that shows chart and table together
    view.setRows(window.gpuTime()->model()->rows());
    view.resize(1200, 560);
    view.show();
    Shots::settle();
    return window.gpuTime()->barCount() == 2 && shots.save(&view, "gpu-time");
}

// The Attention tab of PyTorch 2.11's trace of sdpa training (CPU flash forward and backward), the second
// call selected; then an inference engine's trace: xDiT's Flux (replay and capture_traces/), its SAGE
// attention replayed from CUDA graphs and attributed to the captured ops, at 1600x1000 and 1000x700 (the
// public traces when they are beside the repository, else the fixture cut from them).
bool attention_shots(const Shots& shots) {
    ui::MainWindow& window = shots.window;
    if (!shots.open("tests/fixtures/traces/torch2/sdpa_train_stack.pt.trace.json.gz")) return false;
    shots.raise("attention");
    window.attention()->table()->selectRow(1);
    Shots::settle();
    if (window.attention()->model()->rowCount() != 4 || !shots.save(&window, "attention")) return false;
    const char* xdit = QFileInfo::exists(QStringLiteral("../shared/public-traces/tracelens/xdit_flux.1_aiter_sage"))
                           ? "../shared/public-traces/tracelens/xdit_flux.1_aiter_sage"
                           : "tests/fixtures/traces/graph_replay/xdit";
    if (!shots.open(xdit)) return false;
    QElapsedTimer waited;  // a large trace is analysed off the GUI thread after it is read: wait for its calls
    waited.start();
    while (waited.elapsed() < 60'000 && window.attention()->model()->rowCount() <= 4)
        QApplication::processEvents(QEventLoop::AllEvents, 50);
    shots.raise("attention");
    window.attention()->table()->sortByColumn(ui::AttentionTableModel::column(AttentionColumn::Backend),
                                              Qt::AscendingOrder);  // "SAGE attention" first
    window.attention()->table()->selectRow(0);
    Shots::settle();
    return window.attention()->model()->rowCount() > 0 && shots.bothSizes("attention-engines");
}

// The allocator's totals on a memory track (SGLang's decode on MI300X: 141 GiB allocated, reserved above
// it), kernel names demangled and elided by what differs (HTA's A100 run with cuDNN's CUTLASS
// convolutions), and a comparison with its verdict (HTA's A100 and V100 steps), at 1600x1000; the
// comparison at 1000x700 too.
bool trace_shots(const Shots& shots) {
    const bool memory = shots.open("tests/fixtures/traces/memory_totals/sglang_decode_memory.json") &&
                        shots.save(&shots.window, "memory-totals");
    bool names = shots.open("tests/fixtures/traces/kernel_names/a100_nccl_kernels.json.gz");
    if (names) {
        shots.raise("kernels");
        names = shots.save(&shots.window, "kernel-names");
    }
    bool verdict = shots.open("tests/fixtures/traces/compare/a100_control_steps.json") &&
                   shots.open("tests/fixtures/traces/compare/v100_test_steps.json");
    if (verdict) {
        shots.raise("compare");
        verdict = shots.bothSizes("compare-verdict");
    }
    return memory && names && verdict;
}

// Memory snapshots: a real training step (manual attention: the scores held for the backward) at both
// sizes; SDPA's snapshot of the same step compared with it (the Compare page); a profile and the snapshot
// of the same run, the Operators page with aten::matmul selected in the Operators panel; a real CUDA run
// (an H100, attnwb profile's snapshot with C++ stacks, and its trace): the timeline, then aten::bmm's blocks.
bool snapshot_shots(const Shots& shots) {
    auto* tabs = shots.window.memorySnapshot()->tabs();
    bool snapshot = shots.open("tests/fixtures/memory_snapshots/transformer_manual.pickle.gz");
    if (snapshot) {
        shots.raise("memory-snapshot");
        snapshot = shots.bothSizes("memory-snapshot");
    }
    bool compare = snapshot && shots.open("tests/fixtures/memory_snapshots/transformer_sdpa.pickle.gz");
    if (compare) {
        shots.raise("memory-snapshot");
        tabs->setCurrentIndex(5);
        Shots::settle();
        compare = shots.save(&shots.window, "memory-snapshot-compare");
    }
    bool linked = shots.open("tests/fixtures/memory_snapshots/linked/manual.trace.json.gz") &&
                  shots.open("tests/fixtures/memory_snapshots/linked/manual.pickle");
    if (linked) {
        shots.raise("memory-snapshot");
        tabs->setCurrentIndex(4);
        linked = select_operator(shots.window, QStringLiteral("aten::matmul")) &&
                 shots.bothSizes("memory-snapshot-operators");
    }
    bool cuda = shots.open("tests/fixtures/memory_snapshots/gpu/manual.attnwb.trace.json.gz") &&
                shots.open("tests/fixtures/memory_snapshots/gpu/manual.attnwb.pickle");
    if (cuda) {
        shots.raise("memory-snapshot");
        tabs->setCurrentIndex(0);
        Shots::settle();
        cuda = shots.save(&shots.window, "memory-snapshot-cuda");
        tabs->setCurrentIndex(4);
        cuda = cuda && select_operator(shots.window, QStringLiteral("aten::bmm")) &&
               shots.bothSizes("memory-snapshot-cuda-operators");
    }
    return snapshot && compare && linked && cuda;
}

// A real 4-rank gloo run (torch 2.11) whose rank 2 arrives late: the Collectives tab with the collective of
// the largest skew selected, marked on every rank's lane, at both sizes; then the Ranks tab.
bool collective_shots(const Shots& shots) {
    ui::MainWindow& window = shots.window;
    if (!shots.open("tests/fixtures/traces/gloo/straggler")) return false;
    shots.raise("collectives");
    QTableView* table = window.collectives()->collectivesTable();
    table->selectionModel()->setCurrentIndex(table->model()->index(0, 0),
                                             QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    Shots::settle();
    if (window.timeline()->markedEvents().empty() || !shots.bothSizes("collectives")) return false;
    shots.raise("ranks");
    for (int i = 0; i < 20 && window.ranks()->ranks()->rowCount() == 0; ++i) QApplication::processEvents();
    return window.ranks()->ranks()->rowCount() == 4 && shots.save(&window, "ranks");
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
    Shots::settle(3);
    const Shots shots{window, out};
    const RunSpec spec;  // the article's workload
    const ProfileOptions options;
    const auto manual = show_article(window, spec, options);
    const bool comparison = comparison_shot(shots, manual, spec, options);
    const bool sweeps = sweep_shots(shots);
    const bool views = window_shots(shots);
    const bool gpu = gpu_trace_shot(shots);
    const bool gpu_window = gpu_window_shots(shots);
    const bool attention = attention_shots(shots);
    const bool traces = trace_shots(shots);
    const bool snapshots = snapshot_shots(shots);
    const bool collectives = collective_shots(shots);
    const bool all =
        comparison && sweeps && views && gpu && gpu_window && attention && traces && snapshots && collectives;
    std::printf("%s screenshots in %s\n", all ? "wrote" : "FAILED to write", qPrintable(out));
    return all ? 0 : 1;
}
