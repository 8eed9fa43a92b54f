//! Typed accessors for the global keys a controller needs, with Slurm 22.05's documented defaults
//! (`man slurm.conf`) when the file leaves a key out. Keys not covered here are reachable through
//! [`SlurmConf::get`] and the `get_*` methods.

use super::{PortRange, SlurmConf};

/// Splits a comma-separated list, dropping empty items.
fn list(value: Option<&str>) -> Vec<&str> {
    value.map_or_else(Vec::new, |v| {
        v.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect()
    })
}

/// Comma-separated `key[=value]` options such as `SchedulerParameters=bf_interval=30,defer`.
pub(crate) fn options(value: Option<&str>) -> Vec<(&str, Option<&str>)> {
    list(value)
        .into_iter()
        .map(|item| match item.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (item, None),
        })
        .collect()
}

macro_rules! str_getters {
    ($($(#[$doc:meta])* $fn:ident => $key:literal;)*) => {
        impl SlurmConf {
            $($(#[$doc])* pub fn $fn(&self) -> Option<&str> { self.get_str($key) })*
        }
    };
}

macro_rules! str_default_getters {
    ($($fn:ident => $key:literal, $default:literal;)*) => {
        impl SlurmConf {
            $(#[doc = concat!("`", $key, "`, default `", $default, "`.")]
            pub fn $fn(&self) -> &str { self.get_str($key).unwrap_or($default) })*
        }
    };
}

macro_rules! num_getters {
    ($($fn:ident: $ty:ty = $get:ident($key:literal), $default:expr;)*) => {
        impl SlurmConf {
            $(#[doc = concat!("`", $key, "`, default ", stringify!($default), ".")]
            pub fn $fn(&self) -> $ty { self.$get($key).unwrap_or($default) })*
        }
    };
}

str_getters! {
    cluster_name => "ClusterName";
    auth_alt_parameters => "AuthAltParameters";
    auth_info => "AuthInfo";
    state_save_location => "StateSaveLocation";
    slurmd_spool_dir => "SlurmdSpoolDir";
    select_type_parameters => "SelectTypeParameters";
    scheduler_parameters => "SchedulerParameters";
    priority_max_age => "PriorityMaxAge";
    job_comp_loc => "JobCompLoc";
    private_data => "PrivateData";
    propagate_resource_limits => "PropagateResourceLimits";
    propagate_resource_limits_except => "PropagateResourceLimitsExcept";
    epilog => "Epilog";
    prolog => "Prolog";
    epilog_slurmctld => "EpilogSlurmctld";
    prolog_slurmctld => "PrologSlurmctld";
    task_prolog => "TaskProlog";
    task_epilog => "TaskEpilog";
    srun_prolog => "SrunProlog";
    srun_epilog => "SrunEpilog";
    slurmctld_log_file => "SlurmctldLogFile";
    slurmd_log_file => "SlurmdLogFile";
    slurmctld_pid_file => "SlurmctldPidFile";
    slurmd_pid_file => "SlurmdPidFile";
    licenses => "Licenses";
}

str_default_getters! {
    auth_type => "AuthType", "auth/munge";
    cred_type => "CredType", "cred/munge";
    slurm_user => "SlurmUser", "root";
    slurmd_user => "SlurmdUser", "root";
    select_type => "SelectType", "select/linear";
    scheduler_type => "SchedulerType", "sched/backfill";
    priority_type => "PriorityType", "priority/basic";
    proctrack_type => "ProctrackType", "proctrack/cgroup";
    task_plugin => "TaskPlugin", "task/none";
    job_comp_type => "JobCompType", "jobcomp/none";
    accounting_storage_type => "AccountingStorageType", "accounting_storage/none";
    mpi_default => "MpiDefault", "none";
}

num_getters! {
    slurmd_port: u32 = get_u32("SlurmdPort"), 6818;
    kill_wait: u16 = get_u16("KillWait"), 30;
    inactive_limit: u16 = get_u16("InactiveLimit"), 0;
    wait_time: u16 = get_u16("WaitTime"), 0;
    message_timeout: u16 = get_u16("MessageTimeout"), 10;
    slurmctld_timeout: u16 = get_u16("SlurmctldTimeout"), 120;
    slurmd_timeout: u16 = get_u16("SlurmdTimeout"), 300;
    return_to_service: u16 = get_u16("ReturnToService"), 0;
    min_job_age: u32 = get_u32("MinJobAge"), 300;
    max_job_count: u32 = get_u32("MaxJobCount"), 10000;
    max_array_size: u32 = get_u32("MaxArraySize"), 1001;
    first_job_id: u32 = get_u32("FirstJobId"), 1;
    max_job_id: u32 = get_u32("MaxJobId"), 0x03ff_0000;
    over_time_limit: u16 = get_u16("OverTimeLimit"), 0;
    def_mem_per_cpu: u64 = get_u64("DefMemPerCPU"), 0;
    def_mem_per_node: u64 = get_u64("DefMemPerNode"), 0;
    max_mem_per_cpu: u64 = get_u64("MaxMemPerCPU"), 0;
    max_mem_per_node: u64 = get_u64("MaxMemPerNode"), 0;
    priority_weight_age: u32 = get_u32("PriorityWeightAge"), 0;
    priority_weight_assoc: u32 = get_u32("PriorityWeightAssoc"), 0;
    priority_weight_fairshare: u32 = get_u32("PriorityWeightFairshare"), 0;
    priority_weight_job_size: u32 = get_u32("PriorityWeightJobSize"), 0;
    priority_weight_partition: u32 = get_u32("PriorityWeightPartition"), 0;
    priority_weight_qos: u32 = get_u32("PriorityWeightQOS"), 0;
}

impl SlurmConf {
    /// `SlurmctldPort`, default 6817 (a single port).
    pub fn slurmctld_port(&self) -> PortRange {
        self.get_str("SlurmctldPort")
            .and_then(PortRange::parse)
            .unwrap_or(PortRange::single(6817))
    }

    /// `AuthAltTypes` as a list (`auth/jwt`).
    pub fn auth_alt_types(&self) -> Vec<&str> {
        list(self.get_str("AuthAltTypes"))
    }

    /// `GresTypes` as a list (`gpu,mps`).
    pub fn gres_types(&self) -> Vec<&str> {
        list(self.get_str("GresTypes"))
    }

    /// `SchedulerParameters` split into options.
    pub fn scheduler_options(&self) -> Vec<(&str, Option<&str>)> {
        options(self.get_str("SchedulerParameters"))
    }

    /// `PriorityWeightTRES` split into `tres=weight` options.
    pub fn priority_weight_tres(&self) -> Vec<(&str, Option<&str>)> {
        options(self.get_str("PriorityWeightTRES"))
    }

    /// A numeric `SchedulerParameters` option (`bf_window=2880`); `None` when absent or not a number.
    pub fn scheduler_option_u32(&self, name: &str) -> Option<u32> {
        self.scheduler_options()
            .into_iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .and_then(|(_, value)| value?.trim().parse().ok())
    }

    /// Whether a flag of `SchedulerParameters` (`bf_continue`) is set.
    pub fn scheduler_flag(&self, name: &str) -> bool {
        self.scheduler_options()
            .iter()
            .any(|(key, _)| key.eq_ignore_ascii_case(name))
    }

    /// `bf_window` in minutes, default 1440 (one day).
    pub fn bf_window_min(&self) -> u32 {
        self.scheduler_option_u32("bf_window").unwrap_or(1440)
    }

    /// `bf_resolution` in seconds, default 60.
    pub fn bf_resolution_secs(&self) -> u32 {
        self.scheduler_option_u32("bf_resolution")
            .filter(|r| *r > 0)
            .unwrap_or(60)
    }

    /// `bf_max_job_test`, default 500.
    pub fn bf_max_job_test(&self) -> u32 {
        self.scheduler_option_u32("bf_max_job_test").unwrap_or(500)
    }

    /// `bf_continue`.
    pub fn bf_continue(&self) -> bool {
        self.scheduler_flag("bf_continue")
    }

    /// `PrologFlags` as a list of lower-cased words (`alloc`, `contain`, ...).
    pub fn prolog_flags(&self) -> Vec<String> {
        list(self.get_str("PrologFlags"))
            .into_iter()
            .map(str::to_lowercase)
            .collect()
    }

    /// `PrivateData` as a list of lower-cased words (`jobs`, `nodes`, ...).
    pub fn private_data_list(&self) -> Vec<String> {
        list(self.get_str("PrivateData"))
            .into_iter()
            .map(str::to_lowercase)
            .collect()
    }
}
