//! What a user would run instead of the runtime, on the same inputs with the same work and
//! grain, each returning the kernel's [`Output`](super::Output):
//!
//! - [`sequential`]: the best sequential program, the reference every speedup is measured
//!   against (the kernel's own sequential code: the same mergesort, the same trial division);
//! - [`rayon`]: rayon on a pool of exactly P threads (`par_iter` over the tasks, `join` for
//!   mergesort down to the runtime's leaf pieces);
//! - [`scoped`]: P threads of `std::thread::scope`, each given one static, contiguous chunk of
//!   the tasks.

mod kernels;
pub mod rayon;
pub mod scoped;
pub mod sequential;

pub(crate) use kernels::{ocl_count_into, padded_stream, primes_task};
