#!/usr/bin/env bash
# Fails when a test of SchedMD's testsuite that passed on Slurm did not pass on Spur in the same run.sh output
# directory, unless flaky.txt (tests Slurm itself does not pass every time) or known-failures.txt (Spur's
# failures still to fix, each with its reason) lists it. Listed tests that now pass on Spur are named, so the
# lists shrink.
#
#   conformance/schedmd/check.sh OUTDIR      (holding slurm.results and spur.results from run.sh)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:?usage: $0 OUTDIR}
for t in slurm spur; do
    [[ -s $out/$t.results ]] || { echo "schedmd: no $out/$t.results" >&2; exit 1; }
done
declare -A slurm spur listed
while read -r o id; do slurm[$id]=$o; done <"$out/slurm.results"
while read -r o id; do spur[$id]=$o; done <"$out/spur.results"
for list in flaky known-failures; do
    while read -r id _; do
        [[ -n $id && $id != \#* ]] && listed[$id]=$list
    done <"$here/$list.txt"
done
rc=0
for id in $(printf '%s\n' "${!slurm[@]}" | LC_ALL=C sort); do
    [[ ${slurm[$id]} == passed ]] || continue
    [[ ${spur[$id]:-missing} == passed ]] && continue
    if [[ -n ${listed[$id]:-} ]]; then continue; fi
    echo "schedmd: $id passed on Slurm, ${spur[$id]:-missing} on Spur" >&2
    rc=1
done
for id in $(printf '%s\n' "${!listed[@]}" | LC_ALL=C sort); do
    [[ ${listed[$id]} == known-failures && ${spur[$id]:-} == passed ]] &&
        echo "schedmd: $id passes on Spur now: remove it from known-failures.txt" >&2
done
total=${#slurm[@]}
ns=$(grep -c '^passed ' "$out/slurm.results" || true)
np=$(grep -c '^passed ' "$out/spur.results" || true)
echo "schedmd: $total tests; passed on Slurm $ns, on Spur $np (exit $rc)" >&2
exit "$rc"
