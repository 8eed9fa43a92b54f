//! The Slurm language: everything a user or an administrator writes and Spur reads the way Slurm 22.05 reads it.
//! Command-line options and `#SBATCH` directives ([`options`]), hostlist expressions ([`hostlist`]), option value
//! grammars ([`values`]), the configuration files ([`conf`]), the environments Slurm gives programs
//! ([`env`](mod@env)), and the small syntaxes of `--multi-prog`, `--cpu-bind`, `--gpu-bind`, `TaskProlog` output
//! and `--propagate`.
//! Every parser here is pure and its errors read as Slurm's.

pub mod conf;
pub mod cpu_bind;
pub mod env;
pub mod gpu_bind;
pub mod hostlist;
pub mod multi_prog;
pub mod options;
pub mod rlimits;
pub mod task_prolog;
pub mod values;

/// How Slurm's admin commands (scontrol, sreport) match a keyword: `word`, in any case, is a prefix of `keyword`
/// at least `min` letters long (or the whole keyword, when that is shorter).
pub fn abbreviates(word: &str, keyword: &str, min: usize) -> bool {
    (word.len() >= min || word.len() == keyword.len())
        && keyword
            .get(..word.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(word))
}
