//! Writing results: atomic file output (and, as they arrive, CSV/JSON reports, plots, filmstrips).

mod atomic;

pub use atomic::write_atomic;
