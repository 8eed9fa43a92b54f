//! `scontrol update NodeName=...`, `scontrol create NodeName=...` and `scontrol delete NodeName=LIST`: the
//! controller decides (see controller/src/state/nodes.rs and node_admin.rs); Slurm's extra first line
//! (`scontrol: error: ...`) comes back as the error's detail.

use spur_core::wire::api::{ControlRequest, NodeUpdateState, SlurmErrno};

use crate::client::{Client, ClientError};

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
            if let Some(detail) = &error.detail {
                eprintln!("scontrol: error: {detail}");
            }
            eprintln!("{prefix}: {}", error.errno.text());
            1
        }
        Err(e) => {
            eprintln!("{prefix}: {e}");
            1
        }
    }
}

/// `scontrol create NodeName=NAME [Key=Value...]`.
pub fn create(words: &[&str]) -> u8 {
    send(
        ControlRequest::CreateNode {
            definition: words.join(" "),
        },
        "Error creating the node(s)",
    )
}

/// `scontrol delete NodeName=LIST`; `tag` is the entity as typed, which Slurm's error line repeats.
pub fn delete(tag: &str, nodes: &str) -> u8 {
    send(
        ControlRequest::DeleteNode {
            nodes: nodes.to_string(),
        },
        &format!("delete_node {tag}"),
    )
}

/// `scontrol update NodeName=LIST [State=...] [Reason=...] [Weight=N] [Features=LIST] [ActiveFeatures=LIST]`, the words (key as typed, value) in the
/// order given. As Slurm's scontrol, a bad `Weight=` is reported and ends the reading of the words: what came
/// before it is still sent, and when nothing did the answer is "No changes specified".
pub fn update(nodes: &str, words: &[(&str, &str)]) -> u8 {
    let names = match spur_core::grammar::hostlist::expand(nodes) {
        Ok(names) => names,
        Err(e) => {
            eprintln!("{e}");
            return 1;
        }
    };
    let mut state = None;
    let mut reason = None;
    let mut weight = None;
    let mut features = None;
    let mut active_features = None;
    for (key, value) in words {
        let lower = key.to_ascii_lowercase();
        match lower.as_str() {
            "state" => {
                state = Some(match value.to_ascii_uppercase().as_str() {
                    "DRAIN" => NodeUpdateState::Drain,
                    "RESUME" => NodeUpdateState::Resume,
                    "DOWN" => NodeUpdateState::Down,
                    "IDLE" => NodeUpdateState::Idle,
                    "UNDRAIN" => NodeUpdateState::Undrain,
                    other => {
                        eprintln!("Invalid node state specified");
                        eprintln!("Request aborted ({other})");
                        return 1;
                    }
                })
            }
            "reason" => reason = Some(value.to_string()),
            // Slurm takes a leading part of the key: three letters of ActiveFeatures and AvailableFeatures, one of
            // Features.
            _ if lower.len() >= 3 && "activefeatures".starts_with(&lower) => {
                active_features = Some(spur_core::wire::api::feature_list(value));
            }
            _ if !lower.is_empty() && "features".starts_with(&lower)
                || lower.len() >= 3 && "availablefeatures".starts_with(&lower) =>
            {
                features = Some(spur_core::wire::api::feature_list(value));
            }
            // Slurm takes any leading part of the key ("W=" included).
            _ if !lower.is_empty() && "weight".starts_with(&lower) => match parse_weight(value) {
                Ok(w) => weight = Some(w),
                Err(text) => {
                    eprintln!("scontrol: error: {text}");
                    break;
                }
            },
            _ => {}
        }
    }
    if state.is_none() && weight.is_none() && features.is_none() && active_features.is_none() {
        eprintln!("No changes specified");
        return 1;
    }
    let Some(client) = client_or_report("slurm_update error") else {
        return 1;
    };
    match client.control(&ControlRequest::UpdateNode {
        nodes: names,
        state,
        reason,
        weight,
        features,
        active_features,
    }) {
        Ok(_) => 0,
        Err(ClientError::Api(error)) => {
            match error.detail.filter(|_| error.errno == SlurmErrno::Error) {
                Some(detail) => eprintln!("{detail}"),
                None => eprintln!("slurm_update error: {}", error.errno.text()),
            }
            1
        }
        Err(e) => {
            eprintln!("slurm_update error: {e}");
            1
        }
    }
}

fn client_or_report(prefix: &str) -> Option<Client> {
    match Client::from_environment() {
        Ok(c) => Some(c),
        Err(e) => {
            eprintln!("{prefix}: {e}");
            None
        }
    }
}

/// The largest weight Slurm's scontrol accepts.
const MAX_WEIGHT: u64 = 0xffff_fff0;

/// Slurm's scontrol reading of `Weight=`: C's `strtoul` with base 0, an optional `k`/`K` that multiplies by
/// 1024, or `UNLIMITED`/`INFINITE`; the checks in scontrol's order. The error is the text after
/// `scontrol: error: `.
fn parse_weight(value: &str) -> Result<u32, String> {
    let (mut num, end, out_of_range) = strtoul(value);
    let mut rest = &value[end..];
    if let Some(after) = rest.strip_prefix(['k', 'K']) {
        num = num.wrapping_mul(1024);
        rest = after;
    }
    if !rest.is_empty() {
        if value.eq_ignore_ascii_case("UNLIMITED") || value.eq_ignore_ascii_case("INFINITE") {
            return Ok(u32::MAX);
        }
        return Err(format!("Weight value ({value}) is not a valid number"));
    }
    if out_of_range {
        return Err(format!("Weight value ({value}) is out of range"));
    }
    // scontrol looks only at the first character: " -1" wraps around instead, and is then too large.
    if value.starts_with('-') {
        return Err(format!("Weight value ({value}) is less than zero"));
    }
    match u32::try_from(num) {
        Ok(weight) if u64::from(weight) <= MAX_WEIGHT => Ok(weight),
        _ => Err(format!(
            "Weight value ({value}) is greater than {MAX_WEIGHT}"
        )),
    }
}

/// C's `strtoul(text, &end, 0)` on a 64-bit system: leading blanks, a sign, `0x` (hex) or `0` (octal) or decimal
/// digits. Returns the number (a minus sign wraps it around), where the number ended (0 when there were no
/// digits), and whether it overflowed (ERANGE, the number then being the maximum).
fn strtoul(text: &str) -> (u64, usize, bool) {
    let start = text.len() - text.trim_start().len();
    let mut i = start;
    let bytes = text.as_bytes();
    let negative = match bytes.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let hex_prefix = matches!(bytes.get(i..i + 2), Some([b'0', b'x' | b'X']))
        && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
    let radix = if hex_prefix {
        i += 2;
        16
    } else if bytes.get(i) == Some(&b'0') {
        8
    } else {
        10
    };
    let digits_end = text[i..]
        .find(|c: char| !c.is_digit(radix))
        .map_or(text.len(), |n| i + n);
    if digits_end == i {
        return (0, 0, false);
    }
    match u64::from_str_radix(&text[i..digits_end], radix) {
        Ok(n) if negative => (n.wrapping_neg(), digits_end, false),
        Ok(n) => (n, digits_end, false),
        Err(_) => (u64::MAX, digits_end, true),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_weight;

    #[test]
    fn weights_read_as_slurms_scontrol_reads_them() {
        assert_eq!(parse_weight("10000"), Ok(10000));
        assert_eq!(parse_weight("0"), Ok(0));
        assert_eq!(parse_weight("2k"), Ok(2048));
        assert_eq!(parse_weight("0x10"), Ok(16));
        assert_eq!(parse_weight("010"), Ok(8));
        assert_eq!(parse_weight("unlimited"), Ok(u32::MAX));
        assert_eq!(parse_weight("4294967280"), Ok(0xffff_fff0));
        assert_eq!(
            parse_weight("abc"),
            Err("Weight value (abc) is not a valid number".to_string())
        );
        assert_eq!(
            parse_weight("5x"),
            Err("Weight value (5x) is not a valid number".to_string())
        );
        // strtoul finds no digits and stops at the start, which ends the text, or a `k` that ends it.
        assert_eq!(parse_weight(""), Ok(0));
        assert_eq!(parse_weight("k"), Ok(0));
        assert_eq!(
            parse_weight(" -1"),
            Err("Weight value ( -1) is greater than 4294967280".to_string())
        );
        assert_eq!(
            parse_weight("99999999999999999999x"),
            Err("Weight value (99999999999999999999x) is not a valid number".to_string())
        );
        assert_eq!(
            parse_weight("-1"),
            Err("Weight value (-1) is less than zero".to_string())
        );
        assert_eq!(
            parse_weight("4294967281"),
            Err("Weight value (4294967281) is greater than 4294967280".to_string())
        );
        assert_eq!(
            parse_weight("99999999999999999999"),
            Err("Weight value (99999999999999999999) is out of range".to_string())
        );
    }
}
