//! Hostlist expressions (`node[01-04,07]`): expand, compress and sort with Slurm's rules.
