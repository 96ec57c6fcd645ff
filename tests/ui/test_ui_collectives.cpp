// The Collectives tab of an opened multi-rank run (a real 4-rank gloo run whose rank 2 arrives late):
// its three tables hold the core's collectives, ranks and overlap, sort on their numbers, and a selected
// collective is marked on every rank's lane of the timeline with its arrival skew. Files chosen together
// that are the ranks of two runs are said, and opened one by one when the user says so.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDialogButtonBox>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QDockWidget>
#include <QFile>
#include <QTest>
#include <QTimer>

#include <set>

#include "analysis/collectives.h"
#include "collectives_view.h"
#include "ranks_view.h"
#include <QComboBox>
#include <QPushButton>
#include "engine_worker.h"
#include "results/results_file.h"
#include "main_window.h"
#include "session.h"
#include "timeline_view.h"
#include "ui_test_registry.h"
#include "ui_test_support.h"

using namespace awb;
using namespace awb::ui;

class CollectivesTests : public QObject {
    Q_OBJECT
private slots:
    void collectivesOfAnOpenedRunAreTabledAndMarkedOnEveryRank() {
        MainWindow window;
        const QString dir = QStringLiteral(AWB_FIXTURE_DIR "/traces/gloo/straggler");
        QSignalSpy opened(window.engine(), &EngineThread::resultsOpened);
        QVERIFY(window.openFile(dir));
        QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty(), 60'000);
        CollectivesView* view = window.collectives();
        QTRY_COMPARE_WITH_TIMEOUT(view->collectives()->rowCount(), 6, 10'000);
        const CollectiveReport expected = collective_report(open_results_file(dir.toStdString()).run->trace);
        QCOMPARE(view->collectives()->rows(), expected.matched);
        QAbstractItemModelTester t1(view->collectives(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(view->ranks(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t3(view->overlap(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY2(view->summary().contains(QStringLiteral("Straggler: rank 2")), qPrintable(view->summary()));
        // The ranks' table: the straggler's row says so, in bold, with the most wait caused.
        QCOMPARE(view->ranks()->rowCount(), 4);
        for (int r = 0; r < 4; ++r) {
            const bool straggler = view->ranks()->rows()[size_t(r)].rank == 2;
            QCOMPARE(view->ranks()
                         ->index(r, RankCollectivesModel::Rank)
                         .data()
                         .toString()
                         .contains(QStringLiteral("straggler")),
                     straggler);
            QCOMPARE(view->ranks()->index(r, RankCollectivesModel::Rank).data(Qt::FontRole).value<QFont>().bold(),
                     straggler);
        }
        // Sorted by skew, largest first: an all_reduce rank 2 arrived last at; numbers sort as numbers.
        QTableView* table = view->collectivesTable();
        const QAbstractItemModel* shown = table->model();
        QCOMPARE(shown->index(0, CollectiveTableModel::Name).data().toString(), QStringLiteral("all_reduce"));
        QCOMPARE(shown->index(0, CollectiveTableModel::Last).data().toString(), QStringLiteral("2"));
        for (int r = 1; r < shown->rowCount(); ++r)
            QVERIFY(shown->index(r - 1, CollectiveTableModel::Skew).data(RowTableModelBase::SortRole).toDouble() >=
                    shown->index(r, CollectiveTableModel::Skew).data(RowTableModelBase::SortRole).toDouble());
        // Selecting it marks its op and gloo work on all 4 ranks, the band from the first arrival to the last.
        table->selectionModel()->setCurrentIndex(shown->index(0, 0),
                                                 QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        const std::vector<int>& marked = window.timeline()->markedEvents();
        QCOMPARE(marked.size(), size_t(8));
        const Trace& trace = window.session()->shown().result->trace;
        std::set<int32_t> ranks;
        for (int e : marked) ranks.insert(trace.events()[size_t(e)].rank);
        QCOMPARE(ranks, (std::set<int32_t>{0, 1, 2, 3}));
        const MatchedCollective& top =
            *std::max_element(expected.matched.begin(), expected.matched.end(),
                              [](const auto& a, const auto& b) { return a.skew_ns < b.skew_ns; });
        QCOMPARE(window.timeline()->view().start_ns < top.first_ns, true);
        QCOMPARE(window.timeline()->view().end_ns > top.first_ns + top.skew_ns, true);
        // The filter keeps the all_gathers.
        view->findChild<QLineEdit*>()->setText(QStringLiteral("all_gather"));
        QCOMPARE(shown->rowCount(), 3);
    }

    void theRanksTabComparesAStepAndOpensARankAsARun() {
        MainWindow window;
        QSignalSpy opened(window.engine(), &EngineThread::resultsOpened);
        QVERIFY(window.openFile(QStringLiteral(AWB_FIXTURE_DIR "/traces/gloo/straggler")));
        QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty(), 60'000);
        RanksView* ranks = window.ranks();
        QTRY_COMPARE_WITH_TIMEOUT(ranks->ranks()->rowCount(), 4, 10'000);
        QAbstractItemModelTester t1(ranks->ranks(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(ranks->operators(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(ranks->comparison().slowest, 2);
        QCOMPARE(ranks->stepBox()->count(), 3);
        for (int r = 0; r < 4; ++r)
            QCOMPARE(ranks->ranks()->index(r, RankStepModel::Rank).data(Qt::FontRole).value<QFont>().bold(),
                     ranks->ranks()->rows()[size_t(r)].rank == 2);
        QVERIFY(ranks->operators()->rowCount() > 0);
        // Another step chosen: compared there.
        const int other = ranks->stepBox()->currentIndex() == 0 ? 1 : 0;
        ranks->stepBox()->setCurrentIndex(other);
        emit ranks->stepBox()->activated(other);
        QTRY_COMPARE_WITH_TIMEOUT(ranks->comparison().step, ranks->stepBox()->itemData(other).toInt(), 10'000);
        // Rank 2 opened as a run of its own: its events alone, shown.
        auto* box = ranks->findChildren<QComboBox*>().at(1);
        box->setCurrentIndex(box->findData(2));
        ranks->findChild<QPushButton*>()->click();
        QTRY_COMPARE_WITH_TIMEOUT(window.session()->runs().size(), size_t(2), 10'000);
        QCOMPARE(window.session()->shown().result->trace.meta().ranks, std::vector<int32_t>{2});
        QVERIFY(window.session()->shown().label.endsWith(QStringLiteral("(rank 2)")));
        for (const TraceEvent& e : window.session()->shown().result->trace.events()) QCOMPARE(e.rank, 2);
    }

    void aRunWithoutCollectivesSaysWhereTheyComeFrom() {
        MainWindow window;
        QSignalSpy opened(window.engine(), &EngineThread::resultsOpened);
        QVERIFY(
            window.openFile(QStringLiteral(AWB_FIXTURE_DIR "/traces/torch_cpu_profile.json")));  // one process, no c10d
        QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty(), 60'000);
        QTRY_VERIFY_WITH_TIMEOUT(window.collectives()->summary().contains(QStringLiteral("No collectives")), 10'000);
        QCOMPARE(window.collectives()->collectives()->rowCount(), 0);
    }

    // Two of a run's four ranks: what the files say of each other (here, the ranks missing) is shown with the
    // collectives.
    void theRunsNotesAreShownWithItsCollectives() {
        QTemporaryDir dir;
        const QString straggler = QStringLiteral(AWB_FIXTURE_DIR "/traces/gloo/straggler/");
        QVERIFY(QFile::copy(straggler + QStringLiteral("rank0.json"), dir.filePath(QStringLiteral("rank0.json"))));
        QVERIFY(QFile::copy(straggler + QStringLiteral("rank1.json"), dir.filePath(QStringLiteral("rank1.json"))));
        MainWindow window;
        QSignalSpy opened(window.engine(), &EngineThread::resultsOpened);
        QVERIFY(window.openFile(dir.path()));
        QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty(), 60'000);
        QTRY_VERIFY_WITH_TIMEOUT(window.collectives()->notes().contains(
                                     QStringLiteral("2 of the run's 4 ranks are in the files; missing [2, 3]")),
                                 10'000);
        // AWB_GRAB_DIR: the Collectives tab with its notes at both window sizes, to look at.
        if (const QByteArray grabs = qgetenv("AWB_GRAB_DIR"); !grabs.isEmpty()) {
            window.findChild<QDockWidget*>(QStringLiteral("collectives"))->raise();
            window.show();
            for (const QSize size : {QSize(1600, 1000), QSize(1000, 700)}) {
                window.resize(size);
                QTest::qWait(200);
                window.grab().save(QStringLiteral("%1/collectives-notes-%2x%3.png")
                                       .arg(QString::fromLocal8Bit(grabs))
                                       .arg(size.width())
                                       .arg(size.height()));
            }
        }
    }

    void filesOfTwoRunsAreSaidAndOpenedOneByOneWhenAsked() {
        MainWindow window;
        QStringList files;
        for (const char* f : {"gloo/straggler/rank0.json", "gloo/straggler/rank1.json", "gloo/two_ranks_ws2/rank0.json",
                              "gloo/two_ranks_ws2/rank1.json"})
            files << QStringLiteral(AWB_FIXTURE_DIR "/traces/") + QString::fromLatin1(f);
        // Answer the question with Open.
        QTimer answer;
        answer.setInterval(50);
        QObject::connect(&answer, &QTimer::timeout, [] {
            for (QWidget* w : QApplication::topLevelWidgets())
                if (auto* box = qobject_cast<QMessageBox*>(w); box && box->isVisible())
                    if (QAbstractButton* open = box->button(QMessageBox::Open)) open->click();
        });
        answer.start();
        QSignalSpy mixed(window.engine(), &EngineThread::mixedRuns);
        QSignalSpy opened(window.engine(), &EngineThread::resultsOpened);
        QVERIFY(window.openFiles(files));
        QTRY_VERIFY_WITH_TIMEOUT(!mixed.isEmpty(), 60'000);
        QVERIFY2(mixed.at(0).at(0).toString().contains(QStringLiteral("world size 2, not 4")),
                 qPrintable(mixed.at(0).at(0).toString()));
        QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 2, 60'000);
        QTRY_COMPARE_WITH_TIMEOUT(window.session()->runs().size(), size_t(2), 10'000);
        QCOMPARE(window.session()->runs()[0].result->trace.meta().ranks,
                 (std::vector<int32_t>{0, 1}));  // the straggler run's two files
        QCOMPARE(window.session()->runs()[1].result->trace.meta().ranks, (std::vector<int32_t>{0, 1}));
        QCOMPARE(window.session()->runs()[1].result->trace.meta().world_size, 2);
    }
};

AWB_UI_TEST(CollectivesTests)
#include "test_ui_collectives.moc"
