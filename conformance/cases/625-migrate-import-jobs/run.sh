#!/usr/bin/env bash
# Job history migrated from real Slurm (`spur migrate import-jobs`). The files were captured from real Slurm 22.05
# with slurmdbd after capture-workload.sh (a job, a failed one, one with two srun steps, a two-task array):
# slurm-sacct.txt is `sacct -a -D -P -S 2026-12-07T23:51:20 -E 2026-12-07T23:52:35 -o <docs/accounting.md's export
# fields>`, slurm-expected.txt what that Slurm's sacct printed for layouts.sh. A case cannot run on both clusters at
# once, so the comparison is against the capture: on Spur the export is imported and layouts.sh runs on Spur; on
# Slurm (which has no import) the capture is shown as it is. The sides are identical only when Spur's sacct prints
# what Slurm's did. Spur's own checks (a user is refused, a second import of the export or of its sacct --json
# twin, slurm-sacct.json, adds nothing) print only on failure.
. "$CASE_LIB"
export TZ=UTC
if [[ -n ${RUNDIR:-} && -e $RUNDIR/lib/libslurm.so.38 ]]; then
    spur=$(readlink -f "$(command -v sbatch)")
    u=spurcase625
    useradd -M -s /bin/sh "$u" 2>/dev/null
    trap '_cleanup_jobs; userdel "$u" 2>/dev/null' EXIT
    out=$(cd /tmp && runuser -u "$u" -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" \
        ${SPUR_LOCAL_SOCKET:+SPUR_LOCAL_SOCKET="$SPUR_LOCAL_SOCKET"} \
        "$spur" migrate import-jobs "$CASE_DIR/slurm-sacct.txt" 2>&1)
    rc=$?
    [[ $rc == 1 && $out == *"Access/permission denied"* ]] || echo "a user's import was not refused: rc=$rc $out"
    out=$("$spur" migrate import-jobs "$CASE_DIR/slurm-sacct.txt" 2>&1)
    [[ $out == "5 job records read, 5 added, 0 already known" ]] || echo "first import: $out"
    out=$("$spur" migrate import-jobs "$CASE_DIR/slurm-sacct.txt" 2>&1)
    [[ $out == "5 job records read, 0 added, 5 already known" ]] || echo "second import: $out"
    # The same jobs dumped with sacct --json (slurm-sacct.json, captured with the -P export): nothing new.
    out=$("$spur" migrate import-jobs "$CASE_DIR/slurm-sacct.json" 2>&1)
    [[ $out == "5 job records read, 0 added, 5 already known" ]] || echo "json import: $out"
    "$CASE_DIR/layouts.sh" >"$CASE_TMP/sacct.out" 2>&1
else
    cp "$CASE_DIR/slurm-expected.txt" "$CASE_TMP/sacct.out"
fi
if cmp -s "$CASE_DIR/slurm-expected.txt" "$CASE_TMP/sacct.out"; then
    echo "identical to Slurm's sacct"
else
    diff "$CASE_DIR/slurm-expected.txt" "$CASE_TMP/sacct.out"
fi
