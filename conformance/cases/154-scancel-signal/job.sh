#!/bin/bash
trap 'echo got USR1; exit 0' USR1
echo ready
while :; do sleep 0.1; done
