//! Coroutine stacks, and turning a stack overflow into an error instead of a crash.
//!
//! Each processor's coroutine gets its own stack, reserved with `mmap` and mapped lazily
//! (only the pages it touches use memory), below it one guard page that is never mapped. A
//! stack therefore costs two entries of the kernel's memory-map table (`vm.max_map_count`).
//!
//! A program that overflows its stack touches the guard page and the kernel raises `SIGSEGV`.
//! A process-wide handler (installed once, chaining to whatever handler was there before)
//! checks whether the faulting address is the guard page of the coroutine running on this
//! thread. If it is, corosensei's trap support makes that coroutine return at once with
//! [`Exit::StackOverflow`], and the run reports [`RunError::StackOverflow`] naming the
//! processor. Any other fault goes to the previous handler, as if this one were not there.
//!
//! [`RunError::StackOverflow`]: crate::RunError::StackOverflow

use std::cell::Cell;

use corosensei::stack::{DefaultStack, Stack};
use corosensei::trap::CoroutineTrapHandler;

/// How a coroutine's body ended (its result itself is left in the processor's slot).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exit {
    /// The program returned (or panicked: the panic was caught and recorded).
    Returned,
    /// The stack overflowed into its guard page.
    StackOverflow,
}

/// The host's page size.
pub(crate) fn page_size() -> usize {
    // SAFETY: sysconf has no memory-safety preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(p).unwrap_or(4096).max(4096)
}

/// A coroutine stack whose top is moved down by a few cache lines, different for neighbouring
/// processors ("cache colouring").
///
/// Stacks are whole pages, so without it every coroutine's hot top lines would sit at the same
/// offset in a page and compete for the same few cache sets: with thousands of processors,
/// each resume would miss. Spreading the tops over a page's 64 line offsets lets them share
/// the whole cache.
pub(crate) struct ColouredStack {
    inner: DefaultStack,
    offset: usize,
}

// SAFETY: the base is the inner stack's, moved down by a multiple of 64 bytes that leaves
// more than MIN_STACK_BYTES − 4 KiB above the guard page; the limit (with its guard page) is
// the inner stack's.
unsafe impl Stack for ColouredStack {
    #[inline]
    fn base(&self) -> corosensei::stack::StackPointer {
        let base = self.inner.base().get() - self.offset;
        corosensei::stack::StackPointer::new(base).unwrap_or(self.inner.base())
    }

    #[inline]
    fn limit(&self) -> corosensei::stack::StackPointer {
        self.inner.limit()
    }
}

/// A new stack of `bytes` (rounded up to whole pages) with its guard page, coloured for
/// processor `index`, and the address range of that guard page.
pub(crate) fn new_stack(
    bytes: usize,
    index: usize,
) -> std::io::Result<(ColouredStack, (usize, usize))> {
    let inner = DefaultStack::new(bytes)?;
    let lo = inner.limit().get();
    let stack = ColouredStack {
        inner,
        offset: (index % 64) * 64,
    };
    Ok((stack, (lo, lo + page_size())))
}

/// The coroutine running on this thread, as the fault handler needs to see it.
#[derive(Clone, Copy)]
struct Running {
    guard: (usize, usize),
    trap: CoroutineTrapHandler<Exit>,
}

thread_local! {
    static RUNNING: Cell<Option<Running>> = const { Cell::new(None) };
}

/// Marks the coroutine with guard page `guard` and trap handler `trap` as the one now running
/// on this thread (until [`left`] is called).
#[inline]
pub(crate) fn entering(guard: (usize, usize), trap: CoroutineTrapHandler<Exit>) {
    RUNNING.with(|r| r.set(Some(Running { guard, trap })));
}

/// No coroutine runs on this thread any more.
#[inline]
pub(crate) fn left() {
    RUNNING.with(|r| r.set(None));
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod trap {
    use std::sync::OnceLock;

    use super::{Exit, RUNNING};

    /// The handlers that were installed before ours, for SIGSEGV and SIGBUS.
    struct Previous([libc::sigaction; 2]);
    // SAFETY: written once before the handler is installed, only read afterwards.
    unsafe impl Sync for Previous {}
    unsafe impl Send for Previous {}

    static PREVIOUS: OnceLock<Previous> = OnceLock::new();

    /// Installs the fault handler once per process, and makes sure this thread has an
    /// alternate signal stack to run it on (a fault on a full stack cannot use that stack).
    pub(crate) fn install() {
        PREVIOUS.get_or_init(|| {
            // SAFETY: plain sigaction calls with valid, zero-initialised structures; the
            // handler only reads thread-local state and rewrites the faulting context.
            unsafe {
                let mut ours: libc::sigaction = std::mem::zeroed();
                ours.sa_sigaction = on_fault as *const () as usize;
                ours.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut ours.sa_mask);
                let mut previous: [libc::sigaction; 2] = std::mem::zeroed();
                libc::sigaction(libc::SIGSEGV, &ours, &mut previous[0]);
                libc::sigaction(libc::SIGBUS, &ours, &mut previous[1]);
                Previous(previous)
            }
        });
        ensure_alternate_stack();
    }

    fn ensure_alternate_stack() {
        // SAFETY: sigaltstack with a null new stack only reads the current one.
        unsafe {
            let mut current: libc::stack_t = std::mem::zeroed();
            if libc::sigaltstack(std::ptr::null(), &mut current) != 0 {
                return;
            }
            if current.ss_flags & libc::SS_DISABLE == 0 {
                return;
            }
            // This thread has none (it was not started by std): give it one for good. It is
            // leaked on purpose: the kernel may use it until the thread ends.
            let size = libc::SIGSTKSZ.max(64 * 1024);
            let mem = libc::mmap(
                std::ptr::null_mut(),
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            if mem == libc::MAP_FAILED {
                return;
            }
            let stack = libc::stack_t {
                ss_sp: mem,
                ss_flags: 0,
                ss_size: size,
            };
            libc::sigaltstack(&stack, std::ptr::null_mut());
        }
    }

    unsafe extern "C" fn on_fault(
        signal: libc::c_int,
        info: *mut libc::siginfo_t,
        context: *mut libc::c_void,
    ) {
        // SAFETY: the kernel passes a valid siginfo and ucontext for an SA_SIGINFO handler.
        unsafe {
            let address = (*info).si_addr() as usize;
            let running = RUNNING.with(|r| r.get());
            if let Some(r) = running {
                if address >= r.guard.0 && address < r.guard.1 {
                    // The running coroutine hit its guard page: make it return
                    // `StackOverflow` on a reset stack once this handler returns.
                    let regs = r.trap.setup_trap_handler(|| Exit::StackOverflow);
                    let uc = &mut *(context as *mut libc::ucontext_t);
                    let gregs = &mut uc.uc_mcontext.gregs;
                    gregs[libc::REG_RIP as usize] = regs.rip as i64;
                    gregs[libc::REG_RSP as usize] = regs.rsp as i64;
                    gregs[libc::REG_RBP as usize] = regs.rbp as i64;
                    gregs[libc::REG_RDI as usize] = regs.rdi as i64;
                    gregs[libc::REG_RSI as usize] = regs.rsi as i64;
                    return;
                }
            }
            chain(signal, info, context);
        }
    }

    /// Hands a fault that is not ours to the handler installed before us.
    unsafe fn chain(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
        let Some(previous) = PREVIOUS.get() else {
            return;
        };
        let slot = usize::from(signal == libc::SIGBUS);
        let prev = &previous.0[slot];
        // SAFETY: restoring or calling the handler the process had installed, with the
        // arguments the kernel gave us.
        unsafe {
            if prev.sa_sigaction == libc::SIG_DFL || prev.sa_sigaction == libc::SIG_IGN {
                // Restore the default and return: the faulting instruction runs again and the
                // default action (a crash with a core) takes place, as without us.
                libc::sigaction(signal, prev, std::ptr::null_mut());
            } else if prev.sa_flags & libc::SA_SIGINFO != 0 {
                let handler: unsafe extern "C" fn(
                    libc::c_int,
                    *mut libc::siginfo_t,
                    *mut libc::c_void,
                ) = std::mem::transmute(prev.sa_sigaction);
                handler(signal, info, context);
            } else {
                let handler: unsafe extern "C" fn(libc::c_int) =
                    std::mem::transmute(prev.sa_sigaction);
                handler(signal);
            }
        }
    }
}

#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
mod trap {
    /// Stack overflows are caught on Linux x86-64 only; elsewhere they crash as usual.
    pub(crate) fn install() {}
}

/// Makes stack overflows in coroutines on this thread recoverable (see the module docs).
pub(crate) fn install_overflow_trap() {
    trap::install();
}
