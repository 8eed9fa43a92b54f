#!/usr/bin/env bash
. "$CASE_LIB"
rest_start || exit 1
V=/slurm/v0.0.38
job() {
    local r
    r=$(rest GET "$V/job/$1"); head -n1 <<<"$r"
    sed 1d <<<"$r" | jq -S '.errors, (.jobs[] | {job_id, name, job_state, state_reason, partition, user_name, time_limit, comment, current_working_directory, standard_output, batch_flag, nice, node_count, tasks, cpus})'
}
body='{"script": "#!/bin/sh\nsleep 100\n", "job": {"name": "restjob", "hold": true, "time_limit": 5, "current_working_directory": "'$PWD'", "standard_output": "'$PWD'/rest-%j.out", "environment": {"PATH": "/bin:/usr/bin"}}}'
r=$(rest POST $V/job/submit "$body"); echo "$r"
id=$(sed 1d <<<"$r" | jq .job_id)
track "$id"
job "$id"
rest POST "$V/job/$id" '{"comment": "from-rest", "time_limit": 7}'
rest POST "$V/job/$id" '{"job": {"comment": "x"}}' | grep -v 'job parsing failed'
job "$id"
rest DELETE "$V/job/$id?signal=BOGUS"
rest DELETE "$V/job/$id"
wait_done "$id"
job "$id"
rest DELETE "$V/job/$id"
rest GET $V/job/999999
rest DELETE $V/job/999999
rest POST $V/job/submit '{"job": {"name": "x"}}'
rest POST $V/job/submit '{"script": "#!/bin/sh\ntrue\n", "job": {"name": "x"}}'
rest POST $V/job/submit '{"script": "#!/bin/sh\ntrue\n", "job": {"bogus": 1, "environment": {"A": "b"}}}'
rest POST $V/job/submit '{"script": "#!/bin/sh\ntrue\n", "job": {"partition": "nosuch", "environment": {"A": "b"}}}'
rest POST $V/job/submit 'garbage'
