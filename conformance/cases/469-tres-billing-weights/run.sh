#!/usr/bin/env bash
. "$CASE_LIB"
scontrol show partition billed | grep -E '^ *TRES'
scontrol show node "$(hostname -s)" | grep -o 'CfgTRES=[^ ]*'
# One job at a time, shown while it runs.
run() {
    local id
    id=$(submit -o /dev/null "$@" --wrap 'while [ ! -e go ]; do sleep 0.2; done')
    wait_state "$id" RUNNING
    echo "== $*"
    scontrol show job "$id" | grep -o 'TRES=[^ ]*'
    squeue -h -j "$id" -O tres-alloc:60
    touch go
    wait_done "$id"
    rm -f go
}
run -p billed -n 1
run -p billed -n 2 --mem=3000
run -p billed -n 1 --mem=5000
run -p debug -n 2
