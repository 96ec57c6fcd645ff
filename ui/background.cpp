#include "background.h"

#include <QThread>

#include <algorithm>

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace awb::ui {

void yield_to_the_gui_thread() {
#if defined(__linux__)
    // Linux keeps a nice value per thread (setpriority on the thread id); once per pool thread.
    thread_local bool lowered = false;
    if (lowered) return;
    lowered = true;
    setpriority(PRIO_PROCESS, id_t(syscall(SYS_gettid)), kBackgroundNice);
#endif
}

QThreadPool* background_pool() {
    static QThreadPool* pool = [] {
        auto* p = new QThreadPool;  // lives as long as the process: jobs may still run at exit
        p->setObjectName(QStringLiteral("awb-background"));
        p->setMaxThreadCount(std::max(2, QThread::idealThreadCount()));
        return p;
    }();
    return pool;
}

}  // namespace awb::ui
