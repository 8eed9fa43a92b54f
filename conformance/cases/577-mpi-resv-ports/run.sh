#!/usr/bin/env bash
. "$CASE_LIB"
# slurm.conf has MpiParams=ports=12000-12999 in the multi-node mode: slurmctld reserves each step's ports (the most
# tasks on one of its nodes plus one, or srun --resv-ports=N) on the step's nodes until the step ends. The port
# numbers depend on every step the cluster made before, so only their shape is compared: how many, how many
# ranges, inside the range or not, and whether two steps' ports overlap.
cat > steps.sh <<'SCRIPT'
#!/bin/bash
shape() {
    [ -n "$1" ] || { echo "none"; return; }
    echo "$1" | awk -F, '{ n = 0; out = 0
        for (i = 1; i <= NF; i++) { c = split($i, r, "-"); if (c == 1) r[2] = r[1]
            n += r[2] - r[1] + 1; if (r[1] < 12000 || r[2] > 12999) out = 1 }
        printf "ports=%d inside=%s\n", n, (out ? "no" : "yes") }'
}
expand() { echo "$1" | tr , '\n' | awk -F- '{ e = ($2 == "") ? $1 : $2; for (p = $1; p <= e; p++) print p }' | sort; }
overlap() { comm -12 <(expand "$1") <(expand "$2") | wc -l; }
export -f shape
for layout in "-N3 -n6" "-N3 -n5" "-N1 -n1" "-N2 -n3 -m cyclic"; do
    echo "== srun $layout"
    # shellcheck disable=SC2016,SC2086
    srun $layout bash -c 'echo "$SLURM_PROCID $SLURM_STEP_RESV_PORTS"' | sort > ports.out
    echo "same on all tasks: $(cut -d' ' -f2 ports.out | sort -u | wc -l)"
    shape "$(head -n1 ports.out | cut -d' ' -f2)"
done
echo "== srun --resv-ports=5, --resv-ports (none), --resv-ports=0"
shape "$(srun -N1 -n1 --resv-ports=5 printenv SLURM_STEP_RESV_PORTS)"
shape "$(srun -N1 -n1 --resv-ports printenv SLURM_STEP_RESV_PORTS)"
shape "$(srun -N1 -n1 --resv-ports=0 printenv SLURM_STEP_RESV_PORTS)"
echo "== cray_shasta: PMI_CONTROL_PORT is the first reserved port"
srun --mpi=cray_shasta -N1 -n1 bash -c '[ "${SLURM_STEP_RESV_PORTS%%[-,]*}" = "$PMI_CONTROL_PORT" ] && echo first'
echo "== more than the range"
srun -N1 -n1 --resv-ports=1001 true; echo "rc=$?"
echo "== a step holding 999 ports on n1"
rm -f held
srun --overlap -w n1 -N1 -n1 --resv-ports=999 bash -c 'echo "$SLURM_STEP_RESV_PORTS" > held.tmp; mv held.tmp held; sleep 4' &
while [ ! -s held ]; do sleep 0.2; done
shape "$(cat held)"
echo "-- n1 has one port left: busy, at once with --immediate"
srun --overlap -I -w n1 -N1 -n1 --resv-ports=2 true; echo "rc=$?"
echo "-- one port on n1 is free; n2 has all of them"
one=$(srun --overlap -w n1 -N1 -n1 --resv-ports=1 printenv SLURM_STEP_RESV_PORTS)
shape "$one"; echo "overlap with the held ports: $(overlap "$one" "$(cat held)")"
two=$(srun --overlap -w n2 -N1 -n1 --resv-ports=999 printenv SLURM_STEP_RESV_PORTS)
shape "$two"; echo "overlap with the held ports: $(overlap "$two" "$(cat held)")"
wait
echo "-- released when the step ended"
shape "$(srun -w n1 -N1 -n1 --resv-ports=999 printenv SLURM_STEP_RESV_PORTS)"
echo "steps used: $(srun -N1 -n1 printenv SLURM_STEP_ID)"
SCRIPT
id=$(submit -N3 -n6 -o steps.out steps.sh); wait_done "$id"
cat steps.out
