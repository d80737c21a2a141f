//! Runtime.
