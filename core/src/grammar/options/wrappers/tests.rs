use super::*;
use crate::grammar::options::table::Command;

fn ctx() -> ErrCtx {
    ErrCtx::new(Command::Sbatch)
}

fn translated(body: &str) -> Vec<(OptId, Option<String>, usize)> {
    translate(&ctx(), "job.sh", body.as_bytes())
        .unwrap()
        .into_iter()
        .map(|(o, l)| (o.id, o.value, l))
        .collect()
}

fn values(body: &str) -> Vec<(OptId, Option<String>)> {
    translated(body)
        .into_iter()
        .map(|(id, v, _)| (id, v))
        .collect()
}

fn some(s: &str) -> Option<String> {
    Some(s.to_string())
}

#[test]
fn pbs_letters() {
    assert_eq!(
        values("#!/bin/sh\n#PBS -N name -q part -A acct -h -M me -p 5 -v A=1 -V -J 1-3 -t 4 -I -z -j oe -k n -S /bin/sh\n"),
        vec![
            (OptId::JobName, some("name")),
            (OptId::Partition, some("part")),
            (OptId::Account, some("acct")),
            (OptId::Hold, None),
            (OptId::MailUser, some("me")),
            (OptId::Nice, some("5")),
            (OptId::Export, some("A=1")),
            (OptId::Export, some("ALL")),
            (OptId::Array, some("1-3")),
            (OptId::Array, some("4")),
        ]
    );
}

#[test]
fn pbs_lines_are_found_anywhere_and_numbered() {
    let t = translated("#!/bin/sh\n#PBS -N a\nhostname\n#PBS -q late\n  #PBS -q never\n");
    assert_eq!(
        t,
        vec![
            (OptId::JobName, some("a"), 2),
            (OptId::Partition, some("late"), 4)
        ]
    );
}

#[test]
fn pbs_mail_and_attributes() {
    assert_eq!(
        values("#!/bin/sh\n#PBS -m eab\n"),
        vec![(OptId::MailType, some("BEGIN,END,FAIL"))]
    );
    assert_eq!(
        values("#!/bin/sh\n#PBS -m N\n"),
        vec![(OptId::MailType, some("NONE"))]
    );
    let e = translate(&ctx(), "job.sh", b"#!/bin/sh\n#PBS -m x\n").unwrap_err();
    assert_eq!(
        e.lines,
        vec!["sbatch: error: Invalid --mail-type specification"]
    );
    assert_eq!(
        values("#!/bin/sh\n#PBS -W depend=afterok:5,umask=022 -W umask=077 -W group_list=g\n"),
        vec![
            (OptId::Dependency, some("afterok:5,umask=022")),
            (OptId::Umask, some("077"))
        ]
    );
}

#[test]
fn pbs_resource_lists() {
    assert_eq!(
        values("#!/bin/sh\n#PBS -l nodes=2:ppn=4+1:ppn=2,mem=1gb,walltime=1:00:00\n"),
        vec![
            (OptId::Nodes, some("3")),
            (OptId::Ntasks, some("18")),
            (OptId::Mem, some("1g")),
            (OptId::Time, some("1:00:00")),
        ]
    );
    assert_eq!(
        values("#!/bin/sh\n#PBS -l nodes=node1+node2:gpus=1,file=10kb,cput=5\n"),
        vec![
            (OptId::Nodelist, some("node1,node2")),
            (OptId::GpusPerNode, some("1")),
            (OptId::Tmp, some("10k")),
            (OptId::Time, some("5")),
        ]
    );
    // Names are found anywhere; pmem/vmem are skipped, not read as mem; ncpus and select end at ':'.
    assert_eq!(
        values("#!/bin/sh\n#PBS -l xwalltime=5,pmem=1gb,vmem=2gb,select=2:ncpus=4:mem=500mb\n"),
        vec![
            (OptId::Time, some("5")),
            (OptId::Nodes, some("2")),
            (OptId::Mincpus, some("4")),
            (OptId::Mem, some("500m")),
        ]
    );
    assert_eq!(
        values("#!/bin/sh\n#PBS -l ncpus=3,nice=7\n"),
        vec![(OptId::Mincpus, some("3,nice=7"))]
    );
    assert_eq!(
        values("#!/bin/sh\n#PBS -l naccelerators=2,accelerator=true,accelerator=false\n"),
        vec![(OptId::Gres, some("gpu:2")), (OptId::Gres, some("gpu:1"))]
    );
    let e = translate(&ctx(), "job.sh", b"#!/bin/sh\n#PBS -l naccelerators=x\n").unwrap_err();
    assert_eq!(
        e.lines,
        vec!["sbatch: error: Invalid numeric value \"x\" for naccelerators."]
    );
}

#[test]
fn bsub_wins_over_pbs() {
    assert_eq!(
        values("#!/bin/sh\n#PBS -N p\n#BSUB -J b -n 2,4 -m \"h1 h2\" -M 100 -W 90 -x -c dir\n"),
        vec![
            (OptId::JobName, some("b")),
            (OptId::Ntasks, some("4")),
            (OptId::Nodelist, some("h1,h2")),
            (OptId::MemPerCpu, some("100K")),
            (OptId::Time, some("90")),
            (OptId::Exclusive, None),
            (OptId::Chdir, some("dir")),
        ]
    );
    assert_eq!(
        values("#!/bin/sh\n#BSUB -M 1G\n"),
        vec![(OptId::MemPerCpu, some("1G"))]
    );
}

#[test]
fn wrapper_errors() {
    let lines = |b: &str| translate(&ctx(), "job.sh", b.as_bytes()).unwrap_err().lines;
    assert_eq!(
        lines("#!/bin/sh\n#PBS -N\n"),
        vec![
            "sbatch: option requires an argument -- 'N'",
            "sbatch: error: Unrecognized command line parameter ?"
        ]
    );
    assert_eq!(
        lines("#!/bin/sh\n#PBS --foo\n")[0],
        "sbatch: unrecognized option '--foo'"
    );
    assert_eq!(
        lines("#!/bin/sh\n#BSUB -Z\n")[0],
        "sbatch: invalid option -- 'Z'"
    );
    assert_eq!(
        lines("#!/bin/sh\n#PBSX\n"),
        vec!["sbatch: error: Invalid argument: X"]
    );
    assert_eq!(
        lines("#!/bin/sh\n#PBS -N \"a b\n"),
        vec!["sbatch: fatal: job.sh: line 2: Unmatched `\"` in [ \"a b]"]
    );
    // Words of all lines form one vector: a value may come from the next line.
    assert_eq!(
        values("#!/bin/sh\n#PBS -N\n#PBS foo\n"),
        vec![(OptId::JobName, some("foo"))]
    );
}
