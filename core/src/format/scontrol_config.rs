//! `scontrol show config`: the `Configuration data as of` header, every `Key = Value` line padded to Slurm's
//! 23-column key field, in Slurm's key order, then plugin sections and controller status lines.

use crate::format::FormatContext;
use crate::model::records::ClusterConfig;

/// What the listing needs beyond the configuration entries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigExtras {
    /// `NEXT_JOB_ID`.
    pub next_job_id: u32,
    /// `SLURM_CONF`, the configuration file path.
    pub conf_path: String,
    /// `SLURM_VERSION`.
    pub version: String,
    /// Plugin sections after the main list (`MPI Plugins Configuration:` and its lines).
    pub sections: Vec<ConfigSection>,
    /// Closing lines such as `Slurmctld(primary) at vm is UP`.
    pub status: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigSection {
    pub title: String,
    pub entries: Vec<(String, String)>,
}

/// Slurm 22.05's key order for `scontrol show config` (keys not listed follow in their given order).
const KEY_ORDER: &[&str] = &[
    "AccountingStorageBackupHost",
    "AccountingStorageEnforce",
    "AccountingStorageHost",
    "AccountingStorageExternalHost",
    "AccountingStorageParameters",
    "AccountingStoragePort",
    "AccountingStorageTRES",
    "AccountingStorageType",
    "AccountingStorageUser",
    "AccountingStoreFlags",
    "AcctGatherEnergyType",
    "AcctGatherFilesystemType",
    "AcctGatherInterconnectType",
    "AcctGatherNodeFreq",
    "AcctGatherProfileType",
    "AllowSpecResourcesUsage",
    "AuthAltTypes",
    "AuthAltParameters",
    "AuthInfo",
    "AuthType",
    "BatchStartTimeout",
    "BcastExclude",
    "BcastParameters",
    "BOOT_TIME",
    "BurstBufferType",
    "CliFilterPlugins",
    "ClusterName",
    "CommunicationParameters",
    "CompleteWait",
    "CoreSpecPlugin",
    "CpuFreqDef",
    "CpuFreqGovernors",
    "CredType",
    "DebugFlags",
    "DefMemPerCPU",
    "DefMemPerNode",
    "DependencyParameters",
    "DisableRootJobs",
    "EioTimeout",
    "EnforcePartLimits",
    "Epilog",
    "EpilogMsgTime",
    "EpilogSlurmctld",
    "ExtSensorsType",
    "ExtSensorsFreq",
    "FederationParameters",
    "FirstJobId",
    "GetEnvTimeout",
    "GresTypes",
    "GpuFreqDef",
    "GroupUpdateForce",
    "GroupUpdateTime",
    "HASH_VAL",
    "HealthCheckInterval",
    "HealthCheckNodeState",
    "HealthCheckProgram",
    "InactiveLimit",
    "InteractiveStepOptions",
    "JobAcctGatherFrequency",
    "JobAcctGatherType",
    "JobAcctGatherParams",
    "JobCompHost",
    "JobCompLoc",
    "JobCompPort",
    "JobCompType",
    "JobCompUser",
    "JobContainerType",
    "JobCredentialPrivateKey",
    "JobCredentialPublicCertificate",
    "JobDefaults",
    "JobFileAppend",
    "JobRequeue",
    "JobSubmitPlugins",
    "KillOnBadExit",
    "KillWait",
    "LaunchParameters",
    "LaunchType",
    "Licenses",
    "LogTimeFormat",
    "MailDomain",
    "MailProg",
    "MaxArraySize",
    "MaxDBDMsgs",
    "MaxJobCount",
    "MaxJobId",
    "MaxMemPerCPU",
    "MaxMemPerNode",
    "MaxNodeCount",
    "MaxStepCount",
    "MaxTasksPerNode",
    "MCSPlugin",
    "MCSParameters",
    "MessageTimeout",
    "MinJobAge",
    "MpiDefault",
    "MpiParams",
    "MULTIPLE_SLURMD",
    "NEXT_JOB_ID",
    "NodeFeaturesPlugins",
    "OverTimeLimit",
    "PluginDir",
    "PlugStackConfig",
    "PowerParameters",
    "PowerPlugin",
    "PreemptMode",
    "PreemptType",
    "PreemptExemptTime",
    "PrEpParameters",
    "PrEpPlugins",
    "PriorityParameters",
    "PrioritySiteFactorParameters",
    "PrioritySiteFactorPlugin",
    "PriorityType",
    "PrivateData",
    "ProctrackType",
    "Prolog",
    "PrologEpilogTimeout",
    "PrologSlurmctld",
    "PrologFlags",
    "PropagatePrioProcess",
    "PropagateResourceLimits",
    "PropagateResourceLimitsExcept",
    "RebootProgram",
    "ReconfigFlags",
    "RequeueExit",
    "RequeueExitHold",
    "ResumeFailProgram",
    "ResumeProgram",
    "ResumeRate",
    "ResumeTimeout",
    "ResvEpilog",
    "ResvOverRun",
    "ResvProlog",
    "ReturnToService",
    "RoutePlugin",
    "SchedulerParameters",
    "SchedulerTimeSlice",
    "SchedulerType",
    "ScronParameters",
    "SelectType",
    "SelectTypeParameters",
    "SlurmUser",
    "SlurmctldAddr",
    "SlurmctldDebug",
    "SlurmctldHost",
    "SlurmctldLogFile",
    "SlurmctldPort",
    "SlurmctldSyslogDebug",
    "SlurmctldPrimaryOffProg",
    "SlurmctldPrimaryOnProg",
    "SlurmctldTimeout",
    "SlurmctldParameters",
    "SlurmdDebug",
    "SlurmdLogFile",
    "SlurmdParameters",
    "SlurmdPidFile",
    "SlurmdPort",
    "SlurmdSpoolDir",
    "SlurmdSyslogDebug",
    "SlurmdTimeout",
    "SlurmdUser",
    "SlurmSchedLogFile",
    "SlurmSchedLogLevel",
    "SlurmctldPidFile",
    "SlurmctldPlugstack",
    "SLURM_CONF",
    "SLURM_VERSION",
    "SrunEpilog",
    "SrunPortRange",
    "SrunProlog",
    "StateSaveLocation",
    "SuspendExcNodes",
    "SuspendExcParts",
    "SuspendProgram",
    "SuspendRate",
    "SuspendTime",
    "SuspendTimeout",
    "SwitchParameters",
    "SwitchType",
    "TaskEpilog",
    "TaskPlugin",
    "TaskPluginParam",
    "TaskProlog",
    "TCPTimeout",
    "TmpFS",
    "TopologyParam",
    "TopologyPlugin",
    "TrackWCKey",
    "TreeWidth",
    "UsePam",
    "UnkillableStepProgram",
    "UnkillableStepTimeout",
    "VSizeFactor",
    "WaitTime",
    "X11Parameters",
];

/// Position of a key in Slurm's order; `SlurmctldHost[1]` sorts with `SlurmctldHost`.
fn rank(key: &str) -> Option<usize> {
    let base = key.split('[').next().unwrap_or(key);
    KEY_ORDER.iter().position(|k| k.eq_ignore_ascii_case(base))
}

fn line(key: &str, value: &str) -> String {
    format!("{key:<23} = {value}\n")
}

/// Keys slurmctld reports as a number of seconds, minutes or microseconds, with the unit after the number.
const SECONDS_KEYS: &[&str] = &[
    "AcctGatherNodeFreq",
    "BatchStartTimeout",
    "CompleteWait",
    "ExtSensorsFreq",
    "GetEnvTimeout",
    "GroupUpdateTime",
    "HealthCheckInterval",
    "InactiveLimit",
    "KillWait",
    "MessageTimeout",
    "MinJobAge",
    "ResumeTimeout",
    "SchedulerTimeSlice",
    "SlurmctldTimeout",
    "SlurmdTimeout",
    "SuspendTimeout",
    "TCPTimeout",
    "UnkillableStepTimeout",
    "WaitTime",
];
const MINUTES_KEYS: &[&str] = &["OverTimeLimit", "ResvOverRun"];
const MICROSECONDS_KEYS: &[&str] = &["EpilogMsgTime"];

/// A key in Slurm's spelling (`Waittime` in slurm.conf is listed as `WaitTime`).
fn canonical_key(key: &str) -> String {
    let (base, index) = match key.find('[') {
        Some(at) => key.split_at(at),
        None => (key, ""),
    };
    match KEY_ORDER.iter().find(|k| k.eq_ignore_ascii_case(base)) {
        Some(known) => format!("{known}{index}"),
        None => key.to_string(),
    }
}

/// A slurm.conf value as slurmctld reports it back: units after plain numbers, `SelectTypeParameters` in capitals.
/// User names (`SlurmUser = root(0)`) need the user database and are the caller's to expand.
pub fn display_value(key: &str, value: &str) -> String {
    let numeric = !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit());
    let is = |list: &[&str]| list.iter().any(|k| k.eq_ignore_ascii_case(key));
    if numeric && is(SECONDS_KEYS) {
        format!("{value} sec")
    } else if numeric && is(MINUTES_KEYS) {
        format!("{value} min")
    } else if numeric && is(MICROSECONDS_KEYS) {
        format!("{value} usec")
    } else if key.eq_ignore_ascii_case("SelectTypeParameters") {
        value.to_ascii_uppercase()
    } else {
        value.to_string()
    }
}

/// Renders `scontrol show config`.
pub fn render(config: &ClusterConfig, extras: &ConfigExtras, ctx: &FormatContext) -> String {
    let mut entries: Vec<(String, String)> = config
        .entries
        .iter()
        .map(|(k, v)| (canonical_key(k), display_value(k, v)))
        .collect();
    let has = |entries: &[(String, String)], key: &str| {
        entries.iter().any(|(k, _)| k.eq_ignore_ascii_case(key))
    };
    let mut computed = vec![
        ("BOOT_TIME".to_string(), ctx.time(config.boot_time)),
        ("HASH_VAL".to_string(), "Match".to_string()),
        ("MULTIPLE_SLURMD".to_string(), "Yes".to_string()),
        ("NEXT_JOB_ID".to_string(), extras.next_job_id.to_string()),
        ("SLURM_CONF".to_string(), extras.conf_path.clone()),
        ("SLURM_VERSION".to_string(), extras.version.clone()),
    ];
    if !has(&entries, "ClusterName") {
        computed.push(("ClusterName".to_string(), config.cluster_name.clone()));
    }
    if !entries.iter().any(|(k, _)| k.starts_with("SlurmctldHost")) {
        for (i, host) in config.controllers.iter().enumerate() {
            computed.push((format!("SlurmctldHost[{i}]"), host.clone()));
        }
    }
    for (key, value) in computed {
        if !has(&entries, &key) {
            entries.push((key, value));
        }
    }
    // Stable: keys Slurm does not list keep their relative order after the known ones.
    entries.sort_by_key(|(k, _)| rank(k).unwrap_or(usize::MAX));

    let mut out = format!("Configuration data as of {}\n", ctx.time(ctx.now));
    for (key, value) in &entries {
        out.push_str(&line(key, value));
    }
    for section in &extras.sections {
        out.push('\n');
        out.push_str(&section.title);
        out.push('\n');
        for (key, value) in &section.entries {
            out.push_str(&line(key, value));
        }
    }
    if !extras.status.is_empty() {
        out.push('\n');
        for status in &extras.status {
            out.push_str(status);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pads_keys_to_23_columns() {
        assert_eq!(
            line("AuthType", "auth/munge"),
            "AuthType                = auth/munge\n"
        );
        assert_eq!(
            line("AccountingStorageBackupHost", "(null)"),
            "AccountingStorageBackupHost = (null)\n"
        );
    }

    /// From the reference capture 63-scontrol-show-config.txt and its slurm.conf.
    #[test]
    fn values_and_keys_as_slurmctld_reports_them() {
        assert_eq!(display_value("KillWait", "5"), "5 sec");
        assert_eq!(display_value("Waittime", "0"), "0 sec");
        assert_eq!(display_value("OverTimeLimit", "0"), "0 min");
        assert_eq!(display_value("EpilogMsgTime", "2000"), "2000 usec");
        assert_eq!(
            display_value("SelectTypeParameters", "CR_Core_Memory"),
            "CR_CORE_MEMORY"
        );
        assert_eq!(display_value("MaxArraySize", "10001"), "10001");
        assert_eq!(canonical_key("Waittime"), "WaitTime");
        assert_eq!(canonical_key("SlurmctldHost[0]"), "SlurmctldHost[0]");
        assert_eq!(canonical_key("NoSuchKey"), "NoSuchKey");
    }

    #[test]
    fn orders_keys_like_slurm() {
        let config = ClusterConfig {
            cluster_name: "c".into(),
            controllers: vec!["vm(127.0.0.1)".into()],
            entries: vec![
                ("TreeWidth".into(), "50".into()),
                ("AuthType".into(), "auth/munge".into()),
            ],
            boot_time: 0,
        };
        let out = render(&config, &ConfigExtras::default(), &FormatContext::new(0, 0));
        let keys: Vec<&str> = out
            .lines()
            .skip(1)
            .map(|l| l.split(' ').next().unwrap_or(""))
            .collect();
        assert_eq!(
            keys,
            vec![
                "AuthType",
                "BOOT_TIME",
                "ClusterName",
                "HASH_VAL",
                "MULTIPLE_SLURMD",
                "NEXT_JOB_ID",
                "SlurmctldHost[0]",
                "SLURM_CONF",
                "SLURM_VERSION",
                "TreeWidth"
            ]
        );
    }
}
