//! The rows of the option table, one per [`OptId`], in `OptId` order.
//!
//! Help texts are our own wording. Value kinds, accepting commands and environment variables follow what Slurm
//! 22.05.8's sbatch, srun and salloc binaries do (which is sometimes more than their man pages document).

mod accel_bind_gres_flags;
mod help_plane_size;
mod power_x11;

use super::OptDef as D;

/// Short names for the command sets rows use.
mod cmds {
    use super::super::Cmds;
    pub const ALL: Cmds = Cmds::ALL;
    pub const SBATCH: Cmds = Cmds::SBATCH;
    pub const SRUN: Cmds = Cmds::SRUN;
    pub const SALLOC: Cmds = Cmds::SALLOC;
    pub const SB_SR: Cmds = Cmds::SBATCH_SRUN;
    pub const SB_SA: Cmds = Cmds::SBATCH_SALLOC;
    pub const SR_SA: Cmds = Cmds::SRUN_SALLOC;
    pub const NONE: Cmds = Cmds::NONE;
}

/// Every option, in `OptId` order (so an id indexes its row).
pub static OPTIONS: &[D] = &ALL;

const N0: usize = accel_bind_gres_flags::ROWS.len();
const N1: usize = help_plane_size::ROWS.len();
const N2: usize = power_x11::ROWS.len();
static ALL: [D; N0 + N1 + N2] = concat3(
    accel_bind_gres_flags::ROWS,
    help_plane_size::ROWS,
    power_x11::ROWS,
);

/// Joins the row groups at compile time (the table is split over files only to keep them small).
const fn concat3<const A: usize, const B: usize, const C: usize, const N: usize>(
    a: [D; A],
    b: [D; B],
    c: [D; C],
) -> [D; N] {
    let mut out = [a[0]; N];
    let mut i = 0;
    while i < A {
        out[i] = a[i];
        i += 1;
    }
    while i < A + B {
        out[i] = b[i - A];
        i += 1;
    }
    while i < N {
        out[i] = c[i - A - B];
        i += 1;
    }
    out
}
