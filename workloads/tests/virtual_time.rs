//! Every program in virtual time: its result equals its sequential reference, every task is
//! executed exactly once, a farm's emulated times equal the ones worked out event by event, and
//! two runs with model compute charging are identical.

use std::time::Duration;

use multicomputer_runtime::{ComputeCharge, Machine, MachineConfig, Resolved, TimeMode, Topology};
use multicomputer_workloads::dnc::{DncSpec, Splitting, run_mergesort, run_synthetic};
use multicomputer_workloads::farm::{FarmSpec, Kernel, TaskTimes, run as run_farm, sequential};
use multicomputer_workloads::ising::{
    Dimension, IsingConfig, Mechanism, Workload, run_parallel, run_sequential,
};
use multicomputer_workloads::ocl::model::Costs;
use multicomputer_workloads::ocl::{
    Grain, PipelineCosts, ocl_reference, pipeline_machine, random_stream, run_pipeline,
};
use multicomputer_workloads::tree::EngineConfig;
use multicomputer_workloads::unit_costs::reference_unit_costs;

fn us(n: u64) -> Duration {
    Duration::from_micros(n)
}

/// A virtual-time configuration charging real work by the reference unit costs.
fn config(capacity: usize) -> MachineConfig {
    let mut c = MachineConfig {
        mode: TimeMode::Virtual,
        capacity,
        ..MachineConfig::default()
    };
    c.work_costs.ns_per_unit = reference_unit_costs();
    c
}

fn machine(topology: Topology, capacity: usize) -> Machine {
    Machine::new(topology, config(capacity)).unwrap()
}

/// Three tasks of 10 µs on chain:3 under flood fill, queues of one task, β_f = 2 µs, β_e = 1 µs,
/// free links. Worked out event by event (ties by processor index): P0 forwards task 0
/// (0–2 µs), is interrupted at 2 µs by P1's request, forwards task 2 (2–4 µs) and executes
/// task 1 in the gaps from 4 µs (pre-empted at 4 and 6 µs), done at 14 µs, result at 15 µs. P1
/// forwards task 0 to P2 (2–4 µs) and task 2 (4–6 µs); P2 executes task 0 from 4 µs (result
/// to the root at 15 µs) and task 2 from 15 µs (result at 26 µs). Everyone finishes at 26 µs.
#[test]
fn a_farm_on_a_chain_of_three_runs_exactly_as_worked_by_hand() {
    let spec = FarmSpec {
        tasks: 3,
        te: us(10),
        ..FarmSpec::default()
    };
    let engine = EngineConfig {
        beta_e: us(1),
        beta_f: us(2),
        queue: 1,
        ..EngineConfig::default()
    };
    let run = run_farm(&machine(Topology::chain(3).unwrap(), 3), &spec, &engine).unwrap();
    let e = &run.engine;
    assert_eq!(e.report.makespan(), us(26));
    assert_eq!(e.result_times, vec![us(15), us(15), us(26)]);
    let executed: Vec<u64> = e
        .report
        .per_processor
        .iter()
        .map(|p| p.accounting.tasks_executed)
        .collect();
    assert_eq!(executed, vec![1, 0, 2]);
    assert_eq!(e.splits, vec![2, 2, 0]);
    let finish: Vec<u64> = e
        .report
        .per_processor
        .iter()
        .map(|p| p.accounting.finish_ns)
        .collect();
    assert_eq!(finish, vec![26_000, 26_000, 26_000]);
}

#[test]
fn synthetic_farms_execute_every_task_once_on_chains_and_trees() {
    for (topology, times) in [
        ("chain:5", TaskTimes::Constant),
        ("binary:3", TaskTimes::Exponential),
        ("tree:3:3", TaskTimes::Uniform),
    ] {
        let spec = FarmSpec {
            tasks: 300,
            te: us(100),
            times,
            ..FarmSpec::default()
        };
        let engine = EngineConfig {
            beta_e: us(5),
            beta_f: us(10),
            ..EngineConfig::default()
        };
        let run = run_farm(
            &machine(Topology::parse(topology).unwrap(), 4),
            &spec,
            &engine,
        )
        .unwrap_or_else(|e| panic!("{topology}: {e}"));
        assert_eq!(run.values, sequential(&spec), "{topology}");
        assert_eq!(run.engine.report.totals.tasks_executed, 300, "{topology}");
    }
}

/// The farm that once lost a message in the scheduler (a blocked sender's message taken by a
/// receiver that went on to block sending): 2 000 short tasks on chain:12.
#[test]
fn a_long_farm_on_a_chain_loses_no_task() {
    let spec = FarmSpec {
        tasks: 2_000,
        te: us(10),
        ..FarmSpec::default()
    };
    let engine = EngineConfig {
        beta_e: us(1),
        beta_f: us(2),
        ..EngineConfig::default()
    };
    let run = run_farm(&machine(Topology::chain(12).unwrap(), 4), &spec, &engine).unwrap();
    assert_eq!(run.values, sequential(&spec));
}

#[test]
fn the_prime_farm_equals_its_reference_and_repeats_exactly() {
    let spec = FarmSpec {
        tasks: 40,
        kernel: Kernel::Primes { grain: 2_000 },
        ..FarmSpec::default()
    };
    let engine = EngineConfig {
        beta_e: us(5),
        beta_f: us(10),
        ..EngineConfig::default()
    };
    let m = machine(Topology::kary_tree(2, 3).unwrap(), 4);
    assert_eq!(m.charging().charge(), ComputeCharge::Model);
    let a = run_farm(&m, &spec, &engine).unwrap();
    let b = run_farm(&m, &spec, &engine).unwrap();
    assert_eq!(a.values, sequential(&spec));
    assert_eq!(a.engine.report.makespan_s, b.engine.report.makespan_s);
    assert_eq!(a.engine.result_times, b.engine.result_times);
    let units = &a.engine.report.work.units;
    assert_eq!(units["prime_candidate"], 40 * 2_000);
    assert!(units["trial_division"] > 0);
}

#[test]
fn divide_and_conquer_runs_in_virtual_time() {
    let topology = Topology::kary_tree(3, 3).unwrap();
    let lists: Vec<Vec<i64>> = (0..4)
        .map(|s| random_stream(3_000, -10_000, 10_000, s))
        .collect();
    let mut expected = lists.clone();
    for l in &mut expected {
        l.sort_unstable();
    }
    let run = run_mergesort(
        &machine(topology.clone(), 4),
        lists,
        8,
        &EngineConfig::default(),
    )
    .unwrap();
    let sorted: Vec<Vec<i64>> = run.engine.outputs.into_iter().map(|k| k.0).collect();
    assert_eq!(sorted, expected);
    assert!(run.engine.report.work.units["comparison"] > 0);

    let spec = DncSpec {
        tasks: 20,
        te: vec![us(500)],
        ts: vec![us(20)],
        tj: vec![us(30)],
        splitting: Splitting::Random { seed: 3 },
        task_bytes: 64,
        result_bytes: 8,
    };
    let run = run_synthetic(&machine(topology, 4), &spec, &EngineConfig::default()).unwrap();
    assert_eq!(run.engine.outputs.len(), 20);
}

#[test]
fn ising_equals_its_sequential_reference_under_both_mechanisms() {
    let mut config = IsingConfig::new(Dimension::Two, 6, 2.5).unwrap();
    config.thermalisation_sweeps = 5;
    config.measurement_sweeps = 5;
    let samples = 24;
    let reference = run_sequential(&config, samples).unwrap();
    for mechanism in [Mechanism::Centralized, Mechanism::Tree] {
        let topology = mechanism.topology(8).unwrap();
        let run = run_parallel(
            &machine(topology, 2),
            &config,
            Workload::Fixed { samples },
            mechanism,
        )
        .unwrap();
        assert_eq!(run.summary, reference, "{}", mechanism.name());
        assert!(run.report.work.units["attempted_flip"] > run.report.work.units["accepted_flip"]);
        assert!(run.report.work.units["accepted_flip"] > 0);
        assert_eq!(
            run.report.work.units["neighbour_read"],
            4 * run.report.work.units["attempted_flip"]
        );
    }
}

#[test]
fn the_ocl_array_equals_its_reference() {
    let a = random_stream(600, 0, 20, 5);
    for grain in [
        Grain::fine(8).unwrap(),
        Grain::m1(24, 4).unwrap(),
        Grain::kk(24, 4).unwrap(),
    ] {
        let costs = PipelineCosts::Emulated(Costs::single(2e-6, 1e-7));
        let machine = pipeline_machine(grain, costs, &config(2)).unwrap();
        let run = run_pipeline(grain, &a, costs, &machine).unwrap();
        assert_eq!(run.output, ocl_reference(&a, grain.n()).unwrap());
        assert_eq!(run.report.time, Resolved::Virtual);
    }
}
