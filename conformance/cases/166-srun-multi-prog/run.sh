#!/usr/bin/env bash
# Each task runs the command the configuration file gives its rank; the output of the tasks is compared sorted.
. "$CASE_LIB"
cat > mp.conf <<'CONF'
# comment line
0      echo zero task=%t offset=%o
1    echo "range  task" %t off %o
CONF
srun -n2 -l --multi-prog mp.conf | sort; echo "rc=${PIPESTATUS[0]}"
srun -n2 -l --multi-prog mp.conf extra args | sort
printf '1,0 echo c %%o\n' > order.conf; srun -n2 -l --multi-prog order.conf | sort
printf '* echo star %%t %%o\n' > star.conf; srun -n2 -l --multi-prog star.conf | sort
printf '0 echo single\\\n continued\n1 /bin/true\n' > cont.conf; srun -n2 -l --multi-prog cont.conf
printf '0-1 echo "$SLURM_PROCID" '"'"'q x'"'"' x\\"y 100%%%% %%x\n' > quote.conf; srun -n2 -l --multi-prog quote.conf | sort
printf '0 echo a\n' > short.conf; srun -n2 --multi-prog short.conf; echo "rc=$?"
srun -n2 --multi-prog nosuch.conf; echo "rc=$?"
printf '0,1 echo x %%t\n2 bad\n' > beyond.conf; srun -n2 --multi-prog beyond.conf; echo "rc=$?"
printf '0 echo a %%o\n0-1 echo b %%o\n' > dup.conf; srun -n2 --multi-prog dup.conf; echo "rc=$?"
srun -n2 --multi-prog; echo "rc=$?"
