#!/usr/bin/env bash
# sacct --json: the fields tools read (jobs[].job_id, name, state.current, exit_code, steps[].step.id, ...), with
# the filters applied as for the table.
. "$CASE_LIB"
a=$(submit -J c513a -o /dev/null --wrap 'srun true')
b=$(submit -J c513b -o /dev/null --wrap 'exit 3')
wait_done "$a" "$b"
wait_acct "$a" "$b"
sacct --json -j "$a" -j "$b" > "$CASE_TMP/j.json"
echo "rc=$?"
/usr/bin/python3 - "$CASE_TMP/j.json" "$a" "$b" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(sorted(d.keys()))
print("meta", sorted(d["meta"].keys()), d["meta"]["plugin"], d["meta"]["Slurm"]["release"][:5])
print("errors", d["errors"])
ids = {int(sys.argv[2]): "A", int(sys.argv[3]): "B"}
for j in d["jobs"]:
    print("job", ids.get(j["job_id"]), j["name"], j["state"], j["exit_code"], j["derived_exit_code"])
    print("  keys", sorted(j.keys()))
    print("  ", j["partition"], j["account"], j["user"], j["group"], j["cluster"], j["qos"], j["nodes"],
          j["allocation_nodes"], j["array"], j["het"], j["kill_request_user"], j["association"], j["wckey"],
          j["mcs"], j["reservation"], j["comment"], j["constraints"], j["container"])
    print("  time", sorted(j["time"].keys()), j["time"]["limit"], j["time"]["elapsed"] >= 0,
          j["time"]["start"] >= j["time"]["submission"] > 0, j["time"]["end"] >= j["time"]["start"])
    # slurmdbd sometimes lists `energy` with a null count in a job's allocated TRES (not for jobs with an srun
    # step); no energy is gathered here, so it is left out.
    print("  tres", sorted(j["tres"].keys()), j["tres"]["requested"],
          [t for t in j["tres"]["allocated"] if t["type"] != "energy"])
    print("  required", j["required"], "flags", j["flags"], "priority>0", j["priority"] > 0)
    for s in j["steps"]:
        print("  step", s["step"]["id"], s["step"]["name"], s["state"], s["exit_code"], s["nodes"], s["tasks"],
              s["pid"], s["task"], s["CPU"], s["statistics"], s["kill_request_user"])
        print("    keys", sorted(s.keys()), "tres", s["tres"]["allocated"], s["tres"]["requested"]["total"])
        print("    step keys", sorted(s["step"].keys()), "time", sorted(s["time"].keys()),
              s["step"]["job_id"] == j["job_id"], s["step"]["het"])
PY
echo "== -X and filters"
sacct --json -X -j "$a" | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print([len(j["steps"]) for j in d["jobs"]])'
sacct --json --name nosuchname_c513 -S now-10minutes | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["jobs"], d["errors"])'
sacct --json -o JobID -n -P -j "$b" | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print([j["name"] for j in d["jobs"]])'
sacct --json -j "$b" | head -c 60; echo
