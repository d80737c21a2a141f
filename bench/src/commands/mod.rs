//! One module per command.

pub(crate) mod calibrate;
pub(crate) mod dnc;
pub(crate) mod emulate;
pub(crate) mod farm;
pub(crate) mod fit;
pub(crate) mod ising;
pub(crate) mod ocl;
pub(crate) mod pingpong;
pub(crate) mod scaling;
pub(crate) mod sweep;
pub(crate) mod tour;
