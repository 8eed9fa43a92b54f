#!/usr/bin/env bash
# Each srun/salloc starts when the previous allocation is gone; Slurm sometimes still holds it a moment ("queued
# and waiting for resources" / "has been allocated resources"), and its revoke notice races salloc's exit.
. "$CASE_LIB"
quiet() { grep -v "Granted job allocation\|Relinquishing job allocation\|has been revoked\|queued and waiting for resources\|has been allocated resources" "$@" || true; }
echo "== salloc -N2 srun -l hostname"
salloc -N2 srun -l hostname 2>salloc1.err | sort; quiet salloc1.err
echo "== srun -N3 --ntasks-per-node=2 -l"
srun -N3 --ntasks-per-node=2 -l bash -c 'echo $(hostname) $SLURM_LOCALID $SLURM_NODEID $SLURM_NTASKS $SLURM_JOB_NUM_NODES' 2>err2 | sort; quiet err2
echo "== srun -N2 exit codes"
srun -N2 -n3 bash -c 'exit $SLURM_PROCID' 2>exit.err; echo "rc=$?"; quiet exit.err | sort
echo "== srun -N2 with a failing node command"
srun -N2 -l bash -c 'if [ $SLURM_NODEID = 1 ]; then echo bad >&2; exit 7; fi; echo ok' >out4 2>&1; echo "rc=$?"; quiet out4 | sort
echo "== srun -w n3 -n2 env"
srun -w n3 -n2 -l bash -c 'echo $SLURM_STEP_NODELIST $SLURM_NODELIST $SLURM_JOB_NODELIST $SLURMD_NODENAME $SLURM_CPUS_ON_NODE $SLURM_TASKS_PER_NODE' 2>err5 | sort; quiet err5
echo "== salloc -N3 steps listed"
salloc -N3 bash -c 'srun -N3 sleep 3 & sleep 1.5; squeue -s -h -o "%i %N" | sed "s/^[0-9]*/J/"; scontrol show step $SLURM_JOB_ID.0 | grep -o "NodeList=[^ ]*\|Tasks=[^ ]*\|State=[^ ]*"; wait' 2>salloc2.err
quiet salloc2.err
echo "== srun --input"
printf 'a\nb\n' | srun -N2 -n2 -l --input=1 cat 2>err7 | sort; quiet err7
echo "== srun -o per task file"
srun -N2 -n2 -o out.%t.%N.%n bash -c 'echo $SLURM_PROCID $(hostname)' 2>err8; quiet err8; cat out.0.* out.1.* | sort; ls out.* | sort
echo "== srun -w n2,n3 -o %N.%n.%t in a 3-node allocation"
salloc -N3 bash -c 'srun -w n2,n3 -N2 -o step.%N.%n.%t hostname; ls step.* | sort' 2>salloc3.err
quiet salloc3.err
