#!/usr/bin/env python3
"""Regenerate tests/vectors/conf_errors.tsv from the installed Slurm 22.05 slurmctld.

Run on a machine with Debian's slurmctld 22.05 installed:
    python3 core/tests/vectors/gen/gen_conf_errors.py core/tests/vectors
Each case is written to /tmp/spur-conf-vectors/etc/slurm/slurm.conf (plus any included files) and read with
`timeout 5 slurmctld -D -f FILE`; every case is a broken file, so slurmctld logs its errors and exits before it
starts serving. The error and fatal lines are kept in order, without the "slurmctld: error: " prefix, Slurm's
function-name prefixes and the closing "Unable to process configuration file"; the work directory is rewritten
to /etc/slurm.
"""
import os
import shutil
import subprocess
import sys

WORK = "/tmp/spur-conf-vectors"
ETC = WORK + "/etc/slurm"
BASE = ["ClusterName=x", "SlurmctldHost=ctl1(127.0.0.1)"]

# (name, body lines, included files {name: text}, use BASE)
CASES = [
    ("unknown_key", ["FooBar=3"], {}, True),
    ("two_pairs_on_global_line", ["ClusterName=y SlurmUser=root"], {}, True),
    ("node_unknown_key", ["NodeName=n1 CPUs=1 Bogus=3"], {}, True),
    ("node_bad_cpus", ["NodeName=n1 CPUs=abc"], {}, True),
    ("node_realmemory_abc", ["NodeName=n1 RealMemory=abc"], {}, True),
    ("node_realmemory_negative", ["NodeName=n1 RealMemory=-1"], {}, True),
    ("node_realmemory_huge", ["NodeName=n1 RealMemory=99999999999999999999999"], {}, True),
    ("node_tmpdisk_abc", ["NodeName=n1 TmpDisk=abc"], {}, True),
    ("node_tmpdisk_too_big", ["NodeName=n1 TmpDisk=5000000000"], {}, True),
    ("killwait_abc", ["KillWait=abc"], {}, True),
    ("killwait_too_big", ["KillWait=99999999"], {}, True),
    ("killwait_negative", ["KillWait=-5"], {}, True),
    ("killwait_quoted_blank", ['KillWait="5 6"'], {}, True),
    ("maxjobcount_abc", ["MaxJobCount=abc"], {}, True),
    ("defmempercpu_abc", ["DefMemPerCPU=abc"], {}, True),
    ("trackwckey_abc", ["TrackWCKey=abc"], {}, True),
    ("slurmdport_abc", ["SlurmdPort=abc"], {}, True),
    ("garbage_line", ["garbage line"], {}, True),
    ("empty_value", ["Epilog="], {}, True),
    ("quote_then_text", ['Epilog="a"b c'], {}, True),
    ("partition_bad_state", ["PartitionName=p Nodes=ALL State=WEIRD"], {}, True),
    ("partition_bad_default", ["PartitionName=p Nodes=ALL Default=maybe"], {}, True),
    ("partition_bad_oversubscribe", ["PartitionName=p Nodes=ALL OverSubscribe=bogus"], {}, True),
    ("partition_bad_select_type", ["PartitionName=p Nodes=ALL SelectTypeParameters=CR_CPU"], {}, True),
    ("node_default_with_addr", ["NodeName=DEFAULT NodeAddr=1.2.3.4"], {}, True),
    ("node_default_with_hostname", ["NodeName=DEFAULT NodeHostname=h"], {}, True),
    ("node_named_all", ["NodeName=ALL CPUs=1"], {}, True),
    ("slurmctldhost_bad_parens", ["SlurmctldHost=a(b"], {}, True),
    ("slurmctldhost_duplicate", ["SlurmctldHost=ctl1(10.0.0.1)"], {}, True),
    ("slurmctldhost_extra_pair", ["SlurmctldHost=ctl2 x=1"], {}, True),
    ("slurmctldport_abc", ["SlurmctldPort=abc"], {}, True),
    ("slurmctldport_backwards", ["SlurmctldPort=7000-6000"], {}, True),
    ("slurmctldport_trailing", ["SlurmctldPort=7990x"], {}, True),
    ("no_cluster_name", ["SlurmctldHost=ctl1"], {}, False),
    ("no_controller", ["ClusterName=x"], {}, False),
    ("controlmachine_list", ["ClusterName=x", "ControlMachine=a,b"], {}, False),
    ("backupaddr_alone", ["ClusterName=x", "ControlMachine=a", "BackupAddr=b"], {}, False),
    ("several_errors", ["Bogus1=1", "Bogus2=1", "garbage"], {}, True),
    ("continued_line_error", ["NodeName=n1 CPUs=1 \\", " Bogus=1"], {}, True),
    ("comment_and_escape", ["Epilog=/bin/x\\#1 # comment", "Bogus=1"], {}, True),
    ("defunct_key", ["SchedulerAuth=x", "Bogus=1"], {}, True),
    ("include_with_leading_blank", ["  include inc.conf"], {"inc.conf": "KillWait=5\n"}, True),
    ("include_bad_value", ["include inc_bad.conf"], {"inc_bad.conf": "KillWait=abc\n"}, True),
    ("include_absolute_nested", ["Include " + ETC + "/a.conf"],
     {"a.conf": "# a\ninclude b.conf\n", "b.conf": "MinJobAge=5\nBogus=2\n"}, True),
]


def normalise(line):
    for prefix in ("slurmctld: error: ", "slurmctld: fatal: "):
        if line.startswith(prefix):
            line = line[len(prefix):]
            break
    else:
        return None
    if line == "Unable to process configuration file":
        return None
    for fn in ("_parse_next_key: ", "s_p_parse_file: "):
        if line.startswith(fn):
            line = line[len(fn):]
    return line.replace(ETC, "/etc/slurm")


def run(name, body, includes, base):
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(ETC)
    text = "\n".join((BASE if base else []) + body) + "\n"
    with open(ETC + "/slurm.conf", "w") as f:
        f.write(text)
    for inc, inc_text in includes.items():
        with open(ETC + "/" + inc, "w") as f:
            f.write(inc_text)
    p = subprocess.run(["timeout", "5", "slurmctld", "-D", "-f", ETC + "/slurm.conf"],
                       capture_output=True, text=True)
    out = p.stdout + p.stderr
    if "started on cluster" in out:
        sys.exit("case %s started slurmctld; it must be a broken file" % name)
    lines = [l for l in (normalise(x) for x in out.splitlines()) if l]
    return text, lines


def esc(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def main(out_dir):
    with open(out_dir + "/conf_errors.tsv", "w") as out:
        out.write("# slurm.conf text -> the error lines slurmctld 22.05.8 logs for it, in order (\" || \" between lines)\n")
        out.write("# generated by `python3 core/tests/vectors/gen/gen_conf_errors.py core/tests/vectors` with Debian's "
                  "slurmctld 22.05.8-4+deb12u3 (`timeout 5 slurmctld -D -f /etc/slurm/slurm.conf`, work dir rewritten)\n")
        out.write("# text and included files use \\n and \\\\ escapes; includes are NAME=TEXT joined by \" && \"\n")
        out.write("name\tslurm_conf\tincludes\texpected\n")
        for name, body, includes, base in CASES:
            text, lines = run(name, body, includes, base)
            inc = " && ".join("%s=%s" % (k, esc(v)) for k, v in includes.items())
            text = text.replace(ETC, "/etc/slurm")
            out.write("%s\t%s\t%s\t%s\n" % (name, esc(text), inc, " || ".join(lines)))
    shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1])
