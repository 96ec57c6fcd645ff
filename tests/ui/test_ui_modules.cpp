// The user's attention modules in the GUI: Add module... puts a .pt / .pt2 among the variants (the
// combo and the sweep editor) named by its stem, with its identity as the tooltip; files the panel
// cannot run are refused with one message naming them; a module can be removed; the modules a
// workspace names come back with it (a vanished file shown as missing); recent modules are offered
// again from QSettings; a module's name and identity show where results and environments show (sweep
// legend and hover, comparison, checklist); and a real TorchScript module profiled from the Run
// button lands in the session under its stem. The module files are written here by Debian's
// python3-torch (torch.jit.script), a few KiB each.
#include <QCheckBox>
#include <QComboBox>
#include <QCryptographicHash>
#include <QDockWidget>
#include <QFile>
#include <QScrollArea>
#include <QScrollBar>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QRegularExpression>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QToolButton>

#include "analysis/checklist.h"
#include "comparison_view.h"
#include "engine/device_caps.h"
#include "engine/profiler_session.h"
#include "format_qt.h"
#include "model/variant_catalog.h"
#include "results/workspace.h"
#include "run_modules.h"
#include "run_panel.h"
#include "session.h"
#include "sweep_chart.h"
#include "ui_test_registry.h"
#include "ui_test_support.h"

using namespace awb;
using namespace awb::ui;
using namespace awb::ui::test;

namespace {

// A scripted attention (softmax(q k^T / sqrt(D)) v) saved with the metadata export_attention.py writes.
// The torch version in a TorchScript file's metadata: torch.jit.save stores its extra files (attnwb.json)
// uncompressed in the zip, so the JSON is in the file's bytes as written. Read without the workbench's code and
// without a child process (ThreadSanitizer kills a process that forks once threads run: Qt's, LibTorch's).
QString exporter_in_bytes(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    const QRegularExpression version(QStringLiteral("\"torch_version\"\\s*:\\s*\"([^\"]+)\""));
    return version.match(QString::fromLatin1(f.readAll())).captured(1);
}

QString sha256_hex(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QString::fromLatin1(QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex());
}

// Closes each message box as it appears and keeps its text.
struct MessageBoxes {
    QStringList texts;
    QTimer timer;
    MessageBoxes() {
        QObject::connect(&timer, &QTimer::timeout, [this] {
            for (QWidget* w : QApplication::topLevelWidgets())
                if (auto* box = qobject_cast<QMessageBox*>(w); box && box->isVisible()) {
                    texts << box->text();
                    box->close();
                }
        });
        timer.start(50);
    }
};

int combo_index(const RunPanel& panel, const QString& path) {
    return panel.variantCombo()->findData(path, RunPanel::kModulePathRole);
}

QCheckBox* sweep_box(const RunPanel& panel, const QString& path) {
    for (QCheckBox* box : panel.sweepVariantBoxes())
        if (box->property(RunPanel::kModulePathProperty).toString() == path) return box;
    return nullptr;
}

QStringList menu_texts(QToolButton* button) {
    emit button->menu()->aboutToShow();  // what opening the arrow does
    QStringList out;
    for (QAction* a : button->menu()->actions())
        out << a->text() + (a->isEnabled() ? QString() : QStringLiteral(" [disabled]"));
    return out;
}

QAction* menu_action(QToolButton* button, const QString& starts_with) {
    emit button->menu()->aboutToShow();
    for (QAction* a : button->menu()->actions())
        if (a->text().startsWith(starts_with)) return a;
    return nullptr;
}

DeviceCaps caps_of_torch(const char* version) {
    DeviceCaps caps;
    caps.torch_version = version;
    caps.sdpa_backend_selectable = version[0] == '2';
    return caps;
}

// The run a module profile gives, shaped by hand from a built-in's real profile (the display tests
// below need its events and environment, not the engine's module loading: endToEndProfileOfAModule
// runs that).
std::shared_ptr<const ProfileResult> module_like_run(const QString& module, int64_t n) {
    ProfileOptions options;
    options.wait = 0;
    options.active = 1;
    RunSpec spec = tiny_spec();
    spec.seq_q = spec.seq_k = n;
    ProfileResult r = profile_run(spec, options);
    r.spec = with_variant(r.spec, module.toStdString());
    r.environment.modules = {*read_panel_module(module).identity};  // the engine's module_identity
    return std::make_shared<const ProfileResult>(std::move(r));
}

}  // namespace

class UiModulesTest : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString mine_, other_mine_, second_;  // dir/mine.pt, dir/other/mine.pt, dir/second.pt
    QString torch_;                       // the version of the torch that wrote them
    QVariant saved_recent_;

    QString file(const QString& name) const { return dir_.filePath(name); }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        QDir(dir_.path()).mkdir(QStringLiteral("other"));
        mine_ = file(QStringLiteral("mine.pt"));
        other_mine_ = file(QStringLiteral("other/mine.pt"));
        second_ = file(QStringLiteral("second.pt"));
        // The manual_like fixture of this build's torch (tests/fixtures/modules), under three names.
        for (const QString& to : {mine_, other_mine_, second_}) QVERIFY(QFile::copy(fixture("manual_like.pt"), to));
        QVERIFY(QFileInfo(mine_).size() > 0);
        torch_ = exporter_in_bytes(mine_);
        QVERIFY(!torch_.isEmpty());
        saved_recent_ = QSettings().value(QStringLiteral("modules/recent"));  // the user's list, put back at the end
        clear_recent_modules();
    }
    void cleanupTestCase() {
        if (saved_recent_.isValid())
            QSettings().setValue(QStringLiteral("modules/recent"), saved_recent_);
        else
            clear_recent_modules();
    }

    void addedModuleIsAVariantOfTheComboAndTheSweep() {
        RunPanel panel(query_device_caps());
        const int builtins = panel.variantCombo()->count();
        QSignalSpy changed(&panel, &RunPanel::modulesChanged);
        QVERIFY(!panel.removeModuleButton()->isEnabled());
        QVERIFY(panel.addModule(mine_));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(panel.variantCombo()->count(), builtins + 1);
        const int i = combo_index(panel, mine_);
        QCOMPARE(i, builtins);
        QCOMPARE(panel.variantCombo()->itemText(i), QStringLiteral("mine"));
        QCOMPARE(panel.variantCombo()->currentIndex(), i);  // the module just added is selected
        QVERIFY(panel.removeModuleButton()->isEnabled());
        // The tooltip: name and format, the path, size with its unit, the sha256 (shortened, of these bytes).
        const QString tip = panel.variantCombo()->itemData(i, Qt::ToolTipRole).toString();
        QVERIFY2(tip.startsWith(QStringLiteral("mine: TorchScript module (.pt)\n") + mine_ + QLatin1Char('\n')),
                 qPrintable(tip));
        QVERIFY2(tip.endsWith(QStringLiteral("\nexported by torch ") + torch_),
                 qPrintable(tip));  // from the file's metadata
        QVERIFY2(
            tip.contains(
                QStringLiteral("%1 B, sha256 %2...").arg(QFileInfo(mine_).size()).arg(sha256_hex(mine_).left(16))) ||
                tip.contains(QStringLiteral(" KiB, sha256 %1...").arg(sha256_hex(mine_).left(16))),
            qPrintable(tip));
        // The spec: named by its stem, the module's absolute path.
        const RunSpec s = panel.spec();
        QCOMPARE(QString::fromStdString(s.variant), QStringLiteral("mine"));
        QCOMPARE(QString::fromStdString(s.module), mine_);
        QVERIFY2(panel.problemsText().isEmpty(), qPrintable(panel.problemsText()));
        // The sweep editor: checkable beside manual / sdpa / chunked; sdpa + mine is a plan the panel starts.
        QCheckBox* box = sweep_box(panel, mine_);
        QVERIFY(box);
        QCOMPARE(box->text(), QStringLiteral("mine"));
        QCOMPARE(box->toolTip(), tip);
        for (QCheckBox* b : panel.sweepVariantBoxes()) b->setChecked(b->text() == QLatin1String("sdpa") || b == box);
        const SweepPlan plan = panel.sweepPlan();
        QCOMPARE(plan.variants, (std::vector<std::string>{"sdpa", mine_.toStdString()}));
        QVERIFY2(panel.sweepProblemsText().isEmpty(), qPrintable(panel.sweepProblemsText()));
        QSignalSpy requested(&panel, &RunPanel::sweepRequested);
        for (QPushButton* b : panel.findChildren<QPushButton*>())
            if (b->text() == QLatin1String("Run sweep")) b->click();
        QCOMPARE(requested.count(), 1);
        std::vector<std::string> names;
        for (const RunSpec& p : expand(requested.front().front().value<SweepPlan>()))
            if (p.seq_q == 256) names.push_back(p.variant + (p.module.empty() ? "" : " @ " + p.module));
        QCOMPARE(names, (std::vector<std::string>{"sdpa", "mine @ " + mine_.toStdString()}));
        // A live sweep of both is labelled by the module's stem, not its path.
        Session session;
        session.startLiveSweep(requested.front().front().value<SweepPlan>());
        QVERIFY2(
            session.sweeps().front().label.startsWith(QStringLiteral("sdpa+mine float32 2x8xNx64 train, N 256-2048, ")),
            qPrintable(session.sweeps().front().label));
        // Selecting a built-in again clears the module.
        panel.variantCombo()->setCurrentText(QStringLiteral("chunked"));
        QVERIFY(panel.spec().module.empty());
        QVERIFY(!panel.removeModuleButton()->isEnabled());
    }

    void refusedFilesGetOneMessageNamingThem() {
        RunPanel panel(caps_of_torch("1.13.1"));
        QVERIFY(panel.addModule(mine_));
        const int count = panel.variantCombo()->count();
        auto refusal = [&](const QString& path) { return panel.moduleRefusal(path); };
        // Not there.
        const QString gone = file(QStringLiteral("gone.pt"));
        QVERIFY2(refusal(gone).contains(QStringLiteral("cannot read module '%1'").arg(gone)),
                 qPrintable(refusal(gone)));
        // Not a module file.
        QVERIFY(refusal(file(QStringLiteral("model.onnx"))).contains(QStringLiteral("is not a module file")));
        // A stem that names a built-in.
        QVERIFY(QFile::copy(second_, file(QStringLiteral("sdpa.pt"))));
        QVERIFY2(refusal(file(QStringLiteral("sdpa.pt")))
                     .contains(QStringLiteral("would be named 'sdpa', which is a built-in variant")),
                 qPrintable(refusal(file(QStringLiteral("sdpa.pt")))));
        // An AOTInductor package on LibTorch 1.13; taken on a LibTorch 2.x.
        QVERIFY(QFile::copy(second_, file(QStringLiteral("fast.pt2"))));
        const QString pt2 = refusal(file(QStringLiteral("fast.pt2")));
        QVERIFY2(pt2.contains(file(QStringLiteral("fast.pt2"))) &&
                     pt2.contains(QStringLiteral("needs LibTorch 2.x (this is 1.13.1")),
                 qPrintable(pt2));
        RunPanel torch2(caps_of_torch("2.5.0"));
        QVERIFY2(torch2.moduleRefusal(file(QStringLiteral("fast.pt2"))).isEmpty(),
                 qPrintable(torch2.moduleRefusal(file(QStringLiteral("fast.pt2")))));
        // The same file again, and another file of the same stem.
        QVERIFY(
            refusal(mine_).contains(QStringLiteral("module '%1' is already among the variants, as 'mine'").arg(mine_)));
        QVERIFY2(refusal(other_mine_).contains(QStringLiteral("would be named 'mine', as '%1' already is").arg(mine_)),
                 qPrintable(refusal(other_mine_)));
        // Through addModule: one message box each, naming the file; nothing added.
        MessageBoxes boxes;
        for (const QString& path :
             {gone, file(QStringLiteral("sdpa.pt")), file(QStringLiteral("fast.pt2")), mine_, other_mine_})
            QVERIFY(!panel.addModule(path));
        QCOMPARE(boxes.texts.size(), 5);
        QVERIFY(boxes.texts[0].contains(gone));
        QVERIFY(boxes.texts[2].contains(file(QStringLiteral("fast.pt2"))));
        QVERIFY(boxes.texts[4].contains(other_mine_));
        QCOMPARE(panel.variantCombo()->count(), count);
        QCOMPARE(panel.modulePaths(), QStringList{mine_});
    }

    void removedModuleLeavesComboAndSweep() {
        RunPanel panel(query_device_caps());
        QVERIFY(panel.addModule(mine_));
        QVERIFY(panel.addModule(second_));
        QCOMPARE(panel.variantCombo()->currentText(), QStringLiteral("second"));
        panel.removeModuleButton()->click();  // the selected one
        QCOMPARE(panel.modulePaths(), QStringList{mine_});
        QCOMPARE(combo_index(panel, second_), -1);
        QVERIFY(!sweep_box(panel, second_));
        QCOMPARE(panel.variantCombo()->currentText(), QStringLiteral("manual"));
        QVERIFY(panel.spec().module.empty());
        // From the menu: any added module.
        QAction* remove = menu_action(panel.addModuleButton(), QStringLiteral("Remove mine"));
        QVERIFY(remove);
        remove->trigger();
        QVERIFY(panel.modulePaths().isEmpty());
        QCOMPARE(panel.sweepVariantBoxes().size(), variant_catalog().size());
        QVERIFY(QFileInfo::exists(mine_));  // the file stays
    }

    void vanishedModuleIsShownMissingNotDropped() {
        const QString ghost = file(QStringLiteral("ghost.pt"));
        RunPanel panel(query_device_caps());
        panel.setModules({ghost});
        QCOMPARE(panel.modulePaths(), QStringList{ghost});
        const int i = combo_index(panel, ghost);
        QVERIFY(i >= 0);
        QCOMPARE(panel.variantCombo()->itemText(i), QStringLiteral("ghost (missing)"));
        QVERIFY(panel.variantCombo()
                    ->itemData(i, Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("the module file is missing\n") + ghost));
        // Selected: the spec says why it cannot run, Run is off; in the sweep it starts unchecked, and checked it is
        // refused.
        panel.variantCombo()->setCurrentIndex(i);
        QVERIFY2(panel.problemsText().contains(QStringLiteral("cannot read module '%1'").arg(ghost)),
                 qPrintable(panel.problemsText()));
        for (QPushButton* b : panel.findChildren<QPushButton*>())
            if (b->text() == QLatin1String("Run")) QVERIFY(!b->isEnabled());
        QCheckBox* box = sweep_box(panel, ghost);
        QVERIFY(box && !box->isChecked());
        box->setChecked(true);
        QVERIFY2(panel.sweepProblemsText().contains(QStringLiteral("variants: cannot read module '%1'").arg(ghost)),
                 qPrintable(panel.sweepProblemsText()));
        // The file comes back: adding it again replaces the missing entry.
        QVERIFY(QFile::copy(second_, ghost));
        QVERIFY(panel.addModule(ghost));
        QCOMPARE(panel.modulePaths(), QStringList{ghost});
        QCOMPARE(panel.variantCombo()->itemText(combo_index(panel, ghost)), QStringLiteral("ghost"));
        QVERIFY(panel.problemsText().isEmpty());
        QVERIFY(QFile::remove(ghost));
    }

    void recentModulesAreOfferedAtTheNextStart() {
        clear_recent_modules();
        const QString doomed = file(QStringLiteral("doomed.pt"));
        QVERIFY(QFile::copy(second_, doomed));
        {
            RunPanel panel(query_device_caps());
            QVERIFY(menu_texts(panel.addModuleButton()).contains(QStringLiteral("(none yet) [disabled]")));
            QVERIFY(panel.addModule(doomed));
            QVERIFY(panel.addModule(mine_));
            QCOMPARE(recent_modules(), (QStringList{mine_, doomed}));
            QVERIFY(menu_texts(panel.addModuleButton())
                        .contains(QStringLiteral("mine.pt  (%1) - added [disabled]").arg(dir_.path())));
        }
        QVERIFY(QFile::remove(doomed));
        RunPanel panel(query_device_caps());  // a new start: no modules, the recent ones in the menu
        QVERIFY(panel.modulePaths().isEmpty());
        const QStringList texts = menu_texts(panel.addModuleButton());
        QVERIFY2(texts.contains(QStringLiteral("doomed.pt  (%1) - missing [disabled]").arg(dir_.path())),
                 qPrintable(texts.join(QLatin1Char('|'))));
        QAction* again = menu_action(panel.addModuleButton(), QStringLiteral("mine.pt  ("));
        QVERIFY(again && again->isEnabled());
        again->trigger();
        QCOMPARE(panel.modulePaths(), QStringList{mine_});
        QCOMPARE(panel.variantCombo()->currentText(), QStringLiteral("mine"));
        menu_action(panel.addModuleButton(), QStringLiteral("Clear recent modules"))->trigger();
        QVERIFY(recent_modules().isEmpty());
    }

    void workspaceKeepsTheModulesAndTheSelection() {
        const QString kept = file(QStringLiteral("kept.pt"));
        QVERIFY(QFile::copy(second_, kept));
        const QString ws = file(QStringLiteral("ws.json"));
        {
            MainWindow window;
            QVERIFY(window.runPanel()->addModule(kept));
            QVERIFY(window.runPanel()->addModule(mine_));  // selected
            QSignalSpy saved(window.engine(), &EngineThread::workspaceSaved);
            window.saveWorkspace(ws);
            QTRY_VERIFY_WITH_TIMEOUT(!saved.isEmpty(), 60'000);
        }
        QCOMPARE(load_workspace(ws.toStdString()).panel_modules,
                 (std::vector<std::string>{kept.toStdString(), mine_.toStdString()}));
        auto reopen = [&](MainWindow& window) {
            QSignalSpy loaded(window.engine(), &EngineThread::workspaceLoaded);
            QVERIFY(window.openFile(ws));
            QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), 60'000);
            QTRY_VERIFY_WITH_TIMEOUT(window.windowTitle().contains(QStringLiteral("ws.json")), 10'000);
        };
        {
            MainWindow window;
            reopen(window);
            QCOMPARE(window.runPanel()->modulePaths(), (QStringList{kept, mine_}));
            QCOMPARE(QString::fromStdString(window.runPanel()->spec().module), mine_);
            QCOMPARE(window.runPanel()->variantCombo()->currentText(), QStringLiteral("mine"));
        }
        QVERIFY(QFile::remove(kept));  // gone since: shown as missing, the rest opens
        MainWindow window;
        reopen(window);
        QCOMPARE(window.runPanel()->modulePaths(), (QStringList{kept, mine_}));
        QCOMPARE(window.runPanel()->variantCombo()->itemText(combo_index(*window.runPanel(), kept)),
                 QStringLiteral("kept (missing)"));
        QCOMPARE(window.runPanel()->variantCombo()->currentText(), QStringLiteral("mine"));
    }

    void moduleNameAndIdentityShowWhereResultsShow() {
        MainWindow window;
        const auto a = module_like_run(mine_, 32);
        window.showResult(a);
        window.showResult(module_like_run(mine_, 48));
        QTRY_COMPARE_WITH_TIMEOUT(int(window.session()->runs().size()), 2, 30'000);
        const QString identity =
            QStringLiteral("module mine: %1 (torchscript, %2, sha256 %3, exported by torch %4)")
                .arg(mine_, awb::ui::format_bytes(QFileInfo(mine_).size()), sha256_hex(mine_).left(12), torch_);
        // The comparison: its runs named by the stem, each side's tooltip the file it ran.
        QVERIFY2(window.session()->runs().front().label.startsWith(QStringLiteral("mine 1x2x32x16 float32")),
                 qPrintable(window.session()->runs().front().label));
        QTRY_VERIFY_WITH_TIMEOUT(
            window.comparison()->sideLabel(true)->text().contains(QStringLiteral("mine 1x2x48x16")), 10'000);
        QCOMPARE(window.comparison()->sideLabel(false)->toolTip(), identity);
        // The status line of the run on screen, and the checklist's environment item.
        QVERIFY(window.findChild<QLabel*>(QStringLiteral("status"))->toolTip().contains(identity));
        const auto checklist = measurement_checklist(Measurements{a.get(), nullptr, nullptr, nullptr, nullptr});
        QVERIFY2(checklist.front().reason.find("; " + identity.toStdString()) != std::string::npos,
                 checklist.front().reason.c_str());
        // A sweep of sdpa and the module: its legend names the module's curve by the stem, its hover the file.
        SweepResult sweep;
        sweep.plan.base = tiny_spec();
        sweep.plan.variants = {"sdpa", mine_.toStdString()};
        sweep.plan.seq_lengths = {32, 64, 128};
        sweep.environment = a->environment;
        for (const RunSpec& spec : expand(sweep.plan)) {
            SweepPoint p;
            p.spec = p.bench.spec = spec;
            const double x = double(spec.seq_k);
            p.bench.timing = {5, 1, 10 * x * x, 9 * x * x, 11 * x * x, 9 * x * x, 11 * x * x, 10 * x * x};
            p.bench.peak_bytes = int64_t(64 * x * x);
            sweep.points.push_back(p);
        }
        window.sweepChart()->setSweeps(
            {labelled_sweep(QStringLiteral("s.json"), std::make_shared<const SweepResult>(sweep))});
        QCOMPARE(window.sweepChart()->curveCount(), 2);
        QStringList legends{window.sweepChart()->legendText(0), window.sweepChart()->legendText(1)};
        const int g = legends[0].startsWith(QStringLiteral("mine")) ? 0 : 1;
        QVERIFY2(legends[g].startsWith(QStringLiteral("mine float32 1x2xNx16 train")),
                 qPrintable(legends.join(QLatin1Char('|'))));
        QVERIFY2(window.sweepChart()->pointText(g, 64).contains(identity),
                 qPrintable(window.sweepChart()->pointText(g, 64)));
    }

    void runPanelWithAModuleFitsAtTheWindowSizes() {
        MainWindow window;
        QVERIFY(window.runPanel()->addModule(mine_));
        QVERIFY(window.runPanel()->addModule(second_));
        window.show();
        const QByteArray grabs = qgetenv("AWB_GRAB_DIR");
        for (const QSize size : {QSize(1600, 1000), QSize(1000, 700)}) {
            window.resize(size);
            QTest::qWait(200);
            // The Add module / Remove module row and every sweep box lie inside the run dock.
            const auto* dock = window.findChild<QDockWidget*>(QStringLiteral("run"));
            const QRect inside = dock->rect();
            for (QWidget* w : std::initializer_list<QWidget*>{window.runPanel()->addModuleButton(),
                                                              window.runPanel()->removeModuleButton(),
                                                              sweep_box(*window.runPanel(), second_)}) {
                const QRect r(w->mapTo(dock, QPoint(0, 0)), w->size());
                QVERIFY2(r.right() <= inside.right(),
                         qPrintable(
                             QStringLiteral("%1 at %2x%3").arg(w->objectName()).arg(size.width()).arg(size.height())));
            }
            auto* scroll = qobject_cast<QScrollArea*>(dock->widget());
            QVERIFY(scroll);
            QVERIFY2(!scroll->horizontalScrollBar()->isVisible(), "the run panel needs a horizontal scroll bar");
            if (grabs.isEmpty()) continue;
            const QString at = QStringLiteral("%1/modules-%2x%3")
                                   .arg(QString::fromLocal8Bit(grabs))
                                   .arg(size.width())
                                   .arg(size.height());
            window.grab().save(at + QStringLiteral(".png"));
            window.runPanel()->grab().save(at + QStringLiteral("-panel.png"));  // the whole panel, the sweep editor too
        }
    }

    // The fixture of this build's torch (tests/fixtures/modules/README.md): manual attention op for op.
    static QString fixture(const char* name) {
        const bool torch2 = query_device_caps().torch_version.rfind("2.", 0) == 0;
        return QStringLiteral(AWB_FIXTURE_DIR "/modules/%1/%2")
            .arg(torch2 ? QStringLiteral("torch2") : QStringLiteral("torch1"), QString::fromLatin1(name));
    }

    void endToEndProfileOfAModule() {
        const QString module = fixture("manual_like.pt");
        MainWindow window;
        RunPanel* panel = window.runPanel();
        QVERIFY(panel->addModule(module));
        const RunSpec spec = with_variant(tiny_spec(), module.toStdString());
        panel->setSpec(spec);
        for (QSpinBox* s : panel->findChildren<QSpinBox*>())  // the profiler schedule: 0 wait, 1 warm-up, 2 active
            if (s->toolTip().startsWith(QStringLiteral("Steps run with the profiler off")))
                s->setValue(0);
            else if (s->toolTip().startsWith(QStringLiteral("Steps recorded per cycle")))
                s->setValue(2);
        QCOMPARE(panel->spec(), spec);
        QVERIFY2(panel->problemsText().isEmpty(), qPrintable(panel->problemsText()));
        QSignalSpy finished(window.engine(), &EngineThread::profileFinished);
        QSignalSpy failed(window.engine(), &EngineThread::failed);
        MessageBoxes boxes;
        for (QPushButton* b : panel->findChildren<QPushButton*>())
            if (b->text() == QLatin1String("Run")) b->click();
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), 120'000);
        QVERIFY2(failed.isEmpty(), qPrintable(failed.isEmpty() ? QString() : failed.front().at(1).toString()));
        QTRY_COMPARE_WITH_TIMEOUT(int(window.session()->runs().size()), 1, 30'000);
        const NamedRun& run = window.session()->runs().front();
        QVERIFY2(run.label.startsWith(QStringLiteral("manual_like 1x2x32x16 float32 train")), qPrintable(run.label));
        QCOMPARE(QString::fromStdString(run.result->spec.module), module);
        QCOMPARE(int(run.result->environment.modules.size()), 1);
        const ModuleIdentity& id = run.result->environment.modules[0];
        QCOMPARE(QString::fromStdString(id.sha256), sha256_hex(module));
        QVERIFY2(id.exported_by.rfind("torch ", 0) == 0, id.exported_by.c_str());
        // The module's own operators were recorded: manual attention's matmuls and softmax.
        QStringList names;
        for (const OperatorRow& row : run.analysis->operators) names << QString::fromStdString(row.name);
        QVERIFY2(names.contains(QStringLiteral("aten::softmax")) && names.contains(QStringLiteral("aten::matmul")),
                 qPrintable(names.join(QLatin1Char(','))));
        QVERIFY(window.windowTitle().contains(QStringLiteral("manual_like 1x2x32x16")));
        QVERIFY(window.findChild<QLabel*>(QStringLiteral("status"))
                    ->toolTip()
                    .contains(QString::fromStdString(id.sha256.substr(0, 12))));
        QVERIFY(boxes.texts.isEmpty());
    }

    void endToEndSweepOfSdpaAndAModule() {
        const QString module = fixture("manual_like.pt");
        MainWindow window;
        RunPanel* panel = window.runPanel();
        panel->setSpec(tiny_spec());
        QVERIFY(panel->addModule(module));
        panel->setSweepLists(QStringLiteral("16,32,64"), {QStringLiteral("sdpa"), module}, QString());
        for (QSpinBox* s : panel->findChildren<QSpinBox*>())
            if (s->suffix() == QLatin1String(" ms")) s->setValue(0);  // 5 samples a point
        QCOMPARE(panel->sweepPlan().variants, (std::vector<std::string>{"sdpa", module.toStdString()}));
        QVERIFY2(panel->sweepProblemsText().isEmpty(), qPrintable(panel->sweepProblemsText()));
        QSignalSpy finished(window.engine(), &EngineThread::sweepFinished);
        MessageBoxes boxes;
        for (QPushButton* b : panel->findChildren<QPushButton*>())
            if (b->text() == QLatin1String("Run sweep")) b->click();
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 180'000);
        const auto result = finished.front().front().value<std::shared_ptr<const SweepResult>>();
        QCOMPARE(int(result->points.size()), 6);
        for (const SweepPoint& p : result->points) QVERIFY2(p.status == PointStatus::Ok, p.reason.c_str());
        QCOMPARE(window.sweepChart()->curveCount(), 2);
        const QStringList legends{window.sweepChart()->legendText(0), window.sweepChart()->legendText(1)};
        const int g = legends[0].contains(QStringLiteral("manual_like float32 1x2xNx16 train")) ? 0 : 1;
        QVERIFY2(legends[g].contains(QStringLiteral("manual_like float32 1x2xNx16 train")),
                 qPrintable(legends.join(QLatin1Char('|'))));
        QVERIFY2(legends[1 - g].contains(QStringLiteral("sdpa float32 1x2xNx16 train")),
                 qPrintable(legends.join(QLatin1Char('|'))));
        const QString hover = window.sweepChart()->pointText(g, 32);
        QVERIFY2(hover.contains(QStringLiteral("module manual_like: %1 (torchscript").arg(module)), qPrintable(hover));
        QVERIFY(window.session()->sweeps().back().label.startsWith(
            QStringLiteral("sdpa+manual_like float32 1x2xNx16 train, N 16-64, ")));
        QVERIFY(boxes.texts.isEmpty());
    }
};

AWB_UI_TEST(UiModulesTest)
#include "test_ui_modules.moc"
