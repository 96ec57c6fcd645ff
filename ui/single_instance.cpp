#include "single_instance.h"

#include <QDir>
#include <QFileInfo>
#include <QLocalServer>
#include <QLocalSocket>
#include <QStandardPaths>

namespace awb::ui {

namespace {
// The message: one absolute path per line, then an empty line; the answer: "opened N\n".
constexpr qint64 kMaxMessageBytes = 1 << 20;
}  // namespace

SingleInstance::SingleInstance(QObject* parent) : QObject(parent), server_(new QLocalServer(this)) {
    server_->setSocketOptions(QLocalServer::UserAccessOption);
    connect(server_, &QLocalServer::newConnection, this, &SingleInstance::serve);
}

QString SingleInstance::socketPath() {
    QString dir = QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation);
    if (dir.isEmpty()) dir = QDir::tempPath();
    return QDir(dir).filePath(QStringLiteral("attention-workbench.socket"));
}

bool SingleInstance::handOff(const QStringList& files, int timeoutMs) {
    QLocalSocket socket;
    socket.connectToServer(socketPath());
    if (!socket.waitForConnected(timeoutMs)) return false;
    QByteArray message;
    for (const QString& f : files) message += QFileInfo(f).absoluteFilePath().toUtf8() + '\n';
    message += '\n';
    socket.write(message);
    if (!socket.waitForBytesWritten(timeoutMs)) return false;
    while (!socket.canReadLine())
        if (!socket.waitForReadyRead(timeoutMs)) return false;
    return socket.readLine().startsWith("opened ");
}

bool SingleInstance::listen() {
    // Qt makes the socket beside its path and renames it into place (for its permissions), which would
    // take the path from a live workbench: ask first whether one answers there.
    QLocalSocket probe;
    probe.connectToServer(socketPath());
    if (probe.waitForConnected(1000)) {  // a workbench serves (this one is a --new-window)
        error_ = QStringLiteral("%1: another workbench serves it").arg(socketPath());
        return false;
    }
    if (server_->listen(socketPath())) return true;
    if (server_->serverError() == QAbstractSocket::AddressInUseError) {
        // A socket file with nobody behind it (a workbench that crashed): replaced.
        QLocalServer::removeServer(socketPath());
        if (server_->listen(socketPath())) return true;
    }
    error_ = QStringLiteral("%1: %2").arg(socketPath(), server_->errorString());
    return false;
}

void SingleInstance::serve() {
    while (QLocalSocket* socket = server_->nextPendingConnection()) {
        connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
        connect(socket, &QLocalSocket::readyRead, this, [this, socket] {
            const QByteArray all = socket->peek(kMaxMessageBytes);
            if (!all.endsWith("\n\n") && all != "\n") {
                if (all.size() >= kMaxMessageBytes) socket->abort();  // not one of ours
                return;
            }
            socket->readAll();
            QStringList files;
            for (const QByteArray& line : all.split('\n'))
                if (!line.isEmpty()) files << QString::fromUtf8(line);
            socket->write(QByteArray("opened ") + QByteArray::number(files.size()) + '\n');
            socket->flush();
            emit filesReceived(files);
        });
    }
}

}  // namespace awb::ui
