#!/usr/bin/env bash
# The MPI launch benchmark (docs/performance.md, "MPI launch"): on a three-node cluster of each target (real Slurm
# 22.05 and Spur, multi-node mode: one network namespace per node), one batch job `sbatch -N3 -n6` times
#   - from just before `srun` starts to the moment MPI_Init has returned in every rank (ranks.c's
#     `init_done_max=`, RANKS_TIMING=1), and
#   - from just before `srun` starts to srun's exit (the whole step),
# for `srun --mpi=pmix` with Open MPI (ranks.openmpi) and `srun --mpi=pmi2` with MPICH (ranks.mpich), with 6 ranks
# (one per CPU) and with 48 ranks (`-O`, oversubscribed), ROUNDS rounds each (median reported). A run counts only
# when srun exits 0 and every rank printed `of N`: a target that lacks a plugin (its ranks come up as singletons,
# or srun refuses the type) reports N/A for it instead of a figure.
#
#   conformance/mpi/bench.sh [--rounds N] [--targets "slurm spur"] [--out DIR]
#
# Needs root (the targets' up.sh). Takes the conformance lock (/tmp/conformance.lock) while a cluster is up. Prints
# a Markdown table on stdout and leaves each target's raw rows in OUT/<target>.tsv.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
rounds=5
targets="slurm spur"
out=/tmp/spur-mpi-bench
while (($#)); do
    case $1 in
        --rounds) rounds=$2; shift 2 ;;
        --targets) targets=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        *) echo "usage: $0 [--rounds N] [--targets \"slurm spur\"] [--out DIR]" >&2; exit 2 ;;
    esac
done
[[ $rounds =~ ^[1-9][0-9]?$ ]] || { echo "--rounds must be 1-99" >&2; exit 2; }
mkdir -p "$out"
mpi_dir=$("$here/build.sh")

# The job: one line per run, "plugin ranks round rc init_s end_s" (init_s is NA when the ranks did not form one
# world of the expected size).
job_script() {
    cat <<'JOB'
#!/bin/bash
now() { date +%s.%N; }
for spec in "pmix openmpi" "pmi2 mpich"; do
    set -- $spec
    plugin=$1 prog=$MPI_DIR/ranks.$2
    for n in 6 48; do
        extra=""
        ((n > SLURM_NTASKS)) && extra="-O"
        for ((r = 1; r <= ROUNDS; r++)); do
            t0=$(now)
            RANKS_TIMING=1 timeout 120 srun --mpi=$plugin -N3 -n$n $extra "$prog" > ranks.out 2> ranks.err
            rc=$?
            t1=$(now)
            init=$(sed -n 's/^init_done_max=//p' ranks.err)
            good=$(grep -c " of $n on " ranks.out)
            if ((rc == 0 && good == n)) && [[ $init =~ ^[0-9.]+$ ]]; then
                echo "$plugin $n $r $rc $(echo "$init - $t0" | bc -l) $(echo "$t1 - $t0" | bc -l)"
            else
                echo "$plugin $n $r $rc NA NA"
            fi
        done
    done
done
JOB
}

run_target() {
    local target=$1 rundir=/tmp/spur-mpi-bench-$1 id
    exec 9>/tmp/conformance.lock
    flock 9
    eval "$(SLURM_CONF_EXTRA=FirstJobId=5001 "$root/conformance/targets/$target/up.sh" --nodes 3 "$rundir" 9>&-)"
    job_script > "$out/$target-job.sh"
    rm -f "$out/$target.raw"
    # shellcheck disable=SC2097,SC2098
    MPI_DIR=$mpi_dir ROUNDS=$rounds OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        sbatch -N3 -n6 --wait -D "$out" -o "$out/$target.raw" "$out/$target-job.sh" 9>&- >/dev/null || true
    grep -E '^(pmix|pmi2) ' "$out/$target.raw" > "$out/$target.tsv" || true
    eval "$("$root/conformance/targets/$target/down.sh" "$rundir" 9>&- 2>/dev/null)"
    exec 9>&-
}

for t in $targets; do
    echo "bench: $t" >&2
    run_target "$t"
done

# Median of a column (5: to MPI_Init everywhere, 6: to the step's end) over the rounds of one plugin and size, in
# milliseconds; N/A when any round failed.
median() {
    awk -v p="$2" -v n="$3" -v c="$4" '$1 == p && $2 == n { if ($c == "NA") bad = 1; else v[k++] = $c * 1000 }
        END { if (bad || k == 0) { print "N/A"; exit }
              asort(v); m = (k % 2) ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2; printf "%.0f ms\n", m }' "$1"
}

{
    printf '| figure |'
    for t in $targets; do printf ' %s |' "$t"; done
    printf '\n| --- |'
    for t in $targets; do printf ' --- |'; done
    printf '\n'
    for spec in "pmix Open MPI" "pmi2 MPICH"; do
        plugin=${spec%% *} mpi=${spec#* }
        for n in 6 48; do
            for col in "5 to MPI_Init in every rank" "6 to the step's end"; do
                printf '| `srun --mpi=%s`, %s, %s ranks: %s |' "$plugin" "$mpi" "$n" "${col#* }"
                for t in $targets; do printf ' %s |' "$(median "$out/$t.tsv" "$plugin" "$n" "${col%% *}")"; done
                printf '\n'
            done
        done
    done
} | tee "$out/bench.md"
