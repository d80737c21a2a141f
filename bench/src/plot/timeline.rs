//! Processor timelines (Gantt charts): what each processor did when, in milliseconds, and the
//! messages between processors as arrows from the sender at send time to the receiver at the
//! message's arrival (when it was there to be taken; the receiver may take it later).
//!
//! Every processor gets its row label. The label size shrinks with the row pitch down to
//! 8.9 px; only when rows are thinner still is every k-th row labelled (k = 2, 5, 10, 20, …),
//! and a footnote says so and how to label all: a taller image ([`Timeline::height_for`]).

use anyhow::{bail, ensure};
use plotters::prelude::*;

use super::axis::{Axis, format_number};
use super::frame::{self, Glyph, LegendEntry};
use super::palette;
use super::text;

/// What a processor did from `start_ns` to `end_ns` (emulated nanoseconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TimelineInterval<'a> {
    /// The processor (row), `< processors`.
    pub(crate) processor: usize,
    /// Start.
    pub(crate) start_ns: u64,
    /// End (`>= start_ns`, else the interval is skipped).
    pub(crate) end_ns: u64,
    /// "compute", "communication", "idle", or any other kind (drawn in a further colour).
    pub(crate) kind: &'a str,
}

/// A message from processor `from`, sent at `sent_ns`, arriving at `to` at `arrive_ns`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TimelineMessage {
    /// Sending processor, `< processors`.
    pub(crate) from: usize,
    /// Receiving processor, `< processors`.
    pub(crate) to: usize,
    /// Send time (emulated ns).
    pub(crate) sent_ns: u64,
    /// Time it was there for the receiver to take (emulated ns; `>= sent_ns`, else the
    /// message is skipped).
    pub(crate) arrive_ns: u64,
}

/// A processor timeline with messages.
#[derive(Clone, Debug, Default)]
pub(crate) struct Timeline<'a> {
    /// Title above the plot.
    pub(crate) title: String,
    /// Number of processors (rows); processor `p` is row `P{p}`, `P0` at the top.
    pub(crate) processors: usize,
    /// Row labels in processor order, replacing `P{p}` (empty: `P0`, `P1`, …).
    pub(crate) row_names: Vec<String>,
    /// The intervals; every one becomes one SVG rectangle (merge adjacent same-kind intervals
    /// first when there are hundreds of thousands).
    pub(crate) intervals: Vec<TimelineInterval<'a>>,
    /// The messages, drawn as arrows.
    pub(crate) messages: Vec<TimelineMessage>,
    /// Messages of the run beyond `messages` (a long trace's timeline holds only its
    /// earliest [`held_messages`]), counted in the note that says how many there are.
    pub(crate) unheld_messages: usize,
    /// Description of the time axis, without its unit (which the drawing picks from the
    /// span: ms, or µs for a run under a millisecond); empty: "time".
    pub(crate) time_label: String,
}

/// The width of a timeline image drawn from a run's trace, pixels.
pub(crate) const TIMELINE_WIDTH: u32 = 1200;

/// Intervals per processor a timeline `width` pixels wide holds at most when drawn from a
/// long trace: two a pixel column, and one more where an interval straddles a column.
pub(crate) fn held_per_row(width: u32) -> usize {
    2 * width as usize + 1
}

/// Messages a timeline `width` pixels wide holds at most: the earliest, one more than it
/// draws over the whole run (so that it knows to draw the run's start apart).
pub(crate) fn held_messages(width: u32) -> usize {
    most_arrows(width) + 1
}

/// The most records (intervals and messages) a timeline `width` pixels wide of `processors`
/// holds, whatever its trace's length.
pub(crate) fn most_held(processors: usize, width: u32) -> usize {
    processors
        .saturating_mul(held_per_row(width))
        .saturating_add(held_messages(width))
}

/// Pixels per row at which every row label has the full label size.
const ROW_PX: u32 = 18;
/// Pixels of an image besides its rows (title, legend, time axis, notes).
const CHROME_PX: u32 = 190;

impl Timeline<'_> {
    /// An image height at which every one of `processors` rows is labelled at full size.
    pub(crate) fn height_for(processors: usize) -> u32 {
        let rows = u32::try_from(processors).unwrap_or(u32::MAX);
        CHROME_PX
            .saturating_add(ROW_PX.saturating_mul(rows))
            .max(240)
    }

    /// Renders to an SVG string (so callers can write it atomically).
    ///
    /// Time runs left to right from `min(0, earliest start)`, in milliseconds, or in
    /// microseconds when everything ends within a millisecond. The legend
    /// always lists the three known kinds, any other kind in order of appearance, and the
    /// message arrow when there are messages. Intervals with `end < start` and messages
    /// arriving before they were sent are skipped and counted in a footnote; nothing to draw
    /// (no processors or no valid intervals or messages) renders a "no data" note.
    ///
    /// More messages than one per 8 pixels of width would hide the intervals under their
    /// arrows: then the image is two panels of `height` each, the whole run without arrows
    /// (a footnote says why) and below it the start of the run, until the first messages of
    /// that number have arrived, with their arrows.
    ///
    /// Errors for an image smaller than [`MIN_WIDTH`](super::frame::MIN_WIDTH) x
    /// [`MIN_HEIGHT`](super::frame::MIN_HEIGHT), or an interval or message naming a processor
    /// `>= processors`.
    pub(crate) fn to_svg(&self, width: u32, height: u32) -> anyhow::Result<String> {
        let last_ns = self
            .intervals
            .iter()
            .map(|iv| iv.end_ns.max(iv.start_ns))
            .chain(self.messages.iter().map(|m| m.arrive_ns.max(m.sent_ns)))
            .max()
            .unwrap_or(0);
        let (ns_per_unit, unit) = if last_ns < 1_000_000 {
            (1e3, "µs")
        } else {
            (1e6, "ms")
        };
        let ms = |ns: u64| ns as f64 / ns_per_unit;
        let spec = Timeline {
            time_label: format!(
                "{} ({unit})",
                if self.time_label.is_empty() {
                    "time"
                } else {
                    &self.time_label
                }
            ),
            ..self.clone()
        };
        let intervals: Vec<Interval<'_>> = self
            .intervals
            .iter()
            .map(|iv| {
                // end < start marks the interval invalid (a NaN end, skipped and counted).
                let end = if iv.end_ns >= iv.start_ns {
                    ms(iv.end_ns)
                } else {
                    f64::NAN
                };
                (iv.processor, ms(iv.start_ns), end, iv.kind)
            })
            .collect();
        let messages: Vec<Message> = self
            .messages
            .iter()
            .map(|msg| (msg.from, msg.to, ms(msg.sent_ns), ms(msg.arrive_ns)))
            .collect();
        let most = most_arrows(width);
        let mut arrows: Vec<Message> = messages.iter().copied().filter(valid_msg).collect();
        if arrows.len() <= most && self.unheld_messages == 0 {
            return render(&spec, (&intervals, &messages), (width, height), Vec::new());
        }
        // Too many arrows for the whole run: the run without them, and below it the start,
        // up to the arrival of the first `most` messages, with theirs.
        arrows.sort_by(|a, b| a.2.total_cmp(&b.2));
        arrows.truncate(most);
        let end = arrows.iter().map(|a| a.3).fold(f64::NEG_INFINITY, f64::max);
        let skipped = messages.len() - messages.iter().filter(|m| valid_msg(m)).count();
        let mut notes = vec![format!(
            "note: {} messages, too many to draw over the whole run: below, its first {} {unit} \
             with the first {most}",
            messages.len() - skipped + self.unheld_messages,
            format_number(end)
        )];
        if skipped > 0 {
            notes.push(frame::skipped(skipped, "message", "arriving before sent"));
        }
        let whole = render(&spec, (&intervals, &[]), (width, height), notes)?;
        let start: Vec<Interval<'_>> = intervals
            .iter()
            .filter(|iv| iv.1 < end)
            .map(|&(p, s, e, kind)| (p, s, e.min(end), kind))
            .collect();
        let zoom = Timeline {
            title: format!("{}, the first {} {unit}", self.title, format_number(end)),
            ..spec.clone()
        };
        let zoom = render(&zoom, (&start, &arrows), (width, height), Vec::new())?;
        Ok(stack(&[whole, zoom], width, height))
    }
}

/// An interval: processor, start and end (ms), kind.
type Interval<'a> = (usize, f64, f64, &'a str);
/// A message: from, to, sent and arrival (ms).
type Message = (usize, usize, f64, f64);

/// Whether an interval can be drawn: finite, not ending before it starts.
fn valid_iv(iv: &Interval<'_>) -> bool {
    iv.1.is_finite() && iv.2.is_finite() && iv.2 >= iv.1
}

/// Whether a message can be drawn: finite, not arriving before it was sent.
fn valid_msg(msg: &Message) -> bool {
    msg.2.is_finite() && msg.3.is_finite() && msg.3 >= msg.2
}

/// SVG images of `width` x `height` each, one under the other, as one image.
fn stack(panels: &[String], width: u32, height: u32) -> String {
    let total = height.saturating_mul(panels.len() as u32);
    let mut out = format!(
        "<svg width=\"{width}\" height=\"{total}\" viewBox=\"0 0 {width} {total}\" \
         xmlns=\"http://www.w3.org/2000/svg\">\n"
    );
    for (i, panel) in panels.iter().enumerate() {
        let y = height.saturating_mul(i as u32);
        out.push_str(&panel.replacen("<svg ", &format!("<svg x=\"0\" y=\"{y}\" "), 1));
        out.push('\n');
    }
    out.push_str("</svg>\n");
    out
}

/// The most message arrows an image `width` pixels wide draws over the whole run: one per
/// 8 pixels.
fn most_arrows(width: u32) -> usize {
    (width / 8).max(25) as usize
}

/// The smallest of 1, 2, 5, 10, 20, 50, … that is at least `need`.
fn nice_stride(need: f64) -> usize {
    let mut base = 1usize;
    loop {
        for m in [1, 2, 5] {
            if (base * m) as f64 >= need {
                return base * m;
            }
        }
        base *= 10;
    }
}

/// Draws a timeline from intervals `(processor, start_ms, end_ms, kind)` and messages
/// `(from, to, sent_ms, arrive_ms)`; the title, processors, names and time label come
/// from `spec` (its own intervals and messages are ignored).
fn render(
    spec: &Timeline<'_>,
    (intervals, messages): (&[Interval<'_>], &[Message]),
    (width, height): (u32, u32),
    mut notes: Vec<String>,
) -> anyhow::Result<String> {
    frame::check_size(width, height)?;
    let m = text::metrics()?;
    let processors = spec.processors;
    if let Some(&(p, ..)) = intervals.iter().find(|iv| iv.0 >= processors) {
        bail!("timeline interval on processor {p}, but there are only {processors} processors");
    }
    if let Some(&(f, t, ..)) = messages.iter().find(|msg| msg.0.max(msg.1) >= processors) {
        bail!(
            "timeline message from processor {f} to {t}, but there are only {processors} processors"
        );
    }
    let skipped_iv = intervals.len() - intervals.iter().filter(|iv| valid_iv(iv)).count();
    let skipped_msg = messages.len() - messages.iter().filter(|m| valid_msg(m)).count();
    let has_data =
        processors > 0 && (intervals.iter().any(valid_iv) || messages.iter().any(valid_msg));

    // Colours: the three known kinds, then other kinds in order of appearance.
    let mut kinds: Vec<(&str, RGBColor)> = ["compute", "communication", "idle"]
        .into_iter()
        .map(|k| (k, palette::kind_colour(k).unwrap_or(BLACK)))
        .collect();
    for &(_, _, _, kind) in intervals {
        if palette::kind_colour(kind).is_none() && !kinds.iter().any(|(k, _)| *k == kind) {
            // From palette slot 3 on: slots 1 and 2 resemble the known kinds' colours.
            kinds.push((kind, palette::colour(kinds.len())));
        }
    }
    let colour_of = |kind: &str| {
        kinds
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or(BLACK, |(_, c)| *c)
    };
    let mut legend: Vec<LegendEntry> = kinds
        .iter()
        .map(|(k, c)| LegendEntry {
            glyphs: vec![Glyph::Box(c.to_rgba())],
            label: (*k).to_owned(),
        })
        .collect();
    if !messages.is_empty() {
        legend.push(LegendEntry {
            glyphs: vec![Glyph::Arrow(palette::MESSAGE)],
            label: "message (send → arrival)".into(),
        });
    }

    let (t0, t1) = intervals
        .iter()
        .filter(|iv| valid_iv(iv))
        .map(|iv| (iv.1, iv.2))
        .chain(
            messages
                .iter()
                .filter(|m| valid_msg(m))
                .map(|msg| (msg.2, msg.3)),
        )
        .fold((0.0f64, f64::NEG_INFINITY), |(lo, hi), (s, e)| {
            (lo.min(s), hi.max(e))
        });
    let t1 = if t1 > t0 {
        t1 + 0.02 * (t1 - t0)
    } else {
        t0 + 1.0
    };
    ensure!(
        (t1 - t0).is_finite(),
        "timeline spans too wide a range to plot"
    );

    if has_data && skipped_iv > 0 {
        notes.push(frame::skipped(
            skipped_iv,
            "interval",
            "NaN/inf or end < start",
        ));
    }
    if has_data && skipped_msg > 0 {
        notes.push(frame::skipped(
            skipped_msg,
            "message",
            "arriving before sent",
        ));
    }

    let rows = processors.max(1);
    let row_y = |p: usize| (rows - 1 - p) as f64;
    let name = |p: usize| {
        spec.row_names
            .get(p)
            .cloned()
            .unwrap_or_else(|| format!("P{p}"))
    };

    let mut svg = String::new();
    {
        let (root, body) = frame::page(&mut svg, (width, height), &spec.title, &legend, &m)?;
        let (bw, bh) = body.dim_in_pixel();
        // Row labels: as large as the pitch allows, else every k-th at the smallest size.
        let x_area = text::line_height(text::LABEL) + text::line_height(text::DESC) + 22.0;
        let notes_h = frame::notes_height(notes.len() + 1);
        let pitch = (f64::from(bh) - x_area - notes_h - 20.0).max(1.0) / rows as f64;
        let fit = pitch / 1.15 * 1.24;
        let (size, every) = if fit >= text::MIN_LABEL {
            (fit.min(text::LABEL), 1)
        } else {
            let need = text::line_height(text::MIN_LABEL) / pitch;
            (text::MIN_LABEL, nice_stride(need))
        };
        if processors > 0 && every > 1 {
            notes.push(format!(
                "note: every {} processor labelled ({processors} rows are too many to label each at this height)",
                frame::ordinal(every)
            ));
        }
        let labels: Vec<(f64, String)> = (0..processors)
            .step_by(every)
            .map(|p| (row_y(p), name(p)))
            .collect();
        let y_area = m.widest(labels.iter().map(|l| l.1.as_str()), size) + 18.0;
        let y_axis = Axis::labelled(-0.5, rows as f64 - 0.5, labels);
        let plot_w = (f64::from(bw) - y_area - 36.0).max(20.0);
        let mut x_axis = Axis::linear(t0, t1, plot_w / 100.0);
        x_axis.thin(plot_w, |s| m.width(s, text::LABEL), 12.0);

        let (body, _) =
            body.split_vertically((f64::from(bh) - frame::notes_height(notes.len())) as i32);
        let mut chart = ChartBuilder::on(&body)
            .margin_top(12)
            .margin_left(12)
            .margin_right(24)
            .margin_bottom(6)
            .x_label_area_size(x_area as i32)
            .y_label_area_size(y_area as i32)
            .build_cartesian_2d(x_axis, y_axis)
            .map_err(frame::draw_err)?;
        frame::mesh(&mut chart)
            .disable_y_mesh()
            .x_desc(spec.time_label.as_str())
            .y_label_style((text::FAMILY, size))
            .draw()
            .map_err(frame::draw_err)?;
        let rects = intervals
            .iter()
            .filter(|iv| valid_iv(iv))
            .map(|&(p, s, e, kind)| {
                let y = row_y(p);
                Rectangle::new([(s, y - 0.4), (e, y + 0.4)], colour_of(kind).filled())
            });
        chart.draw_series(rects).map_err(frame::draw_err)?;

        let head = (pitch * 0.8).clamp(3.0, 7.0);
        let ink = palette::MESSAGE.mix(0.75);
        for &(from, to, sent, arrive) in messages.iter().filter(|m| valid_msg(m)) {
            let a = chart.backend_coord(&(sent, row_y(from)));
            let b = chart.backend_coord(&(arrive, row_y(to)));
            root.draw(&PathElement::new(vec![a, b], ink.stroke_width(1)))
                .map_err(frame::draw_err)?;
            if f64::from(b.0 - a.0).hypot(f64::from(b.1 - a.1)) >= 2.0 * head {
                frame::arrowhead(&root, a, b, head, palette::MESSAGE)?;
            }
        }

        frame::finish(&root, &chart, (!has_data).then_some("no data"), &notes)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::super::svg_check::{assert_svg, coloured, has_text, texts};
    use super::*;

    /// A timeline of intervals `(processor, start_ms, end_ms, kind)`, no messages.
    fn timeline<'a>(
        title: &str,
        processors: usize,
        intervals: &[(usize, u64, u64, &'a str)],
    ) -> Timeline<'a> {
        Timeline {
            title: title.into(),
            processors,
            intervals: intervals
                .iter()
                .map(|&(processor, start, end, kind)| TimelineInterval {
                    processor,
                    start_ns: start * 1_000_000,
                    end_ns: end * 1_000_000,
                    kind,
                })
                .collect(),
            ..Timeline::default()
        }
    }

    /// Arrows' lines and heads (the legend's included).
    fn arrows(svg: &str) -> (usize, usize) {
        (
            coloured(svg, "polyline", "stroke", "#1E1E1E").len(),
            coloured(svg, "polygon", "fill", "#1E1E1E").len(),
        )
    }

    #[test]
    fn a_run_within_a_millisecond_is_drawn_in_microseconds() {
        // 211.51 µs (the README's all-gather): "µs" and 0 … 200 on the axis, not 0.0 … 0.2 ms.
        let short = Timeline {
            time_label: "emulated time".into(),
            ..timeline("short", 1, &[])
        };
        let short = Timeline {
            intervals: vec![TimelineInterval {
                processor: 0,
                start_ns: 0,
                end_ns: 211_510,
                kind: "communication",
            }],
            ..short
        };
        let svg = short.to_svg(800, 300).unwrap();
        assert_svg(&svg);
        assert!(has_text(&svg, "emulated time (µs)"), "{:?}", texts(&svg));
        assert!(has_text(&svg, "200"), "{:?}", texts(&svg));
        // A run of milliseconds keeps them.
        let long = timeline("long", 1, &[(0, 0, 3, "compute")]);
        let svg = long.to_svg(800, 300).unwrap();
        assert!(has_text(&svg, "time (ms)"), "{:?}", texts(&svg));
    }

    #[test]
    fn plot_timeline_has_row_labels_and_kinds() {
        let iv = [
            (0, 0, 1000, "compute"),
            (0, 1000, 1200, "communication"),
            (1, 0, 500, "idle"),
            (1, 500, 1500, "compute"),
            (2, 200, 900, "compute"),
            (2, 900, 800, "idle"),
        ];
        let svg = timeline("Farm timeline", 3, &iv).to_svg(800, 300).unwrap();
        assert_svg(&svg);
        let want = [
            "Farm timeline",
            "P0",
            "P1",
            "P2",
            "compute",
            "communication",
            "idle",
            "time (ms)",
        ];
        for w in want {
            assert!(has_text(&svg, w), "missing {w:?} in {:?}", texts(&svg));
        }
        let t = texts(&svg);
        let rows = t
            .iter()
            .filter(|s| s.starts_with('P') && s.len() == 2)
            .count();
        assert_eq!(rows, 3, "{t:?}");
        // Drawn in ms: the axis reaches 1500.
        assert!(has_text(&svg, "1500") || has_text(&svg, "1400"), "{t:?}");
        assert!(svg.contains("note: 1 interval skipped"), "{svg}");
    }

    #[test]
    fn plot_timeline_errors_and_empty() {
        let e = timeline("t", 2, &[(2, 0, 1, "compute")])
            .to_svg(400, 300)
            .unwrap_err()
            .to_string();
        assert!(e.contains("processor 2"), "{e}");
        let svg = timeline("t", 0, &[]).to_svg(400, 300).unwrap();
        assert!(has_text(&svg, "no data"));
        let svg = timeline("t", 2, &[(1, 0, 1, "send")])
            .to_svg(400, 300)
            .unwrap();
        assert!(has_text(&svg, "send"), "unknown kind in legend");
    }

    #[test]
    fn plot_timeline_many_rows_thins_labels() {
        let iv: Vec<(usize, u64, u64, &str)> =
            (0..256).map(|p| (p, 0, p as u64 * 10, "compute")).collect();
        let svg = timeline("big", 256, &iv).to_svg(800, 400).unwrap();
        let rows = texts(&svg).iter().filter(|s| s.starts_with('P')).count();
        assert!(rows > 3 && rows < 64, "{rows} row labels");
        assert!(svg.contains("processor labelled (256 rows are too many"));
    }

    #[test]
    fn plot_timeline_labels_every_processor_when_rows_allow() {
        for processors in [1, 64, 256] {
            let iv: Vec<(usize, u64, u64, &str)> = (0..processors)
                .map(|p| (p, 0, 1 + p as u64 % 7, "compute"))
                .collect();
            let svg = timeline("all", processors, &iv)
                .to_svg(1200, Timeline::height_for(processors))
                .unwrap();
            for p in 0..processors {
                assert!(
                    has_text(&svg, &format!("P{p}")),
                    "{processors}: P{p} unlabelled"
                );
            }
            assert!(!svg.contains("labelled ("), "no thinning note");
        }
    }

    #[test]
    fn plot_timeline_messages_are_arrows_from_send_to_arrival() {
        let msg = |from, to, sent_ns, arrive_ns| TimelineMessage {
            from,
            to,
            sent_ns,
            arrive_ns,
        };
        let t = Timeline {
            title: "messages".into(),
            processors: 3,
            intervals: vec![TimelineInterval {
                processor: 0,
                start_ns: 0,
                end_ns: 2_000_000,
                kind: "compute",
            }],
            messages: vec![
                msg(0, 1, 100_000, 400_000),
                msg(1, 2, 500_000, 900_000),
                msg(2, 0, 1_000_000, 1_500_000),
                msg(0, 2, 800_000, 700_000),
            ],
            ..Timeline::default()
        };
        let svg = t.to_svg(800, 300).unwrap();
        assert!(has_text(&svg, "message (send → arrival)"));
        assert_eq!(
            arrows(&svg),
            (1 + 3, 1 + 3),
            "legend + three valid messages"
        );
        assert!(svg.contains("note: 1 message skipped (arriving before sent)"));
        assert!(
            has_text(&svg, "time (ms)") && has_text(&svg, "2.0"),
            "{:?}",
            texts(&svg)
        );
        let bad = Timeline {
            messages: vec![msg(0, 3, 0, 1)],
            ..t
        };
        let e = bad.to_svg(800, 300).unwrap_err().to_string();
        assert!(e.contains("to 3, but there are only 3 processors"), "{e}");
    }

    #[test]
    fn plot_timeline_of_many_messages_zooms_in_on_the_start_below_the_whole_run() {
        let messages: Vec<TimelineMessage> = (0..1000u64)
            .map(|i| TimelineMessage {
                from: (i % 2) as usize,
                to: 1 - (i % 2) as usize,
                sent_ns: 1000 * (999 - i),
                arrive_ns: 1000 * (999 - i) + 500,
            })
            .collect();
        let intervals = vec![TimelineInterval {
            processor: 0,
            start_ns: 0,
            end_ns: 1_000_000,
            kind: "compute",
        }];
        let t = Timeline {
            title: "many".into(),
            processors: 2,
            intervals,
            messages,
            ..Timeline::default()
        };
        let svg = t.to_svg(800, 300).unwrap();
        assert_svg(&svg);
        // Two panels, one under the other.
        assert_eq!(svg.matches("<svg ").count(), 3);
        assert!(svg.contains("<svg x=\"0\" y=\"300\" "));
        // The first 100 (one per 8 px), sent at 0 … 99 µs, arrived by 99.5 µs.
        assert_eq!(arrows(&svg).0, 1 + 100, "the legend's and the first 100");
        for t in [
            "note: 1000 messages, too many to draw over the whole run: below, its first 0.0995 ms with the first 100",
            "many, the first 0.0995 ms",
            "time (ms)",
        ] {
            assert!(has_text(&svg, t), "no {t:?} in {:?}", texts(&svg));
        }
        // Few enough: all over the whole run, one panel, no note.
        let few = Timeline {
            messages: t.messages[..80].to_vec(),
            ..t
        };
        let svg = few.to_svg(800, 300).unwrap();
        assert_eq!(arrows(&svg).0, 1 + 80);
        assert_eq!(svg.matches("<svg ").count(), 1);
        assert!(!svg.contains("too many"));
    }

    #[test]
    fn plot_timeline_height_for_grows_with_rows() {
        assert_eq!(Timeline::height_for(0), 240);
        assert!(Timeline::height_for(64) > Timeline::height_for(32));
        assert_eq!(Timeline::height_for(usize::MAX), u32::MAX);
    }

    #[test]
    fn plot_nice_strides() {
        let got: Vec<usize> = [0.5, 1.0, 1.5, 3.0, 5.0, 7.0, 11.0, 120.0]
            .map(nice_stride)
            .to_vec();
        assert_eq!(got, [1, 1, 2, 5, 5, 10, 20, 200]);
    }
}
