#!/usr/bin/env bash
. "$CASE_LIB"
# A throwaway local user; both targets authenticate it (MUNGE or peer credentials).
u=spurcase500
useradd -M -s /bin/sh "$u" 2>/dev/null
sacctmgr -i add user "$u" account=root >/dev/null
trap '_cleanup_jobs; sacctmgr -i delete user "$u" >/dev/null 2>&1; userdel "$u" 2>/dev/null' EXIT
as_user() {
    (cd /tmp && runuser -u "$u" -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" \
        ${SPUR_LOCAL_SOCKET:+SPUR_LOCAL_SOCKET="$SPUR_LOCAL_SOCKET"} "$@")
}
# The submission time in sacctmgr's list differs from run to run.
times() { sed -E 's/submitted at [0-9T:-]+/submitted at TIME/'; }
q() {
    echo "\$ sacctmgr $*"
    sacctmgr "$@" 2>&1 | times
    echo "rc=${PIPESTATUS[0]}"
}
qu() {
    echo "\$ (user) sacctmgr $*"
    as_user sacctmgr "$@" 2>&1 | times
    echo "rc=${PIPESTATUS[0]}"
}
show() {
    sacct -X -n -P -j "$1" -o JobName,DerivedExitCode,Comment,AdminComment,SystemComment,WCKey
}
root=$(submit -J c500root -o /dev/null --wrap 'exit 2')
mine=$(as_user sbatch --parsable -J c500usr -o /dev/null --wrap 'true')
track "$mine"
wait_done "$root" "$mine"
wait_acct "$root" "$mine"
show "$root"
q -i modify job where jobid="$root" set comment="first note" derivedexitcode=256 admincomment=adm systemcomment=sys
show "$root"
q -i modify job "$root" set DerivedEC=9 DerivedES=second
q -i modify job j="$root" set DerivedEC=9 DerivedES="'Second Note' ignored"
show "$root"
q -i modify job where jobid="$root" set derivedexitcode=abc
q -i modify job where jobid="$root" set derivedexitcode=12x DerivedExitString=O\'Brien
show "$root"
# The question: no answer discards, y commits.
echo "\$ echo n | sacctmgr modify job where jobid=$root set comment=discarded"
echo n | sacctmgr modify job where jobid="$root" set comment=discarded 2>&1 | times
echo "rc=${PIPESTATUS[1]}"
show "$root"
echo "\$ echo y | sacctmgr modify job where jobid=$root set comment=kept"
echo y | sacctmgr modify job where jobid="$root" set comment=kept 2>&1 | times
echo "rc=${PIPESTATUS[1]}"
show "$root"
# Errors.
q -i modify job where jobid="$root"
q -i modify job where jobid="$root" set comment
q -i modify job where jobid="$root" set WCKey=w1 comment=x2
q -i modify job where jobid="$root" set NewWCKey=w1
q -i modify job where jobid=999999 set comment=none
q -i modify job where jobid=abc set comment=none
q -i modify job where bogus=1 set comment=none
show "$root"
# Another user: their own job's Comment and DerivedExitCode, not its admin or system comment, nor root's job.
qu -i modify job where jobid="$mine" set comment=mine derivedexitcode=1
qu -i modify job where jobid="$mine" set admincomment=nope
qu -i modify job where jobid="$mine" set systemcomment=nope
qu -i modify job where jobid="$root" set comment=stolen
qu -i modify job where jobid="$root,$mine" set comment=both
show "$mine"
show "$root"
# An operator-level edit of the user's job by root.
q -i modify job where jobid="$mine" set admincomment=byroot
show "$mine"
# A running job: the comment stays, a derived exit code set while it ran gives way to the job's own at its end.
run=$(submit -J c500run -o /dev/null --wrap 'sleep 5')
wait_state "$run" RUNNING
sleep 2
q -i modify job where jobid="$run" set comment=Running derivedexitcode=512
# (Not its name: slurmdbd may still call it `allocation`.)
sacct -X -n -P -j "$run" -o DerivedExitCode,Comment
wait_done "$run"
wait_acct "$run"
show "$run"
