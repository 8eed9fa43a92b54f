#!/usr/bin/env bash
. "$CASE_LIB"
out=$(sbatch "$CASE_DIR/job.sh"); echo "$out"; id=${out##* }; track "$id"; wait_done "$id"
ls | sort
echo "== out"; cat "refjob-$id.out"; echo "== err"; cat "refjob-$id.err"
fields "$id" JobName JobState ExitCode NumCPUs NumTasks TimeLimit StdOut StdErr Command WorkDir BatchFlag
