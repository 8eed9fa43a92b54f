#!/usr/bin/env bash
. "$CASE_LIB"
(umask 077; srun -n1 sh -c 'umask; printenv SLURM_UMASK; touch f1; stat -c %a f1'); echo "rc=$?"
j=$(umask 027; submit -n1 -o u.out --wrap 'umask; printenv SLURM_UMASK || echo none; srun sh -c "umask; printenv SLURM_UMASK"; touch f2; stat -c %a f2')
wait_done "$j"
cat u.out
j=$(umask 027; SLURM_UMASK=0002 submit -n1 -o v.out --wrap 'umask')
wait_done "$j"
cat v.out
# Slurm's salloc sometimes also prints `Job allocation N has been revoked.` after relinquishing it (a race in
# slurmctld's messages, as in cases 405 and 415).
(umask 007; salloc -n1 sh -c 'umask; printenv SLURM_UMASK || echo none; srun sh -c umask') 2>&1 | grep -v 'has been revoked' | sed -E 's/[0-9]{4,}/ID/g'
