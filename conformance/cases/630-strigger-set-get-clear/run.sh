#!/usr/bin/env bash
# strigger's texts against the real controller's trigger table; nothing here waits for an event to fire.
. "$CASE_LIB"
u=spurcase630
useradd -M -s /bin/sh "$u" 2>/dev/null
d=$(mktemp -d /tmp/c630.XXXXXX)
cleanup() {
    strigger --clear --user=root -Q
    strigger --clear --user="$u" -Q
    _cleanup_jobs
    rm -rf -- "$d"
    userdel "$u" 2>/dev/null
}
trap cleanup EXIT
chmod 755 "$d"
printf '#!/bin/sh\nexit 0\n' >"$d/prog.sh"
chmod 755 "$d/prog.sh"
cp "$d/prog.sh" "$d/noexec.sh"
chmod 644 "$d/noexec.sh"
r() {
    echo "\$ $*" | sed "s#$d#DIR#g"
    "$@" 2>&1 | sed "s#$d#DIR#g"
    echo "rc=${PIPESTATUS[0]}"
}
ru() {
    echo "\$[user] $*" | sed "s#$d#DIR#g"
    runuser -u "$u" -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" \
        ${SPUR_LOCAL_SOCKET:+SPUR_LOCAL_SOCKET="$SPUR_LOCAL_SOCKET"} "$@" 2>&1 | sed "s#$d#DIR#g"
    echo "rc=${PIPESTATUS[0]}"
}
p=$d/prog.sh
r strigger --help
r strigger --usage
r strigger
r strigger --bogus
r strigger -Z
r strigger --set --get
r strigger --set
r strigger --set --down
r strigger --set --down --program=rel
r strigger --set --down --program=/nonexistent/prog
r strigger --set --down --program="$d"
r strigger --set --fini --program="$p"
r strigger --set --down --program="$p" --offset=40000
r strigger --clear
r strigger --set --down --program="$p" --flags=foo
r strigger --set --down --program="$p" --user=nosuchuser630
r strigger --get -j 0
r strigger --get -j abc
r strigger --get --fini
r strigger --get
r strigger --get -v
r strigger --set --down --program="$p"
r strigger --set --down --program="$p"
r strigger --set --up --program="$p a b" --flags=PERM
r strigger --set --drained -n"$(hostname -s)" --program="$p" --offset=-5
r strigger --set --down -nnosuchnode630 --program="$p"
r strigger --set --idle --offset 10 --program="$p"
r strigger --set --reconfig --program="$p"
r strigger --set --fail --program="$p"
r strigger --set --down --up --program="$p"
r strigger --set --down --program="$d/noexec.sh"
r strigger --set --fini -j 999999 --program="$p"
r strigger --set --primary_slurmctld_failure --program="$p"
r strigger --set --burst_buffer --program="$p"
r strigger --set --front_end --down --program="$p"
r strigger --get
r strigger --get -N
r strigger --get --down
r strigger --get --node
r strigger --get --id=2
r strigger --get --user=root
r strigger --get --user="$u"
job=$(submit -o /dev/null --wrap 'sleep 300')
done_job=$(submit -o /dev/null --wrap 'true')
wait_done "$done_job"
r strigger --set --fini -j "$job" --program="$p"
r strigger --set --time -j "$job" --offset=-10 --program="$p"
r strigger --set --fini -j "$done_job" --program="$p"
ru strigger --set --fini -j "$job" --program="$p"
ru strigger --set --down --program="$p"
ru strigger --get -j "$job"
ru strigger --clear --id=1
ru strigger --clear --user=root
ru strigger --clear --id=1 -Q
r strigger --get -j "$job"
r strigger --get --time -j "$job"
r strigger --clear --id=99
r strigger --clear -j 5
r strigger --clear --id=3
r strigger --clear -j "$job" -v
r strigger --get -j "$job"
r strigger --clear --id=3 -Q
r strigger --clear --user=root -v
r strigger --get
r strigger --set -v --reconfig --program="$p"
r strigger --clear --user=root -v
