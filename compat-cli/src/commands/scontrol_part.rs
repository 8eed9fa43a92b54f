//! `scontrol create|update|delete PartitionName=...`: the options read as Slurm's scontrol reads them (same keys,
//! same refusals and texts), sent as one `PartitionSpec`.

use spur_core::grammar::conf::PartitionState as ConfState;
use spur_core::grammar::values::time::{parse_time_limit, TimeLimit};
use spur_core::model::partition_spec::{access_list, PartitionSpec};
use spur_core::model::records::{PartitionState, PreemptMode};
use spur_core::wire::api::ControlRequest;

use crate::client::{Client, ClientError};

/// A refused option: the lines scontrol prints (after `scontrol: error: `), and whether `update` follows them with
/// `slurm_update error: No error` (slurm's numeric parse errors exit before that line).
#[derive(Debug, PartialEq)]
pub struct OptionError {
    pub lines: Vec<String>,
    pub trailer: bool,
}

impl OptionError {
    fn new(lines: Vec<String>) -> Self {
        OptionError {
            lines,
            trailer: true,
        }
    }
}

fn yes_no(key: &str, canon: &str, value: &str) -> Result<bool, OptionError> {
    if value.eq_ignore_ascii_case("YES") {
        Ok(true)
    } else if value.eq_ignore_ascii_case("NO") {
        Ok(false)
    } else {
        Err(OptionError::new(vec![
            format!("Invalid input: {key}={value}"),
            format!("Acceptable {canon} values are YES and NO"),
        ]))
    }
}

fn number(canon: &str, value: &str) -> Result<u32, OptionError> {
    value.parse().map_err(|_| OptionError {
        lines: vec![format!("Invalid numeric value \"{value}\" for {canon}.")],
        trailer: false,
    })
}

fn unlimited(value: &str) -> bool {
    value.eq_ignore_ascii_case("UNLIMITED") || value.eq_ignore_ascii_case("INFINITE")
}

fn minutes(key: &str, value: &str) -> Result<Option<u32>, OptionError> {
    match parse_time_limit(value) {
        Ok(TimeLimit::Minutes(m)) => Ok(Some(m)),
        Ok(TimeLimit::Unlimited) => Ok(None),
        Err(_) => Err(OptionError::new(vec![format!(
            "Invalid input {key}={value}"
        )])),
    }
}

/// `NO`, `EXCLUSIVE`, `YES[:N]`, `FORCE[:N]` (N defaults to 4), as `scontrol show partition` prints them back.
fn oversubscribe(key: &str, value: &str) -> Result<String, OptionError> {
    let upper = value.to_ascii_uppercase();
    let (kind, count) = match upper.split_once(':') {
        Some((kind, n)) => (kind, n.parse::<u16>().ok()),
        None => (upper.as_str(), Some(4)),
    };
    match (kind, count) {
        ("NO", _) => Ok("NO".to_string()),
        ("EXCLUSIVE", _) => Ok("EXCLUSIVE".to_string()),
        ("YES" | "FORCE", Some(n)) if n >= 1 => Ok(format!("{kind}:{n}")),
        _ => Err(OptionError::new(vec![
            format!("Invalid input: {key}={value}"),
            "Acceptable OverSubscribe values are NO, EXCLUSIVE, YES:#, and FORCE:#".to_string(),
        ])),
    }
}

/// Reads `Key=Value` words (PartitionName among them) into a spec.
pub fn parse(words: &[&str]) -> Result<PartitionSpec, OptionError> {
    let mut spec = PartitionSpec::default();
    for word in words {
        let Some((key, value)) = word.split_once('=') else {
            return Err(OptionError::new(vec![format!(
                "Invalid input: {word}  Request aborted"
            )]));
        };
        match key.to_ascii_lowercase().as_str() {
            "partitionname" => spec.name = value.to_string(),
            "nodes" => spec.nodes = Some(value.to_string()),
            "maxtime" => spec.max_time_min = Some(minutes(key, value)?),
            "defaulttime" => spec.default_time_min = Some(minutes(key, value)?),
            "maxnodes" if unlimited(value) => spec.max_nodes = Some(None),
            "maxnodes" => spec.max_nodes = Some(Some(number("MaxNodes", value)?)),
            "minnodes" => spec.min_nodes = Some(number("MinNodes", value)?),
            "prioritytier" => spec.priority_tier = Some(number("PriorityTier", value)?),
            "priorityjobfactor" => {
                spec.priority_job_factor = Some(number("PriorityJobFactor", value)?)
            }
            "maxmempernode" if unlimited(value) => spec.max_mem_per_node_mb = Some(None),
            "maxmempernode" => {
                spec.max_mem_per_node_mb = Some(Some(u64::from(number("MaxMemPerNode", value)?)))
            }
            "defmempercpu" => {
                spec.def_mem_per_cpu_mb = Some(u64::from(number("DefMemPerCPU", value)?))
            }
            "defmempernode" => {
                spec.def_mem_per_node_mb = Some(u64::from(number("DefMemPerNode", value)?))
            }
            "default" => spec.default = Some(yes_no(key, "Default", value)?),
            "hidden" => spec.hidden = Some(yes_no(key, "Hidden", value)?),
            "rootonly" => spec.root_only = Some(yes_no(key, "RootOnly", value)?),
            "disablerootjobs" => {
                spec.disable_root_jobs = Some(yes_no(key, "DisableRootJobs", value)?)
            }
            "oversubscribe" | "shared" => spec.oversubscribe = Some(oversubscribe(key, value)?),
            "allowgroups" => spec.allow_groups = Some(access_list(value)),
            "allowaccounts" => spec.allow_accounts = Some(access_list(value)),
            "allowqos" => spec.allow_qos = Some(access_list(value)),
            "denyaccounts" => spec.deny_accounts = Some(Some(value.to_string())),
            "denyqos" => spec.deny_qos = Some(Some(value.to_string())),
            "preemptmode" => match PreemptMode::parse(value) {
                Some(mode) => spec.preempt_mode = Some(mode),
                None => {
                    return Err(OptionError::new(vec![format!(
                        "Invalid input: {key}={value}"
                    )]))
                }
            },
            "state" => match ConfState::parse(value) {
                Some(state) => {
                    spec.state = Some(match state {
                        ConfState::Up => PartitionState::Up,
                        ConfState::Down => PartitionState::Down,
                        ConfState::Drain => PartitionState::Drain,
                        ConfState::Inactive => PartitionState::Inactive,
                    })
                }
                None => {
                    return Err(OptionError::new(vec![
                        format!("Invalid input: {key}={value}"),
                        "Acceptable State values are UP, DOWN, DRAIN and INACTIVE".to_string(),
                    ]))
                }
            },
            _ => {
                return Err(OptionError::new(vec![
                    format!("Update of this parameter is not supported: {word}\n"),
                    "Request aborted".to_string(),
                ]))
            }
        }
    }
    Ok(spec)
}

fn print_option_error(error: &OptionError, update: bool) {
    for line in &error.lines {
        eprintln!("scontrol: error: {line}");
    }
    if update && error.trailer {
        eprintln!("slurm_update error: No error");
    }
}

fn send(request: ControlRequest, prefix: &str) -> u8 {
    let client = match Client::from_environment() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{prefix}: {e}");
            return 1;
        }
    };
    match client.control(&request) {
        Ok(_) => 0,
        Err(ClientError::Api(error)) => {
            eprintln!("{prefix}: {}", error.errno.text());
            1
        }
        Err(e) => {
            eprintln!("{prefix}: {e}");
            1
        }
    }
}

/// `scontrol create PartitionName=NAME [Key=Value...]`.
pub fn create(words: &[&str]) -> u8 {
    match parse(words) {
        Ok(spec) => send(
            ControlRequest::CreatePartition { spec },
            "Error creating the partition",
        ),
        Err(error) => {
            print_option_error(&error, false);
            1
        }
    }
}

/// `scontrol update PartitionName=NAME Key=Value...`.
pub fn update(words: &[&str]) -> u8 {
    match parse(words) {
        Ok(spec) if spec.changes_nothing() => {
            eprintln!("scontrol: error: No changes specified");
            1
        }
        Ok(spec) => send(
            ControlRequest::ModifyPartition { spec },
            "slurm_update error",
        ),
        Err(error) => {
            print_option_error(&error, true);
            1
        }
    }
}

/// `scontrol delete PartitionName=NAME`; `tag` is the entity as typed, which Slurm's error line repeats.
pub fn delete(tag: &str, name: &str) -> u8 {
    send(
        ControlRequest::DeletePartition {
            name: name.to_string(),
        },
        &format!("delete_partition {tag}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_as_scontrol_reads_them() {
        let spec = parse(&[
            "PartitionName=p2",
            "Nodes=n[1-2]",
            "MaxTime=1:00:00",
            "maxnodes=unlimited",
            "Default=yes",
            "OverSubscribe=force",
            "AllowGroups=ALL",
            "State=down",
        ])
        .unwrap();
        assert_eq!(spec.name, "p2");
        assert_eq!(spec.nodes.as_deref(), Some("n[1-2]"));
        assert_eq!(spec.max_time_min, Some(Some(60)));
        assert_eq!(spec.max_nodes, Some(None));
        assert_eq!(spec.default, Some(true));
        assert_eq!(spec.oversubscribe.as_deref(), Some("FORCE:4"));
        assert_eq!(spec.allow_groups, Some(None));
        assert_eq!(spec.state, Some(PartitionState::Down));
    }

    #[test]
    fn refusals_print_slurms_lines() {
        let err = parse(&["PartitionName=p", "maxtime=abc"]).unwrap_err();
        assert_eq!(err.lines, vec!["Invalid input maxtime=abc"]);
        assert!(err.trailer);
        let err = parse(&["PartitionName=p", "maxnodes=x"]).unwrap_err();
        assert_eq!(err.lines, vec!["Invalid numeric value \"x\" for MaxNodes."]);
        assert!(!err.trailer);
        let err = parse(&["PartitionName=p", "hidden=maybe"]).unwrap_err();
        assert_eq!(err.lines[1], "Acceptable Hidden values are YES and NO");
        let err = parse(&["PartitionName=p", "bogus=1"]).unwrap_err();
        assert_eq!(
            err.lines,
            vec![
                "Update of this parameter is not supported: bogus=1\n",
                "Request aborted"
            ]
        );
        assert!(parse(&["PartitionName=p", "oversubscribe=yes:0"]).is_err());
    }
}
