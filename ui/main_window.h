// The workbench window: run panel (left dock), operator table (bottom dock), timeline (centre),
// toolbar and File menu; runs go to the engine thread; window layout, last spec and recent files are
// restored from QSettings.
#pragma once

#include <QMainWindow>

#include <memory>

#include "profiler_session.h"

class QLabel;
class QProgressBar;
class QScrollArea;
class QMenu;

namespace awb::ui {

class Engine;
class OperatorPanel;
class RunPanel;
class TimelineWidget;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;
    bool openFile(const QString& path);  // a profile report; false (with a message) otherwise
    void showResult(std::shared_ptr<const ProfileResult> result);
    RunPanel* runPanel() const { return run_panel_; }
    OperatorPanel* operatorPanel() const { return operators_; }
    TimelineWidget* timeline() const { return timeline_; }
    Engine* engine() const { return engine_; }

protected:
    void closeEvent(QCloseEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    void startRun(const RunSpec& spec, const ProfileOptions& options);
    void finishRun(const QString& message);
    void addRecent(const QString& path);
    void rebuildRecentMenu();

    Engine* engine_;
    RunPanel* run_panel_;
    OperatorPanel* operators_;
    TimelineWidget* timeline_;
    QScrollArea* timeline_scroll_;
    QProgressBar* progress_;
    QLabel* status_;
    QMenu* recent_menu_;
    qint64 run_started_ms_ = 0;
};

}  // namespace awb::ui
