#include "run_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "model/variant_catalog.h"

namespace awb::ui {

namespace {

QSpinBox* spin(int lo, int hi, int value, const QString& tip) {
    auto* s = new QSpinBox;
    s->setRange(lo, hi);
    s->setValue(value);
    s->setToolTip(tip);
    s->setAccelerated(true);
    return s;
}

// "256, 512,1024" -> numbers; a part that is not a positive number gives -1 (refused by validate()).
std::vector<int64_t> parse_list(const QString& text) {
    std::vector<int64_t> out;
    for (const auto& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const qlonglong v = part.trimmed().toLongLong(&ok);
        out.push_back(ok ? v : -1);
    }
    return out;
}

QComboBox* combo(const QStringList& items, const QString& current) {
    auto* c = new QComboBox;
    c->addItems(items);
    c->setCurrentText(current);
    return c;
}

}  // namespace

RunPanel::RunPanel(DeviceCaps caps, QWidget* parent) : QWidget(parent), caps_(std::move(caps)) {
    createSpecWidgets();
    problems_ = new QLabel;
    problems_->setWordWrap(true);
    problems_->setStyleSheet(QStringLiteral("color: #b00020"));
    run_ = new QPushButton(tr("Run"));
    run_->setToolTip(tr("Profile this spec (Ctrl+R)"));
    cancel_ = new QPushButton(tr("Cancel"));
    cancel_->setToolTip(tr("Stop after the current step (Esc)"));
    cancel_->setEnabled(false);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(run_);
    buttons->addWidget(cancel_);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(buildSpecBox());
    layout->addWidget(buildProfilerBox());
    layout->addWidget(problems_);
    layout->addLayout(buttons);
    layout->addWidget(buildSweepBox());
    layout->addStretch();
    connectWidgets();
    revalidate();
}

void RunPanel::createSpecWidgets() {
    const RunSpec d;  // the article's defaults
    QStringList variants;
    for (const auto& v : variant_catalog()) variants << QString::fromStdString(v.name);
    variant_ = combo(variants, QString::fromStdString(d.variant));
    variant_->setObjectName(QStringLiteral("variant"));
    for (int i = 0; i < variant_->count(); ++i)
        variant_->setItemData(i, QString::fromStdString(variant_catalog()[size_t(i)].description), Qt::ToolTipRole);
    dtype_ = combo(
        {QStringLiteral("float32"), QStringLiteral("float64"), QStringLiteral("float16"), QStringLiteral("bfloat16")},
        QStringLiteral("float32"));
    QStringList devices{QStringLiteral("cpu")};
    for (int i = 0; i < caps_.cuda_device_count; ++i) devices << QStringLiteral("cuda:%1").arg(i);
    device_ = combo(devices, QStringLiteral("cpu"));
    mode_ = combo({QStringLiteral("train"), QStringLiteral("forward")}, QStringLiteral("train"));
    mode_->setToolTip(tr("train = forward + out.square().mean().backward()"));
    mask_ =
        combo({QStringLiteral("none"), QStringLiteral("causal"), QStringLiteral("padding"), QStringLiteral("window")},
              QStringLiteral("none"));
    mask_->setToolTip(
        tr("causal: top-left as PyTorch's is_causal; padding: per-batch key lengths; window: causal within the last W "
           "keys "
           "(a sliding window, as Mistral's)"));
    sdpa_backend_ = combo({QStringLiteral("auto"), QStringLiteral("math"), QStringLiteral("flash"),
                           QStringLiteral("efficient"), QStringLiteral("cudnn")},
                          QStringLiteral("auto"));
    sdpa_backend_->setObjectName(QStringLiteral("sdpaBackend"));
    sdpa_backend_->setToolTip(
        caps_.sdpa_backend_selectable
            ? tr("The kernel scaled_dot_product_attention may use (variant sdpa): the CPU has math and flash, CUDA "
                 "math, flash, efficient and cudnn; auto lets LibTorch choose. A backend that cannot run the spec "
                 "is refused with LibTorch's reasons.")
            : tr("LibTorch %1 has no SDPA backend selection (it came with 2.0): sdpa is its math path")
                  .arg(QString::fromStdString(caps_.torch_version)));
    layout_ = combo({QStringLiteral("bhnd"), QStringLiteral("bnhd")}, QStringLiteral("bhnd"));
    layout_->setToolTip(tr("bnhd: a [B,N,H,D] tensor transposed to [B,H,N,D], as a projection gives it"));
    batch_ = spin(1, 1 << 20, int(d.batch), tr("Batch size B"));
    heads_ = spin(1, 1 << 16, int(d.heads), tr("Query heads H"));
    kv_heads_ = spin(1, 1 << 16, int(d.kv_heads), tr("Key/value heads (grouped-query attention when below H)"));
    seq_q_ = spin(1, 1 << 24, int(d.seq_q), tr("Query length Nq (tokens)"));
    seq_k_ = spin(1, 1 << 24, int(d.seq_k), tr("Key/value length Nk (tokens)"));
    head_dim_ = spin(1, 1 << 16, int(d.head_dim), tr("Head dimension D"));
    threads_ = spin(0, 1024, d.threads, tr("Intra-op threads; 0 = LibTorch's default"));
    block_ = spin(1, 1 << 20, int(d.block_size), tr("Query and key block of the chunked variant"));
    window_ = spin(1, 1 << 24, 256, tr("Mask window: each query sees itself and the W - 1 keys before it"));
    key_lengths_ = new QLineEdit;
    key_lengths_->setPlaceholderText(tr("e.g. 512,300 (mask padding)"));
}

QGroupBox* RunPanel::buildSpecBox() {
    auto* spec_box = new QGroupBox(tr("Run spec"));
    auto* form = new QFormLayout(spec_box);
    form->addRow(tr("Variant"), variant_);
    form->addRow(QString(), buildModuleRow());
    form->addRow(tr("Batch B"), batch_);
    form->addRow(tr("Heads H"), heads_);
    form->addRow(tr("KV heads"), kv_heads_);
    form->addRow(tr("Query length Nq"), seq_q_);
    form->addRow(tr("Key length Nk"), seq_k_);
    form->addRow(tr("Head dim D"), head_dim_);
    form->addRow(tr("Dtype"), dtype_);
    form->addRow(tr("Device"), device_);
    form->addRow(tr("Mode"), mode_);
    form->addRow(tr("Mask"), mask_);
    form->addRow(tr("Key lengths"), key_lengths_);
    form->addRow(tr("Window W"), window_);
    form->addRow(tr("Layout"), layout_);
    form->addRow(tr("Threads"), threads_);
    form->addRow(tr("Block (chunked)"), block_);
    form->addRow(tr("SDPA backend"), sdpa_backend_);
    return spec_box;
}

QGroupBox* RunPanel::buildProfilerBox() {
    const ProfileOptions po;
    wait_ = spin(0, 1000, po.wait, tr("Steps run with the profiler off"));
    warmup_ = spin(0, 1000, po.warmup, tr("Steps run under the profiler and discarded"));
    active_ = spin(1, 1000, po.active, tr("Steps recorded per cycle"));
    repeat_ = spin(1, 1000, po.repeat, tr("Cycles of wait + warmup + active"));
    shapes_ = new QCheckBox(tr("Record shapes"));
    shapes_->setChecked(po.record_shapes);
    memory_ = new QCheckBox(tr("Profile memory"));
    memory_->setChecked(po.profile_memory);
    auto* prof_box = new QGroupBox(tr("Profiler schedule"));
    auto* pform = new QFormLayout(prof_box);
    pform->addRow(tr("Wait"), wait_);
    pform->addRow(tr("Warm-up"), warmup_);
    pform->addRow(tr("Active"), active_);
    pform->addRow(tr("Repeat"), repeat_);
    pform->addRow(shapes_);
    pform->addRow(memory_);
    return prof_box;
}

QGroupBox* RunPanel::buildSweepBox() {
    auto* sweep_box = new QGroupBox(tr("Sweep (profiler off)"));
    auto* sform = new QFormLayout(sweep_box);
    sweep_seq_ = new QLineEdit(QStringLiteral("256,512,1024,2048"));
    sweep_seq_->setToolTip(tr("Sequence lengths N, comma-separated (Nq = Nk = N)"));
    sform->addRow(tr("N list"), sweep_seq_);
    auto* builtins = new QHBoxLayout;
    for (const auto& v : variant_catalog()) {
        auto* box = new QCheckBox(QString::fromStdString(v.name));
        box->setChecked(true);
        box->setToolTip(QString::fromStdString(v.description));
        sweep_variants_.push_back(box);
        builtins->addWidget(box);
    }
    builtins->addStretch();
    sweep_variant_grid_ = new QGridLayout;  // the modules added, under the built-ins, two a row
    auto* variants = new QVBoxLayout;
    variants->addLayout(builtins);
    variants->addLayout(sweep_variant_grid_);
    sform->addRow(tr("Variants"), variants);
    sweep_dtypes_ = new QLineEdit;
    sweep_dtypes_->setPlaceholderText(tr("the spec's dtype, or e.g. float32,bfloat16"));
    sform->addRow(tr("Dtypes"), sweep_dtypes_);
    sweep_budget_ms_ =
        spin(0, 600000, 1000, tr("Timed samples per point run at least this long (ms), after 5 samples"));
    sweep_budget_ms_->setSuffix(tr(" ms"));
    sform->addRow(tr("Budget per point"), sweep_budget_ms_);
    sweep_problems_ = new QLabel;
    sweep_problems_->setWordWrap(true);
    sweep_problems_->setStyleSheet(QStringLiteral("color: #b00020"));
    sform->addRow(sweep_problems_);
    run_sweep_ = new QPushButton(tr("Run sweep"));
    run_sweep_->setToolTip(
        tr("Benchmark every N x variant x dtype with the profiler off; points appear in the chart as "
           "they finish; Cancel stops between samples"));
    sform->addRow(run_sweep_);
    return sweep_box;
}

void RunPanel::connectWidgets() {
    connect(run_, &QPushButton::clicked, this, [this] {
        if (problemsText().isEmpty()) emit runRequested(spec(), profileOptions());
    });
    connect(cancel_, &QPushButton::clicked, this, &RunPanel::cancelRequested);
    // Heads drag KV heads along while they were equal (plain multi-head attention).
    connect(heads_, &QSpinBox::valueChanged, this, [this](int v) {
        if (kv_heads_->property("follows").toBool()) kv_heads_->setValue(v);
    });
    kv_heads_->setProperty("follows", true);
    connect(kv_heads_, &QSpinBox::valueChanged, this,
            [this](int v) { kv_heads_->setProperty("follows", v == heads_->value()); });
    for (auto* s : {batch_, heads_, kv_heads_, seq_q_, seq_k_, head_dim_, threads_, block_, window_, wait_, warmup_,
                    active_, repeat_})
        connect(s, &QSpinBox::valueChanged, this, &RunPanel::revalidate);
    for (auto* c : {variant_, dtype_, device_, mode_, mask_, layout_, sdpa_backend_})
        connect(c, &QComboBox::currentTextChanged, this, &RunPanel::revalidate);
    auto backend_applies = [this] {
        sdpa_backend_->setEnabled(caps_.sdpa_backend_selectable && variant_->currentText() == QLatin1String("sdpa"));
    };
    connect(variant_, &QComboBox::currentTextChanged, this, backend_applies);
    connect(variant_, &QComboBox::currentIndexChanged, this, &RunPanel::updateModuleButtons);
    auto window_applies = [this] { window_->setEnabled(mask_->currentText() == QLatin1String("window")); };
    connect(mask_, &QComboBox::currentTextChanged, this, window_applies);
    window_applies();
    backend_applies();
    updateModuleButtons();
    connect(key_lengths_, &QLineEdit::textChanged, this, &RunPanel::revalidate);
    connect(sweep_seq_, &QLineEdit::textChanged, this, &RunPanel::revalidate);
    connect(sweep_dtypes_, &QLineEdit::textChanged, this, &RunPanel::revalidate);
    for (auto* box : sweep_variants_) connect(box, &QCheckBox::toggled, this, &RunPanel::revalidate);
    connect(run_sweep_, &QPushButton::clicked, this, [this] {
        if (sweepProblemsText().isEmpty()) emit sweepRequested(sweepPlan());
    });
}

RunSpec RunPanel::spec() const {
    RunSpec s;
    s.variant = variant_->currentText().toStdString();
    s.batch = batch_->value();
    s.heads = heads_->value();
    s.kv_heads = kv_heads_->value();
    s.seq_q = seq_q_->value();
    s.seq_k = seq_k_->value();
    s.head_dim = head_dim_->value();
    s.dtype = parse_dtype(dtype_->currentText().toStdString()).value_or(Dtype::Float32);
    s.device = parse_device(device_->currentText().toStdString()).value_or(DeviceSpec{});
    s.mode = parse_mode(mode_->currentText().toStdString()).value_or(Mode::Train);
    s.mask = parse_mask(mask_->currentText().toStdString()).value_or(MaskKind::None);
    s.layout = parse_layout(layout_->currentText().toStdString()).value_or(Layout::BHND);
    s.threads = threads_->value();
    s.block_size = block_->value();
    s.key_lengths = parse_list(key_lengths_->text());
    s.window = s.mask == MaskKind::Window ? window_->value() : 0;
    if (s.variant == "sdpa")
        s.sdpa_backend = parse_sdpa_backend(sdpa_backend_->currentText().toStdString()).value_or(SdpaBackend::Auto);
    if (const QString module = variant_->currentData(kModulePathRole).toString(); !module.isEmpty()) {
        s = with_variant(s, module.toStdString());  // variant: the file's stem; module: its path
        if (s.module == module_inputs_for_) s.module_inputs = module_inputs_;
    }
    return s;
}

ProfileOptions RunPanel::profileOptions() const {
    ProfileOptions o;
    o.wait = wait_->value();
    o.warmup = warmup_->value();
    o.active = active_->value();
    o.repeat = repeat_->value();
    o.record_shapes = shapes_->isChecked();
    o.profile_memory = memory_->isChecked();
    return o;
}

void RunPanel::setSpec(const RunSpec& s) {
    if (s.module.empty()) {
        variant_->setCurrentText(QString::fromStdString(s.variant));
    } else {  // the module among the variants (a file that vanished shows as missing), selected
        const QString path = QString::fromStdString(absolute_module_path(s.module));
        if (variant_->findData(path, kModulePathRole) < 0) insertModule(read_panel_module(path));
        variant_->setCurrentIndex(variant_->findData(path, kModulePathRole));
        module_inputs_for_ = path.toStdString();
        module_inputs_ = s.module_inputs;
    }
    batch_->setValue(int(s.batch));
    heads_->setValue(int(s.heads));
    kv_heads_->setValue(int(s.kv_heads));
    seq_q_->setValue(int(s.seq_q));
    seq_k_->setValue(int(s.seq_k));
    head_dim_->setValue(int(s.head_dim));
    dtype_->setCurrentText(QString::fromStdString(to_string(s.dtype)));
    device_->setCurrentText(QString::fromStdString(to_string(s.device)));
    mode_->setCurrentText(QString::fromStdString(to_string(s.mode)));
    mask_->setCurrentText(QString::fromStdString(to_string(s.mask)));
    layout_->setCurrentText(QString::fromStdString(to_string(s.layout)));
    threads_->setValue(s.threads);
    block_->setValue(int(s.block_size));
    if (s.window > 0) window_->setValue(int(s.window));
    sdpa_backend_->setCurrentText(QString::fromStdString(to_string(s.sdpa_backend)));
    QStringList lens;
    for (auto l : s.key_lengths) lens << QString::number(l);
    key_lengths_->setText(lens.join(QLatin1Char(',')));
}

QString RunPanel::problemsText() const {
    std::string text = format_problems(validate(spec(), caps_));
    for (const auto& p : validate(profileOptions())) text += p.field + ": " + p.message + "\n";
    return QString::fromStdString(text).trimmed();
}

SweepPlan RunPanel::sweepPlan() const {
    SweepPlan plan;
    plan.base = spec();
    plan.seq_lengths = parse_list(sweep_seq_->text());
    for (auto* box : sweep_variants_) {
        const QString module = box->property(kModulePathProperty).toString();
        if (box->isChecked())
            plan.variants.push_back(module.isEmpty() ? box->text().toStdString() : module.toStdString());
    }
    for (const auto& part : sweep_dtypes_->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
        if (auto d = parse_dtype(part.trimmed().toStdString())) plan.dtypes.push_back(*d);
    plan.bench.warmup = 2;
    plan.bench.min_repeats = 5;
    plan.bench.budget_s = sweep_budget_ms_->value() / 1000.0;
    return plan;
}

QString RunPanel::sweepProblemsText() const {
    const SweepPlan plan = sweepPlan();
    std::string text = format_problems(validate(plan));
    if (plan.seq_lengths.empty()) text += "seq: give at least one sequence length\n";
    if (plan.variants.empty()) text += "variants: tick at least one variant\n";
    text += moduleSweepProblems(plan).toStdString();
    for (const auto& part : sweep_dtypes_->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
        if (!parse_dtype(part.trimmed().toStdString()))
            text +=
                "dtypes: '" + part.trimmed().toStdString() + "' is not one of float32, float64, float16, bfloat16\n";
    // The base spec's own problems, except those a sweep replaces (lengths, variant).
    for (const auto& p : validate(plan.base, caps_))
        if (p.field != "seq_q" && p.field != "seq_k" && p.field != "memory" &&
            (p.field != "variant" || plan.variants.empty()))
            text += p.field + ": " + p.message + "\n";
    return QString::fromStdString(text).trimmed();
}

void RunPanel::setSweepLists(const QString& seq, const QStringList& variants, const QString& dtypes) {
    sweep_seq_->setText(seq);
    for (auto* box : sweep_variants_) {
        const QString module = box->property(kModulePathProperty).toString();
        box->setChecked(variants.contains(box->text()) || (!module.isEmpty() && variants.contains(module)));
    }
    sweep_dtypes_->setText(dtypes);
}

void RunPanel::revalidate() {
    const QString text = problemsText();
    problems_->setText(text);
    problems_->setVisible(!text.isEmpty());
    const QString sweep_text = sweepProblemsText();
    sweep_problems_->setText(sweep_text);
    sweep_problems_->setVisible(!sweep_text.isEmpty());
    if (!cancel_->isEnabled()) {
        run_->setEnabled(text.isEmpty());
        run_sweep_->setEnabled(sweep_text.isEmpty());
    }
}

void RunPanel::setRunning(bool running) {
    cancel_->setEnabled(running);
    run_->setEnabled(!running && problemsText().isEmpty());
    run_sweep_->setEnabled(!running && sweepProblemsText().isEmpty());
}

}  // namespace awb::ui
