//! Job state reasons (Slurm 22.05's `enum job_state_reason`) with the names `job_reason_string()` gives them:
//! what `squeue %r` and `scontrol show job`'s `Reason=` print for pending and failed jobs.
//!
//! The table is transcribed from the installed Slurm 22.05 library (see `tests/vectors/job_reason_strings.tsv`),
//! including its quirks: two reasons share `PartitionDown`, `WAIT_QOS_MAX_BB_MINS_PER_JOB` prints as
//! `AssocMaxBBMinutesPerJob`, and `job_reason_num()` does not know `SchedDefer`.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};

macro_rules! job_reasons {
    ($($variant:ident = $value:literal, $cname:literal, $name:literal;)*) => {
        /// Why a job is pending (`WAIT_*`) or why it failed (`FAIL_*`); the discriminant is Slurm's wire value and
        /// the serde name is Slurm's C enum name, which is unique and stable.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum JobReason {
            $(#[serde(rename = $cname)] $variant = $value,)*
        }

        impl JobReason {
            /// Every reason, in Slurm's enum order.
            pub const ALL: &'static [Self] = &[$(Self::$variant,)*];

            /// `job_reason_string()`: the name `squeue` and `scontrol` print.
            pub fn name(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)*
                }
            }

            /// Slurm's C enum constant (`WAIT_PRIORITY`), also the serde name.
            pub fn c_name(self) -> &'static str {
                match self {
                    $(Self::$variant => $cname,)*
                }
            }
        }
    };
}

job_reasons! {
    NoReason = 0, "WAIT_NO_REASON", "None";
    Priority = 1, "WAIT_PRIORITY", "Priority";
    Dependency = 2, "WAIT_DEPENDENCY", "Dependency";
    Resources = 3, "WAIT_RESOURCES", "Resources";
    PartNodeLimit = 4, "WAIT_PART_NODE_LIMIT", "PartitionNodeLimit";
    PartTimeLimit = 5, "WAIT_PART_TIME_LIMIT", "PartitionTimeLimit";
    PartDown = 6, "WAIT_PART_DOWN", "PartitionDown";
    PartInactive = 7, "WAIT_PART_INACTIVE", "PartitionInactive";
    Held = 8, "WAIT_HELD", "JobHeldAdmin";
    Time = 9, "WAIT_TIME", "BeginTime";
    Licenses = 10, "WAIT_LICENSES", "Licenses";
    AssocJobLimit = 11, "WAIT_ASSOC_JOB_LIMIT", "AssociationJobLimit";
    AssocResourceLimit = 12, "WAIT_ASSOC_RESOURCE_LIMIT", "AssociationResourceLimit";
    AssocTimeLimit = 13, "WAIT_ASSOC_TIME_LIMIT", "AssociationTimeLimit";
    Reservation = 14, "WAIT_RESERVATION", "Reservation";
    NodeNotAvail = 15, "WAIT_NODE_NOT_AVAIL", "ReqNodeNotAvail";
    HeldUser = 16, "WAIT_HELD_USER", "JobHeldUser";
    FrontEnd = 17, "WAIT_FRONT_END", "FrontEndDown";
    FailDefer = 18, "FAIL_DEFER", "SchedDefer";
    FailDownPartition = 19, "FAIL_DOWN_PARTITION", "PartitionDown";
    FailDownNode = 20, "FAIL_DOWN_NODE", "NodeDown";
    FailBadConstraints = 21, "FAIL_BAD_CONSTRAINTS", "BadConstraints";
    FailSystem = 22, "FAIL_SYSTEM", "SystemFailure";
    FailLaunch = 23, "FAIL_LAUNCH", "JobLaunchFailure";
    FailExitCode = 24, "FAIL_EXIT_CODE", "NonZeroExitCode";
    FailTimeout = 25, "FAIL_TIMEOUT", "TimeLimit";
    FailInactiveLimit = 26, "FAIL_INACTIVE_LIMIT", "InactiveLimit";
    FailAccount = 27, "FAIL_ACCOUNT", "InvalidAccount";
    FailQos = 28, "FAIL_QOS", "InvalidQOS";
    QosThres = 29, "WAIT_QOS_THRES", "QOSUsageThreshold";
    QosJobLimit = 30, "WAIT_QOS_JOB_LIMIT", "QOSJobLimit";
    QosResourceLimit = 31, "WAIT_QOS_RESOURCE_LIMIT", "QOSResourceLimit";
    QosTimeLimit = 32, "WAIT_QOS_TIME_LIMIT", "QOSTimeLimit";
    BlockMaxErr = 33, "WAIT_BLOCK_MAX_ERR", "BlockMaxError";
    BlockDAction = 34, "WAIT_BLOCK_D_ACTION", "BlockFreeAction";
    Cleaning = 35, "WAIT_CLEANING", "Cleaning";
    Prolog = 36, "WAIT_PROLOG", "Prolog";
    Qos = 37, "WAIT_QOS", "QOSNotAllowed";
    Account = 38, "WAIT_ACCOUNT", "AccountNotAllowed";
    DepInvalid = 39, "WAIT_DEP_INVALID", "DependencyNeverSatisfied";
    QosGrpCpu = 40, "WAIT_QOS_GRP_CPU", "QOSGrpCpuLimit";
    QosGrpCpuMin = 41, "WAIT_QOS_GRP_CPU_MIN", "QOSGrpCPUMinutesLimit";
    QosGrpCpuRunMin = 42, "WAIT_QOS_GRP_CPU_RUN_MIN", "QOSGrpCPURunMinutesLimit";
    QosGrpJob = 43, "WAIT_QOS_GRP_JOB", "QOSGrpJobsLimit";
    QosGrpMem = 44, "WAIT_QOS_GRP_MEM", "QOSGrpMemLimit";
    QosGrpNode = 45, "WAIT_QOS_GRP_NODE", "QOSGrpNodeLimit";
    QosGrpSubJob = 46, "WAIT_QOS_GRP_SUB_JOB", "QOSGrpSubmitJobsLimit";
    QosGrpWall = 47, "WAIT_QOS_GRP_WALL", "QOSGrpWallLimit";
    QosMaxCpuPerJob = 48, "WAIT_QOS_MAX_CPU_PER_JOB", "QOSMaxCpuPerJobLimit";
    QosMaxCpuMinsPerJob = 49, "WAIT_QOS_MAX_CPU_MINS_PER_JOB", "QOSMaxCpuMinutesPerJobLimit";
    QosMaxNodePerJob = 50, "WAIT_QOS_MAX_NODE_PER_JOB", "QOSMaxNodePerJobLimit";
    QosMaxWallPerJob = 51, "WAIT_QOS_MAX_WALL_PER_JOB", "QOSMaxWallDurationPerJobLimit";
    QosMaxCpuPerUser = 52, "WAIT_QOS_MAX_CPU_PER_USER", "QOSMaxCpuPerUserLimit";
    QosMaxJobPerUser = 53, "WAIT_QOS_MAX_JOB_PER_USER", "QOSMaxJobsPerUserLimit";
    QosMaxNodePerUser = 54, "WAIT_QOS_MAX_NODE_PER_USER", "QOSMaxNodePerUserLimit";
    QosMaxSubJob = 55, "WAIT_QOS_MAX_SUB_JOB", "QOSMaxSubmitJobPerUserLimit";
    QosMinCpu = 56, "WAIT_QOS_MIN_CPU", "QOSMinCpuNotSatisfied";
    AssocGrpCpu = 57, "WAIT_ASSOC_GRP_CPU", "AssocGrpCpuLimit";
    AssocGrpCpuMin = 58, "WAIT_ASSOC_GRP_CPU_MIN", "AssocGrpCPUMinutesLimit";
    AssocGrpCpuRunMin = 59, "WAIT_ASSOC_GRP_CPU_RUN_MIN", "AssocGrpCPURunMinutesLimit";
    AssocGrpJob = 60, "WAIT_ASSOC_GRP_JOB", "AssocGrpJobsLimit";
    AssocGrpMem = 61, "WAIT_ASSOC_GRP_MEM", "AssocGrpMemLimit";
    AssocGrpNode = 62, "WAIT_ASSOC_GRP_NODE", "AssocGrpNodeLimit";
    AssocGrpSubJob = 63, "WAIT_ASSOC_GRP_SUB_JOB", "AssocGrpSubmitJobsLimit";
    AssocGrpWall = 64, "WAIT_ASSOC_GRP_WALL", "AssocGrpWallLimit";
    AssocMaxJobs = 65, "WAIT_ASSOC_MAX_JOBS", "AssocMaxJobsLimit";
    AssocMaxCpuPerJob = 66, "WAIT_ASSOC_MAX_CPU_PER_JOB", "AssocMaxCpuPerJobLimit";
    AssocMaxCpuMinsPerJob = 67, "WAIT_ASSOC_MAX_CPU_MINS_PER_JOB", "AssocMaxCpuMinutesPerJobLimit";
    AssocMaxNodePerJob = 68, "WAIT_ASSOC_MAX_NODE_PER_JOB", "AssocMaxNodePerJobLimit";
    AssocMaxWallPerJob = 69, "WAIT_ASSOC_MAX_WALL_PER_JOB", "AssocMaxWallDurationPerJobLimit";
    AssocMaxSubJob = 70, "WAIT_ASSOC_MAX_SUB_JOB", "AssocMaxSubmitJobLimit";
    MaxRequeue = 71, "WAIT_MAX_REQUEUE", "JobHoldMaxRequeue";
    ArrayTaskLimit = 72, "WAIT_ARRAY_TASK_LIMIT", "JobArrayTaskLimit";
    BurstBufferResource = 73, "WAIT_BURST_BUFFER_RESOURCE", "BurstBufferResources";
    BurstBufferStaging = 74, "WAIT_BURST_BUFFER_STAGING", "BurstBufferStageIn";
    FailBurstBufferOp = 75, "FAIL_BURST_BUFFER_OP", "BurstBufferOperation";
    PowerNotAvail = 76, "WAIT_POWER_NOT_AVAIL", "PowerNotAvail";
    PowerReserved = 77, "WAIT_POWER_RESERVED", "PowerReserved";
    AssocGrpUnk = 78, "WAIT_ASSOC_GRP_UNK", "AssocGrpUnknown";
    AssocGrpUnkMin = 79, "WAIT_ASSOC_GRP_UNK_MIN", "AssocGrpUnknownMinutes";
    AssocGrpUnkRunMin = 80, "WAIT_ASSOC_GRP_UNK_RUN_MIN", "AssocGrpUnknownRunMinutes";
    AssocMaxUnkPerJob = 81, "WAIT_ASSOC_MAX_UNK_PER_JOB", "AssocMaxUnknownPerJob";
    AssocMaxUnkPerNode = 82, "WAIT_ASSOC_MAX_UNK_PER_NODE", "AssocMaxUnknownPerNode";
    AssocMaxUnkMinsPerJob = 83, "WAIT_ASSOC_MAX_UNK_MINS_PER_JOB", "AssocMaxUnknownMinutesPerJob";
    AssocMaxCpuPerNode = 84, "WAIT_ASSOC_MAX_CPU_PER_NODE", "AssocMaxCpuPerNode";
    AssocGrpMemMin = 85, "WAIT_ASSOC_GRP_MEM_MIN", "AssocGrpMemMinutes";
    AssocGrpMemRunMin = 86, "WAIT_ASSOC_GRP_MEM_RUN_MIN", "AssocGrpMemRunMinutes";
    AssocMaxMemPerJob = 87, "WAIT_ASSOC_MAX_MEM_PER_JOB", "AssocMaxMemPerJob";
    AssocMaxMemPerNode = 88, "WAIT_ASSOC_MAX_MEM_PER_NODE", "AssocMaxMemPerNode";
    AssocMaxMemMinsPerJob = 89, "WAIT_ASSOC_MAX_MEM_MINS_PER_JOB", "AssocMaxMemMinutesPerJob";
    AssocGrpNodeMin = 90, "WAIT_ASSOC_GRP_NODE_MIN", "AssocGrpNodeMinutes";
    AssocGrpNodeRunMin = 91, "WAIT_ASSOC_GRP_NODE_RUN_MIN", "AssocGrpNodeRunMinutes";
    AssocMaxNodeMinsPerJob = 92, "WAIT_ASSOC_MAX_NODE_MINS_PER_JOB", "AssocMaxNodeMinutesPerJob";
    AssocGrpEnergy = 93, "WAIT_ASSOC_GRP_ENERGY", "AssocGrpEnergy";
    AssocGrpEnergyMin = 94, "WAIT_ASSOC_GRP_ENERGY_MIN", "AssocGrpEnergyMinutes";
    AssocGrpEnergyRunMin = 95, "WAIT_ASSOC_GRP_ENERGY_RUN_MIN", "AssocGrpEnergyRunMinutes";
    AssocMaxEnergyPerJob = 96, "WAIT_ASSOC_MAX_ENERGY_PER_JOB", "AssocMaxEnergyPerJob";
    AssocMaxEnergyPerNode = 97, "WAIT_ASSOC_MAX_ENERGY_PER_NODE", "AssocMaxEnergyPerNode";
    AssocMaxEnergyMinsPerJob = 98, "WAIT_ASSOC_MAX_ENERGY_MINS_PER_JOB", "AssocMaxEnergyMinutesPerJob";
    AssocGrpGres = 99, "WAIT_ASSOC_GRP_GRES", "AssocGrpGRES";
    AssocGrpGresMin = 100, "WAIT_ASSOC_GRP_GRES_MIN", "AssocGrpGRESMinutes";
    AssocGrpGresRunMin = 101, "WAIT_ASSOC_GRP_GRES_RUN_MIN", "AssocGrpGRESRunMinutes";
    AssocMaxGresPerJob = 102, "WAIT_ASSOC_MAX_GRES_PER_JOB", "AssocMaxGRESPerJob";
    AssocMaxGresPerNode = 103, "WAIT_ASSOC_MAX_GRES_PER_NODE", "AssocMaxGRESPerNode";
    AssocMaxGresMinsPerJob = 104, "WAIT_ASSOC_MAX_GRES_MINS_PER_JOB", "AssocMaxGRESMinutesPerJob";
    AssocGrpLic = 105, "WAIT_ASSOC_GRP_LIC", "AssocGrpLicense";
    AssocGrpLicMin = 106, "WAIT_ASSOC_GRP_LIC_MIN", "AssocGrpLicenseMinutes";
    AssocGrpLicRunMin = 107, "WAIT_ASSOC_GRP_LIC_RUN_MIN", "AssocGrpLicenseRunMinutes";
    AssocMaxLicPerJob = 108, "WAIT_ASSOC_MAX_LIC_PER_JOB", "AssocMaxLicensePerJob";
    AssocMaxLicMinsPerJob = 109, "WAIT_ASSOC_MAX_LIC_MINS_PER_JOB", "AssocMaxLicenseMinutesPerJob";
    AssocGrpBb = 110, "WAIT_ASSOC_GRP_BB", "AssocGrpBB";
    AssocGrpBbMin = 111, "WAIT_ASSOC_GRP_BB_MIN", "AssocGrpBBMinutes";
    AssocGrpBbRunMin = 112, "WAIT_ASSOC_GRP_BB_RUN_MIN", "AssocGrpBBRunMinutes";
    AssocMaxBbPerJob = 113, "WAIT_ASSOC_MAX_BB_PER_JOB", "AssocMaxBBPerJob";
    AssocMaxBbPerNode = 114, "WAIT_ASSOC_MAX_BB_PER_NODE", "AssocMaxBBPerNode";
    AssocMaxBbMinsPerJob = 115, "WAIT_ASSOC_MAX_BB_MINS_PER_JOB", "AssocMaxBBMinutesPerJob";
    QosGrpUnk = 116, "WAIT_QOS_GRP_UNK", "QOSGrpUnknown";
    QosGrpUnkMin = 117, "WAIT_QOS_GRP_UNK_MIN", "QOSGrpUnknownMinutes";
    QosGrpUnkRunMin = 118, "WAIT_QOS_GRP_UNK_RUN_MIN", "QOSGrpUnknownRunMinutes";
    QosMaxUnkPerJob = 119, "WAIT_QOS_MAX_UNK_PER_JOB", "QOSMaxUnknownPerJob";
    QosMaxUnkPerNode = 120, "WAIT_QOS_MAX_UNK_PER_NODE", "QOSMaxUnknownPerNode";
    QosMaxUnkPerUser = 121, "WAIT_QOS_MAX_UNK_PER_USER", "QOSMaxUnknownPerUser";
    QosMaxUnkMinsPerJob = 122, "WAIT_QOS_MAX_UNK_MINS_PER_JOB", "QOSMaxUnknownMinutesPerJob";
    QosMinUnk = 123, "WAIT_QOS_MIN_UNK", "QOSMinUnknown";
    QosMaxCpuPerNode = 124, "WAIT_QOS_MAX_CPU_PER_NODE", "QOSMaxCpuPerNode";
    QosGrpMemMin = 125, "WAIT_QOS_GRP_MEM_MIN", "QOSGrpMemoryMinutes";
    QosGrpMemRunMin = 126, "WAIT_QOS_GRP_MEM_RUN_MIN", "QOSGrpMemoryRunMinutes";
    QosMaxMemMinsPerJob = 127, "WAIT_QOS_MAX_MEM_MINS_PER_JOB", "QOSMaxMemoryMinutesPerJob";
    QosMaxMemPerJob = 128, "WAIT_QOS_MAX_MEM_PER_JOB", "QOSMaxMemoryPerJob";
    QosMaxMemPerNode = 129, "WAIT_QOS_MAX_MEM_PER_NODE", "QOSMaxMemoryPerNode";
    QosMaxMemPerUser = 130, "WAIT_QOS_MAX_MEM_PER_USER", "QOSMaxMemoryPerUser";
    QosMinMem = 131, "WAIT_QOS_MIN_MEM", "QOSMinMemory";
    QosGrpEnergy = 132, "WAIT_QOS_GRP_ENERGY", "QOSGrpEnergy";
    QosGrpEnergyMin = 133, "WAIT_QOS_GRP_ENERGY_MIN", "QOSGrpEnergyMinutes";
    QosGrpEnergyRunMin = 134, "WAIT_QOS_GRP_ENERGY_RUN_MIN", "QOSGrpEnergyRunMinutes";
    QosMaxEnergyPerJob = 135, "WAIT_QOS_MAX_ENERGY_PER_JOB", "QOSMaxEnergyPerJob";
    QosMaxEnergyPerNode = 136, "WAIT_QOS_MAX_ENERGY_PER_NODE", "QOSMaxEnergyPerNode";
    QosMaxEnergyPerUser = 137, "WAIT_QOS_MAX_ENERGY_PER_USER", "QOSMaxEnergyPerUser";
    QosMaxEnergyMinsPerJob = 138, "WAIT_QOS_MAX_ENERGY_MINS_PER_JOB", "QOSMaxEnergyMinutesPerJob";
    QosMinEnergy = 139, "WAIT_QOS_MIN_ENERGY", "QOSMinEnergy";
    QosGrpNodeMin = 140, "WAIT_QOS_GRP_NODE_MIN", "QOSGrpNodeMinutes";
    QosGrpNodeRunMin = 141, "WAIT_QOS_GRP_NODE_RUN_MIN", "QOSGrpNodeRunMinutes";
    QosMaxNodeMinsPerJob = 142, "WAIT_QOS_MAX_NODE_MINS_PER_JOB", "QOSMaxNodeMinutesPerJob";
    QosMinNode = 143, "WAIT_QOS_MIN_NODE", "QOSMinNode";
    QosGrpGres = 144, "WAIT_QOS_GRP_GRES", "QOSGrpGRES";
    QosGrpGresMin = 145, "WAIT_QOS_GRP_GRES_MIN", "QOSGrpGRESMinutes";
    QosGrpGresRunMin = 146, "WAIT_QOS_GRP_GRES_RUN_MIN", "QOSGrpGRESRunMinutes";
    QosMaxGresPerJob = 147, "WAIT_QOS_MAX_GRES_PER_JOB", "QOSMaxGRESPerJob";
    QosMaxGresPerNode = 148, "WAIT_QOS_MAX_GRES_PER_NODE", "QOSMaxGRESPerNode";
    QosMaxGresPerUser = 149, "WAIT_QOS_MAX_GRES_PER_USER", "QOSMaxGRESPerUser";
    QosMaxGresMinsPerJob = 150, "WAIT_QOS_MAX_GRES_MINS_PER_JOB", "QOSMaxGRESMinutesPerJob";
    QosMinGres = 151, "WAIT_QOS_MIN_GRES", "QOSMinGRES";
    QosGrpLic = 152, "WAIT_QOS_GRP_LIC", "QOSGrpLicense";
    QosGrpLicMin = 153, "WAIT_QOS_GRP_LIC_MIN", "QOSGrpLicenseMinutes";
    QosGrpLicRunMin = 154, "WAIT_QOS_GRP_LIC_RUN_MIN", "QOSGrpLicenseRunMinutes";
    QosMaxLicPerJob = 155, "WAIT_QOS_MAX_LIC_PER_JOB", "QOSMaxLicensePerJob";
    QosMaxLicPerUser = 156, "WAIT_QOS_MAX_LIC_PER_USER", "QOSMaxLicensePerUser";
    QosMaxLicMinsPerJob = 157, "WAIT_QOS_MAX_LIC_MINS_PER_JOB", "QOSMaxLicenseMinutesPerJob";
    QosMinLic = 158, "WAIT_QOS_MIN_LIC", "QOSMinLicense";
    QosGrpBb = 159, "WAIT_QOS_GRP_BB", "QOSGrpBB";
    QosGrpBbMin = 160, "WAIT_QOS_GRP_BB_MIN", "QOSGrpBBMinutes";
    QosGrpBbRunMin = 161, "WAIT_QOS_GRP_BB_RUN_MIN", "QOSGrpBBRunMinutes";
    QosMaxBbPerJob = 162, "WAIT_QOS_MAX_BB_PER_JOB", "QOSMaxBBPerJob";
    QosMaxBbPerNode = 163, "WAIT_QOS_MAX_BB_PER_NODE", "QOSMaxBBPerNode";
    QosMaxBbPerUser = 164, "WAIT_QOS_MAX_BB_PER_USER", "QOSMaxBBPerUser";
    QosMaxBbMinsPerJob = 165, "WAIT_QOS_MAX_BB_MINS_PER_JOB", "AssocMaxBBMinutesPerJob";
    QosMinBb = 166, "WAIT_QOS_MIN_BB", "QOSMinBB";
    FailDeadline = 167, "FAIL_DEADLINE", "DeadLine";
    QosMaxBbPerAcct = 168, "WAIT_QOS_MAX_BB_PER_ACCT", "MaxBBPerAccount";
    QosMaxCpuPerAcct = 169, "WAIT_QOS_MAX_CPU_PER_ACCT", "MaxCpuPerAccount";
    QosMaxEnergyPerAcct = 170, "WAIT_QOS_MAX_ENERGY_PER_ACCT", "MaxEnergyPerAccount";
    QosMaxGresPerAcct = 171, "WAIT_QOS_MAX_GRES_PER_ACCT", "MaxGRESPerAccount";
    QosMaxNodePerAcct = 172, "WAIT_QOS_MAX_NODE_PER_ACCT", "MaxNodePerAccount";
    QosMaxLicPerAcct = 173, "WAIT_QOS_MAX_LIC_PER_ACCT", "MaxLicensePerAccount";
    QosMaxMemPerAcct = 174, "WAIT_QOS_MAX_MEM_PER_ACCT", "MaxMemoryPerAccount";
    QosMaxUnkPerAcct = 175, "WAIT_QOS_MAX_UNK_PER_ACCT", "MaxUnknownPerAccount";
    QosMaxJobPerAcct = 176, "WAIT_QOS_MAX_JOB_PER_ACCT", "MaxJobsPerAccount";
    QosMaxSubJobPerAcct = 177, "WAIT_QOS_MAX_SUB_JOB_PER_ACCT", "MaxSubmitJobsPerAccount";
    PartConfig = 178, "WAIT_PART_CONFIG", "PartitionConfig";
    AccountPolicy = 179, "WAIT_ACCOUNT_POLICY", "AccountingPolicy";
    FedJobLock = 180, "WAIT_FED_JOB_LOCK", "FedJobLock";
    FailOom = 181, "FAIL_OOM", "OutOfMemory";
    PnMemLimit = 182, "WAIT_PN_MEM_LIMIT", "MaxMemPerLimit";
    AssocGrpBilling = 183, "WAIT_ASSOC_GRP_BILLING", "AssocGrpBilling";
    AssocGrpBillingMin = 184, "WAIT_ASSOC_GRP_BILLING_MIN", "AssocGrpBillingMinutes";
    AssocGrpBillingRunMin = 185, "WAIT_ASSOC_GRP_BILLING_RUN_MIN", "AssocGrpBillingRunMinutes";
    AssocMaxBillingPerJob = 186, "WAIT_ASSOC_MAX_BILLING_PER_JOB", "AssocMaxBillingPerJob";
    AssocMaxBillingPerNode = 187, "WAIT_ASSOC_MAX_BILLING_PER_NODE", "AssocMaxBillingPerNode";
    AssocMaxBillingMinsPerJob = 188, "WAIT_ASSOC_MAX_BILLING_MINS_PER_JOB", "AssocMaxBillingMinutesPerJob";
    QosGrpBilling = 189, "WAIT_QOS_GRP_BILLING", "QOSGrpBilling";
    QosGrpBillingMin = 190, "WAIT_QOS_GRP_BILLING_MIN", "QOSGrpBillingMinutes";
    QosGrpBillingRunMin = 191, "WAIT_QOS_GRP_BILLING_RUN_MIN", "QOSGrpBillingRunMinutes";
    QosMaxBillingPerJob = 192, "WAIT_QOS_MAX_BILLING_PER_JOB", "QOSMaxBillingPerJob";
    QosMaxBillingPerNode = 193, "WAIT_QOS_MAX_BILLING_PER_NODE", "QOSMaxBillingPerNode";
    QosMaxBillingPerUser = 194, "WAIT_QOS_MAX_BILLING_PER_USER", "QOSMaxBillingPerUser";
    QosMaxBillingMinsPerJob = 195, "WAIT_QOS_MAX_BILLING_MINS_PER_JOB", "QOSMaxBillingMinutesPerJob";
    QosMaxBillingPerAcct = 196, "WAIT_QOS_MAX_BILLING_PER_ACCT", "MaxBillingPerAccount";
    QosMinBilling = 197, "WAIT_QOS_MIN_BILLING", "QOSMinBilling";
    ResvDeleted = 198, "WAIT_RESV_DELETED", "ReservationDeleted";
}

impl JobReason {
    /// The reason for Slurm's value, `None` past the last one 22.05 knows.
    pub fn from_raw(raw: u32) -> Option<Self> {
        usize::try_from(raw)
            .ok()
            .and_then(|i| Self::ALL.get(i))
            .copied()
    }

    pub fn as_raw(self) -> u32 {
        self as u32
    }

    /// `job_reason_num()`: case-insensitive lookup by printed name, first match in enum order. `SchedDefer` is not
    /// recognised, as in Slurm.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|r| *r != Self::FailDefer && r.name().eq_ignore_ascii_case(name))
    }

    /// True for the `FAIL_*` reasons, which explain why a job ended rather than why it waits.
    pub fn is_failure(self) -> bool {
        self.c_name().starts_with("FAIL_")
    }
}

/// `job_reason_string()` for any wire value: unknown values print as their number, as Slurm does.
pub fn reason_string(raw: u32) -> Cow<'static, str> {
    JobReason::from_raw(raw)
        .map_or_else(|| Cow::Owned(raw.to_string()), |r| Cow::Borrowed(r.name()))
}

impl fmt::Display for JobReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_reasons() {
        assert_eq!(JobReason::NoReason.name(), "None");
        assert_eq!(JobReason::Held.name(), "JobHeldAdmin");
        assert_eq!(JobReason::DepInvalid.name(), "DependencyNeverSatisfied");
        assert_eq!(
            JobReason::from_name("resources"),
            Some(JobReason::Resources)
        );
        assert_eq!(JobReason::from_name("SchedDefer"), None);
    }

    #[test]
    fn unknown_values_print_as_numbers() {
        assert_eq!(reason_string(3), "Resources");
        assert_eq!(reason_string(999), "999");
    }

    #[test]
    fn serde_uses_c_names() {
        assert_eq!(
            serde_json::to_string(&JobReason::PartConfig).unwrap(),
            r#""WAIT_PART_CONFIG""#
        );
        assert_eq!(
            serde_json::from_str::<JobReason>(r#""FAIL_OOM""#).unwrap(),
            JobReason::FailOom
        );
    }

    #[test]
    fn failure_reasons() {
        assert!(JobReason::FailExitCode.is_failure());
        assert!(!JobReason::Priority.is_failure());
    }
}
