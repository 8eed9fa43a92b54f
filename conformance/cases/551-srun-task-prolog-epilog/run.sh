#!/usr/bin/env bash
. "$CASE_LIB"
d=$CASE_TMP
cat >"$d/tp.sh" <<'P'
#!/bin/sh
echo "export FOO=bar"
echo "export  SP  =x y "
echo "export ORDER=user-$SLURM_PROCID"
echo "unset UNSETME"
echo "print    spaced out"
echo "print hello $SLURM_PROCID"
echo "noise line"
echo "export NOEQUALS"
P
cat >"$d/te.sh" <<'P'
#!/bin/sh
echo "epilog $SLURM_PROCID ctx=$SLURM_SCRIPT_CONTEXT foo=$FOO order=$ORDER" >>"$EPILOG_OUT"
echo "epilog stdout $SLURM_PROCID"
P
printf '#!/bin/sh\necho "export FOO=bar"\necho "print before failing"\nexit 3\n' >"$d/fail.sh"
chmod 755 "$d"/*.sh
export EPILOG_OUT=$d/te.out UNSETME=1
srun -n2 -l --task-prolog="$d/tp.sh" --task-epilog="$d/te.sh" \
    printenv FOO SP ORDER UNSETME SLURM_SCRIPT_CONTEXT 2>&1 | sort -s -n -k1,1; echo "rc=${PIPESTATUS[0]}"
sort "$d/te.out"
# A failing prolog ends the task with its status (srun's and the task's error lines come in either order).
h=$(hostname -s)
srun -n1 --task-prolog="$d/fail.sh" echo ran 2>&1 | sed "s/$h/NODE/" | sort; echo "rc=${PIPESTATUS[0]}"
srun -n1 --task-prolog=tp.sh echo ran 2>&1 | sed "s/$h/NODE/" | sort; echo "rc=${PIPESTATUS[0]}"
srun -n1 --task-prolog="$d/none.sh" echo ran 2>&1 | sed "s/$h/NODE/;s#$d#DIR#" | sort; echo "rc=${PIPESTATUS[0]}"
srun -n1 --task-epilog="$d/fail.sh" echo ran 2>&1 | sed "s/$h/NODE/"; echo "rc=${PIPESTATUS[0]}"
# From the environment, as srun's man page lists them. Slurm's node may still be completing the last job here
# (its job then waits a moment): only the lines printed whatever the timing are compared.
SLURM_TASK_PROLOG=$d/tp.sh srun -n1 printenv FOO 2>&1 | grep -v -e 'queued and waiting' -e 'has been allocated resources'
echo "rc=${PIPESTATUS[0]}"
# Inside a batch job.
j=$(submit -n1 -o b.out --wrap "srun --task-prolog=$d/tp.sh printenv FOO ORDER")
wait_done "$j"
cat b.out
