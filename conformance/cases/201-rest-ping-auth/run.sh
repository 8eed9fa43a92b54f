#!/usr/bin/env bash
. "$CASE_LIB"
rest_start || exit 1
V=/slurm/v0.0.38
rest GET $V/ping
r=$(rest GET $V/partitions); head -n1 <<<"$r"
sed 1d <<<"$r" | jq -S '.partitions[0] | {name, nodes, flags, state, preemption_mode, max_time_limit, maximum_nodes_per_job, "min nodes per job", default_time_limit, total_cpus, total_nodes, tres, priority_tier}'
r=$(rest GET $V/nodes); head -n1 <<<"$r"
sed 1d <<<"$r" | jq -S '.nodes[0] | {name, state, cpus, cores, sockets, threads, real_memory, gres, partitions, tres, weight, state_flags}'
rest GET $V/node/nosuch
rest GET $V/partition/nosuch
rest GET $V/nosuch
rest GET /slurm/v0.0.37/ping
rest PUT $V/ping
# No token, a bad token, and nobody's token presented as root's.
REST_TOKEN=; rest GET $V/ping
REST_TOKEN=garbage; rest GET $V/ping
REST_TOKEN=$(scontrol token username=nobody lifespan=600 | sed -n 's/^SLURM_JWT=//p'); rest GET $V/ping
