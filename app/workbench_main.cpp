// attention-workbench: the Qt desktop workbench.
#include <QApplication>

#include "engine/process_tuning.h"
#include "main_window.h"

int main(int argc, char** argv) {
    awb::tune_allocator_for_steady_state();
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("AttentionWorkbench"));
    QApplication::setApplicationName(QStringLiteral("attention-workbench"));
    awb::ui::MainWindow window;
    window.resize(1400, 900);
    window.show();
    for (const QString& path : QApplication::arguments().mid(1)) window.openFile(path);
    return app.exec();
}
