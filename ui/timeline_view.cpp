#include "timeline_view.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

#include "analysis/kernel_table.h"
#include "analysis/op_table.h"
#include "background.h"
#include "format_qt.h"

namespace awb::ui {

namespace {

QColor color_for(int32_t name) {
    // Stable, well-spread hues per name (golden-ratio steps), muted so labels stay readable.
    const double hue = std::fmod(0.13 + 0.618033988749895 * double(name), 1.0);
    return QColor::fromHsvF(float(hue), 0.45f, 0.92f);
}

}  // namespace

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setMinimumSize(400, 120);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void TimelineView::setData(std::shared_ptr<const TimelineData> data, std::shared_ptr<const Trace> trace,
                           std::vector<MemorySeries> memory) {
    owned_memory_ = std::move(memory);
    showPrepared(std::move(data), std::move(trace), nullptr);
}

void TimelineView::showPrepared(std::shared_ptr<const TimelineData> data, std::shared_ptr<const Trace> trace,
                                std::shared_ptr<const RunAnalysis> analysis) {
    ++requests_;
    preparing_ = 0;
    data_ = std::move(data);
    trace_ = std::move(trace);
    analysis_ = std::move(analysis);
    memory_.clear();
    memory_low_.clear();
    // The run's series are read where they are (a long trace has millions of points: no copy).
    for (const MemorySeries& m : analysis_ ? analysis_->memory : owned_memory_)
        if (!m.points.empty()) {
            memory_.push_back(&m);
            int64_t low = m.peak_allocated_bytes;
            for (const MemoryPoint& a : m.allocated_points) low = std::min(low, a.bytes);
            memory_low_.push_back(low);
        }
    highlighted_.clear();
    selected_ = -1;
    flows_.clear();
    marked_.clear();
    resetLanes();
    fit();
}

namespace {

// One build of a trace's draw lists at a time, shared by every timeline that shows it: the window's
// and the comparison's two often ask for the same run's at once. An entry lives while its trace does.
QFuture<std::shared_ptr<const TimelineData>> shared_build(const std::shared_ptr<const Trace>& trace) {
    static std::mutex mutex;
    static std::map<const Trace*, std::pair<std::weak_ptr<const Trace>, QFuture<std::shared_ptr<const TimelineData>>>>
        builds;
    std::lock_guard lock(mutex);
    for (auto it = builds.begin(); it != builds.end();)
        it = it->second.first.expired() ? builds.erase(it) : std::next(it);
    if (const auto it = builds.find(trace.get()); it != builds.end()) return it->second.second;
    auto future =
        run_in_background([trace] { return std::make_shared<const TimelineData>(TimelineData::from_trace(*trace)); });
    builds[trace.get()] = {trace, future};
    return future;
}

}  // namespace

void TimelineView::showRun(const NamedRun& run, bool) {
    if (run.result && run.analysis)
        setRun(run.result, run.analysis);
    else
        setData(nullptr);
}

void TimelineView::setRun(std::shared_ptr<const ProfileResult> run, std::shared_ptr<const RunAnalysis> analysis) {
    auto trace = std::shared_ptr<const Trace>(run, &run->trace);
    const bool large = is_large(*trace);
    owned_memory_.clear();
    if (!large) {
        showPrepared(std::make_shared<const TimelineData>(TimelineData::from_trace(*trace)), trace,
                     std::move(analysis));
        return;
    }
    showPrepared(nullptr, nullptr, nullptr);
    preparing_ = trace->events().size();
    const uint64_t request = requests_;
    auto* watcher = new QFutureWatcher<std::shared_ptr<const TimelineData>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this,
            [this, watcher, trace, request, analysis = std::move(analysis)] {
                watcher->deleteLater();
                if (request != requests_) return;  // a newer run or trace was set meanwhile
                showPrepared(watcher->result(), trace, analysis);
            });
    watcher->setFuture(shared_build(trace));
}

int TimelineView::contentHeight() const {
    return (data_ ? rows_.bottom : kRulerPx) + int(memory_.size()) * (kMemoryTrackPx + kLaneHeaderPx);
}

int TimelineView::laneTop(int lane) const {
    return lane >= 0 && size_t(lane) < rows_.header_y.size() ? rows_.header_y[size_t(lane)] : -1;
}

void TimelineView::setView(const TimeMapping& view) {
    view_ = view;
    if (data_) {  // zooming out stops at the whole trace (with fit()'s margin): no empty time around it
        const int64_t pad = std::max<int64_t>(1, (data_->end_ns - data_->start_ns) / 100);
        const int64_t lo = data_->start_ns - pad, hi = data_->end_ns + pad;
        if (view_.end_ns - view_.start_ns >= hi - lo) {
            view_.start_ns = lo;
            view_.end_ns = hi;
        }
    }
    view_.width_px = std::max(1, width() - kGutterPx);
    update();
    emit viewChanged(view_.start_ns, view_.end_ns);
}

void TimelineView::fit() {
    TimeMapping m;
    if (data_) {
        const int64_t pad = std::max<int64_t>(1, (data_->end_ns - data_->start_ns) / 100);
        m.start_ns = data_->start_ns - pad;
        m.end_ns = data_->end_ns + pad;
    }
    setView(m);
}

void TimelineView::setHighlightedNames(std::set<int32_t> names) {
    highlighted_ = std::move(names);
    update();
}

void TimelineView::setHighlightedName(const QString& name) {
    std::set<int32_t> ids;
    if (data_ && !name.isEmpty()) {
        const std::string n = name.toStdString();
        for (size_t i = 0; i < data_->names.size(); ++i)
            if (data_->names[i] == n) ids.insert(int32_t(i));
    }
    setHighlightedNames(std::move(ids));
}

void TimelineView::resizeEvent(QResizeEvent*) { view_.width_px = std::max(1, width() - kGutterPx); }

void TimelineView::paintEvent(QPaintEvent* e) {
    QPainter p(this);
    paint_clip_ = e->rect();  // only the exposed rows are built and drawn
    paintTo(p, rect());
    paint_clip_ = QRect();
    // In a scroll area the ruler stays at the visible top while the lanes scroll under it.
    const int top = visibleRegion().boundingRect().top();
    if (data_ && top > 0) {
        TimeMapping view = view_;
        view.width_px = std::max(1, width() - kGutterPx);
        p.fillRect(QRect(0, top, width(), kRulerPx), palette().window());
        paintRuler(p, QRect(kGutterPx, top, width() - kGutterPx, kRulerPx), view);
        p.drawText(QRect(4, top, kGutterPx - 8, kRulerPx), Qt::AlignVCenter | Qt::AlignLeft,
                   tr("view %1").arg(format_duration_ns(double(view.end_ns - view.start_ns))));
    }
    if (data_) {
        TimeMapping view = view_;
        view.width_px = std::max(1, width() - kGutterPx);
        paintMarkLabel(p, std::max(0, top), view);
    }
}

size_t TimelineView::paintTo(QPainter& p, const QRect& area) {
    QElapsedTimer timer;
    timer.start();
    p.fillRect(area, palette().base());
    if (!data_) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(area, Qt::AlignCenter,
                   preparing_ ? tr("Preparing the timeline of %1 events...").arg(preparing_)
                              : tr("Run a spec or open a report to see its timeline"));
        return 0;
    }
    TimeMapping view = view_;
    view.width_px = std::max(1, area.width() - kGutterPx);
    // Rows are laid out from the area's top; only those in the exposed part are built.
    const QRect exposed = paint_clip_.isNull() ? area : paint_clip_.intersected(area);
    build_draw_list(*data_, view, kFoldPx, items_, rows_, exposed.top() - area.top(), exposed.bottom() + 1 - area.top(),
                    kRowPx);

    const int x_base = area.left() + kGutterPx;
    p.save();
    p.setClipRect(QRect(x_base, area.top(), area.width() - kGutterPx, area.height()));
    paintIdle(p, area, view);
    paintItems(p, area);
    paintFlows(p, area, view);
    paintMarks(p, area, view);
    if (selecting_) {
        const double a = std::min(select_x0_, select_x1_), b = std::max(select_x0_, select_x1_);
        p.fillRect(QRectF(x_base + a, area.top(), b - a, area.height()), QColor(40, 120, 255, 50));
    }
    p.restore();
    paintLaneHeaders(p, area);
    paintMemoryTracks(p, area);
    paintRuler(p, QRect(x_base, area.top(), area.width() - kGutterPx, kRulerPx), view);
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRect(area.left() + 4, area.top(), kGutterPx - 8, kRulerPx), Qt::AlignVCenter | Qt::AlignLeft,
               tr("view %1").arg(format_duration_ns(double(view.end_ns - view.start_ns))));
    last_paint_ms_ = double(timer.nsecsElapsed()) / 1e6;
    return items_.size();
}

void TimelineView::paintIdle(QPainter& p, const QRect& area, const TimeMapping& view) {
    // The GPUs' idle gaps (no kernel, copy or set on any stream of the device): a red tint behind
    // each of its shown stream lanes, only the visible gaps (binary search), at least one pixel wide.
    const int x_base = area.left() + kGutterPx;
    for (int l : rows_.order) {
        const DeviceIdle* idle = idleOf(l);
        const int rows = rows_.shownRows(l);
        if (!idle || rows == 0) continue;
        const int top = area.top() + rows_.header_y[size_t(l)] + kLaneHeaderPx;
        auto it = std::partition_point(idle->gaps.begin(), idle->gaps.end(),
                                       [&](const auto& g) { return g.second <= view.start_ns; });
        for (; it != idle->gaps.end() && it->first < view.end_ns; ++it) {
            const double x0 = std::max(0.0, view.x_of(it->first)), x1 = std::min(view.width_px, view.x_of(it->second));
            if (x1 - x0 >= 1) p.fillRect(QRectF(x_base + x0, top, x1 - x0, rows * kRowPx), QColor(230, 60, 60, 38));
        }
    }
}

void TimelineView::paintItems(QPainter& p, const QRect& area) {
    const QFontMetrics fm(p.font());
    const int x_base = area.left() + kGutterPx;
    for (const auto& it : items_) {
        const int y = area.top() + rows_.row_y[size_t(it.lane)][size_t(it.level)];
        const double w = std::max(1.0, it.x1 - it.x0);
        const QRectF r(x_base + it.x0, y, w, kRowPx - 2);
        if (it.count > 1) {  // folded: a grey block, darker with more spans
            const int shade = std::clamp(200 - int(std::log2(double(it.count)) * 12), 90, 200);
            p.fillRect(r, QColor(shade, shade, shade));
            continue;
        }
        p.fillRect(r, color_for(it.name));
        if (highlighted_.count(it.name)) {
            p.setPen(QPen(Qt::red, 2));
            p.drawRect(r.adjusted(1, 1, -1, -1));
        }
        if (w > 24) {  // label only where it fits
            p.setPen(Qt::black);
            const QString label =
                fm.elidedText(QString::fromStdString(data_->label(it.name)), Qt::ElideRight, int(w) - 4);
            if (label.size() > 1) p.drawText(r.adjusted(2, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft, label);
        }
    }
}

int TimelineView::eventY(int event) const {
    if (!data_ || event < 0 || size_t(event) >= data_->placed.size()) return -1;
    const auto& at = data_->placed[size_t(event)];
    if (at.lane < 0) return -1;
    const int row = rows_.row_y[size_t(at.lane)][size_t(at.level)];
    return row >= 0 ? row : laneTop(at.lane);  // a collapsed lane: its header
}

void TimelineView::selectEvent(int event) {
    if (data_ && event >= 0 && size_t(event) < data_->placed.size()) {  // its lane shown, its row unfolded
        const auto& at = data_->placed[size_t(event)];
        if (at.lane >= 0 && rows_.row_y[size_t(at.lane)][size_t(at.level)] < 0) {
            LaneView& v = lane_views_[size_t(at.lane)];
            v.hidden = v.collapsed = false;
            v.frames_expanded = true;
            relayout();
        }
    }
    selected_ = event;
    flows_ = trace_ && event >= 0 ? launch_flows(*trace_, event) : std::vector<FlowLink>{};
    update();
}

void TimelineView::paintFlows(QPainter& p, const QRect& area, const TimeMapping& view) {
    if (!data_ || selected_ < 0 || size_t(selected_) >= data_->placed.size()) return;
    const int x_base = area.left() + kGutterPx;
    auto top_of = [&](int32_t event) {  // -1: not on screen (a hidden, collapsed or folded row)
        const auto& at = data_->placed[size_t(event)];
        const int row = at.lane < 0 ? -1 : rows_.row_y[size_t(at.lane)][size_t(at.level)];
        return row < 0 ? -1 : area.top() + row;
    };
    auto x_of = [&](int64_t ns) { return x_base + std::clamp(view.x_of(ns), -1e6, 1e6); };
    const TraceEvent& sel = trace_->events()[size_t(selected_)];
    p.setPen(QPen(QColor(20, 20, 20), 2));
    p.setBrush(Qt::NoBrush);
    if (top_of(selected_) >= 0)
        p.drawRect(QRectF(x_of(sel.start_ns), top_of(selected_),
                          std::max(2.0, view.x_of(sel.end_ns) - view.x_of(sel.start_ns)), kRowPx - 2));
    const QColor flow(200, 60, 20);
    for (const FlowLink& f : flows_) {
        const TraceEvent& a = trace_->events()[size_t(f.from)];
        const TraceEvent& b = trace_->events()[size_t(f.to)];
        if (top_of(f.from) < 0 || top_of(f.to) < 0) continue;
        // From the launch's start (bottom of its row) to the kernel's start (top of its row), as Perfetto draws ac2g.
        const QPointF from(x_of(a.start_ns), top_of(f.from) + kRowPx - 2);
        const QPointF to(x_of(b.start_ns), top_of(f.to));
        p.setPen(QPen(flow, 1.5));
        p.drawLine(from, to);
        const QLineF line(to, from);
        const double angle = std::atan2(-line.dy(), line.dx());
        const QPointF head1 = to + QPointF(std::sin(angle + M_PI / 3) * 7, std::cos(angle + M_PI / 3) * 7);
        const QPointF head2 =
            to + QPointF(std::sin(angle + M_PI - M_PI / 3) * 7, std::cos(angle + M_PI - M_PI / 3) * 7);
        p.setBrush(flow);
        p.drawPolygon(QPolygonF({to, head1, head2}));
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(flow, 2));
        p.drawRect(QRectF(to.x(), to.y(), std::max(2.0, view.x_of(b.end_ns) - view.x_of(b.start_ns)), kRowPx - 2));
    }
}

void TimelineView::paintRuler(QPainter& p, const QRect& ruler, const TimeMapping& view) {
    p.fillRect(ruler, palette().window());
    // Ticks every 1, 2 or 5 x 10^k ns, about every 100 px; labels are times since the trace start.
    const double target = view.ns_per_px() * 100;
    double step = std::pow(10.0, std::floor(std::log10(std::max(1.0, target))));
    for (double m : {2.0, 5.0, 10.0})
        if (step < target) step = std::pow(10.0, std::floor(std::log10(std::max(1.0, target)))) * m;
    const auto tick = int64_t(std::max(1.0, step));
    const int64_t origin = data_ ? data_->start_ns : 0;
    p.setPen(palette().color(QPalette::Text));
    for (int64_t t = origin + ((view.start_ns - origin) / tick) * tick; t <= view.end_ns; t += tick) {
        const double x = ruler.left() + view.x_of(t);
        if (x < ruler.left() || t < origin) continue;  // nothing before the trace starts: no negative times
        p.drawLine(QPointF(x, ruler.bottom() - 5), QPointF(x, ruler.bottom()));
        p.drawText(QRectF(x + 3, ruler.top(), 100, ruler.height() - 2), Qt::AlignLeft | Qt::AlignVCenter,
                   format_duration_ns(double(t - origin)));
    }
}

TimelineView::Hit TimelineView::rowAt(int y) const {
    Hit h;
    if (!data_) return h;
    for (int l : rows_.order) {
        const auto& row_y = rows_.row_y[size_t(l)];
        for (size_t d = 0; d < row_y.size(); ++d)
            if (row_y[d] >= 0 && y >= row_y[d] && y < row_y[d] + kRowPx) return {l, int(d)};
    }
    return h;
}

QString TimelineView::describe(const TimelineSpan& s) const {
    QString text = QStringLiteral("<b>%1</b><br>duration %2")
                       .arg(QString::fromStdString(data_->label(s.name)).toHtmlEscaped(),
                            format_duration_ns(double(s.end_ns - s.start_ns)));
    if (data_->label(s.name) != data_->names[size_t(s.name)])  // demangled for display: the raw name too
        text +=
            QStringLiteral("<br>raw name %1").arg(QString::fromStdString(data_->names[size_t(s.name)]).toHtmlEscaped());
    if (trace_ && s.event >= 0 && size_t(s.event) < trace_->events().size()) {
        const auto& events = trace_->events();
        const TraceEvent& e = events[size_t(s.event)];
        // Self time: minus the direct children (the events whose parent is this one).
        int64_t children = 0;
        for (size_t i = size_t(s.event) + 1; i < events.size() && events[i].start_ns <= e.end_ns; ++i)
            if (events[i].parent == s.event) children += events[i].duration_ns();
        text += QStringLiteral("<br>self %1").arg(format_duration_ns(double(e.duration_ns() - children)));
        text += QStringLiteral("<br>start %1 after trace start")
                    .arg(format_duration_ns(double(e.start_ns - trace_->begin_ns())));
        if (!e.shapes().empty())
            text += QStringLiteral("<br>shapes %1").arg(QString::fromStdString(format_shapes(e.shapes())));
        if (!e.dtypes().empty()) {
            QStringList types;
            for (const auto& t : e.dtypes()) types << QString::fromStdString(t);
            text += QStringLiteral("<br>dtypes %1").arg(types.join(QStringLiteral(", ")));
        }
        // Bytes allocated while it ran, on its thread (inclusive, like the operator table's memory).
        int64_t bytes = 0;
        for (const auto& m : trace_->memory())
            if (m.thread == e.thread && m.ts_ns >= e.start_ns && m.ts_ns <= e.end_ns && m.bytes > 0) bytes += m.bytes;
        if (bytes > 0) text += QStringLiteral("<br>allocated %1").arg(format_bytes(bytes));
        if (e.replayed)
            text +=
                tr("<br>recorded while a CUDA graph was captured, placed at its replayed kernels: no CPU time here");
        if (const DeviceLaunch* l = e.launch.get()) {
            if (!l->kernel.empty())
                text += tr("<br>launches %1").arg(QString::fromStdString(l->kernel.str()).toHtmlEscaped());
            if (l->grid[0] > 0)
                text += QStringLiteral("<br>grid %1, block %2")
                            .arg(QString::fromStdString(format_dim3(l->grid)),
                                 QString::fromStdString(format_dim3(l->block)));
            if (l->registers_per_thread >= 0)
                text += QStringLiteral("<br>%1 registers / thread").arg(l->registers_per_thread);
            if (l->shared_memory_bytes >= 0)
                text += QStringLiteral(", shared memory %1").arg(format_bytes(l->shared_memory_bytes));
            if (l->occupancy_pct >= 0)
                text += QStringLiteral("<br>est. achieved occupancy %1 %").arg(l->occupancy_pct, 0, 'f', 1);
            if (l->bytes > 0) text += QStringLiteral("<br>%1 copied").arg(format_bytes(l->bytes));
            if (l->bandwidth_gb_s > 0) text += QStringLiteral(" at %1 GB/s").arg(l->bandwidth_gb_s, 0, 'f', 1);
        }
        if (e.correlation_id > 0 && e.kind != EventKind::CpuOp && e.kind != EventKind::UserAnnotation)
            text += QStringLiteral("<br>correlation %1 (click: arrows to its launch / kernels)").arg(e.correlation_id);
        if (analysis_) text += totalsInRun(e);
    }
    return text;
}

const DeviceIdle* TimelineView::idleOf(int lane) const {
    if (!analysis_ || !data_ || lane < 0 || size_t(lane) >= data_->lanes.size() || !data_->lanes[size_t(lane)].device)
        return nullptr;
    const TimelineLane& l = data_->lanes[size_t(lane)];
    for (const DeviceIdle& d : analysis_->gpu_idle)
        if (d.rank == l.rank && d.device_index == l.device_index) return &d;
    return nullptr;
}

std::pair<int64_t, int64_t> TimelineView::idleGapAt(int lane, int64_t t) const {
    const DeviceIdle* idle = idleOf(lane);
    if (!idle) return {0, 0};
    const auto it =
        std::partition_point(idle->gaps.begin(), idle->gaps.end(), [t](const auto& g) { return g.second <= t; });
    return it != idle->gaps.end() && it->first <= t ? *it : std::pair<int64_t, int64_t>{0, 0};
}

QString TimelineView::totalsInRun(const TraceEvent& e) const {
    // The event's row of the run's operator table (CPU ops, by PyTorch's table name) or kernel table.
    if (e.device == DeviceKind::CPU) {
        const std::string_view name = table_name_view(e.name);
        const auto& rows = analysis_->operators;
        const auto row =
            std::find_if(rows.begin(), rows.end(), [name](const OperatorRow& r) { return r.name == name; });
        if (row == rows.end()) return {};
        const int64_t all_self = totals(rows).self_cpu_ns;  // the operator table's "Self CPU time total"
        return QStringLiteral("<br><i>in this run:</i> %1 calls, self CPU %2 (%3 of the run's), CPU total %4")
            .arg(row->calls)
            .arg(format_duration_ns(double(row->self_cpu_ns)), format_share(double(row->self_cpu_ns), double(all_self)),
                 format_duration_ns(double(row->cpu_total_ns)));
    }
    int64_t all_device = 0;
    const KernelRow* row = nullptr;
    for (const KernelRow& k : analysis_->kernels) {
        all_device += k.total_ns;
        if (!row && k.name == e.name && k.device_index == e.device_index) row = &k;
    }
    if (!row) return {};
    return QStringLiteral("<br><i>in this run:</i> %1 launches, total %2 (%3 of device time), avg %4")
        .arg(row->calls)
        .arg(format_duration_ns(double(row->total_ns)), format_share(double(row->total_ns), double(all_device)),
             format_duration_ns(row->avg_ns()));
}

bool TimelineView::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip && data_) {
        auto* help = static_cast<QHelpEvent*>(e);
        const Hit h = rowAt(help->pos().y());
        const TimelineSpan* s =
            h.lane >= 0 ? span_at(*data_, view_, h.lane, h.level, help->pos().x() - kGutterPx, 2.0) : nullptr;
        const auto [gap_start, gap_end] = h.lane >= 0 && !s
                                              ? idleGapAt(h.lane, view_.ns_at(help->pos().x() - kGutterPx))
                                              : std::pair<int64_t, int64_t>{0, 0};
        const int track = memoryTrackAt(help->pos().y());
        if (track >= 0 && help->pos().x() >= kGutterPx)
            QToolTip::showText(help->globalPos(), memoryTooltip(track, help->pos().x() - kGutterPx), this);
        else if (s)
            QToolTip::showText(help->globalPos(), describe(*s), this);
        else if (gap_end > gap_start)
            QToolTip::showText(
                help->globalPos(),
                tr("<b>GPU idle</b> %1<br>no kernel, copy or set on any stream of this GPU<br>from %2 to %3 after "
                   "trace start")
                    .arg(format_duration_ns(double(gap_end - gap_start)),
                         format_duration_ns(double(gap_start - data_->start_ns)),
                         format_duration_ns(double(gap_end - data_->start_ns))),
                this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(e);
}

void TimelineView::wheelEvent(QWheelEvent* e) {
    const double steps = e->angleDelta().y() / 120.0;
    if (steps == 0) return;
    setView(view_.zoomed(std::pow(1.25, steps), e->position().x() - kGutterPx));
}

void TimelineView::mousePressEvent(QMouseEvent* e) {
    if (e->button() != Qt::LeftButton) return;
    press_pos_ = e->pos();
    press_start_ns_ = view_.start_ns;
    if (e->modifiers() & Qt::ShiftModifier) {
        selecting_ = true;
        select_x0_ = select_x1_ = e->pos().x() - kGutterPx;
    } else {
        dragging_ = true;
    }
}

void TimelineView::mouseMoveEvent(QMouseEvent* e) {
    if (dragging_) {
        TimeMapping m = view_;
        const int64_t span = m.end_ns - m.start_ns;
        m.start_ns = press_start_ns_ - int64_t((e->pos().x() - press_pos_.x()) * m.ns_per_px());
        m.end_ns = m.start_ns + span;
        setView(m);
    } else if (selecting_) {
        select_x1_ = e->pos().x() - kGutterPx;
        update();
    }
}

void TimelineView::mouseReleaseEvent(QMouseEvent* e) {
    if (selecting_) {
        selecting_ = false;
        const double a = std::min(select_x0_, select_x1_), b = std::max(select_x0_, select_x1_);
        if (b - a > 3) {
            TimeMapping m = view_;
            m.start_ns = view_.ns_at(a);
            m.end_ns = std::max(m.start_ns + 100, view_.ns_at(b));
            setView(m);
        }
        update();
    } else if (dragging_) {
        dragging_ = false;
        if ((e->pos() - press_pos_).manhattanLength() < 3 && data_) {      // a click, not a drag
            if (const int lane = laneAtHeader(e->pos().y()); lane >= 0) {  // on a lane's header: collapse / expand
                setLaneCollapsed(lane, !lane_views_[size_t(lane)].collapsed);
                return;
            }
            const Hit h = rowAt(e->pos().y());
            if (const TimelineSpan* s =
                    h.lane >= 0 ? span_at(*data_, view_, h.lane, h.level, e->pos().x() - kGutterPx, 2.0) : nullptr) {
                setHighlightedNames({s->name});
                selectEvent(s->event);
                if (s->event >= 0) emit eventClicked(s->event);
            }
        }
    }
}

void TimelineView::keyPressEvent(QKeyEvent* e) {
    const double center = view_.width_px / 2;
    switch (e->key()) {
        case Qt::Key_Plus:
        case Qt::Key_Equal: setView(view_.zoomed(1.5, center)); break;
        case Qt::Key_Minus: setView(view_.zoomed(1 / 1.5, center)); break;
        case Qt::Key_Left: setView(view_.panned(-view_.width_px / 8)); break;
        case Qt::Key_Right: setView(view_.panned(view_.width_px / 8)); break;
        case Qt::Key_F:
        case Qt::Key_Home: fit(); break;
        default: QWidget::keyPressEvent(e);
    }
}

}  // namespace awb::ui
