#!/usr/bin/env bash
# Prints the per-test table of conformance/pyslurm/RESULTS.md (and its totals) from the outcome files that
# run-tests.sh left in conformance output directories:
#
#   conformance/pyslurm/table.sh OUT_491 OUT_492     (the --out directories of `both` and `both --accounting`)
#
# A test counts as passed on a target when its last outcome there is PASSED (a retried case appends a second run).
set -euo pipefail
(($# > 0)) || { echo "usage: $0 CONFORMANCE_OUT..." >&2; exit 2; }
declare -A slurm spur
for out in "$@"; do
    for target in slurm spur; do
        for f in "$out"/"$target"/tmp/49[12]-*/cluster-*.results "$out"/retry/"$target"/tmp/49[12]-*/cluster-*.results; do
            [[ -e $f ]] || continue
            while read -r outcome id; do
                [[ -n $id ]] || continue
                if [[ $target == slurm ]]; then slurm[$id]=$outcome; else spur[$id]=$outcome; fi
            done <"$f"
        done
    done
done
word() { [[ ${1:-} == PASSED ]] && echo pass || echo fail; }
ids=$(printf '%s\n' "${!slurm[@]}" "${!spur[@]}" | sort -u)
declare -A total pass_slurm pass_spur
for id in $ids; do
    group=integration
    [[ $id == tests/unit/* ]] && group=unit
    [[ $id == tests/integration/test_db_* ]] && group=db
    total[$group]=$((${total[$group]:-0} + 1))
    [[ ${slurm[$id]:-} == PASSED ]] && pass_slurm[$group]=$((${pass_slurm[$group]:-0} + 1))
    [[ ${spur[$id]:-} == PASSED ]] && pass_spur[$group]=$((${pass_spur[$group]:-0} + 1))
done
echo '| | tests | Slurm | Spur |'
echo '| --- | ---: | ---: | ---: |'
all=0 all_slurm=0 all_spur=0
for group in unit integration db; do
    label=$group
    [[ $group == integration ]] && label='`tests/integration` (not db)'
    [[ $group == db ]] && label='`tests/integration/test_db_*`'
    [[ $group == unit ]] && label='`tests/unit`'
    echo "| $label | ${total[$group]:-0} | ${pass_slurm[$group]:-0} | ${pass_spur[$group]:-0} |"
    all=$((all + ${total[$group]:-0}))
    all_slurm=$((all_slurm + ${pass_slurm[$group]:-0}))
    all_spur=$((all_spur + ${pass_spur[$group]:-0}))
done
echo "| all | $all | $all_slurm | $all_spur |"
echo
echo '| test | Slurm 22.05 | Spur |'
echo '| --- | --- | --- |'
for id in $ids; do
    echo "| \`$id\` | $(word "${slurm[$id]:-}") | $(word "${spur[$id]:-}") |"
done
