//! Vector-driven and property tests for `spur_core::grammar::values`: every row of the reference vectors transcribed
//! from Slurm's own unit tests, and of the vectors generated from the real Slurm 22.05 library, is checked here.

mod values {
    pub mod tsv;

    mod array;
    mod begin;
    mod constraint;
    mod dependency;
    mod distribution;
    mod filename;
    mod gres;
    mod mail;
    mod nodes;
    mod props;
    mod signal;
    mod size;
    mod stepid;
    mod time;
}
