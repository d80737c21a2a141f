//! Progress on stderr: a bar on a terminal, plain lines (at most one every few seconds, and
//! the last) when stderr is a file or a pipe, so that logs of long runs show it too.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::units::wall_time;

/// Seconds between plain progress lines.
const PLAIN_EVERY_S: f64 = 5.0;

/// The outermost progress of this process (what, steps done, steps, unit), for a signal's
/// report of what was completed.
static COMPLETED: Mutex<Option<(String, u64, u64, &'static str)>> = Mutex::new(None);

fn note(what: &str, pos: u64, len: u64, unit: &'static str, outermost: bool) {
    let mut c = COMPLETED.lock().unwrap_or_else(|e| e.into_inner());
    if outermost || c.as_ref().is_some_and(|(w, ..)| w == what) {
        *c = Some((what.to_string(), pos, len, unit));
    }
}

/// What was completed so far, in words: `sweep farm: 3 of 10 cells`; none before any
/// progress.
pub(crate) fn completed() -> Option<String> {
    let c = COMPLETED.lock().unwrap_or_else(|e| e.into_inner());
    c.as_ref()
        .map(|(what, pos, len, unit)| format!("{what}: {pos} of {len} {unit} completed"))
}

enum Shown {
    Bar(ProgressBar),
    Plain { last: Instant },
    Hidden,
}

/// Progress over a known number of steps (cells, runs).
pub(crate) struct Progress {
    what: String,
    unit: &'static str,
    len: u64,
    pos: u64,
    start: Instant,
    message: String,
    shown: Shown,
}

impl Progress {
    /// Progress of `len` steps of `unit` (e.g. `cells`); hidden for a single step. Progress
    /// with a name (`what` not empty) is the outermost one, that a signal reports.
    pub(crate) fn new(what: &str, len: u64, unit: &'static str) -> Self {
        if !what.is_empty() {
            note(what, 0, len, unit, true);
        }
        let shown = if len <= 1 {
            Shown::Hidden
        } else if std::io::stderr().is_terminal() {
            let bar = ProgressBar::new(len);
            bar.set_style(
                ProgressStyle::with_template(&format!(
                    "{{bar:40}} {{pos}}/{{len}} {unit}, {{elapsed}} elapsed, ~{{eta}} left  {{msg}}"
                ))
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            Shown::Bar(bar)
        } else {
            Shown::Plain {
                last: Instant::now(),
            }
        };
        Self {
            what: what.to_string(),
            unit,
            len,
            pos: 0,
            start: Instant::now(),
            message: String::new(),
            shown,
        }
    }

    /// What the current step is.
    pub(crate) fn set_message(&mut self, message: String) {
        if let Shown::Bar(b) = &self.shown {
            b.set_message(message.clone());
        }
        self.message = message;
    }

    /// One step done.
    pub(crate) fn inc(&mut self) {
        self.pos += 1;
        if !self.what.is_empty() {
            note(&self.what, self.pos, self.len, self.unit, false);
        }
        match &mut self.shown {
            Shown::Bar(b) => b.inc(1),
            Shown::Plain { last } => {
                let done = self.pos == self.len;
                if done || last.elapsed().as_secs_f64() >= PLAIN_EVERY_S {
                    *last = Instant::now();
                    let elapsed = self.start.elapsed().as_secs_f64();
                    let left = elapsed / self.pos as f64 * (self.len - self.pos) as f64;
                    eprintln!(
                        "{}: {}/{} {}, {} elapsed, ~{} left ({})",
                        self.what,
                        self.pos,
                        self.len,
                        self.unit,
                        wall_time(elapsed),
                        wall_time(left),
                        self.message
                    );
                }
            }
            Shown::Hidden => {}
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Shown::Bar(b) = &self.shown {
            b.finish_and_clear();
        }
    }
}

/// Progress of one long run whose steps are not visible: elapsed against the estimate,
/// ticked by a thread of its own until dropped.
pub(crate) struct Ticker {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Ticker {
    /// Starts ticking for a run of about `estimate_s` seconds; does nothing for runs too short
    /// to need it.
    pub(crate) fn start(what: &str, estimate_s: f64) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        if !(estimate_s.is_finite() && estimate_s > super::estimate::ANNOUNCE_S) {
            return Self { stop, thread: None };
        }
        let what = what.to_string();
        let flag = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let start = Instant::now();
            let terminal = std::io::stderr().is_terminal();
            let bar = terminal.then(|| {
                let b = ProgressBar::new((estimate_s * 1000.0) as u64);
                b.set_style(
                    ProgressStyle::with_template(&format!(
                        "{{bar:40}} {what}: {{elapsed}} of ~{} estimated",
                        wall_time(estimate_s)
                    ))
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
                );
                b
            });
            let mut last_line = Instant::now();
            while !flag.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(200));
                let elapsed = start.elapsed().as_secs_f64();
                match &bar {
                    Some(b) => {
                        b.set_position(((elapsed * 1000.0) as u64).min(b.length().unwrap_or(0)))
                    }
                    None if last_line.elapsed().as_secs_f64() >= 2.0 * PLAIN_EVERY_S => {
                        last_line = Instant::now();
                        eprintln!(
                            "{what}: {} elapsed of ~{} estimated",
                            wall_time(elapsed),
                            wall_time(estimate_s)
                        );
                    }
                    None => {}
                }
            }
            if let Some(b) = bar {
                b.finish_and_clear();
            }
        });
        Self {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
