//! The command line's tuning constants: the thresholds at which a measurement taken on the
//! host is called disturbed or unreliable, in one place.

/// Cores other processes may keep busy before a measurement is called disturbed: half a core,
/// the slack `speedup` allows for the host's own noise.
pub(crate) const BUSY_CORES: f64 = 0.5;

/// Replicates whose standard deviation exceeds this share of their mean make the headline
/// figure unreliable (a quiet host repeats a native run within a few per cent).
pub(crate) const SCATTER_RELATIVE_SD: f64 = 0.10;

/// Replicates whose interquartile range exceeds this share of their median make the headline
/// figure unreliable (the same bound as the standard deviation's, robust to one outlier).
pub(crate) const SCATTER_IQR_OVER_MEDIAN: f64 = 0.10;

/// Replicates of which more than this share lie beyond Tukey's fences (1.5 IQR outside the
/// quartiles) make the headline figure unreliable: one run in ten may be interrupted.
pub(crate) const SCATTER_OUTLIER_SHARE: f64 = 0.10;
