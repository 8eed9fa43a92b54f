#!/usr/bin/env bash
. "$CASE_LIB"
u=spurcase321
useradd -M -s /bin/sh "$u" 2>/dev/null
trap 'userdel "$u" 2>/dev/null' EXIT
scontrol token lifespan=600 | sed 's/=.*/=TOKEN/'; echo "rc=${PIPESTATUS[0]}"
scontrol token username="$u" | sed 's/=.*/=TOKEN/'; echo "rc=${PIPESTATUS[0]}"
runuser -u "$u" -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" \
    ${SPUR_LOCAL_SOCKET:+SPUR_LOCAL_SOCKET="$SPUR_LOCAL_SOCKET"} scontrol token username=root 2>&1
echo "rc=$?"
