#!/usr/bin/env bash
# Each task runs the command the configuration file gives its rank; the output of the tasks is compared sorted.
. "$CASE_LIB"
# Slurm's srun says its job waits for resources when the previous job's are not released yet: a matter of
# timing, not of --multi-prog, so those two lines are left out of srun's stderr.
srun_steps() {
    srun "$@" 2> srun.err
    local rc=$?
    grep -v -e 'queued and waiting for resources' -e 'has been allocated resources' srun.err >&2
    return $rc
}
cat > mp.conf <<'CONF'
# comment line
0      echo zero task=%t offset=%o
1    echo "range  task" %t off %o
CONF
srun_steps -n2 -l --multi-prog mp.conf | sort; echo "rc=${PIPESTATUS[0]}"
srun_steps -n2 -l --multi-prog mp.conf extra args | sort
printf '1,0 echo c %%o\n' > order.conf; srun_steps -n2 -l --multi-prog order.conf | sort
printf '* echo star %%t %%o\n' > star.conf; srun_steps -n2 -l --multi-prog star.conf | sort
printf '0 echo single\\\n continued\n1 /bin/true\n' > cont.conf; srun_steps -n2 -l --multi-prog cont.conf
printf '0-1 echo "$SLURM_PROCID" '"'"'q x'"'"' x\\"y 100%%%% %%x\n' > quote.conf; srun_steps -n2 -l --multi-prog quote.conf | sort
printf '0 echo a\n' > short.conf; srun_steps -n2 --multi-prog short.conf; echo "rc=$?"
srun_steps -n2 --multi-prog nosuch.conf; echo "rc=$?"
printf '0,1 echo x %%t\n2 bad\n' > beyond.conf; srun_steps -n2 --multi-prog beyond.conf; echo "rc=$?"
printf '0 echo a %%o\n0-1 echo b %%o\n' > dup.conf; srun_steps -n2 --multi-prog dup.conf; echo "rc=$?"
srun_steps -n2 --multi-prog; echo "rc=$?"
