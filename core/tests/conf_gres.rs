//! `gres.conf` parsing: the reference cluster's files, per-node selection and Slurm's record checks.

use pretty_assertions::assert_eq;
use spur_core::grammar::conf::{GresConf, GresFlag};

/// Stand-in for hostlist membership: the reference files name single nodes.
fn same(expr: &str, node: &str) -> bool {
    expr == node
}

#[test]
fn reference_single_node() {
    let conf = GresConf::parse_str(include_str!("fixtures/gres.conf"), "gres.conf").unwrap();
    assert_eq!(conf.autodetect.as_deref(), Some("off"));
    let [gpu] = conf.records.as_slice() else {
        panic!("one record")
    };
    assert_eq!(
        (
            gpu.nodes.as_deref(),
            gpu.name.as_str(),
            gpu.type_name.as_deref()
        ),
        (Some("vm"), "gpu", Some("a100"))
    );
    assert_eq!(gpu.file.as_deref(), Some("$RUNDIR/dev/nvidia[0-3]"));
    assert_eq!(gpu.count, 4);
    assert_eq!(gpu.files().unwrap()[3], "$RUNDIR/dev/nvidia3");
    assert_eq!(gpu.location.line, 3);
}

#[test]
fn reference_multi_node_selection() {
    let conf =
        GresConf::parse_str(include_str!("fixtures/multi-netns-gres.conf"), "gres.conf").unwrap();
    assert_eq!(conf.records.len(), 3);
    let n2 = conf.for_node("n2", &same);
    assert_eq!(n2.autodetect, Some("off"));
    let [rec] = n2.records.as_slice() else {
        panic!("one record for n2")
    };
    assert_eq!(
        rec.files().unwrap(),
        [
            "$RUNDIR_MULTI/dev/n2-nvidia0",
            "$RUNDIR_MULTI/dev/n2-nvidia1"
        ]
    );
    assert!(conf.for_node("n9", &same).records.is_empty());
}

#[test]
fn man_page_examples() {
    let text = "AutoDetect=nvml\n\
                Name=gpu Type=gtx560 File=/dev/nvidia0 COREs=0,1\n\
                Name=mps Count=100 File=/dev/nvidia0 COREs=0,1\n\
                NodeName=tux3 AutoDetect=off Name=gpu File=/dev/nvidia[0,2-3]\n\
                NodeName=tux[8-11] AutoDetect=rsmi\n\
                NodeName=tux[0-7] Name=bandwidth Type=lustre Count=4G Flags=CountOnly\n\
                Name=gpu Links=-1,2,0 File=/dev/nvidia9 Flags=nvidia_gpu_env,AMD_GPU_ENV\n";
    let conf = GresConf::parse_str(text, "gres.conf").unwrap();
    assert_eq!(conf.records.len(), 5);
    assert_eq!(conf.records[0].core_list().unwrap(), [0, 1]);
    assert_eq!(
        conf.records[1].count, 100,
        "mps counts are not tied to files"
    );
    assert_eq!(conf.records[2].count, 3);
    assert_eq!(conf.records[3].count, 4 << 30);
    assert_eq!(conf.records[3].flags, [GresFlag::CountOnly]);
    assert_eq!(conf.records[4].links, [-1, 2, 0]);
    assert_eq!(
        conf.records[4].flags,
        [GresFlag::NvidiaGpuEnv, GresFlag::AmdGpuEnv]
    );
    let tux3 = conf.for_node("tux3", &same);
    assert_eq!(tux3.autodetect, Some("off"));
    assert_eq!(tux3.records.len(), 4, "the global lines and tux3's own");
    assert_eq!(conf.for_node("tux1", &same).autodetect, Some("nvml"));
}

#[test]
fn record_errors_use_slurm_texts() {
    let errors = |text: &str| -> Vec<String> {
        GresConf::parse_str(text, "gres.conf")
            .unwrap_err()
            .errors
            .iter()
            .map(|e| e.slurm_text())
            .collect()
    };
    assert_eq!(
        errors("Name=gpu Count=abc\n"),
        ["Invalid GRES record for gpu, invalid count abc"]
    );
    assert_eq!(
        errors("Name=gpu File=/dev/nvidia[0-1] Count=3\n"),
        ["Invalid GRES record for gpu, count does not match File value"]
    );
    assert_eq!(
        errors("Name=gpu File=/dev/a MultipleFiles=/dev/b,/dev/c\n"),
        ["File and MultipleFiles options are mutually exclusive"]
    );
    assert_eq!(
        errors("NodeName=n1 Type=x\n"),
        ["Invalid GRES data, no type name (Type=x)"]
    );
    assert_eq!(
        errors("Name=gpu Bogus=1\n"),
        [
            "Parsing error at unrecognized key: Bogus",
            "Parse error in file gres.conf line 1: \" Bogus=1\""
        ]
    );
    assert_eq!(
        errors("Foo=1\n"),
        ["Parsing error at unrecognized key: Foo"]
    );
    assert_eq!(
        errors("Name=gpu Flags=weird\n"),
        ["Invalid GRES data for gpu, Flags=weird"]
    );
}

#[test]
fn warnings_for_what_slurm_ignores() {
    let conf = GresConf::parse_str(
        "Name=gpu AutoDetect=nvml File=/dev/nvidia0 Links=5000\n",
        "gres.conf",
    )
    .unwrap();
    let texts: Vec<_> = conf.warnings.iter().map(|w| w.slurm_text()).collect();
    assert_eq!(
        texts,
        [
            "gres.conf: In-line AutoDetect requires NodeName to take effect",
            "gres.conf: Ignoring invalid Links=5000 for Name=gpu"
        ]
    );
    assert!(conf.records[0].links.is_empty());
}

#[test]
fn multiple_files_make_one_resource() {
    let conf = GresConf::parse_str(
        "Name=gpu MultipleFiles=/dev/nvidia[0-1],/dev/nvidia-caps\n",
        "gres.conf",
    )
    .unwrap();
    assert_eq!(conf.records[0].count, 1);
    assert_eq!(conf.records[0].files().unwrap().len(), 3);
}

#[test]
fn gres_includes() {
    let mut files = |path: &str| match path {
        "/etc/slurm/gres.d/gpus.conf" => Ok("Name=gpu File=/dev/nvidia[0-7]\n".to_string()),
        other => Err(format!("missing {other}")),
    };
    let conf = GresConf::parse(
        "AutoDetect=off\ninclude gres.d/gpus.conf\n",
        "/etc/slurm/gres.conf",
        &mut files,
    )
    .unwrap();
    assert_eq!(conf.records[0].count, 8);
}
