//! `sattach JOB.STEP`: attaches to a running step's standard streams. sattach listens on a port with a random key
//! and asks the controller (`Query::AttachStep`) to have each node of the step connect to it; each node's step
//! supervisor then sends its recent and new output and its tasks' ends, and takes stdin for its tasks. sattach
//! ends when every node's tasks ended. Messages and exit codes are Slurm 22.05's.

use std::collections::BTreeMap;
use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use spur_core::grammar::options::query::{Parsed, SATTACH};
use spur_core::model::states::JobBaseState;
use spur_core::model::step::StepRecord;
use spur_core::model::step_exit::TaskEnd;
use spur_core::wire::api::{ApiError, JobListing, Query, QueryReply, SlurmErrno};
use spur_core::wire::step_io::{Frame, Kind, STDERR};

use super::interactive::io::{label, Sink, StreamWriter};
use super::interactive::remote::{greet, listen_for_nodes};
use super::interactive::ClusterFacts;
use crate::client::{Client, ClientError};

/// How long sattach waits for every node of the step to call.
const CONNECT_WAIT: Duration = Duration::from_secs(10);
/// How long a connection has to present the key.
const HELLO_WAIT: Duration = Duration::from_secs(5);

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Options {
    job_id: u32,
    step: StepName,
    label: bool,
    layout: bool,
    quiet: bool,
    input_filter: Option<u32>,
    output_filter: Option<u32>,
    error_filter: Option<u32>,
}

/// The step part of `JOB.STEP`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum StepName {
    #[default]
    Batch,
    Extern,
    Numbered(u32),
}

/// Why the command line is refused: the text and whether the usage line follows.
#[derive(Debug, PartialEq, Eq)]
struct Refusal {
    text: String,
    usage: bool,
}

impl Refusal {
    fn error(text: impl Into<String>, usage: bool) -> Refusal {
        Refusal {
            text: format!("sattach: error: {}", text.into()),
            usage,
        }
    }
}

pub fn run(args: &[String]) -> u8 {
    // sattach stops reading options at the step id, as getopt does when POSIXLY_CORRECT.
    let cut = first_operand(args);
    let parsed = match super::parse_or_finish(&SATTACH, &args[..cut]) {
        Ok(p) => p,
        Err(status) => return status,
    };
    if parsed.has("help") {
        print!("{}", SATTACH.help_text());
        return 0;
    }
    if parsed.has("usage") {
        print!("{}", SATTACH.usage_text());
        return 0;
    }
    let options = match options(&parsed, &args[cut..]) {
        Ok(o) => o,
        Err(refusal) => {
            eprintln!("{}", refusal.text);
            // Slurm prints the usage line on stdout.
            if refusal.usage {
                print!("{}", SATTACH.usage_text());
            }
            return 1;
        }
    };
    let client = match Client::from_environment() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("sattach: error: {e}");
            return 1;
        }
    };
    let step = match find_step(&client, &options) {
        Ok(step) => step,
        Err(text) => {
            eprintln!("sattach: error: Could not get job step info: {text}");
            return 1;
        }
    };
    if options.layout {
        print!("{}", step.layout_report());
        return 0;
    }
    attach(&client, &options, &step)
}

/// The index of the first operand: options before it, the step id and anything after it operands.
fn first_operand(args: &[String]) -> usize {
    let takes_value = |name: &str| {
        !name.is_empty()
            && ["input-filter", "output-filter", "error-filter"]
                .iter()
                .any(|long| long.starts_with(name))
    };
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        if arg == "--" {
            return i + 1;
        }
        if !arg.starts_with('-') || arg == "-" {
            return i;
        }
        if let Some(long) = arg.strip_prefix("--") {
            if !long.contains('=') && takes_value(long) {
                i += 1;
            }
        }
        i += 1;
    }
    args.len()
}

/// Stage two of parsing: option values and the step id, in the order Slurm checks them.
fn options(parsed: &Parsed, operands: &[String]) -> Result<Options, Refusal> {
    let filter = |name: &str| -> Result<Option<u32>, Refusal> {
        parsed
            .value(name)
            .map(|v| {
                v.parse::<u32>().map_err(|_| {
                    Refusal::error(format!("Invalid numeric value \"{v}\" for {name}."), false)
                })
            })
            .transpose()
    };
    let input_filter = filter("input-filter")?;
    let output_filter = filter("output-filter")?;
    // Slurm filters stderr by --output-filter too unless --error-filter says otherwise.
    let error_filter = filter("error-filter")?.or(output_filter);
    let [operand] = operands else {
        return Err(Refusal::error("too many parameters", true));
    };
    let (job_id, step) = parse_step_id(operand)?;
    Ok(Options {
        job_id,
        step,
        label: parsed.has("label"),
        layout: parsed.has("layout"),
        quiet: parsed.has("quiet"),
        input_filter,
        output_filter,
        error_filter,
    })
}

/// `JOB.STEP` read as Slurm reads it: leading digits of each part (`99_1.0` is job 99), `batch` and `extern` by
/// name; a step part without digits is a bad step, named by its job part.
fn parse_step_id(text: &str) -> Result<(u32, StepName), Refusal> {
    let Some((job, step)) = text.split_once('.') else {
        return Err(Refusal::error(
            "Failed to parse stepid from command line options",
            true,
        ));
    };
    let leading = |part: &str| -> Option<u32> {
        let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
        if digits.is_empty() {
            None
        } else {
            Some(digits.parse::<u32>().unwrap_or(u32::MAX))
        }
    };
    let step = match step {
        "batch" => StepName::Batch,
        "extern" => StepName::Extern,
        other => StepName::Numbered(leading(other).ok_or_else(|| Refusal {
            text: format!("sattach: fatal: Bad step specified: {job}"),
            usage: false,
        })?),
    };
    Ok((leading(job).unwrap_or(0), step))
}

/// The running step, or the reason slurmctld would give for not finding it.
fn find_step(client: &Client, options: &Options) -> Result<StepRecord, String> {
    let invalid = || ApiError::new(SlurmErrno::InvalidJobId).to_string();
    let listing = JobListing {
        job_ids: Some(vec![options.job_id]),
        ..JobListing::default()
    };
    let jobs = match client.job_list(listing) {
        Ok(list) => list.jobs,
        Err(ClientError::Api(e)) => return Err(e.to_string()),
        Err(e) => return Err(e.to_string()),
    };
    let job = jobs
        .into_iter()
        .find(|j| j.job_id == options.job_id)
        .ok_or_else(invalid)?;
    if job.state == JobBaseState::Pending {
        return Err(ApiError::new(SlurmErrno::JobPending).to_string());
    }
    if job.state != JobBaseState::Running || job.completing {
        return Err(ApiError::new(SlurmErrno::AlreadyDone).to_string());
    }
    // The batch script is no step sattach can reach in Spur, and there is no extern step.
    let StepName::Numbered(step_id) = options.step else {
        return Err(invalid());
    };
    job.steps
        .into_iter()
        .find(|s| s.step_id == step_id && s.is_running())
        .ok_or_else(invalid)
}

/// Attaches and relays until every node is through; the exit code is the highest task exit code.
fn attach(client: &Client, options: &Options, step: &StepRecord) -> u8 {
    let layout = step.layout();
    let first = layout.first().map(|(node, _)| node.as_str()).unwrap_or("");
    let listening = listen_for_nodes(&ClusterFacts::load().node_addr(first));
    let (listener, advertised, key) = match listening {
        Ok(l) => l,
        Err(e) => {
            eprintln!("sattach: error: cannot listen for the step's nodes: {e}");
            return 1;
        }
    };
    let query = Query::AttachStep {
        job_id: options.job_id,
        step_id: step.step_id,
        addr: advertised.to_string(),
        key: key.clone(),
    };
    let nodes = match client.query(&query) {
        Ok(QueryReply::StepAttach { nodes }) => nodes,
        // slurmstepd refuses another user's reattach; sattach only learns that no task answered.
        Err(ClientError::Api(ApiError {
            errno: SlurmErrno::AccessDenied,
            ..
        })) => {
            for (node, _) in &layout {
                eprintln!("sattach: Node {node}: no tasks running");
            }
            return 0;
        }
        Ok(_) => {
            eprintln!("sattach: error: Unexpected message received");
            return 1;
        }
        Err(e) => {
            eprintln!("sattach: error: Could not get job step info: {e}");
            return 1;
        }
    };
    let relay = Relay::new(options, step.num_tasks);
    let links = accept_nodes(&listener, &key, &nodes, &relay);
    let live: Vec<(usize, TcpStream)> = links
        .iter()
        .filter_map(|(node, link)| Some((*node, link.try_clone().ok()?)))
        .collect();
    if !live.is_empty() {
        let targets = Arc::new(Mutex::new(live));
        let ranks = stdin_ranks(&layout, options.input_filter);
        std::thread::spawn(move || pump_stdin(&targets, &ranks));
    }
    relay.wait(links.len());
    relay.exit_code(options.quiet)
}

/// Every rank of the step that gets sattach's stdin, with the index of its node.
fn stdin_ranks(layout: &[(String, Vec<u32>)], filter: Option<u32>) -> Vec<(usize, u32)> {
    layout
        .iter()
        .enumerate()
        .flat_map(|(node, (_, ranks))| ranks.iter().map(move |&rank| (node, rank)))
        .filter(|(_, rank)| filter.is_none_or(|f| f == *rank))
        .collect()
}

/// Waits for each node to call with the key (or [`CONNECT_WAIT`] to pass); a node that does not, or whose agent
/// finds no task of the step, is reported as Slurm reports it. Returns the links of the nodes that called, by
/// node index; their frames are relayed on threads of their own.
fn accept_nodes(
    listener: &TcpListener,
    key: &str,
    nodes: &[String],
    relay: &Relay,
) -> Vec<(usize, TcpStream)> {
    let mut called = vec![false; nodes.len()];
    let mut links = Vec::new();
    let deadline = Instant::now() + CONNECT_WAIT;
    let _ = listener.set_nonblocking(true);
    while called.iter().any(|c| !c) && Instant::now() < deadline {
        let stream = match listener.accept() {
            Ok((stream, _)) => stream,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(5));
                continue;
            }
            Err(_) => break,
        };
        let Some(node) = greet(&stream, key, nodes.len(), HELLO_WAIT) else {
            continue;
        };
        if std::mem::replace(&mut called[node], true) {
            continue;
        }
        if let Ok(reader) = stream.try_clone() {
            relay.start(reader, nodes[node].clone());
        }
        links.push((node, stream));
    }
    for (node, _) in nodes.iter().zip(&called).filter(|(_, c)| !**c) {
        eprintln!("sattach: Node {node}: no tasks running");
    }
    links
}

/// What the nodes' frames become: output on sattach's stdout and stderr, and the tasks' ends.
#[derive(Clone)]
struct Relay {
    label: bool,
    ntasks: u32,
    output_filter: Option<u32>,
    error_filter: Option<u32>,
    /// Each task's wait status, by rank.
    ends: Arc<Mutex<BTreeMap<u32, i32>>>,
    closed: mpsc::Sender<()>,
    closings: Arc<Mutex<mpsc::Receiver<()>>>,
}

impl Relay {
    fn new(options: &Options, ntasks: u32) -> Relay {
        let (closed, closings) = mpsc::channel();
        Relay {
            label: options.label,
            ntasks,
            output_filter: options.output_filter,
            error_filter: options.error_filter,
            ends: Arc::default(),
            closed,
            closings: Arc::new(Mutex::new(closings)),
        }
    }

    fn start(&self, reader: TcpStream, node: String) {
        let relay = self.clone();
        std::thread::spawn(move || relay.node(reader, &node));
    }

    /// One node's frames until its tasks are through or the connection ends.
    fn node(&self, mut reader: TcpStream, node: &str) {
        let mut writers: BTreeMap<(u32, u32), StreamWriter> = BTreeMap::new();
        while let Ok(Some(frame)) = Frame::read_from(&mut reader) {
            match frame.kind {
                Kind::Output => {
                    let (sink, filter) = if frame.aux == STDERR {
                        (Sink::Stderr, self.error_filter)
                    } else {
                        (Sink::Stdout, self.output_filter)
                    };
                    if filter.is_some_and(|f| f != frame.rank) {
                        continue;
                    }
                    let prefix = self.label.then(|| label(frame.rank, self.ntasks));
                    writers
                        .entry((frame.rank, frame.aux))
                        .or_insert_with(|| StreamWriter::new(sink, prefix, false))
                        .feed(&frame.data);
                }
                Kind::Exited => {
                    for ((rank, _), writer) in writers.iter_mut() {
                        if *rank == frame.rank {
                            writer.finish();
                        }
                    }
                    if let Ok(mut ends) = self.ends.lock() {
                        ends.insert(frame.rank, i32::try_from(frame.aux).unwrap_or(0));
                    }
                }
                Kind::Absent => {
                    eprintln!("sattach: Node {node}: no tasks running");
                    break;
                }
                Kind::Done => break,
                _ => {}
            }
        }
        for writer in writers.values_mut() {
            writer.finish();
        }
        let _ = self.closed.send(());
    }

    /// Until `nodes` node relays ended.
    fn wait(&self, nodes: usize) {
        let Ok(closings) = self.closings.lock() else {
            return;
        };
        for _ in 0..nodes {
            if closings.recv().is_err() {
                return;
            }
        }
    }

    /// Reports each task that exited non-zero, as sattach does, and returns the highest such code.
    fn exit_code(&self, quiet: bool) -> u8 {
        let Ok(ends) = self.ends.lock() else {
            return 1;
        };
        let mut worst = 0;
        for (&rank, &status) in ends.iter() {
            if let TaskEnd::Exited(code) = TaskEnd::from_wait_status(status) {
                if code != 0 {
                    if !quiet {
                        eprintln!("sattach: error: task {rank} exited with exit code {code}");
                    }
                    worst = worst.max(code);
                }
            }
        }
        u8::try_from(worst).unwrap_or(u8::MAX)
    }
}

/// sattach's stdin to the chosen ranks, each through its node's link; its end closes nothing on the step.
fn pump_stdin(links: &Arc<Mutex<Vec<(usize, TcpStream)>>>, ranks: &[(usize, u32)]) {
    let mut stdin = std::io::stdin();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match stdin.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        };
        let Ok(mut links) = links.lock() else {
            return;
        };
        for &(node, rank) in ranks {
            if let Some((_, link)) = links.iter_mut().find(|(n, _)| *n == node) {
                let frame = Frame::new(Kind::Stdin, rank, 0, buf[..n].to_vec());
                let _ = std::io::Write::write_all(link, &frame.encode());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn parse(list: &[&str]) -> Result<Options, Refusal> {
        let all = args(list);
        let cut = first_operand(&all);
        let parsed = SATTACH.parse(&all[..cut]).map_err(|e| Refusal {
            text: e.to_string(),
            usage: false,
        })?;
        options(&parsed, &all[cut..])
    }

    #[test]
    fn options_and_step_ids() {
        let o = parse(&["-l", "--input-filter", "1", "--output-filter=0", "12.3"]).unwrap();
        assert_eq!(
            parse(&["--output-filter=0", "--error-filter=1", "1.0"])
                .unwrap()
                .error_filter,
            Some(1)
        );
        assert_eq!(
            o,
            Options {
                job_id: 12,
                step: StepName::Numbered(3),
                label: true,
                input_filter: Some(1),
                output_filter: Some(0),
                error_filter: Some(0),
                ..Options::default()
            }
        );
        assert!(parse(&["--layout", "-Q", "7.0"]).unwrap().layout);
        assert_eq!(parse(&["99_1.0"]).unwrap().job_id, 99);
        assert_eq!(parse(&["x.0"]).unwrap().job_id, 0);
        assert_eq!(parse(&["1.5x"]).unwrap().step, StepName::Numbered(5));
        assert_eq!(parse(&["1.batch"]).unwrap().step, StepName::Batch);
        assert_eq!(parse(&["1.extern"]).unwrap().step, StepName::Extern);
    }

    #[test]
    fn refusals_are_slurms() {
        let refused = |list: &[&str]| parse(list).unwrap_err();
        let usage = |text: &str| Refusal {
            text: format!("sattach: error: {text}"),
            usage: true,
        };
        assert_eq!(refused(&[]), usage("too many parameters"));
        assert_eq!(refused(&["-l"]), usage("too many parameters"));
        assert_eq!(refused(&["1.0", "2.0"]), usage("too many parameters"));
        // Options after the step id are operands.
        assert_eq!(refused(&["3.0", "--layout"]), usage("too many parameters"));
        assert_eq!(
            refused(&["abc"]),
            usage("Failed to parse stepid from command line options")
        );
        for (id, named) in [("1.x", "1"), ("x.y", "x"), ("12.", "12"), ("1.-1", "1")] {
            assert_eq!(
                refused(&[id]).text,
                format!("sattach: fatal: Bad step specified: {named}")
            );
        }
        assert_eq!(
            refused(&["--input-filter=x", "1.0"]).text,
            "sattach: error: Invalid numeric value \"x\" for input-filter."
        );
        assert_eq!(
            refused(&["--error-filter", "1.0"]).text,
            "sattach: error: Invalid numeric value \"1.0\" for error-filter."
        );
        assert_eq!(
            refused(&["--output-filter=-1", "1.0"]).text,
            "sattach: error: Invalid numeric value \"-1\" for output-filter."
        );
    }

    #[test]
    fn stdin_goes_to_every_rank_or_the_filtered_one() {
        let layout = vec![("n1".to_string(), vec![0, 2]), ("n2".to_string(), vec![1])];
        assert_eq!(stdin_ranks(&layout, None), [(0, 0), (0, 2), (1, 1)]);
        assert_eq!(stdin_ranks(&layout, Some(1)), [(1, 1)]);
    }
}
