//! Files: checking output paths before a run, publishing a run's files as one set at its end
//! ([`publish`]), and reading users' files within a size limit ([`read_text`]) and their CSV
//! tables ([`Columns`]).

mod columns;
mod paths;
mod publish;
mod read;
mod temps;

pub(crate) use columns::{Columns, ColumnsError};
pub(crate) use paths::{
    Target, check_dir_target, check_file_target, distinct, is_stdout, output_target, staging_folder,
};
pub(crate) use publish::{Publication, RunFolder};
pub(crate) use read::read_text;
pub(crate) use temps::{Stopped, on_signal, published_any};
