// One workbench window per user session for files opened the desktop way: a launch given files while a
// workbench is running hands them to it (they open there, as if by File > Open) and exits; otherwise
// it listens for later launches. The meeting point is a local socket in the user's runtime folder
// (XDG_RUNTIME_DIR), so users and sessions with their own runtime folders do not meet.
// `attention-workbench --new-window FILE...` always opens a window of its own.
#pragma once

#include <QObject>
#include <QStringList>

class QLocalServer;

namespace awb::ui {

class SingleInstance : public QObject {
    Q_OBJECT
public:
    explicit SingleInstance(QObject* parent = nullptr);
    // The socket's path: <runtime folder>/attention-workbench.socket.
    static QString socketPath();
    // Hands the files (made absolute) to a running workbench. True when it took them; false when none
    // runs or it did not answer within timeoutMs (then this launch opens them itself).
    static bool handOff(const QStringList& files, int timeoutMs = 3000);
    // Serves later launches (a socket left by a workbench that crashed is replaced). False, with the
    // reason in error(), when the socket cannot be made; the window works without it.
    bool listen();
    QString error() const { return error_; }

signals:
    void filesReceived(const QStringList& files);

private:
    void serve();
    QLocalServer* server_;
    QString error_;
};

}  // namespace awb::ui
