//! The PMI wire on a task's `PMI_FD`, as Slurm's mpi/pmi2 plugin speaks it: a PMI-1 `cmd=init` line first, then
//! either PMI-1 (`cmd=NAME key=value ...` lines ended by a newline; MPICH's simple PMI) or PMI-2 (a 6-character
//! decimal length, then `cmd=NAME;key=value;...;`). Reading is bounded: a line or a message past
//! [`MAX_MESSAGE`] ends the task's connection, never the supervisor's memory.

use std::io::{self, Read};

/// The longest request taken (a PMI-1 line or a PMI-2 body). Slurm reads PMI-1 lines of 1 KiB and grows only for
/// spawn; values are at most [`MAX_VALUE`], so every real request fits well below this.
pub const MAX_MESSAGE: usize = 64 << 10;
/// The longest key (`keylen_max`, PMI2_MAX_KEYLEN).
pub const MAX_KEY: usize = 64;
/// The longest value (`vallen_max`, PMI2_MAX_VALLEN).
pub const MAX_VALUE: usize = 1024;
/// `kvsname_max`.
pub const MAX_KVSNAME: usize = 256;

/// Which protocol a task's connection speaks after its `cmd=init`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// PMI-1.1: space separated, newline terminated.
    Pmi1,
    /// PMI-2.0: length prefixed, `;` separated.
    Pmi2,
}

/// One request: its command and its `key=value` pairs in order (a key given twice keeps its first value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub cmd: String,
    pub pairs: Vec<(String, String)>,
}

impl Request {
    /// The value of `key`, if given.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// A boolean as PMI-2 spells it (`TRUE`/`FALSE`, also `yes`/`no`); `None` when absent or neither.
    pub fn flag(&self, key: &str) -> Option<bool> {
        match self.get(key)? {
            "TRUE" | "true" | "yes" => Some(true),
            "FALSE" | "false" | "no" => Some(false),
            _ => None,
        }
    }

    /// Parses one request body; `None` when it does not start with `cmd=`. Bytes that are not UTF-8 are taken
    /// lossily (such a key or value then matches nothing).
    pub fn parse(body: &[u8], version: Version) -> Option<Request> {
        let text = String::from_utf8_lossy(body);
        let text = text.trim_end_matches(['\n', '\r']);
        let separator = match version {
            Version::Pmi1 => ' ',
            Version::Pmi2 => ';',
        };
        let mut fields = text.split(separator).filter(|f| !f.is_empty());
        let cmd = fields.next()?.strip_prefix("cmd=")?.to_string();
        let mut pairs: Vec<(String, String)> = Vec::new();
        for field in fields {
            let (key, value) = field.split_once('=').unwrap_or((field, ""));
            if !pairs.iter().any(|(k, _)| k == key) {
                pairs.push((key.to_string(), value.to_string()));
            }
        }
        Some(Request { cmd, pairs })
    }
}

/// The client's `cmd=init pmi_version=V pmi_subversion=S` line: the version it asks for, as Slurm accepts them
/// (1.1 and 2.0); `Err` with the numbers to answer when the line is not one, or asks for another.
pub fn parse_init(line: &[u8]) -> Result<Version, (i32, i32)> {
    let request = Request::parse(line, Version::Pmi1).ok_or((2, 0))?;
    if request.cmd != "init" {
        return Err((2, 0));
    }
    let number = |key: &str| request.get(key).and_then(|v| v.parse::<i32>().ok());
    match (number("pmi_version"), number("pmi_subversion")) {
        (Some(1), Some(1)) => Ok(Version::Pmi1),
        (Some(2), Some(0)) => Ok(Version::Pmi2),
        (Some(v), Some(s)) => Err((v, s)),
        _ => Err((2, 0)),
    }
}

/// The answer to `cmd=init` (always a PMI-1 line).
pub fn init_response(rc: i32, version: Version) -> Vec<u8> {
    let (v, s) = match version {
        Version::Pmi1 => (1, 1),
        Version::Pmi2 => (2, 0),
    };
    format!("cmd=response_to_init rc={rc} pmi_version={v} pmi_subversion={s}\n").into_bytes()
}

/// A response in `version`'s framing: PMI-1 fields joined by spaces and a newline; PMI-2 fields each ended by
/// `;` behind the 6-character length.
pub fn response(version: Version, cmd: &str, fields: &[(&str, &str)]) -> Vec<u8> {
    let mut body = format!("cmd={cmd}");
    match version {
        Version::Pmi1 => {
            for (key, value) in fields {
                body.push_str(&format!(" {key}={value}"));
            }
            body.push('\n');
            body.into_bytes()
        }
        Version::Pmi2 => {
            body.push(';');
            for (key, value) in fields {
                body.push_str(&format!("{key}={value};"));
            }
            // A body that cannot be told in six digits is cut to what can (values are capped far below that).
            body.truncate(999_999);
            let mut out = format!("{:<6}", body.len()).into_bytes();
            out.extend_from_slice(body.as_bytes());
            out
        }
    }
}

/// Reads a task's requests off its connection, bounded.
pub struct Reader<R> {
    input: R,
    buffered: Vec<u8>,
}

impl<R: Read> Reader<R> {
    pub fn new(input: R) -> Reader<R> {
        Reader {
            input,
            buffered: Vec::new(),
        }
    }

    /// Reads more input; `false` at its end.
    fn fill(&mut self) -> io::Result<bool> {
        let mut chunk = [0u8; 4096];
        loop {
            match self.input.read(&mut chunk) {
                Ok(0) => return Ok(false),
                Ok(n) => {
                    self.buffered
                        .extend_from_slice(chunk.get(..n).unwrap_or_default());
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// The next newline-terminated line (PMI-1 and the init line), newline included; `None` at the end.
    pub fn line(&mut self) -> io::Result<Option<Vec<u8>>> {
        loop {
            if let Some(end) = self.buffered.iter().position(|&b| b == b'\n') {
                let rest = self.buffered.split_off(end + 1);
                return Ok(Some(std::mem::replace(&mut self.buffered, rest)));
            }
            if self.buffered.len() > MAX_MESSAGE {
                return Err(too_long());
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    /// The next PMI-2 message body (after its 6-character length); `None` at the end.
    pub fn message(&mut self) -> io::Result<Option<Vec<u8>>> {
        while self.buffered.len() < 6 {
            if !self.fill()? {
                return Ok(None);
            }
        }
        let rest = self.buffered.split_off(6);
        let head = std::mem::replace(&mut self.buffered, rest);
        let len = std::str::from_utf8(&head)
            .ok()
            .and_then(|t| t.trim().parse::<usize>().ok())
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "bad PMI-2 length"))?;
        if len > MAX_MESSAGE {
            return Err(too_long());
        }
        while self.buffered.len() < len {
            if !self.fill()? {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
        }
        let rest = self.buffered.split_off(len);
        Ok(Some(std::mem::replace(&mut self.buffered, rest)))
    }
}

fn too_long() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, "PMI request too long")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pmi1_lines_parse_into_command_and_pairs() {
        let request =
            Request::parse(b"cmd=put kvsname=5.0 key=k value=v=1\n", Version::Pmi1).unwrap();
        assert_eq!(request.cmd, "put");
        assert_eq!(request.get("key"), Some("k"));
        assert_eq!(request.get("value"), Some("v=1"));
        assert_eq!(request.get("missing"), None);
        assert_eq!(Request::parse(b"put key=k\n", Version::Pmi1), None);
        assert_eq!(Request::parse(b"", Version::Pmi1), None);
    }

    #[test]
    fn pmi2_bodies_parse_and_flags_read() {
        let request = Request::parse(
            b"cmd=info-getnodeattr;key=a;wait=TRUE;key=b;",
            Version::Pmi2,
        )
        .unwrap();
        assert_eq!(request.cmd, "info-getnodeattr");
        assert_eq!(request.get("key"), Some("a"));
        assert_eq!(request.flag("wait"), Some(true));
        assert_eq!(request.flag("key"), None);
    }

    #[test]
    fn non_utf8_is_taken_lossily() {
        let request = Request::parse(b"cmd=get key=\xff\xfe\n", Version::Pmi1).unwrap();
        assert_eq!(request.cmd, "get");
        assert_eq!(request.get("key"), Some("\u{fffd}\u{fffd}"));
    }

    #[test]
    fn init_lines_select_the_version() {
        assert_eq!(
            parse_init(b"cmd=init pmi_version=1 pmi_subversion=1\n"),
            Ok(Version::Pmi1)
        );
        assert_eq!(
            parse_init(b"cmd=init pmi_version=2 pmi_subversion=0\n"),
            Ok(Version::Pmi2)
        );
        assert_eq!(
            parse_init(b"cmd=init pmi_version=3 pmi_subversion=7\n"),
            Err((3, 7))
        );
        assert_eq!(parse_init(b"cmd=get\n"), Err((2, 0)));
        assert_eq!(
            init_response(0, Version::Pmi1),
            b"cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1\n"
        );
    }

    #[test]
    fn responses_are_framed_per_version() {
        assert_eq!(
            response(Version::Pmi1, "get_result", &[("rc", "0"), ("value", "x")]),
            b"cmd=get_result rc=0 value=x\n"
        );
        assert_eq!(
            response(Version::Pmi2, "kvs-put-response", &[("rc", "0")]),
            b"26    cmd=kvs-put-response;rc=0;"
        );
    }

    #[test]
    fn the_reader_frames_lines_and_messages_and_bounds_them() {
        let mut reader =
            Reader::new(&b"cmd=init pmi_version=2 pmi_subversion=0\n12    cmd=finalize"[..]);
        assert_eq!(
            reader.line().unwrap().unwrap(),
            b"cmd=init pmi_version=2 pmi_subversion=0\n"
        );
        assert_eq!(reader.message().unwrap().unwrap(), b"cmd=finalize");
        assert_eq!(reader.message().unwrap(), None);
        let huge = vec![b'a'; MAX_MESSAGE + 10];
        assert!(Reader::new(huge.as_slice()).line().is_err());
        assert!(Reader::new(&b"999999cmd="[..]).message().is_err());
        assert!(Reader::new(&b"-1    cmd="[..]).message().is_err());
        assert!(Reader::new(&b"abcdef"[..]).message().is_err());
        assert!(Reader::new(&b"10    cmd"[..]).message().is_err());
    }
}
