//! The progress bar of a render.

/// A progress bar on stderr that appears only on a terminal, only once a render has taken a second, and
/// never with `--quiet`.
pub(super) struct Progress {
    bar: indicatif::ProgressBar,
    start: std::time::Instant,
    enabled: bool,
    shown: std::sync::atomic::AtomicBool,
}

impl Progress {
    /// A bar for `total` devices.
    pub(super) fn new(total: u64, quiet: bool) -> Progress {
        use std::io::IsTerminal;
        let bar = indicatif::ProgressBar::hidden();
        bar.set_length(total);
        if let Ok(style) = indicatif::ProgressStyle::default_bar()
            .template("{bar:40} {pos}/{len} devices {per_sec} {eta}")
        {
            bar.set_style(style);
        }
        Progress {
            bar,
            start: std::time::Instant::now(),
            enabled: !quiet && std::io::stderr().is_terminal(),
            shown: std::sync::atomic::AtomicBool::new(false),
        }
    }
    /// One device done.
    pub(super) fn tick(&self) {
        self.bar.inc(1);
        if self.enabled
            && self.start.elapsed() > std::time::Duration::from_secs(1)
            && !self.shown.swap(true, std::sync::atomic::Ordering::Relaxed)
        {
            self.bar
                .set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
    }
    /// The render is over: the bar goes.
    pub(super) fn done(&self) {
        self.bar.finish_and_clear();
    }
}
