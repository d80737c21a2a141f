//! The engine's processor loop; the protocol is described in the module above.

use std::collections::VecDeque;
use std::time::Duration;

use multicomputer_runtime::{
    Interrupt, LinkId, Machine, Payload, Processor, ProcessorError, RunError, RunReport, Work,
};
use thiserror::Error;

/// A kind of task the engine can run: how to execute, split and join it, and what it costs.
///
/// A *synthetic* job (`is_real` false) charges emulated times; its `execute`, `split` and
/// `join` must be cheap bookkeeping. A *real* job does its work in those methods and declares
/// it on the [`Work`] meter; the engine charges it as the machine charges real work (thread CPU
/// time, or the declared units at their cost: see `ComputeCharge`).
pub trait Job: Sync {
    /// A task (or subtask) as it travels on a link.
    type Task: Payload;
    /// A result as it travels back.
    type Output: Payload;

    /// Whether `execute`, `split` and `join` do real work to be charged by CPU time.
    fn is_real(&self) -> bool;

    /// Whether `split` and `join` do real work (by default, as `execute` does). A farm's are
    /// bookkeeping — a task is forwarded whole, its result relayed, `T_s = T_j = 0` (§3.2) —
    /// and charging them as real work would charge the cost of measuring them instead (two
    /// clock reads a block).
    fn forwarding_is_real(&self) -> bool {
        self.is_real()
    }

    /// Emulated time to execute `task` locally on a processor of `level` (synthetic jobs).
    fn execute_time(&self, task: &Self::Task, level: u32) -> Duration;

    /// Executes a task, producing its result; a real job declares its work on `work`.
    fn execute(&self, task: Self::Task, work: &mut Work) -> Self::Output;

    /// Splits a task into subtasks for up to `children` children, or gives it back if it
    /// cannot be split (it must then be executed where it is). A farm forwards a task whole:
    /// one subtask, itself.
    fn split(
        &self,
        task: Self::Task,
        children: usize,
        work: &mut Work,
    ) -> Result<Vec<Self::Task>, Self::Task>;

    /// Whether `split` always gives the task back as its one subtask (a farm forwards tasks
    /// whole). The engine then keeps no record of a forwarded task on its way down: the
    /// subtask travels under its parent's key, and its result is joined (alone) and passed up
    /// under that key when it comes back. Without this, every level a task passes keeps a
    /// record of it until its result returns: on a deep chain, tasks × depth records.
    fn forwards_whole(&self) -> bool {
        false
    }

    /// Emulated time `T_s(i)` to split a task on a processor of `level` (synthetic jobs).
    fn split_time(&self, _level: u32) -> Duration {
        Duration::ZERO
    }

    /// Emulated time `T_j(i)` to join results on a processor of `level` (synthetic jobs).
    fn join_time(&self, _level: u32) -> Duration {
        Duration::ZERO
    }

    /// Joins the results of a split's subtasks, in subtask order.
    fn join(&self, parts: Vec<Self::Output>, work: &mut Work) -> Self::Output;

    /// The share of one top-level task that `task` represents (1 for farm tasks; 1/k per split
    /// level for divide and conquer), for the per-level fractions f_i.
    fn share(&self, _task: &Self::Task) -> f64 {
        1.0
    }
}

/// How the engine runs.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineConfig {
    /// β_e: start-up overhead per locally executed task.
    pub beta_e: Duration,
    /// β_f: start-up overhead per split (per forwarded task in a farm).
    pub beta_f: Duration,
    /// Capacity of each processor's queue of unprocessed tasks (≥ 1; the paper used 1–2).
    pub queue: usize,
    /// Model-guided mode for small M: the most splits each processor may make (by index).
    pub split_limits: Option<Vec<u64>>,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            beta_e: Duration::ZERO,
            beta_f: Duration::ZERO,
            queue: 2,
            split_limits: None,
        }
    }
}

/// A message of the engine's protocol.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub enum Message<T, R> {
    /// A child asks for one task.
    Request,
    /// A task for a child, with the key its result must carry back.
    Task {
        /// The parent's key for this task.
        key: u64,
        /// The task.
        task: T,
    },
    /// The parent has no more tasks.
    NoMore,
    /// A result for the parent.
    Result {
        /// The key the task came with.
        key: u64,
        /// The result.
        output: R,
    },
    /// The child and its subtree are done; nothing more will come on this link.
    Finished,
}

/// Bytes of a control message or of a task/result header.
const HEADER_BYTES: u64 = 8;

impl<T: Payload, R: Payload> Payload for Message<T, R> {
    fn size_bytes(&self) -> u64 {
        HEADER_BYTES
            + match self {
                Message::Task { task, .. } => task.size_bytes(),
                Message::Result { output, .. } => output.size_bytes(),
                _ => 0,
            }
    }
}

/// Why the engine could not produce a verified result.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum EngineError {
    /// No tasks were given.
    #[error("at least one task is needed (M = 0)")]
    NoTasks,
    /// A queue of capacity 0 cannot hold the task being handed over.
    #[error("queue capacity must be at least 1")]
    ZeroQueue,
    /// Split limits given for a different number of processors.
    #[error("split limits for {given} processors, but the machine has {processors}")]
    LimitsLength {
        /// Limits given.
        given: usize,
        /// Processors in the machine.
        processors: usize,
    },
    /// The machine failed (panic, deadlock, link error).
    #[error(transparent)]
    Run(#[from] RunError),
    /// A task's result did not come back.
    #[error("{count} task results never reached the root (first: task {first})")]
    Lost {
        /// How many.
        count: usize,
        /// The first missing task index.
        first: u64,
    },
    /// A task's result came back twice.
    #[error("task {0} returned a result twice")]
    Duplicate(u64),
}

/// A verified run of the engine.
#[derive(Debug)]
pub struct EngineRun<R> {
    /// The result of each top-level task, by task index.
    pub outputs: Vec<R>,
    /// Emulated times at which results reached the root, in arrival order.
    pub result_times: Vec<Duration>,
    /// The machine's run report (emulated makespan, accounting, fidelity).
    pub report: RunReport,
    /// Share of the M tasks executed by each processor (Σ = 1).
    pub executed_share: Vec<f64>,
    /// Splits (forwards, in a farm) made by each processor.
    pub splits: Vec<u64>,
    /// The event trace, if the machine recorded one.
    pub trace: Option<multicomputer_runtime::Trace>,
}

impl<R> EngineRun<R> {
    /// The same run without its outputs (for reports that need only times and shares).
    pub fn map_outputs(self) -> EngineRun<()> {
        EngineRun {
            outputs: vec![(); self.outputs.len()],
            result_times: self.result_times,
            report: self.report,
            executed_share: self.executed_share,
            splits: self.splits,
            trace: self.trace,
        }
    }

    /// Shares of the work executed per level, index 0 = level 1 (the leaves): the measured
    /// f_i of the paper (Σ = 1).
    pub fn fractions_by_level(&self, topology: &multicomputer_runtime::Topology) -> Vec<f64> {
        let mut f = vec![0.0; topology.levels() as usize];
        for (i, share) in self.executed_share.iter().enumerate() {
            f[topology.level(i) as usize - 1] += share;
        }
        f
    }
}

#[derive(serde::Serialize, serde::Deserialize)]
struct NodeResult<R> {
    outputs: Vec<(u64, R, Duration)>,
    executed_share: f64,
    splits: u64,
}

struct PendingSplit<R> {
    parent_key: u64,
    parts: Vec<Option<R>>,
    remaining: usize,
}

/// The splits waiting for their subtasks' results, by split id. Ids are handed out in order and
/// mostly complete in order, so a ring from the oldest pending id replaces a hash map (whose
/// hashing was a tenth of a virtual-time run).
struct PendingSplits<R> {
    /// The id of `slots[0]`.
    first: u64,
    slots: VecDeque<Option<PendingSplit<R>>>,
    pending: usize,
}

impl<R> PendingSplits<R> {
    fn new() -> Self {
        Self {
            first: 0,
            slots: VecDeque::new(),
            pending: 0,
        }
    }

    /// Records split `id`, the next id after every one recorded so far.
    fn insert(&mut self, id: u64, split: PendingSplit<R>) {
        debug_assert_eq!(id, self.first + self.slots.len() as u64);
        self.slots.push_back(Some(split));
        self.pending += 1;
    }

    fn index(&self, id: u64) -> Option<usize> {
        let i = usize::try_from(id.checked_sub(self.first)?).ok()?;
        (i < self.slots.len()).then_some(i)
    }

    fn get_mut(&mut self, id: u64) -> Option<&mut PendingSplit<R>> {
        let i = self.index(id)?;
        self.slots[i].as_mut()
    }

    fn remove(&mut self, id: u64) -> Option<PendingSplit<R>> {
        let i = self.index(id)?;
        let split = self.slots[i].take()?;
        self.pending -= 1;
        while let Some(None) = self.slots.front() {
            self.slots.pop_front();
            self.first += 1;
        }
        Some(split)
    }

    fn is_empty(&self) -> bool {
        self.pending == 0
    }
}

/// Subtask keys are `split id << SUB_BITS | subtask index`.
const SUB_BITS: u32 = 16;

struct Node<'a, J: Job> {
    job: &'a J,
    config: &'a EngineConfig,
    parent: Option<LinkId>,
    children: Vec<LinkId>,
    links: Vec<LinkId>,
    level: u32,
    queue: VecDeque<(u64, J::Task)>,
    ready: VecDeque<(u64, J::Task)>,
    waiting: VecDeque<LinkId>,
    splits: PendingSplits<J::Output>,
    /// Tasks forwarded whole ([`Job::forwards_whole`]) whose results have not come back.
    passing: usize,
    next_split: u64,
    split_count: u64,
    split_limit: u64,
    requests_out: usize,
    exhausted: bool,
    finished_children: usize,
    current: Option<Current<J>>,
    outputs: Vec<(u64, J::Output, Duration)>,
    executed_share: f64,
}

/// A task being executed locally: synthetic work still to be done, or real work already
/// computed whose CPU time is being spent in emulated time.
enum Execution<J: Job> {
    Pending(J::Task),
    Done(J::Output),
}

struct Current<J: Job> {
    key: u64,
    share: f64,
    work: Execution<J>,
    remaining: Duration,
}

type Proc<J> = Processor<Message<<J as Job>::Task, <J as Job>::Output>>;

impl<J: Job> Node<'_, J> {
    fn handle(
        &mut self,
        p: &mut Proc<J>,
        link: LinkId,
        msg: Message<J::Task, J::Output>,
    ) -> Result<(), ProcessorError> {
        match msg {
            Message::Request => self.waiting.push_back(link),
            Message::Task { key, task } => {
                self.requests_out = self.requests_out.saturating_sub(1);
                self.queue.push_back((key, task));
            }
            Message::NoMore => {
                self.exhausted = true;
                self.requests_out = 0;
            }
            Message::Result { key, output } => self.subtask_done(p, key, output)?,
            Message::Finished => self.finished_children += 1,
        }
        Ok(())
    }

    fn deliver(
        &mut self,
        p: &mut Proc<J>,
        key: u64,
        output: J::Output,
    ) -> Result<(), ProcessorError> {
        match self.parent {
            Some(up) => p.send(up, Message::Result { key, output }),
            None => {
                self.outputs.push((key, output, p.now()));
                Ok(())
            }
        }
    }

    fn subtask_done(
        &mut self,
        p: &mut Proc<J>,
        key: u64,
        output: J::Output,
    ) -> Result<(), ProcessorError> {
        if self.job.forwards_whole() {
            self.passing = self.passing.checked_sub(1).ok_or_else(|| {
                ProcessorError::Program(format!("unexpected result of task {key}"))
            })?;
            let joined = self.join(p, vec![output]);
            return self.deliver(p, key, joined);
        }
        let id = key >> SUB_BITS;
        let index = (key & ((1 << SUB_BITS) - 1)) as usize;
        let Some(pending) = self.splits.get_mut(id) else {
            return Err(ProcessorError::Program(format!(
                "result for unknown split {id}"
            )));
        };
        if pending.parts.get(index).is_none_or(Option::is_some) {
            return Err(ProcessorError::Program(format!(
                "unexpected result {index} of split {id}"
            )));
        }
        pending.parts[index] = Some(output);
        pending.remaining -= 1;
        if pending.remaining > 0 {
            return Ok(());
        }
        let Some(done) = self.splits.remove(id) else {
            unreachable!("split {id} was present")
        };
        let parts: Vec<J::Output> = done.parts.into_iter().flatten().collect();
        let joined = self.join(p, parts);
        self.deliver(p, done.parent_key, joined)
    }

    /// Joins a split's results, charging `T_j` (or the real work).
    fn join(&self, p: &mut Proc<J>, parts: Vec<J::Output>) -> J::Output {
        if self.job.forwarding_is_real() {
            let job = self.job;
            p.compute(|w| job.join(parts, w))
        } else {
            p.occupy(self.job.join_time(self.level));
            self.job.join(parts, &mut Work::default())
        }
    }

    /// Step 4: the forwarder. Like the paper's high-priority forwarding process, it takes the
    /// next queued task as soon as its slot (`ready`) is empty, splits it, and hands the
    /// subtasks to children as their requests come in.
    fn serve_children(&mut self, p: &mut Proc<J>) -> Result<(), ProcessorError> {
        if self.children.is_empty() {
            return Ok(());
        }
        loop {
            if self.ready.is_empty() && self.split_count < self.split_limit {
                if let Some((parent_key, task)) = self.queue.pop_front() {
                    if let Err(task) = self.split(p, parent_key, task)? {
                        // Cannot be split: it stays here to be executed locally.
                        self.queue.push_front((parent_key, task));
                    }
                }
            }
            let Some(&child) = self.waiting.front() else {
                break;
            };
            if let Some((key, task)) = self.ready.pop_front() {
                p.send(child, Message::Task { key, task })?;
                p.record_forwarded(1);
                self.waiting.pop_front();
                continue;
            }
            // Nothing to hand out now. If nothing will come either, say so.
            let more_coming =
                self.split_count < self.split_limit && (!self.exhausted || !self.queue.is_empty());
            if more_coming {
                break;
            }
            p.send(child, Message::NoMore)?;
            self.waiting.pop_front();
        }
        Ok(())
    }

    /// Splits a task into the forwarder's slot (`T_s + β_f`), or gives it back.
    fn split(
        &mut self,
        p: &mut Proc<J>,
        parent_key: u64,
        task: J::Task,
    ) -> Result<Result<(), J::Task>, ProcessorError> {
        let job = self.job;
        let fanout = self.children.len();
        let split = if job.forwarding_is_real() {
            p.compute(|w| job.split(task, fanout, w))
        } else {
            job.split(task, fanout, &mut Work::default())
        };
        let subtasks = match split {
            Ok(s) if !s.is_empty() && s.len() < 1 << SUB_BITS => s,
            Ok(_) => {
                return Err(ProcessorError::Program(
                    "a split produced no subtasks or too many".into(),
                ));
            }
            Err(task) => return Ok(Err(task)),
        };
        if !job.forwarding_is_real() {
            p.occupy(job.split_time(self.level));
        }
        p.occupy_comm(self.config.beta_f);
        if self.job.forwards_whole() {
            let [whole] = <[J::Task; 1]>::try_from(subtasks).map_err(|_| {
                ProcessorError::Program("a task forwarded whole was split in parts".into())
            })?;
            self.split_count += 1;
            self.passing += 1;
            self.ready.push_back((parent_key, whole));
            return Ok(Ok(()));
        }
        let id = self.next_split;
        self.next_split += 1;
        self.split_count += 1;
        let n = subtasks.len();
        for (i, sub) in subtasks.into_iter().enumerate() {
            self.ready.push_back(((id << SUB_BITS) | i as u64, sub));
        }
        self.splits.insert(
            id,
            PendingSplit {
                parent_key,
                parts: (0..n).map(|_| None).collect(),
                remaining: n,
            },
        );
        Ok(Ok(()))
    }

    /// Step 3: top the queue plus outstanding requests up to the queue's capacity.
    fn flood_fill(&mut self, p: &mut Proc<J>) -> Result<(), ProcessorError> {
        if let Some(up) = self.parent {
            while !self.exhausted && self.queue.len() + self.requests_out < self.config.queue {
                p.send(up, Message::Request)?;
                self.requests_out += 1;
            }
        }
        Ok(())
    }

    fn finished(&self) -> bool {
        self.exhausted
            && self.queue.is_empty()
            && self.ready.is_empty()
            && self.current.is_none()
            && self.splits.is_empty()
            && self.passing == 0
            && self.waiting.is_empty()
            && self.finished_children == self.children.len()
    }

    /// Step 1, for a real job in real time (native, dilated): after its own requests, a
    /// processor takes each child's first request (every child sends them at once) before it
    /// executes anything. Real work runs before its emulated interval, so a task started
    /// before the requests came would hold them for a whole task in real time while emulated
    /// time has it pre-empted at once. In virtual time the work takes no time until it is
    /// charged, and the charge is pre-empted exactly: nothing to wait for.
    fn start_up(&mut self, p: &mut Proc<J>) -> Result<(), ProcessorError> {
        self.flood_fill(p)?;
        let mut silent = if self.job.is_real() && p.in_real_time() {
            self.children.clone()
        } else {
            Vec::new()
        };
        while !silent.is_empty() {
            let (link, msg) = p.recv_from(&silent)?;
            silent.retain(|&c| c != link);
            self.handle(p, link, msg)?;
        }
        Ok(())
    }

    fn run(&mut self, p: &mut Proc<J>) -> Result<(), ProcessorError> {
        self.start_up(p)?;
        loop {
            // Step 2: messages first.
            while let Some((link, msg)) = p.try_recv_from(&self.links)? {
                self.handle(p, link, msg)?;
            }
            // Step 4: forwarding before execution.
            self.serve_children(p)?;
            // Step 3: flood fill (after forwarding, which may have freed queue slots).
            self.flood_fill(p)?;
            // Step 5: local execution, pre-emptible in emulated time.
            let next = match self.current.take() {
                Some(c) => Some(c),
                None => self.queue.pop_front().map(|(key, task)| {
                    let job = self.job;
                    let share = job.share(&task);
                    let work = if job.is_real() {
                        // Real work runs now, uncharged; its cost becomes the emulated
                        // duration below, during which messages pre-empt it as usual.
                        let (output, cost) = p.measure(|w| job.execute(task, w));
                        (Execution::Done(output), cost)
                    } else {
                        let t = job.execute_time(&task, self.level);
                        (Execution::Pending(task), t)
                    };
                    Current {
                        key,
                        share,
                        work: work.0,
                        remaining: work.1,
                    }
                }),
            };
            if let Some(mut current) = next {
                // Taking a task frees a slot: ask for the next one before starting on this.
                self.flood_fill(p)?;
                match p.occupy_or_recv(current.remaining, &self.links)? {
                    Interrupt::Completed => {}
                    Interrupt::Message {
                        link,
                        message,
                        remaining,
                    } => {
                        current.remaining = remaining;
                        self.current = Some(current);
                        self.handle(p, link, message)?;
                        continue;
                    }
                }
                let output = match current.work {
                    Execution::Done(output) => output,
                    Execution::Pending(task) => self.job.execute(task, &mut Work::default()),
                };
                p.occupy_comm(self.config.beta_e);
                p.record_executed(1);
                self.executed_share += current.share;
                self.deliver(p, current.key, output)?;
                continue;
            }
            // Step 7: termination.
            if self.finished() {
                if let Some(up) = self.parent {
                    p.send(up, Message::Finished)?;
                }
                return Ok(());
            }
            let (link, msg) = p.recv_any()?;
            self.handle(p, link, msg)?;
        }
    }
}

/// Runs `tasks` on `machine` with the engine, and checks that every task's result reached the
/// root exactly once. Outputs are returned by task index.
pub fn run<J: Job>(
    machine: &Machine,
    job: &J,
    tasks: Vec<J::Task>,
    config: &EngineConfig,
) -> Result<EngineRun<J::Output>, EngineError>
where
    J::Task: Send,
{
    if tasks.is_empty() {
        return Err(EngineError::NoTasks);
    }
    if config.queue == 0 {
        return Err(EngineError::ZeroQueue);
    }
    let n = machine.topology().len();
    if let Some(limits) = &config.split_limits {
        if limits.len() != n {
            return Err(EngineError::LimitsLength {
                given: limits.len(),
                processors: n,
            });
        }
    }
    let m = tasks.len();
    let root = machine.topology().root();
    let source = parking_lot::Mutex::new(Some(tasks));
    let record = machine.run(|p: &mut Proc<J>| {
        let queue: VecDeque<(u64, J::Task)> = if p.id() == root {
            let tasks = source.lock().take().unwrap_or_default();
            tasks
                .into_iter()
                .enumerate()
                .map(|(i, t)| (i as u64, t))
                .collect()
        } else {
            VecDeque::new()
        };
        let mut node = Node {
            job,
            config,
            parent: p.parent(),
            children: p.children().to_vec(),
            links: p.links().to_vec(),
            level: p.level(),
            queue,
            ready: VecDeque::new(),
            waiting: VecDeque::new(),
            splits: PendingSplits::new(),
            next_split: 0,
            passing: 0,
            split_count: 0,
            split_limit: config.split_limits.as_ref().map_or(u64::MAX, |l| l[p.id()]),
            requests_out: 0,
            exhausted: p.parent().is_none(),
            finished_children: 0,
            current: None,
            outputs: Vec::new(),
            executed_share: 0.0,
        };
        node.run(p)?;
        Ok(NodeResult {
            outputs: node.outputs,
            executed_share: node.executed_share,
            splits: node.split_count,
        })
    })?;
    let mut results = record.results;
    let root_outputs = std::mem::take(&mut results[root].outputs);
    let mut outputs: Vec<Option<J::Output>> = (0..m).map(|_| None).collect();
    let result_times: Vec<Duration> = root_outputs.iter().map(|(_, _, t)| *t).collect();
    for (key, out, _) in root_outputs {
        let slot = outputs
            .get_mut(key as usize)
            .ok_or(EngineError::Duplicate(key))?;
        if slot.is_some() {
            return Err(EngineError::Duplicate(key));
        }
        *slot = Some(out);
    }
    let missing: Vec<u64> = outputs
        .iter()
        .enumerate()
        .filter(|(_, o)| o.is_none())
        .map(|(i, _)| i as u64)
        .collect();
    if let Some(&first) = missing.first() {
        return Err(EngineError::Lost {
            count: missing.len(),
            first,
        });
    }
    let total_share: f64 = results.iter().map(|r| r.executed_share).sum();
    Ok(EngineRun {
        outputs: outputs.into_iter().flatten().collect(),
        result_times,
        report: record.report,
        executed_share: results
            .iter()
            .map(|r| r.executed_share / total_share.max(f64::MIN_POSITIVE))
            .collect(),
        splits: results.iter().map(|r| r.splits).collect(),
        trace: record.trace,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use multicomputer_runtime::{MachineConfig, TimeMode, Topology, WaitStrategy};

    /// A farm: each task is its index and takes a fixed emulated time (synthetic), or declares
    /// 1000 units of real work (`Farm::REAL`).
    struct Farm(Duration);

    const UNIT: multicomputer_runtime::WorkUnit = multicomputer_runtime::WorkUnit("unit");

    impl Farm {
        /// Real: charged by its declared units.
        const REAL: Farm = Farm(Duration::ZERO);
    }

    impl Job for Farm {
        type Task = u64;
        type Output = u64;
        fn is_real(&self) -> bool {
            self.0.is_zero()
        }
        fn execute_time(&self, _: &u64, _: u32) -> Duration {
            self.0
        }
        fn execute(&self, task: u64, w: &mut Work) -> u64 {
            w.add(UNIT, 1000);
            task * task
        }
        fn forwards_whole(&self) -> bool {
            true
        }
        fn split(&self, task: u64, _: usize, _: &mut Work) -> Result<Vec<u64>, u64> {
            Ok(vec![task])
        }
        fn join(&self, mut parts: Vec<u64>, _: &mut Work) -> u64 {
            parts.pop().unwrap_or_default()
        }
    }

    fn machine(topology: Topology) -> Machine {
        let config = MachineConfig {
            mode: TimeMode::Dilated(1.0),
            wait: WaitStrategy::Sleep,
            capacity: 4,
            ..MachineConfig::default()
        };
        Machine::new(topology, config).unwrap()
    }

    #[test]
    fn a_real_job_in_real_time_takes_its_childrens_first_requests_before_it_executes() {
        // Tasks of 1000 units at 1 µs (1 ms), requests arriving 100 µs after they are sent.
        let config = |mode| MachineConfig {
            mode,
            link: multicomputer_runtime::LinkCost {
                latency: Duration::from_micros(100),
                ..Default::default()
            },
            work_costs: multicomputer_runtime::WorkCosts::default().with_unit(UNIT, 1000.0),
            trace: true,
            ..MachineConfig::default()
        };
        let first_compute = |mode, job: &Farm| {
            let m = Machine::new(Topology::chain(2).unwrap(), config(mode)).unwrap();
            let r = run(&m, job, (0..4).collect(), &EngineConfig::default()).unwrap();
            assert_eq!(r.outputs, vec![0, 1, 4, 9]);
            let mut first = None;
            r.trace
                .unwrap()
                .visit_events(|e| {
                    if e.processor == 0 && e.activity == multicomputer_runtime::Activity::Compute {
                        first.get_or_insert(e.start_ns);
                    }
                })
                .unwrap();
            first.unwrap()
        };
        // On threads the root's first real task starts when the child's first request is in,
        // at 100 µs: started at 0, it could not be pre-empted by it in real time.
        assert_eq!(first_compute(TimeMode::Dilated(1.0), &Farm::REAL), 100_000);
        // In virtual time the charge is pre-empted exactly, as a synthetic job's is: at once.
        assert_eq!(first_compute(TimeMode::Virtual, &Farm::REAL), 0);
        assert_eq!(
            first_compute(TimeMode::Virtual, &Farm(Duration::from_millis(1))),
            0
        );
    }

    #[test]
    fn farm_executes_every_task_exactly_once_and_returns_every_result() {
        let m = machine(Topology::kary_tree(2, 3).unwrap());
        let config = EngineConfig {
            beta_e: Duration::from_micros(50),
            beta_f: Duration::from_micros(100),
            ..EngineConfig::default()
        };
        let tasks: Vec<u64> = (0..200).collect();
        let run = run(&m, &Farm(Duration::from_millis(1)), tasks, &config).unwrap();
        assert_eq!(run.outputs, (0..200u64).map(|t| t * t).collect::<Vec<_>>());
        assert_eq!(run.report.totals.tasks_executed, 200);
        let share: f64 = run.executed_share.iter().sum();
        assert!((share - 1.0).abs() < 1e-12);
        // Every processor took part; forwarded tasks equal splits in a farm.
        assert!(
            run.report
                .per_processor
                .iter()
                .all(|p| p.accounting.tasks_executed > 0)
        );
        assert_eq!(
            run.report.totals.tasks_forwarded,
            run.splits.iter().sum::<u64>()
        );
    }

    #[test]
    fn single_processor_farm_takes_m_times_te_plus_beta_e() {
        let m = machine(Topology::chain(1).unwrap());
        let config = EngineConfig {
            beta_e: Duration::from_micros(50),
            ..EngineConfig::default()
        };
        let run = run(
            &m,
            &Farm(Duration::from_millis(1)),
            (0..20).collect(),
            &config,
        )
        .unwrap();
        assert_eq!(run.report.makespan(), Duration::from_micros(20 * 1050));
        assert_eq!(run.result_times[0], Duration::from_micros(1050));
        assert_eq!(run.result_times.len(), 20);
    }

    #[test]
    fn split_limits_keep_tasks_where_the_model_puts_them() {
        let m = machine(Topology::chain(3).unwrap());
        let config = EngineConfig {
            split_limits: Some(vec![5, 2, 0]),
            ..EngineConfig::default()
        };
        let run = run(
            &m,
            &Farm(Duration::from_micros(500)),
            (0..30).collect(),
            &config,
        )
        .unwrap();
        assert_eq!(run.splits, vec![5, 2, 0]);
        let executed: Vec<u64> = run
            .report
            .per_processor
            .iter()
            .map(|p| p.accounting.tasks_executed)
            .collect();
        assert_eq!(executed, vec![25, 3, 2]);
    }

    #[test]
    fn engine_rejects_empty_work_and_bad_limits() {
        let m = machine(Topology::chain(2).unwrap());
        let farm = Farm(Duration::from_micros(10));
        assert_eq!(
            run(&m, &farm, vec![], &EngineConfig::default()).unwrap_err(),
            EngineError::NoTasks
        );
        let zero = EngineConfig {
            queue: 0,
            ..EngineConfig::default()
        };
        assert_eq!(
            run(&m, &farm, vec![1], &zero).unwrap_err(),
            EngineError::ZeroQueue
        );
        let limits = EngineConfig {
            split_limits: Some(vec![1]),
            ..EngineConfig::default()
        };
        assert!(matches!(
            run(&m, &farm, vec![1], &limits).unwrap_err(),
            EngineError::LimitsLength {
                given: 1,
                processors: 2
            }
        ));
    }
}
