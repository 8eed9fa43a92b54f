#!/usr/bin/env python3
"""Regenerates the option vectors in this directory from a real Slurm 22.05 install.

Run from this directory on a machine with Slurm 22.05 client binaries:
    SLURM_CONF=<conf whose SlurmctldPort nobody listens on> python3 gen_options_vectors.py
The controller must be unreachable so that sbatch/srun/salloc fail fast after parsing; `-v` makes them print the
options they parsed ("defined options") before trying to contact it.
"""
import os
import string
import subprocess

CMDS = ["sbatch", "srun", "salloc"]
WORK = "/tmp/spur-optvec"
os.makedirs(WORK, exist_ok=True)


def run(args, env=None, stdin=subprocess.DEVNULL):
    full_env = {k: v for k, v in os.environ.items()
                if not k.startswith(("SBATCH_", "SALLOC_", "SRUN_", "SLURM_")) or k == "SLURM_CONF"}
    full_env.update(env or {})
    try:
        r = subprocess.run(args, capture_output=True, text=True, timeout=10, stdin=stdin, env=full_env, cwd=WORK)
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        return None, "", "TIMEOUT"


def esc(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def first(err):
    return err.splitlines()[0] if err else ""


def long_kinds():
    """Accepted long names per command and their value kind, probed with getopt's own messages."""
    names = set()
    for c in CMDS:
        for l in string.ascii_lowercase:
            e = first(run([c, "--" + l, "--zzzz-bogus"])[2])
            if "possibilities:" in e:
                names.update(x.strip("'-") for x in e.split("possibilities:")[1].split())
    names |= {"job-name", "kill-command", "kill-on-bad-exit", "kill-on-invalid-dep", "licenses", "label",
              "immediate", "x11", "cpu_bind", "tasks-per-node", "pack-group", "cluster"}
    rows = []
    for n in sorted(names):
        row = [n]
        for c in CMDS:
            e1 = first(run([c, "--%s=zz" % n, "--zzzz-bogus"])[2])
            if "unrecognized option '--" + n in e1 or "is ambiguous" in e1:
                row.append("-")
                continue
            if "doesn't allow an argument" in e1:
                full = e1.split("'--")[1].split("'")[0]
                row.append("none" if full == n else "-")
                continue
            e0 = first(run([c, "--" + n])[2])
            if "requires an argument" in e0:
                full = e0.split("'--")[1].split("'")[0]
                row.append("required" if full == n else "-")
                continue
            e2 = first(run([c, "--" + n, "--zzzz-bogus"])[2])
            row.append("optional" if "unrecognized option '--zzzz-bogus'" in e2 else "required")
        if any(k != "-" for k in row[1:]):
            rows.append(row)
    return rows


def short_kinds():
    rows = []
    for ch in string.ascii_letters + string.digits:
        row = [ch]
        for c in CMDS:
            e1 = first(run([c, "-" + ch, "--zzzz-bogus"])[2])
            if "invalid option -- '%s'" % ch in e1:
                row.append("-")
                continue
            if ch in "hV":  # act at once (help, version)
                row.append("none")
                continue
            if "option requires an argument" in first(run([c, "-" + ch])[2]):
                row.append("required")
                continue
            e2 = first(run([c, "-" + ch + "z", "--zzzz-bogus"])[2])
            row.append("none" if "invalid option -- 'z'" in e2 else "optional")
        if any(k != "-" for k in row[1:]):
            rows.append(row)
    return rows


ARGV_CASES = [
    ("sbatch", "--bogus-option --wrap true"),
    ("sbatch", "--frob=3"),
    ("sbatch", "-j"),
    ("sbatch", "-Nj"),
    ("sbatch", "--partition"),
    ("sbatch", "-p"),
    ("sbatch", "--hold=3"),
    ("sbatch", "--ho=3"),
    ("sbatch", "--c"),
    ("sbatch", "--c=3"),
    ("sbatch", "--cluste=x"),
    ("sbatch", "--nt=2"),
    ("sbatch", "--mem-per=2"),
    ("sbatch", "--wait-all"),
    ("srun", "--c"),
    ("srun", "--t"),
    ("srun", "--j=1"),
    ("srun", "-j"),
    ("srun", "--frob"),
    ("srun", "--cpu"),
    ("salloc", "--b"),
    ("salloc", "--frob"),
    ("salloc", "-W 5"),
    ("sbatch", "-c abc"),
    ("sbatch", "-c 0 --help"),
    ("sbatch", "-n -1"),
    ("sbatch", "--ntasks-per-node=5x"),
    ("sbatch", "--thread-spec=0"),
    ("sbatch", "-S taco"),
    ("sbatch", "-B 2:x"),
    ("sbatch", "-B 1-x"),
    ("sbatch", "--wait-all-nodes=2"),
    ("sbatch", "--wait-all-nodes=-1"),
    ("sbatch", "--nice=99999999999"),
    ("sbatch", "--priority=-1"),
    ("sbatch", "--priority=4294967294"),
    ("sbatch", "--cpu-freq=invalid"),
    ("sbatch", "--cpu-freq=low:ondemand"),
    ("sbatch", "--exclusive=tacos"),
    ("sbatch", "--get-user-env=tacos"),
    ("sbatch", "--gres-flags=x"),
    ("sbatch", "--kill-on-invalid-dep=true"),
    ("sbatch", "--open-mode=x"),
    ("sbatch", "-kyes"),
    ("sbatch", "--mem-bind=-1"),
    ("sbatch", "--mem-bind=map_mem"),
    ("sbatch", "--hint=bogus"),
    ("sbatch", "--profile=bogus"),
    ("sbatch", "--acctg-freq=bogus=3"),
    ("sbatch", "--switches=0@5"),
    ("srun", "-Iz"),
    ("srun", "-Kz"),
    ("srun", "--resv-ports=z"),
    ("srun", "--send-libs=ye"),
    ("srun", "--het-group=z"),
    ("srun", "-T0"),
    ("srun", "--jobid=z"),
    ("srun", "-W-1"),
    ("srun", ""),
    ("srun", "-N1 date :"),
    ("sbatch", "--wrap true job1.sh"),
    ("sbatch", "/nonexistent.sh"),
]


def argv_errors():
    rows = []
    for c, a in ARGV_CASES:
        rc, _, err = run([c] + a.split())
        lines = [l for l in err.splitlines() if "contact slurm controller" not in l and "select/" not in l]
        rows.append([c, a, str(rc), esc("\n".join(lines))])
    return rows


def env_inputs():
    """Which variables each command reads: set one to "1" and see what `-v` reports."""
    probe_names = set()
    for row in long_kinds():
        probe_names.add(row[0])
    extra = ["ARRAY_INX", "DEBUG", "MEM_PER_NODE", "TIMELIMIT", "REQ_SWITCH", "WAIT4SWITCH", "BURST_BUFFER",
             "KILL_CMD", "CPU_FREQ_REQ", "EXPORT_ENV", "JOB_ID", "JOB_NUM_NODES", "KILL_BAD_EXIT", "LABELIO",
             "MPI_TYPE", "NNODES", "NPROCS", "REMOTE_CWD", "STDERRMODE", "STDINMODE", "STDOUTMODE", "STEP_GRES",
             "UNBUFFEREDIO", "WORKING_DIR", "DIST_PLANESIZE"]
    prefixes = {"sbatch": ["SBATCH_", "SLURM_"], "srun": ["SLURM_", "SRUN_"], "salloc": ["SALLOC_", "SLURM_"]}
    rows = []
    for c in CMDS:
        target = [c, "-v", "ok.sh" if c == "sbatch" else "true"]
        base = run(target)[2].splitlines()
        cands = {p + n.upper().replace("-", "_") for p in prefixes[c] for n in list(probe_names) + extra}
        cands.add("SLURMD_DEBUG")
        for var in sorted(cands):
            out = run(target, {var: "1"})[2].splitlines()
            diff = [l for l in out if l not in base and "debug" not in l]
            if diff:
                rows.append([c, var, esc(" / ".join(diff)[:200])])
    return rows


DIRECTIVE_CASES = [
    # (script body, extra sbatch args, environment)
    ('#!/bin/bash\n#SBATCH -J "my job"   # a comment\n#SBATCH --comment=\'hello # world\' --nodes=3\n# SBATCH --ntasks=5\n#SBATCH-x --mincpus=4\n#SBATCH\t--tmp=7\n  #SBATCH --wckey=indented\n\n#SBATCH --mem=100 #--mem=200\n#SBATCH --account=a"b c"d\n#SBATCH --qos=q1 --qos q2\necho hi\n#SBATCH --partition=late\n', '', {}),
    ('#!/bin/sh\n#SBATCHfoo --mincpus=3\n', '', {}),
    ('#!/bin/sh\n#SBATCH\n#SBATCH --tmp=1\n', '', {}),
    ('#!/bin/sh\n#SBATCH --comment=a#b\n', '', {}),
    ('#!/bin/sh\n#SBATCH --comment="a #b" --tmp=2\n', '', {}),
    ("#!/bin/sh\n#SBATCH --comment=\"it's\" --tmp=2\n", '', {}),
    ('#!/bin/sh\n#SBATCH --comment=a\\ b --tmp=2\n', '', {}),
    ('#!/bin/sh\n#SBATCH --comment="a\\"b" --tmp=2\n', '', {}),
    ('#!/bin/sh\n#SBATCH --comment=a\\"b --tmp=2\n', '', {}),
    ("#!/bin/sh\n#SBATCH --comment='a\\'b' --tmp=2\n", '', {}),
    ('#!/bin/sh\n#SBATCH --comment=x\\\\y\n', '', {}),
    ('#!/bin/sh\n#SBATCH --comment=a"b"c"d e"\n', '', {}),
    ('#!/bin/sh\n#SBATCH --comment="unterminated --tmp=2\n#SBATCH --mincpus=2\n', '', {}),
    ('#!/bin/sh\n   \n\t\n#SBATCH --tmp=2\n', '', {}),
    ('#!/bin/sh\n   # indented comment\n#SBATCH --tmp=2\n', '', {}),
    ('#!/bin/sh\nexport A=1\n#SBATCH --tmp=2\n', '', {}),
    ('#!/bin/sh\n#!/bin/other\n#SBATCH --tmp=2\n', '', {}),
    ('#!/bin/sh\n#SBATCH --tmp=2\t#c\n', '', {}),
    ('#!/bin/sh\n#SBATCH --comment=x\t--tmp=3\n', '', {}),
    ('#!/bin/sh\n#SBATCH script-like positional --tmp=3\n', '', {}),
    ('#!/bin/sh\n#SBATCH --tmp=3 -- --mincpus=4\n', '', {}),
    ('#!/bin/sh\n#SBATCH -J\n', '', {}),
    ('#!/bin/sh\n#SBATCH --frob\n', '', {}),
    ('#!/bin/sh\n#SBATCH --c=3\n', '', {}),
    ('#!/bin/sh\n#SBATCH -j\n', '', {}),
    ('#!/bin/sh\n#SBATCH --comment\n#SBATCH --tmp=3\n', '', {}),
    ('#!/bin/sh\n#SBATCH -N 2 : -N 3\n', '', {}),
    ('#!/bin/sh\n#SBATCH --comment=x   :y\n', '', {}),
    ('#!/bin/sh\n#SBATCH --tmp=3\n#SBATCH hetjob\n#SBATCH --tmp=4\n', '', {}),
    ('#!/bin/sh\n#SBATCH --tmp=3\n#SBATCH   HetJob  \n#SBATCH --tmp=4\n', '', {}),
    ('#!/bin/sh\n#SBATCH --tmp=3\n#SBATCH hetjobx\n', '', {}),
    ('#!/bin/sh\n#SBATCH --tmp=3\n#SBATCH --comment="a hetjob"\n', '', {}),
    ('#!/bin/sh\n#SBATCH --tmp=3\n#SBATCH hetjob --tmp=5\n#SBATCH --mincpus=4\n', '', {}),
    ('#!/bin/sh\n#SBATCH hetjob\n#SBATCH --tmp=4\n', '', {}),
    ('#!/bin/sh\n#SBATCH --tmp=2\n#SBATCH --mincpus=3 hetjob --comment=x\n#SBATCH --nice=4\n', '', {}),
    ('#!/bin/sh\n#SBATCH --tmp=2\n#SBATCH --comment hetjob\n#SBATCH --nice=4\n', '', {}),
    ('#!/bin/sh\n#SBATCH --tmp=3\n#SBATCH hetjob\n#SBATCH packjob\n#SBATCH --tmp=4\n', '', {}),
    ('#!/bin/sh\n#SLURM --tmp=3\n', '', {}),
    ('#!/bin/sh\n#SBATCH --wrap=foo --help -V --usage\n', '', {}),
    ('#!/bin/sh\n#SBATCH -vv -Q\n', '', {}),
    ('#!/bin/sh\n#SBATCH -t 3x\n', '-t 5', {}),
    ('#!/bin/sh\n#SBATCH --nice=99999999999\n', '', {}),
    ('#!/bin/sh\n#SBATCH -p sp --comment=script -J sj\n', '', {'SBATCH_PARTITION': 'ep', 'SBATCH_JOB_NAME': 'ej'}),
    ('#!/bin/sh\n#SBATCH -p sp --comment=script -J sj\n', '-p cp', {'SBATCH_PARTITION': 'ep'}),
    ('#!/bin/sh\n#SBATCH --requeue\n', '', {'SBATCH_NO_REQUEUE': '1'}),
    ('#!/bin/sh\n#SBATCH --no-requeue\n', '--requeue', {}),
    ('#!/bin/sh\n#SBATCH --exclusive\n', '--oversubscribe', {}),
    ('#!/bin/sh\n#SBATCH --oversubscribe\n', '', {'SBATCH_EXCLUSIVE': 'user'}),
    ('#!/bin/sh\n', '-v -v', {}),
    ('#!/bin/sh\n', '', {'SBATCH_DEBUG': '3'}),
    ('#!/bin/sh\n', '-vv', {'SBATCH_DEBUG': '1'}),
    ('#!/bin/sh\n#PBS -N pbsname\n#SBATCH -J sb\n', '', {}),
    ('#!/bin/sh\n#PBS -N pbsname\n#SBATCH -J sb\n', '--ignore-pbs', {}),
    ('#!/bin/sh\n#SBATCH --ignore-pbs\n#PBS -N pbsname\n', '', {}),
    ('#!/bin/sh\n#PBS -N pbsname\n', '', {'SBATCH_IGNORE_PBS': '1'}),
    ('#!/bin/sh\n#PBS -N pbsname\n', '', {'SBATCH_JOB_NAME': 'envname'}),
    ('#!/bin/sh\n#PBS -N pbsname\n', '-J cmd', {}),
    ('#!/bin/sh\n#BSUB -J bname\n#PBS -N pname\n', '', {}),
    ('#!/bin/sh\n#PBS -N pname\necho\n#PBS -q late\n', '', {}),
    ('#!/bin/sh\n#PBS -N\n', '', {}),
    ('#!/bin/sh\n#PBS -Z\n', '', {}),
    ('#!/bin/sh\n#PBS --foo\n', '', {}),
    ('#!/bin/sh\n#PBS extra\n', '', {}),
    ('#!/bin/sh\n#PBS -N\n#PBS foo\n', '', {}),
    ('#!/bin/sh\n#PBS -N "a b\n', '', {}),
    ('#!/bin/sh\n#PBS -A acct -e err -o out -h -M me@x -p 5 -q part -v A=1,B -J 1-3\n', '', {}),
    ('#!/bin/sh\n#PBS -m abe\n', '', {}),
    ('#!/bin/sh\n#PBS -m x\n', '', {}),
    ('#!/bin/sh\n#PBS -W depend=afterok:5,umask=022\n', '', {}),
    ('#!/bin/sh\n#PBS -W umask=077\n', '', {}),
    ('#!/bin/sh\n#PBS -l nodes=2:ppn=4+1:ppn=2,mem=1gb\n', '', {}),
    ('#!/bin/sh\n#PBS -l nodes=node1+node2,walltime=5,file=10\n', '', {}),
    ('#!/bin/sh\n#PBS -l select=2:ncpus=4:mem=500mb\n', '', {}),
    ('#!/bin/sh\n#PBS -l ncpus=3,nice=7,naccelerators=2\n', '', {}),
    ('#!/bin/sh\n#PBS -l naccelerators=x\n', '', {}),
    ('#!/bin/sh\n#BSUB -J a -q b -n 2,4 -m "h1 h2" -M 100 -W 90 -x -c dir\n', '', {}),
    ('#!/bin/sh\n#BSUB -M 1G -e e -o o\n', '', {}),
    ('#!/bin/sh\n#BSUB -Z\n', '', {}),
]


def directive_vectors():
    rows = []
    for body, args, env in DIRECTIVE_CASES:
        path = os.path.join(WORK, "t.sh")
        with open(path, "w") as f:
            f.write(body)
        argv = ["sbatch", "-v"] + (args.split() if args else []) + ["t.sh"]
        if "-v" in args.split() or "-vv" in args.split() or "SBATCH_DEBUG" in env:
            argv = ["sbatch"] + (args.split() if args else []) + ["t.sh"]
        rc, _, err = run(argv, env)
        comps, cur, errs = [], None, []
        for l in err.splitlines():
            if l.endswith("defined options") and "end of" not in l:
                cur = []
            elif "end of defined options" in l:
                comps.append(cur)
                cur = None
            elif cur is not None and ": " in l and "----" not in l:
                name, _, value = l.split(": ", 1)[1].partition(":")
                cur.append("%s=%s" % (name.strip(), value.strip()))
            elif "contact slurm controller" in l or "select/" in l or "debug" in l or "propagating" in l:
                continue
            elif cur is None:
                errs.append(l)
        result = " || ".join(";".join(c) for c in comps)
        env_s = ";".join("%s=%s" % kv for kv in sorted(env.items()))
        rows.append([esc(body), " ".join(argv[1:-1]), env_s, str(rc), result, esc("\n".join(errs))])
    return rows


def write(name, header_cmd, cols, rows):
    with open(name, "w") as f:
        f.write("# generated from Slurm 22.05.8 (Debian) by: %s\n" % header_cmd)
        f.write("# regenerate with: SLURM_CONF=<unreachable controller> python3 gen_options_vectors.py\n")
        f.write("\t".join(cols) + "\n")
        for r in rows:
            f.write("\t".join(r) + "\n")


if __name__ == "__main__":
    with open(os.path.join(WORK, "ok.sh"), "w") as f:
        f.write("#!/bin/sh\ntrue\n")
    write("options_long.tsv", "getopt messages of `CMD --NAME=zz --zzzz-bogus`, `CMD --NAME` (gen_options_vectors.py)",
          ["name", "sbatch", "srun", "salloc"], long_kinds())
    write("options_short.tsv", "getopt messages of `CMD -X --zzzz-bogus`, `CMD -X`, `CMD -Xz` (gen_options_vectors.py)",
          ["letter", "sbatch", "srun", "salloc"], short_kinds())
    write("argv_errors.tsv", "`CMD ARGS` with stdin from /dev/null, stderr and exit status (gen_options_vectors.py)",
          ["command", "args", "exit", "stderr"], argv_errors())
    write("env_inputs.tsv", "`VAR=1 CMD -v ok.sh|true`, lines that differ from a run without VAR (gen_options_vectors.py)",
          ["command", "variable", "verbose_diff"], env_inputs())
    write("directives.tsv", "`ENV sbatch -v ARGS t.sh` for each script; -v's option dump per component (gen_options_vectors.py)",
          ["script", "args", "env", "exit", "components", "stderr"], directive_vectors())
