//! The commands, one file each: a command reads its arguments into a plan, executes it,
//! and reports. No command calls another; what several share lives in the layers below
//! ([`crate::plan`], [`crate::exec`], [`crate::report`], [`crate::files`]).

pub(crate) mod calibrate;
pub(crate) mod collective;
pub(crate) mod dnc;
pub(crate) mod emulate;
pub(crate) mod farm;
pub(crate) mod fit_farm;
pub(crate) mod fit_ocl;
pub(crate) mod ising;
pub(crate) mod ocl;
pub(crate) mod pingpong;
pub(crate) mod predict_dnc;
pub(crate) mod predict_farm;
pub(crate) mod scaling;
pub(crate) mod speedup;
pub(crate) mod sweep_collective;
pub(crate) mod sweep_dnc;
pub(crate) mod sweep_farm;
pub(crate) mod sweep_ocl;
pub(crate) mod tour;
