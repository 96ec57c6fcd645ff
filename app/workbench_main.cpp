// attention-workbench: the Qt desktop workbench. --help and --version answer on stdout before any
// window (and without a display); an unknown option is named on stderr (exit 2) instead of being
// opened as a file.
#include <QApplication>
#include <QIcon>
#include <QTimer>

#include <cstdio>
#include <cstring>

#include "about_text.h"
#include "engine/process_tuning.h"
#include "main_window.h"
#include "model/version.h"
#include "single_instance.h"

namespace {

void print_usage(std::FILE* out) {
    std::fputs(
        "Usage: attention-workbench [options] [files...]\n"
        "The Attention Workbench: profile, benchmark and sweep attention variants in LibTorch, and read\n"
        "PyTorch / Kineto traces (ours or anyone's: CUDA, ROCm, vLLM, SGLang, multi-rank) down to their\n"
        "operators, kernels, attention calls, GPU time and memory.\n"
        "\n"
        "Arguments:\n"
        "  files          results files (profile, bench, sweep, check), chrome traces (.json, .json.gz)\n"
        "                 or workspaces to open, each in its own tab; while a workbench is running in\n"
        "                 this session, they open in it and this launch exits\n"
        "\n"
        "Options:\n"
        "  --new-window   open the files in a window of its own, even while a workbench is running\n"
        "  -h, --help     print this help and exit\n"
        "  -v, --version  print the version, the LibTorch built with and loaded, CUDA and Qt, and exit\n"
        "  Qt's own options (-platform offscreen, -style ...) go to Qt.\n"
        "\n"
        "The command-line tool is attnwb (attnwb --help).\n",
        out);
}

// Qt's own options, which it also takes with two dashes (--platform offscreen).
bool is_qt_option(const char* a) {
    static const char* qt[] = {"--platform",        "--platformpluginpath",
                               "--platformtheme",   "--plugin",
                               "--qwindowgeometry", "--qwindowicon",
                               "--qwindowtitle",    "--reverse",
                               "--session",         "--style",
                               "--stylesheet",      "--widgetcount",
                               "--display",         "--geometry",
                               "--qmljsdebugger",   "--nograb",
                               "--dograb",          "--sync"};
    for (const char* o : qt)
        if (std::strncmp(a, o, std::strlen(o)) == 0 && (a[std::strlen(o)] == '\0' || a[std::strlen(o)] == '='))
            return true;
    return false;
}

// 0: go on; otherwise the exit code (help, version, an unknown option).
int answer_options(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        if (std::strcmp(a, "-h") == 0 || std::strcmp(a, "--help") == 0) {
            print_usage(stdout);
            return 1;
        }
        if (std::strcmp(a, "-v") == 0 || std::strcmp(a, "--version") == 0) {
            std::printf("%s\n", awb::ui::about_text().c_str());
            return 1;
        }
        if (std::strcmp(a, "--") == 0) break;
        if (std::strncmp(a, "--", 2) == 0 && std::strcmp(a, "--new-window") != 0 && !is_qt_option(a)) {
            std::fprintf(stderr, "attention-workbench: unknown option %s\n\n", a);
            print_usage(stderr);
            return 2;
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (const int answered = answer_options(argc, argv)) return answered == 1 ? 0 : answered;
    awb::tune_allocator_for_steady_state();
    QApplication app(argc, argv);  // takes Qt's own options out of the arguments
    QApplication::setOrganizationName(QStringLiteral("AttentionWorkbench"));
    QApplication::setApplicationName(QStringLiteral("attention-workbench"));
    QApplication::setApplicationVersion(QStringLiteral(AWB_VERSION));
    QGuiApplication::setDesktopFileName(QStringLiteral("attention-workbench"));  // the desktop entry, for the shell
    QIcon icon;
    for (int size : {16, 32, 48, 64, 128, 256}) icon.addFile(QStringLiteral(":/icons/%1.png").arg(size));
    QApplication::setWindowIcon(icon);
    QStringList files = QApplication::arguments().mid(1);
    files.removeAll(QStringLiteral("--"));
    const bool new_window = files.removeAll(QStringLiteral("--new-window")) > 0;
    // Files opened the desktop way gather in the running workbench (ui/single_instance.h).
    if (!new_window && !files.isEmpty() && awb::ui::SingleInstance::handOff(files)) {
        std::printf("attention-workbench: %lld file%s opened in the running workbench\n",
                    static_cast<long long>(files.size()), files.size() == 1 ? "" : "s");
        return 0;
    }
    awb::ui::MainWindow window;
    window.resize(1400, 900);
    window.show();
    awb::ui::SingleInstance instance;
    if (!new_window) {
        if (!instance.listen())
            std::fprintf(stderr, "attention-workbench: not serving later launches (%s)\n",
                         qPrintable(instance.error()));
        QObject::connect(&instance, &awb::ui::SingleInstance::filesReceived, &window,
                         [&window](const QStringList& received) {
                             for (const QString& path : received) window.openFile(path);
                             window.setWindowState((window.windowState() & ~Qt::WindowMinimized) | Qt::WindowActive);
                             window.raise();
                             window.activateWindow();
                         });
    }
    for (const QString& path : files) window.openFile(path);
    // AWB_QUIT_AFTER_MS: a smoke run (the install test): after that long, print the window's title (it names
    // the run on screen once a file has opened) and quit.
    if (const int ms = qEnvironmentVariableIntValue("AWB_QUIT_AFTER_MS"); ms > 0)
        QTimer::singleShot(ms, &app, [&window] {
            std::printf("window: %s\n", qPrintable(window.windowTitle()));
            QApplication::quit();
        });
    return app.exec();
}
