// Files opened the desktop way gather in the running workbench (ui/single_instance.h): a launch's files
// reach the listening one made absolute, a socket left by a crashed workbench is replaced, a second
// listener does not take the socket from a live one, and with nobody listening the hand-off says no.
// (The install test runs two real workbench processes.)
#include <QDir>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QtConcurrent/QtConcurrent>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include "single_instance.h"
#include "ui_test_registry.h"

using namespace awb::ui;

class SingleInstanceTests : public QObject {
    Q_OBJECT
    QTemporaryDir runtime_;
    QByteArray saved_;

private slots:
    void initTestCase() {
        QVERIFY(runtime_.isValid());
        QFile::setPermissions(runtime_.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        saved_ = qgetenv("XDG_RUNTIME_DIR");
        qputenv("XDG_RUNTIME_DIR", runtime_.path().toUtf8());
        QCOMPARE(SingleInstance::socketPath(),
                 QDir(runtime_.path()).filePath(QStringLiteral("attention-workbench.socket")));
    }
    void cleanupTestCase() { qputenv("XDG_RUNTIME_DIR", saved_); }

    void withNobodyListeningTheHandOffSaysNo() { QVERIFY(!SingleInstance::handOff({QStringLiteral("a.json")}, 500)); }

    void filesReachTheListenerMadeAbsolute() {
        SingleInstance first;
        QVERIFY2(first.listen(), qPrintable(first.error()));
        QSignalSpy received(&first, &SingleInstance::filesReceived);
        // The launch's side blocks on its socket: on another thread, while this one serves.
        QFuture<bool> handed = QtConcurrent::run([] {
            return SingleInstance::handOff({QStringLiteral("rank0.pt.trace.json.gz"), QStringLiteral("/abs/b.json")});
        });
        QTRY_VERIFY_WITH_TIMEOUT(handed.isFinished(), 10000);
        QVERIFY(handed.result());
        QCOMPARE(received.size(), 1);
        const QStringList files = received.front().front().toStringList();
        QCOMPARE(files, QStringList({QDir::current().absoluteFilePath(QStringLiteral("rank0.pt.trace.json.gz")),
                                     QStringLiteral("/abs/b.json")}));
    }

    void aSecondListenerLeavesTheLiveOneServing() {
        SingleInstance first;
        QVERIFY(first.listen());
        SingleInstance second;  // a --new-window launch, or two started at once
        QVERIFY(!second.listen());
        QVERIFY2(second.error().contains(QStringLiteral("another workbench serves it")), qPrintable(second.error()));
        QSignalSpy received(&first, &SingleInstance::filesReceived);
        QFuture<bool> handed = QtConcurrent::run([] { return SingleInstance::handOff({QStringLiteral("/x.json")}); });
        QTRY_VERIFY_WITH_TIMEOUT(handed.isFinished(), 10000);
        QVERIFY(handed.result());
        QCOMPARE(received.size(), 1);
    }

    void aSocketLeftByACrashIsReplaced() {
        // A socket file with nobody behind it: what a killed workbench leaves (bound, never unlinked).
        const QByteArray path = SingleInstance::socketPath().toUtf8();
        const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        QVERIFY(fd >= 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::strncpy(address.sun_path, path.constData(), sizeof(address.sun_path) - 1);
        QCOMPARE(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
        ::close(fd);
        QVERIFY(QFileInfo(SingleInstance::socketPath()).exists());
        QVERIFY(!SingleInstance::handOff({QStringLiteral("/x.json")}, 500));
        SingleInstance next;
        QVERIFY2(next.listen(), qPrintable(next.error()));
    }
};

AWB_UI_TEST(SingleInstanceTests)
#include "test_ui_single_instance.moc"
