#!/usr/bin/env bash
. "$CASE_LIB"
a=$(submit -H -J js --time=10 --wrap true)
squeue --json > q.json; echo "rc=$?"
jq -S --argjson id "$a" '.jobs[] | select(.job_id == $id) | {job_id, name, job_state, state_reason, partition, user_name, time_limit, node_count, cpus, tasks, batch_flag, array_job_id, nice, current_working_directory, standard_output, command}' q.json
jq -r '.meta.plugin.type, .meta.Slurm.release, (.errors|length)' q.json
