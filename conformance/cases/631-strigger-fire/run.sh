#!/usr/bin/env bash
# Each trigger's program appends "user program args" to a file; the case waits for each line (slurmctld looks
# at its triggers every 15 seconds) and prints the file.
. "$CASE_LIB"
d=$(mktemp -d /tmp/c631.XXXXXX)
node=$(hostname -s)
cleanup() {
    strigger --clear --user=root -Q
    scontrol update NodeName="$node" State=RESUME 2>/dev/null
    _cleanup_jobs
    rm -rf -- "$d"
}
trap cleanup EXIT
chmod 755 "$d"
cat >"$d/prog.sh" <<SCRIPT
#!/bin/sh
echo "\$(id -un) \$(basename "\$0") \$*" >>"$d/fired"
SCRIPT
chmod 755 "$d/prog.sh"
: >"$d/fired"
# Waits until the file has N lines (at most 60 s).
wait_lines() {
    local i
    for i in $(seq 1 300); do
        [ "$(wc -l <"$d/fired")" -ge "$1" ] && return 0
        sleep 0.2
    done
    echo "timed out waiting for $1 lines"
}
show() {
    sed "s#$d#DIR#g; s#\b$node\b#NODE#g" "$d/fired"
}
job=$(submit -o /dev/null --wrap 'sleep 2')
strigger --set --fini -j "$job" --program="$d/prog.sh"
echo "set fini rc=$?"
strigger --set --down -n"$node" --program="$d/prog.sh down"
echo "set down rc=$?"
strigger --set --up --flags=perm --program="$d/prog.sh up"
echo "set up rc=$?"
strigger --get -N | awk '{print $2, $4, $7}' | sed "s#$d#DIR#g"
wait_done "$job"
wait_lines 1
echo "after the job:"
show
scontrol update NodeName="$node" State=DOWN Reason=c631
wait_lines 2
# With ReturnToService=2 slurmctld returns the node by itself at slurmd's next registration, which can come
# before its 15-second trigger check, and RESUME then fails: the up line waits for the resume below.
echo "after down:"
show | grep -v ' up '
strigger --get -N | awk '{print $2, $4, $7}' | sed "s#$d#DIR#g"
scontrol update NodeName="$node" State=RESUME 2>/dev/null
wait_lines 3
echo "after resume:"
show
strigger --get -N | awk '{print $2, $4, $7}' | sed "s#$d#DIR#g"
wait_node idle >/dev/null 2>&1
