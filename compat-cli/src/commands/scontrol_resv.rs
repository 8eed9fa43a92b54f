//! `scontrol create|update|delete reservation` and `scontrol show reservation`, with Slurm 22.05's messages. The
//! arguments are read here (times against this host's clock, as scontrol does); the controller checks the rest.

use spur_core::format::scontrol_reservation;
use spur_core::grammar::values::begin::{parse_time, LocalNow};
use spur_core::grammar::values::time::{parse_time_limit, TimeLimit};
use spur_core::model::reservation::{ReservationFlag, ReservationRequest, UNLIMITED_DURATION_MIN};
use spur_core::wire::api::{ControlRequest, Query, QueryReply, SlurmErrno};

use super::scontrol::Flags;
use crate::client::{Client, ClientError};
use crate::config;

/// Why a create or update was refused before anything was sent: the lines scontrol prints on stderr.
#[derive(Debug, PartialEq, Eq)]
struct Refused(Vec<String>);

impl Refused {
    fn one(text: impl Into<String>) -> Self {
        Refused(vec![text.into()])
    }
}

/// Which command the arguments are for: the wording of some messages differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verb {
    Create,
    Update,
}

impl Verb {
    fn suffix(self) -> &'static str {
        match self {
            Verb::Create => "No reservation created.",
            Verb::Update => "No reservation update.",
        }
    }
}

/// Reads `Key=Value` words into a request, as scontrol's parser does.
fn parse(words: &[&str], verb: Verb, now: LocalNow) -> Result<ReservationRequest, Refused> {
    let mut request = ReservationRequest::default();
    let list = |v: &str| {
        v.split(',')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    };
    for word in words {
        let Some((key, value)) = word.split_once('=') else {
            return Err(unknown(word, verb));
        };
        let (key, clear) = match key.strip_suffix('-') {
            Some(k) => (k, true),
            None => (key.strip_suffix('+').unwrap_or(key), false),
        };
        match key.to_ascii_lowercase().as_str() {
            "reservationname" | "reservation" | "resv" => request.name = Some(value.to_string()),
            "starttime" => {
                request.start = Some(match parse_time(value, now, false) {
                    Ok(t) if t != 0 => t,
                    Ok(_) => return Err(bad_start(word, verb, None)),
                    Err(e) => return Err(bad_start(word, verb, Some(e.to_string()))),
                })
            }
            "endtime" => {
                request.end = Some(match parse_time(value, now, false) {
                    Ok(t) if t != 0 => t,
                    Ok(_) => {
                        return Err(Refused::one(format!(
                            "Invalid end time {word}.  {}",
                            verb.suffix()
                        )))
                    }
                    Err(e) => {
                        return Err(Refused(vec![
                            e.to_string(),
                            format!("Invalid end time {word}.  {}", verb.suffix()),
                        ]))
                    }
                })
            }
            "duration" => {
                request.duration_min = Some(match parse_time_limit(value) {
                    Ok(TimeLimit::Minutes(m)) => m,
                    Ok(TimeLimit::Unlimited) => UNLIMITED_DURATION_MIN,
                    Err(_) => {
                        return Err(Refused::one(format!(
                            "Invalid duration {word}.  {}",
                            verb.suffix()
                        )))
                    }
                })
            }
            "nodes" | "nodelist" => request.nodes = Some(value.to_string()),
            "nodecnt" | "nodecount" => match value.parse() {
                Ok(n) => request.node_count = Some(n),
                Err(_) => return Err(Refused::one(format!("Invalid node count {value}"))),
            },
            "users" | "user" => request.users = Some(list(value)),
            "accounts" | "account" => request.accounts = Some(list(value)),
            "partitionname" | "partition" => request.partition = Some(value.to_string()),
            "flags" | "flag" => match ReservationFlag::parse_list(value) {
                Ok(flags) if clear => request.flags_clear = flags,
                Ok(flags) => request.flags_set = flags,
                Err(given) => {
                    return Err(Refused::one(format!(
                        "Error parsing flags {given}.  {}",
                        verb.suffix()
                    )))
                }
            },
            _ => return Err(unknown(word, verb)),
        }
    }
    Ok(request)
}

fn unknown(word: &str, verb: Verb) -> Refused {
    Refused::one(format!("Unknown parameter {word}.  {}", verb.suffix()))
}

fn bad_start(word: &str, verb: Verb, detail: Option<String>) -> Refused {
    let mut lines: Vec<String> = detail.into_iter().collect();
    lines.push(format!("Invalid start time {word}.  {}", verb.suffix()));
    Refused(lines)
}

/// What a create must name before it is sent, checked in scontrol's order.
fn check_create(request: &ReservationRequest) -> Result<(), Refused> {
    let suffix = Verb::Create.suffix();
    let Some(start) = request.start else {
        return Err(Refused::one(format!(
            "A start time must be given.  {suffix}"
        )));
    };
    if request.end.is_none() && request.duration_min.is_none() {
        return Err(Refused::one(format!(
            "An end time or duration must be given.  {suffix}"
        )));
    }
    if request.end.is_some_and(|end| start > end) {
        return Err(Refused::one(format!(
            "Start time cannot be after end time.  {suffix}"
        )));
    }
    if request.nodes.is_none() && request.node_count.is_none() {
        return Err(Refused::one(format!(
            "CoreCnt, Nodes, NodeCnt, BurstBuffer, Licenses or Watts must be specified.  {suffix}"
        )));
    }
    let none = |l: &Option<Vec<String>>| l.as_ref().is_none_or(Vec::is_empty);
    if none(&request.users) && none(&request.accounts) {
        return Err(Refused::one(format!(
            "Either Users/Groups and/or Accounts must be specified.  {suffix}"
        )));
    }
    Ok(())
}

fn local_now() -> LocalNow {
    LocalNow {
        epoch_secs: config::now_epoch(),
        utc_offset_secs: config::utc_offset_secs(),
    }
}

fn print_refused(refused: &Refused) {
    for line in &refused.0 {
        if line.starts_with("Invalid time specification") {
            eprintln!("{line}");
        } else {
            eprintln!("scontrol: error: {line}");
        }
    }
}

fn client(prefix: &str) -> Option<Client> {
    match Client::from_environment() {
        Ok(c) => Some(c),
        Err(e) => {
            eprintln!("{prefix}: {e}");
            None
        }
    }
}

fn error_text(e: &ClientError) -> String {
    match e {
        ClientError::Api(api) => api.errno.text().to_string(),
        other => other.to_string(),
    }
}

/// `scontrol create reservation KEY=VALUE...`.
pub fn create(words: &[&str]) -> u8 {
    let request = match parse(words, Verb::Create, local_now()).and_then(|r| {
        check_create(&r)?;
        Ok(r)
    }) {
        Ok(r) => r,
        Err(refused) => {
            print_refused(&refused);
            return 1;
        }
    };
    let Some(client) = client("Error creating the reservation") else {
        return 1;
    };
    match client.control(&ControlRequest::CreateReservation { request }) {
        Ok(reply) => {
            println!(
                "Reservation created: {}",
                reply.reservation.unwrap_or_default()
            );
            0
        }
        Err(e) => {
            if let ClientError::Api(api) = &e {
                if matches!(
                    api.errno,
                    SlurmErrno::NodesBusy | SlurmErrno::RequestedPartConfigUnavailable
                ) {
                    println!("Note, unless nodes are directly requested a reservation must exist in a single partition.");
                    println!("If no partition is requested the default partition is assumed.");
                }
            }
            eprintln!("Error creating the reservation: {}", error_text(&e));
            1
        }
    }
}

/// `scontrol update ReservationName=NAME KEY=VALUE...`.
pub fn update(words: &[&str]) -> u8 {
    // `update reservation ReservationName=...` names the entity first, as Slurm allows.
    let words: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| !(w.len() >= 3 && "reservation".starts_with(&w.to_ascii_lowercase())))
        .collect();
    let request = match parse(&words, Verb::Update, local_now()) {
        Ok(r) => r,
        Err(refused) => {
            print_refused(&refused);
            eprintln!("slurm_update error: No error");
            return 1;
        }
    };
    let Some(client) = client("slurm_update error") else {
        return 1;
    };
    match client.control(&ControlRequest::UpdateReservation { request }) {
        Ok(_) => {
            println!("Reservation updated.");
            0
        }
        Err(e) => {
            let text = error_text(&e);
            eprintln!("Error updating the reservation: {text}");
            eprintln!("slurm_update error: {text}");
            1
        }
    }
}

/// `scontrol delete reservation NAME` or `delete ReservationName=NAME`; `tag` is the word after `delete`, which
/// Slurm repeats in its error line.
pub fn delete(tag: &str, name: &str) -> u8 {
    let prefix = format!("delete_reservation {tag}");
    let Some(client) = client(&prefix) else {
        return 1;
    };
    match client.control(&ControlRequest::DeleteReservation {
        name: name.to_string(),
    }) {
        Ok(_) => 0,
        Err(e) => {
            eprintln!("{prefix}: {}", error_text(&e));
            1
        }
    }
}

/// Every reservation and the controller's clock.
pub fn load(prefix: &str) -> Option<(Vec<spur_core::model::reservation::ReservationRecord>, i64)> {
    let client = client(prefix)?;
    match client.query(&Query::Reservations) {
        Ok(QueryReply::Reservations { reservations, now }) => Some((reservations, now)),
        Ok(_) => None,
        Err(e) => {
            eprintln!("{prefix}: {e}");
            None
        }
    }
}

/// `scontrol show reservation [NAME]`.
pub fn show(name: Option<&str>, flags: Flags) -> u8 {
    let Some((reservations, now)) = load("slurm_load_reservations error") else {
        return 1;
    };
    let selected: Vec<_> = reservations
        .into_iter()
        .filter(|r| name.is_none_or(|n| r.name == n))
        .collect();
    if selected.is_empty() {
        if let Some(name) = name {
            println!("Reservation {name} not found");
            return 1;
        }
        print!("{}", scontrol_reservation::NONE_TEXT);
        return 0;
    }
    let ctx = config::format_context(now, std::iter::empty());
    print!(
        "{}",
        scontrol_reservation::render(&selected, flags.one_liner, &ctx)
    );
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: LocalNow = LocalNow {
        epoch_secs: 1_796_131_587,
        utc_offset_secs: 0,
    };

    #[test]
    fn create_arguments() {
        let r = parse(
            &[
                "ReservationName=r1",
                "StartTime=now+1hour",
                "Duration=1-02:03:04",
                "Nodes=n[1-2]",
                "users=root,alice",
                "Flags=MAINT,ignore_jobs",
            ],
            Verb::Create,
            NOW,
        )
        .unwrap();
        assert_eq!(r.name.as_deref(), Some("r1"));
        assert_eq!(r.start, Some(NOW.epoch_secs + 3600));
        assert_eq!(r.duration_min, Some(26 * 60 + 4));
        assert_eq!(r.users, Some(vec!["root".to_string(), "alice".to_string()]));
        assert_eq!(
            r.flags_set,
            vec![ReservationFlag::Maint, ReservationFlag::IgnoreJobs]
        );
        assert_eq!(check_create(&r), Ok(()));
        let unlimited = parse(&["Duration=UNLIMITED"], Verb::Create, NOW).unwrap();
        assert_eq!(unlimited.duration_min, Some(UNLIMITED_DURATION_MIN));
    }

    /// Texts as Slurm 22.05's scontrol prints them.
    #[test]
    fn refusals_read_like_scontrol() {
        let err = |words: &[&str], verb| parse(words, verb, NOW).unwrap_err().0;
        assert_eq!(
            err(&["Bogus=1"], Verb::Create),
            vec!["Unknown parameter Bogus=1.  No reservation created."]
        );
        assert_eq!(
            err(&["Bogus=3"], Verb::Update),
            vec!["Unknown parameter Bogus=3.  No reservation update."]
        );
        assert_eq!(
            err(&["StartTime=xyz"], Verb::Create),
            vec![
                "Invalid time specification (pos=0): xyz",
                "Invalid start time StartTime=xyz.  No reservation created."
            ]
        );
        assert_eq!(
            err(&["Duration=abc"], Verb::Create),
            vec!["Invalid duration Duration=abc.  No reservation created."]
        );
        assert_eq!(
            err(&["NodeCnt=x"], Verb::Create),
            vec!["Invalid node count x"]
        );
        assert_eq!(
            err(&["Flags=BOGUS"], Verb::Create),
            vec!["Error parsing flags BOGUS.  No reservation created."]
        );
        let checked = |words: &[&str]| check_create(&parse(words, Verb::Create, NOW).unwrap());
        assert_eq!(
            checked(&["Duration=10", "Nodes=vm", "Users=root"]),
            Err(Refused::one(
                "A start time must be given.  No reservation created."
            ))
        );
        assert_eq!(
            checked(&["StartTime=now", "Nodes=vm", "Users=root"]),
            Err(Refused::one(
                "An end time or duration must be given.  No reservation created."
            ))
        );
        assert_eq!(
            checked(&[
                "StartTime=now+2days",
                "EndTime=now+1day",
                "Nodes=vm",
                "Users=root"
            ]),
            Err(Refused::one(
                "Start time cannot be after end time.  No reservation created."
            ))
        );
        assert_eq!(
            checked(&["StartTime=now", "Duration=10", "Users=root"]),
            Err(Refused::one(
                "CoreCnt, Nodes, NodeCnt, BurstBuffer, Licenses or Watts must be specified.  No reservation created."
            ))
        );
        assert_eq!(
            checked(&["StartTime=now", "Duration=10", "Nodes=vm"]),
            Err(Refused::one(
                "Either Users/Groups and/or Accounts must be specified.  No reservation created."
            ))
        );
    }
}
