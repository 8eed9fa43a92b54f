#!/usr/bin/env bash
. "$CASE_LIB"
rest_start || exit 1
V=/slurm/v0.0.38
scontrol create reservation reservationname=rest_resv starttime=now+3600 duration=60 users=root nodes=ALL flags=ignore_jobs
trap '_cleanup_jobs; _rest_stop; scontrol delete reservation=rest_resv' EXIT
rest GET $V/reservations | sed 's/"start_time": [0-9]*/"start_time": {T}/; s/"end_time": [0-9]*/"end_time": {T}/'
rest GET $V/reservation/rest_resv | grep -c '"name": "rest_resv"'
rest GET $V/reservation/nosuch
