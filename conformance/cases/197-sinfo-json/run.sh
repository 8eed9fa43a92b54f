#!/usr/bin/env bash
. "$CASE_LIB"
sinfo --json > s.json; echo "rc=$?"
jq -S '.nodes[0] | {name, state, cpus, cores, sockets, threads, real_memory, gres, partitions, architecture:(.architecture|type)}' s.json
