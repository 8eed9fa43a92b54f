//! `sbcast SOURCE DEST`: copies a file to every node of a running job (or of one of its steps), as the job's
//! owner. sbcast listens on a port with a random key and asks the controller (`Query::Bcast`) to have each node
//! call; each node's agent starts `spurstepd --bcast`, which becomes the job's owner, connects, and writes what
//! sbcast sends. Options, messages and exit codes are Slurm 22.05's: a node's failure is printed as
//! `REQUEST_FILE_BCAST(NODE): TEXT` and its errno is the exit code.

use std::fs::File;
use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::MetadataExt;
use std::time::{Duration, Instant};

use spur_core::grammar::options::query::{Parsed, SBCAST};
use spur_core::model::states::JobBaseState;
use spur_core::wire::api::{ApiError, JobListing, Query, QueryReply, SlurmErrno};
use spur_core::wire::step_io::{BcastHeader, Frame, Kind, MAX_FRAME_DATA};

use super::interactive::remote::{greet, listen_for_nodes};
use super::interactive::ClusterFacts;
use crate::client::{Client, ClientError};

/// How long sbcast waits for every node to call (Slurm's default message timeout is 10 s).
const CONNECT_WAIT: Duration = Duration::from_secs(10);
/// How long a connection has to present the key.
const HELLO_WAIT: Duration = Duration::from_secs(5);
/// How long a node may take to answer once its copy was sent.
const RESULT_WAIT: Duration = Duration::from_secs(60);
/// Slurm's errno for a node that could not be reached (`Communication connection failure`).
const CONNECTION_ERROR: i32 = 1001;

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Options {
    job_id: u32,
    step_id: Option<u32>,
    source: String,
    dest: String,
    force: bool,
    preserve: bool,
    verbose: u32,
}

pub fn run(args: &[String]) -> u8 {
    let parsed = match super::parse_or_finish(&SBCAST, args) {
        Ok(p) => p,
        Err(status) => return status,
    };
    if parsed.has("help") {
        print!("{}", SBCAST.help_text());
        return 0;
    }
    if parsed.has("usage") {
        println!("Usage: sbcast [--exclude] [-CfFjpvV] [--send-libs] SOURCE DEST");
        return 0;
    }
    let options = match options(&parsed, &Environment::read()) {
        Ok(o) => o,
        Err((text, code)) => {
            eprintln!("{text}");
            return code;
        }
    };
    if options.verbose > 0 {
        print_options(&parsed, &options);
    }
    bcast(&options)
}

/// sbcast's input environment, read once so [`options`] stays a pure function of its inputs.
#[derive(Debug, Default)]
struct Environment {
    job_id: Option<String>,
    compress: Option<String>,
    force: bool,
    preserve: bool,
    send_libs: Option<String>,
    cwd: Option<String>,
    dest_dir: Option<String>,
}

impl Environment {
    fn read() -> Environment {
        let var = |name: &str| std::env::var(name).ok();
        Environment {
            job_id: var("SLURM_JOB_ID"),
            compress: var("SBCAST_COMPRESS"),
            force: var("SBCAST_FORCE").is_some(),
            preserve: var("SBCAST_PRESERVE").is_some(),
            send_libs: var("SBCAST_SEND_LIBS"),
            cwd: std::env::current_dir()
                .ok()
                .map(|d| d.to_string_lossy().into_owned()),
            dest_dir: crate::config::load_slurm_conf()
                .and_then(|c| bcast_dest_dir(c.get_str("BcastParameters")?)),
        }
    }
}

/// `BcastParameters=DestDir=PATH[,...]`: where relative destinations go instead of sbcast's directory.
fn bcast_dest_dir(parameters: &str) -> Option<String> {
    parameters.split(',').find_map(|item| {
        let (key, value) = item.split_once('=')?;
        key.trim()
            .eq_ignore_ascii_case("DestDir")
            .then(|| value.trim().to_string())
    })
}

/// Slurm's checks of compression types: an unknown one is reported and compression is off.
fn check_compress(value: Option<&str>) {
    if let Some(v) = value {
        if !v.eq_ignore_ascii_case("lz4") && !v.eq_ignore_ascii_case("none") {
            eprintln!(
                "sbcast: error: Compression type '{v}' unknown, disabling compression support."
            );
        }
    }
}

/// `--send-libs` values: yes/y/no/n (any case) or none; others are reported and ignored.
fn send_libs(value: Option<&str>, what: &str) -> Option<bool> {
    match value.map(str::to_ascii_lowercase).as_deref() {
        None | Some("yes") | Some("y") => Some(true),
        Some("no") | Some("n") => Some(false),
        Some(_) => {
            eprintln!(
                "sbcast: error: Ignoring unrecognized {what} value '{}'",
                value.unwrap_or_default()
            );
            None
        }
    }
}

/// Stage two of parsing, in the order Slurm checks: the environment, the options, the two names, the job id, the
/// destination. `Err` is the text and the exit code.
fn options(parsed: &Parsed, env: &Environment) -> Result<Options, (String, u8)> {
    check_compress(env.compress.as_deref());
    let mut libs = false;
    if env.send_libs.is_some() {
        libs = send_libs(env.send_libs.as_deref(), "SBCAST_SEND_LIBS").unwrap_or(libs);
    }
    let mut job: Option<String> = None;
    for (name, value) in &parsed.options {
        match *name {
            "compress" if value.is_some() => check_compress(value.as_deref()),
            "send-libs" => libs = send_libs(value.as_deref(), "--send-libs").unwrap_or(libs),
            "size" => {
                if let Some(v) = value {
                    check_size(v);
                }
            }
            "jobid" => job = value.clone(),
            _ => {}
        }
    }
    let [source, dest] = parsed.positional.as_slice() else {
        return Err((
            format!(
                "Need two file names, have {} names\nTry \"sbcast --help\" for more information",
                parsed.positional.len()
            ),
            1,
        ));
    };
    if libs {
        return Err((
            "sbcast: error: --send-libs is not supported by Spur: send each library with its own sbcast"
                .to_string(),
            1,
        ));
    }
    let job = match job.or_else(|| env.job_id.clone()) {
        Some(j) => j,
        None => {
            return Err((
                "sbcast: error: Need a job id to run this command.  Run from within a Slurm job or use the --jobid option."
                    .to_string(),
                1,
            ))
        }
    };
    let (job_id, step_id) = parse_job_step(&job);
    let dest = if dest.starts_with('/') {
        dest.clone()
    } else if let Some(dir) = &env.dest_dir {
        format!("{dir}/{dest}")
    } else {
        format!("{}/{dest}", env.cwd.as_deref().unwrap_or("."))
    };
    if dest.ends_with('/') {
        return Err((
            "sbcast: error: Target filename cannot be a directory.".to_string(),
            1,
        ));
    }
    Ok(Options {
        job_id,
        step_id,
        source: source.clone(),
        dest,
        force: env.force || parsed.has("force"),
        preserve: env.preserve || parsed.has("preserve"),
        verbose: parsed
            .options
            .iter()
            .filter(|(n, _)| *n == "verbose")
            .count() as u32,
    })
}

/// `-s` as Slurm maps it: digits with an optional k/m suffix; anything else is reported and ignored.
fn check_size(value: &str) {
    let digits: String = value.chars().take_while(|c| c.is_ascii_digit()).collect();
    let rest = &value[digits.len()..];
    let valid = !digits.is_empty() && matches!(rest, "" | "k" | "K" | "m" | "M");
    if !valid {
        eprintln!("size specification is invalid, ignored");
    }
}

/// `JOB[+HET][.STEP]` read as Slurm's step parser reads it: leading digits of each part; the het offset is not
/// a job of its own in Spur and is ignored.
fn parse_job_step(text: &str) -> (u32, Option<u32>) {
    let leading = |part: &str| -> Option<u32> {
        let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
        (!digits.is_empty()).then(|| digits.parse::<u32>().unwrap_or(u32::MAX))
    };
    let (job, step) = match text.split_once('.') {
        Some((job, step)) => (job, leading(step)),
        None => (text, None),
    };
    (leading(job).unwrap_or(0), step)
}

/// `-v`: Slurm's option dump on stderr.
fn print_options(parsed: &Parsed, options: &Options) {
    let compress = parsed
        .options
        .iter()
        .rfind(|(n, _)| *n == "compress")
        .map(
            |(_, v)| match v.as_deref().map(str::to_ascii_lowercase).as_deref() {
                None | Some("lz4") => 2,
                _ => 0,
            },
        )
        .unwrap_or(0);
    let lines = [
        "-----------------------------".to_string(),
        "block_size = 8388608".to_string(),
        format!("compress   = {compress}"),
        format!(
            "exclude    = {}",
            parsed.value("exclude").unwrap_or("(null)")
        ),
        format!("force      = {}", options.force),
        format!(
            "fanout     = {}",
            parsed
                .value("fanout")
                .and_then(|f| f.parse::<i32>().ok())
                .unwrap_or(0)
        ),
        format!("preserve   = {}", options.preserve),
        "send_libs  = false".to_string(),
        format!(
            "timeout    = {}",
            parsed
                .value("timeout")
                .and_then(|t| t.parse::<i32>().ok())
                .map(|t| t.saturating_mul(1000))
                .unwrap_or(0)
        ),
        format!("verbose    = {}", options.verbose),
        format!("source     = {}", options.source),
        format!("dest       = {}", options.dest),
        "-----------------------------".to_string(),
    ];
    for line in lines {
        eprintln!("sbcast: {line}");
    }
}

/// The source as Slurm checks it before asking for the job: readable; an empty one is warned about and still
/// sent (the nodes create it empty).
fn source_state(path: &str) -> Result<std::fs::Metadata, String> {
    let file = File::open(path).map_err(|e| format!("Can't open `{path}`: {}", strerror(&e)))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("Can't stat `{path}`: {}", strerror(&e)))?;
    if meta.len() == 0 {
        eprintln!("sbcast: error: Warning: file `{path}` is empty.");
    }
    Ok(meta)
}

fn strerror(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(errno) => nix::errno::Errno::from_raw(errno).desc().to_string(),
        None => e.to_string(),
    }
}

/// Sends the file and prints each node's failure; the exit code is the last failure's errno, as Slurm's.
fn bcast(options: &Options) -> u8 {
    let meta = match source_state(&options.source) {
        Ok(meta) => meta,
        Err(text) => {
            eprintln!("sbcast: error: {text}");
            return 255;
        }
    };
    let client = match Client::from_environment() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("sbcast: error: {e}");
            return 1;
        }
    };
    let job_text = match options.step_id {
        Some(step) => format!("{}.{step}", options.job_id),
        None => options.job_id.to_string(),
    };
    let lookup_error = |text: String| {
        eprintln!("sbcast: error: Slurm job {job_text} lookup error: {text}");
        255
    };
    let first = match job_nodes(&client, options.job_id) {
        Ok(nodes) => nodes.into_iter().next().unwrap_or_default(),
        Err(text) => return lookup_error(text),
    };
    let listening = listen_for_nodes(&ClusterFacts::load().node_addr(&first));
    let (listener, advertised, key) = match listening {
        Ok(l) => l,
        Err(e) => {
            eprintln!("sbcast: error: cannot listen for the job's nodes: {e}");
            return 1;
        }
    };
    let query = Query::Bcast {
        job_id: options.job_id,
        step_id: options.step_id,
        addr: advertised.to_string(),
        key: key.clone(),
    };
    let nodes = match client.query(&query) {
        Ok(QueryReply::Bcast { nodes }) => nodes,
        Ok(_) => return lookup_error("Unexpected message received".to_string()),
        Err(ClientError::Api(e)) => return lookup_error(e.to_string()),
        Err(e) => return lookup_error(e.to_string()),
    };
    let header = BcastHeader {
        dest: options.dest.clone(),
        mode: meta.mode() & 0o7777,
        force: options.force,
        times: options.preserve.then(|| (meta.atime(), meta.mtime())),
        size: meta.len(),
    };
    let results = send_to_nodes(&listener, &key, nodes.len(), &options.source, &header);
    let mut code = 0;
    for (node, result) in nodes.iter().zip(results) {
        if let Err(errno) = result {
            let text = if errno == CONNECTION_ERROR {
                "Communication connection failure".to_string()
            } else {
                nix::errno::Errno::from_raw(errno).desc().to_string()
            };
            eprintln!("sbcast: error: REQUEST_FILE_BCAST({node}): {text}");
            code = errno;
        }
    }
    (code & 0xff) as u8
}

/// The running job's nodes, or the reason slurmctld gives for not issuing an sbcast credential.
fn job_nodes(client: &Client, job_id: u32) -> Result<Vec<String>, String> {
    let listing = JobListing {
        job_ids: Some(vec![job_id]),
        ..JobListing::default()
    };
    let jobs = client.job_list(listing).map_err(|e| match e {
        ClientError::Api(e) => e.to_string(),
        e => e.to_string(),
    })?;
    let job = jobs
        .jobs
        .into_iter()
        .find(|j| j.job_id == job_id)
        .ok_or_else(|| ApiError::new(SlurmErrno::InvalidJobId).to_string())?;
    if job.state == JobBaseState::Pending {
        return Err(ApiError::new(SlurmErrno::JobPending).to_string());
    }
    if job.state != JobBaseState::Running || job.completing {
        return Err(ApiError::new(SlurmErrno::AlreadyDone).to_string());
    }
    Ok(job.alloc.map(|a| a.node_names).unwrap_or_default())
}

/// Waits for each node to call with the key, sends it the file on a thread of its own, and collects each
/// node's result by index: `Err(errno)` for a failure, [`CONNECTION_ERROR`] for a node that never called.
fn send_to_nodes(
    listener: &TcpListener,
    key: &str,
    count: usize,
    source: &str,
    header: &BcastHeader,
) -> Vec<Result<(), i32>> {
    let mut results: Vec<Result<(), i32>> = vec![Err(CONNECTION_ERROR); count];
    let mut called = vec![false; count];
    let mut senders = Vec::new();
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
        let Some(node) = greet(&stream, key, count, HELLO_WAIT) else {
            continue;
        };
        let Some(slot) = called.get_mut(node) else {
            continue;
        };
        if std::mem::replace(slot, true) {
            continue;
        }
        let source = source.to_string();
        let header = header.clone();
        senders.push((
            node,
            std::thread::spawn(move || send_one(stream, &source, &header)),
        ));
    }
    for (node, sender) in senders {
        let result = sender.join().unwrap_or(Err(libc::EIO));
        if let Some(slot) = results.get_mut(node) {
            *slot = result;
        }
    }
    results
}

/// One node's copy: header, data, end, then the node's answer. A node that failed early (it could not open the
/// destination) closes its side, so a failed send is followed by reading the answer it left.
fn send_one(mut stream: TcpStream, source: &str, header: &BcastHeader) -> Result<(), i32> {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(RESULT_WAIT));
    let text = serde_json::to_vec(header).map_err(|_| libc::EIO)?;
    let sent = Frame::new(Kind::BcastHeader, 0, 0, text)
        .write_to(&mut stream)
        .and_then(|()| send_data(&mut stream, source))
        .and_then(|()| Frame::new(Kind::BcastEnd, 0, 0, Vec::new()).write_to(&mut stream));
    match Frame::read_from(&mut stream) {
        Ok(Some(frame)) if frame.kind == Kind::BcastResult => {
            if frame.aux == 0 {
                Ok(())
            } else {
                Err(i32::try_from(frame.aux).unwrap_or(libc::EIO))
            }
        }
        _ => Err(sent
            .err()
            .and_then(|e| e.raw_os_error())
            .unwrap_or(CONNECTION_ERROR)),
    }
}

fn send_data(stream: &mut TcpStream, source: &str) -> std::io::Result<()> {
    let mut file = File::open(source)?;
    let mut buffer = vec![0u8; MAX_FRAME_DATA];
    loop {
        let n = file.read(&mut buffer)?;
        if n == 0 {
            return Ok(());
        }
        let chunk = buffer.get(..n).unwrap_or_default().to_vec();
        Frame::new(Kind::BcastData, 0, 0, chunk).write_to(stream)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Parsed {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        SBCAST.parse(&args).unwrap()
    }

    fn env() -> Environment {
        Environment {
            job_id: Some("12".into()),
            cwd: Some("/home/u".into()),
            ..Environment::default()
        }
    }

    #[test]
    fn destinations_and_job_ids_as_slurm_reads_them() {
        let o = options(&parse(&["a.out", "/tmp/x"]), &env()).unwrap();
        assert_eq!((o.job_id, o.step_id, o.dest.as_str()), (12, None, "/tmp/x"));
        let o = options(&parse(&["-j", "7.3", "a.out", "rel"]), &env()).unwrap();
        assert_eq!(
            (o.job_id, o.step_id, o.dest.as_str()),
            (7, Some(3), "/home/u/rel")
        );
        let with_dir = Environment {
            dest_dir: Some("/scratch".into()),
            ..env()
        };
        let o = options(&parse(&["a.out", "rel"]), &with_dir).unwrap();
        assert_eq!(o.dest, "/scratch/rel");
        let e = options(&parse(&["a.out", "/tmp/"]), &env()).unwrap_err();
        assert_eq!(
            e,
            (
                "sbcast: error: Target filename cannot be a directory.".into(),
                1
            )
        );
        let e = options(&parse(&["a.out"]), &env()).unwrap_err();
        assert!(e.0.starts_with("Need two file names, have 1 names\n"));
        let no_job = Environment {
            job_id: None,
            ..env()
        };
        let e = options(&parse(&["a.out", "/tmp/x"]), &no_job).unwrap_err();
        assert!(e.0.contains("Need a job id to run this command."));
    }

    #[test]
    fn flags_come_from_options_and_environment() {
        let o = options(&parse(&["-f", "-p", "-v", "-v", "a", "/b"]), &env()).unwrap();
        assert!(o.force && o.preserve);
        assert_eq!(o.verbose, 2);
        let from_env = Environment {
            force: true,
            preserve: true,
            ..env()
        };
        let o = options(&parse(&["a", "/b"]), &from_env).unwrap();
        assert!(o.force && o.preserve);
        assert_eq!(
            bcast_dest_dir("Compression=lz4,DestDir=/s"),
            Some("/s".into())
        );
        assert_eq!(bcast_dest_dir("send_libs"), None);
    }
}
