//! `multicomputer pingpong`: the runtime's own per-message cost against a bare crossbeam
//! ping-pong between two pinned, spinning threads, measured alternately in the same run.

use std::time::Instant;

use anyhow::{Result, bail};
use multicomputer_runtime::{bare_pingpong, pingpong_machine};
use multicomputer_workloads::repetitions::Summary;

use crate::args::PingpongArgs;
use crate::exec::{Estimate, announce, overhead};
use crate::files::Publication;
use crate::plan::PingpongPlan;
use crate::report::{Meta, PingpongReport, ProfileUse, Report};
use crate::tuning::ONE_WAY_MESSAGE_S;

fn bare(round_trips: u64, cores: &[core_affinity::CoreId]) -> f64 {
    bare_pingpong(round_trips, cores).as_nanos() as f64 / round_trips as f64 / 2.0
}

fn runtime(round_trips: u64) -> Result<f64> {
    let machine = pingpong_machine()?;
    let record = machine.run(|p| {
        let link = p.links()[0];
        if p.parent().is_none() {
            let t = Instant::now();
            for i in 0..round_trips {
                p.send(link, i)?;
                let _: u64 = p.recv(link)?;
            }
            Ok(t.elapsed().as_nanos() as f64 / round_trips as f64 / 2.0)
        } else {
            for _ in 0..round_trips {
                let v = p.recv(link)?;
                p.send(link, v)?;
            }
            Ok(0.0)
        }
    })?;
    Ok(record.results[0])
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

pub(crate) fn run(a: &PingpongArgs) -> Result<()> {
    let plan = PingpongPlan::new(a)?;
    let cores = core_affinity::get_core_ids().unwrap_or_default();
    if cores.len() < 2 {
        bail!(
            "pingpong needs two cores to pin its two threads; this process may use {}",
            cores.len()
        );
    }
    // Announced if long: every measurement sends 2 one-way messages per round trip, bare and
    // through the runtime; the warm-ups a tenth of that.
    let measurements = f64::from(plan.repeat.runs) + f64::from(plan.repeat.warmup) / 10.0;
    let messages = 2.0 * 2.0 * plan.round_trips as f64 * measurements;
    announce(
        "pingpong",
        Estimate::native(messages * ONE_WAY_MESSAGE_S).with_fixed(overhead(&plan.output, false)),
        &format!(
            "{measurements} measurements, bare and through the runtime, of {} one-way messages, \
             about {} each on a quiet host",
            2 * plan.round_trips,
            crate::units::human_ns(ONE_WAY_MESSAGE_S * 1e9)
        ),
    );
    let (mut b, mut r) = (Vec::new(), Vec::new());
    // Warm-up of each with a tenth of the round trips, then alternate so both see the same
    // machine state.
    for _ in 0..plan.repeat.warmup {
        bare(plan.round_trips / 10 + 1, &cores);
        runtime(plan.round_trips / 10 + 1)?;
    }
    for _ in 0..plan.repeat.runs {
        b.push(bare(plan.round_trips, &cores));
        r.push(runtime(plan.round_trips)?);
    }
    let (bare_one_way_ns, runtime_one_way_ns) = (median(b.clone()), median(r.clone()));
    let body = PingpongReport {
        round_trips: plan.round_trips,
        repeat: plan.repeat.runs,
        warmup: plan.repeat.warmup,
        bare_one_way_ns,
        runtime_one_way_ns,
        ratio: runtime_one_way_ns / bare_one_way_ns,
        bare: Summary::of(&b),
        runtime: Summary::of(&r),
        bare_samples_ns: b,
        runtime_samples_ns: r,
    };
    Report::new(
        Meta::new("pingpong", plan.inputs(), ProfileUse::NotUsed).native(Some("spin")),
        body,
    )
    .finish(&plan.output, Publication::new())
}
