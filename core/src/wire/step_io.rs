//! The connection between a step supervisor on another node (`spurstepd --step`) and the step's srun: the
//! supervisor connects, presents the step's key, then streams its tasks' output and ends; srun sends signals and
//! stdin. One frame format both ways: a 13-byte header (kind, rank, a kind-specific number, data length; integers
//! little-endian) and the data. sbcast uses the same frames with the nodes it sends a file to (the `Bcast*`
//! kinds): a node presents the key in its Hello, sbcast sends the header, the data and the end, the node answers
//! with its result.

use std::io::{self, Read, Write};

/// The most data one frame carries; larger output is split by the sender.
pub const MAX_FRAME_DATA: usize = 1 << 20;
const HEADER_LEN: usize = 13;

/// What a frame says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Supervisor → srun, first frame: `data` is the step key, `aux` the node's index in the step.
    Hello,
    /// Supervisor → srun: output of task `rank`; `aux` 1 for stdout, 2 for stderr.
    Output,
    /// Supervisor → srun: task `rank` could not be started; `data` is slurmstepd's error text.
    ExecFailed,
    /// Supervisor → srun: task `rank` ended; `aux` is its wait status.
    Exited,
    /// Supervisor → srun, last frame: every task ended and its output was sent.
    Done,
    /// Agent → sattach, after Hello: no task of the step runs on this node.
    Absent,
    /// Supervisor → srun, before task `rank`'s `Exited`: the memory controller killed processes of the step
    /// while it ran, so it ended out of memory whatever its status.
    OutOfMemory,
    /// Supervisor → srun: a line srun prints as `slurmstepd-NODE: error: DATA`.
    StepError,
    /// srun → supervisor: send signal `aux` to every task.
    Signal,
    /// srun → supervisor: stdin for task `rank`; empty data closes it.
    Stdin,
    /// Supervisor → srun: a piece of this node's blob for collective `aux` (the step fabric's allgather,
    /// docs/mpi.md); more pieces follow.
    GatherPart,
    /// Supervisor → srun: the last (or only) piece of this node's blob for collective `aux`.
    Gather,
    /// srun → supervisor: a piece of collective `aux`'s result; more pieces follow.
    GatheredPart,
    /// srun → supervisor: the last piece of collective `aux`'s result ([`encode_blobs`]).
    Gathered,
    /// srun → supervisor: collective `aux` (and every later one) cannot complete; `data` says why.
    GatherFailed,
    /// Supervisor → srun: a task aborted the step (MPI_Abort): srun kills every task of the step.
    AbortStep,
    /// Supervisor → srun, before `Done`: what this node's tasks used (`jobacct_gather`), a
    /// [`crate::model::step_acct::NodeAcct`] as JSON; srun merges the nodes' and reports the step's with its end.
    Usage,
    /// sbcast → node, after the node's Hello: the file's [`BcastHeader`] as JSON.
    BcastHeader,
    /// sbcast → node: the next bytes of the file (at most [`MAX_FRAME_DATA`]).
    BcastData,
    /// sbcast → node: the whole file was sent; the node closes it and answers `BcastResult`.
    BcastEnd,
    /// node → sbcast, last frame: `aux` is 0 when the file was written, else the errno of what failed, with
    /// slurmd's error text (`Unable to open PATH: File exists`) as data.
    BcastResult,
}

impl Kind {
    fn code(self) -> u8 {
        match self {
            Kind::Hello => 1,
            Kind::Output => 2,
            Kind::ExecFailed => 3,
            Kind::Exited => 4,
            Kind::Done => 5,
            Kind::Absent => 6,
            Kind::OutOfMemory => 7,
            Kind::StepError => 8,
            Kind::Signal => 10,
            Kind::Stdin => 11,
            Kind::GatherPart => 12,
            Kind::Gather => 13,
            Kind::GatheredPart => 14,
            Kind::Gathered => 15,
            Kind::GatherFailed => 16,
            Kind::AbortStep => 17,
            Kind::Usage => 20,
            Kind::BcastHeader => 40,
            Kind::BcastData => 41,
            Kind::BcastEnd => 42,
            Kind::BcastResult => 43,
        }
    }

    fn from_code(code: u8) -> Option<Kind> {
        Some(match code {
            1 => Kind::Hello,
            2 => Kind::Output,
            3 => Kind::ExecFailed,
            4 => Kind::Exited,
            5 => Kind::Done,
            6 => Kind::Absent,
            7 => Kind::OutOfMemory,
            8 => Kind::StepError,
            10 => Kind::Signal,
            11 => Kind::Stdin,
            12 => Kind::GatherPart,
            13 => Kind::Gather,
            14 => Kind::GatheredPart,
            15 => Kind::Gathered,
            16 => Kind::GatherFailed,
            17 => Kind::AbortStep,
            20 => Kind::Usage,
            40 => Kind::BcastHeader,
            41 => Kind::BcastData,
            42 => Kind::BcastEnd,
            43 => Kind::BcastResult,
            _ => return None,
        })
    }
}

/// What sbcast tells each node about the file before its data: where to write it and how.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BcastHeader {
    /// The absolute destination path (sbcast resolved a relative one).
    pub dest: String,
    /// The source's permission bits, applied to the file once written (as slurmd does, with or without `-p`).
    pub mode: u32,
    /// Replace an existing file (`-f`); otherwise an existing file is an error.
    pub force: bool,
    /// The source's access and modification times (`-p`), set after writing.
    #[serde(default)]
    pub times: Option<(i64, i64)>,
    /// The file's size, so a node can tell a complete transfer from a cut one.
    pub size: u64,
}

pub const STDOUT: u32 = 1;
pub const STDERR: u32 = 2;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub kind: Kind,
    pub rank: u32,
    pub aux: u32,
    pub data: Vec<u8>,
}

impl Frame {
    pub fn new(kind: Kind, rank: u32, aux: u32, data: Vec<u8>) -> Frame {
        Frame {
            kind,
            rank,
            aux,
            data,
        }
    }

    /// Header and data in one write, so frames written by several threads under one lock never interleave.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_LEN + self.data.len());
        out.push(self.kind.code());
        out.extend_from_slice(&self.rank.to_le_bytes());
        out.extend_from_slice(&self.aux.to_le_bytes());
        out.extend_from_slice(&(self.data.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.data);
        out
    }

    pub fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(&self.encode())?;
        out.flush()
    }

    /// The next frame, or `None` when the peer closed the connection between frames.
    pub fn read_from(input: &mut impl Read) -> io::Result<Option<Frame>> {
        let mut header = [0u8; HEADER_LEN];
        let mut got = 0;
        while let Some(rest) = header.get_mut(got..).filter(|r| !r.is_empty()) {
            match input.read(rest) {
                Ok(0) if got == 0 => return Ok(None),
                Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        // The header's layout, spelled as a pattern so no field is read by index.
        let [code, r0, r1, r2, r3, a0, a1, a2, a3, l0, l1, l2, l3] = header;
        let kind = Kind::from_code(code)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "unknown step frame kind"))?;
        let len = u32::from_le_bytes([l0, l1, l2, l3]) as usize;
        if len > MAX_FRAME_DATA {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "step frame too large",
            ));
        }
        let mut data = vec![0u8; len];
        input.read_exact(&mut data)?;
        Ok(Some(Frame {
            kind,
            rank: u32::from_le_bytes([r0, r1, r2, r3]),
            aux: u32::from_le_bytes([a0, a1, a2, a3]),
            data,
        }))
    }
}

/// The most bytes one node may contribute to one collective, and the most a collective's result may hold: the
/// PMI-2 server's fences carry a node's puts (values of at most 1 KiB each), far below this.
pub const MAX_GATHER_BYTES: usize = 64 << 20;

/// A blob split into frames of `part` and a final `last` kind, so no frame passes [`MAX_FRAME_DATA`].
pub fn split_frames(part: Kind, last: Kind, seq: u32, data: &[u8]) -> Vec<Frame> {
    let mut frames: Vec<Frame> = data
        .chunks(MAX_FRAME_DATA)
        .map(|chunk| Frame::new(part, 0, seq, chunk.to_vec()))
        .collect();
    match frames.last_mut() {
        Some(end) => end.kind = last,
        None => frames.push(Frame::new(last, 0, seq, Vec::new())),
    }
    frames
}

/// Every node's blob of a collective, in node order, as one byte string: a count, then each blob's length and
/// bytes (integers little-endian u32).
pub fn encode_blobs(blobs: &[Vec<u8>]) -> Vec<u8> {
    let total: usize = blobs.iter().map(|b| b.len() + 4).sum();
    let mut out = Vec::with_capacity(total + 4);
    out.extend_from_slice(&(blobs.len() as u32).to_le_bytes());
    for blob in blobs {
        out.extend_from_slice(&(blob.len() as u32).to_le_bytes());
        out.extend_from_slice(blob);
    }
    out
}

/// The blobs of [`encode_blobs`]; `None` when the bytes are not such a list (lengths past the end, trailing
/// bytes).
pub fn decode_blobs(mut data: &[u8]) -> Option<Vec<Vec<u8>>> {
    fn take_u32(data: &mut &[u8]) -> Option<u32> {
        let (head, rest) = data.split_first_chunk::<4>()?;
        *data = rest;
        Some(u32::from_le_bytes(*head))
    }
    let count = take_u32(&mut data)? as usize;
    // Each blob takes at least its 4-byte length, so a count past that is a lie; never reserve for it.
    if count > data.len() / 4 {
        return None;
    }
    let mut blobs = Vec::with_capacity(count);
    for _ in 0..count {
        let len = take_u32(&mut data)? as usize;
        if len > data.len() {
            return None;
        }
        let (blob, rest) = data.split_at(len);
        blobs.push(blob.to_vec());
        data = rest;
    }
    data.is_empty().then_some(blobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_a_clean_close_is_none() {
        let frames = [
            Frame::new(Kind::Hello, 0, 2, b"key".to_vec()),
            Frame::new(Kind::Output, 7, STDERR, b"line\n".to_vec()),
            Frame::new(Kind::Exited, 3, 256, Vec::new()),
            Frame::new(Kind::Done, 0, 0, Vec::new()),
        ];
        let mut bytes = Vec::new();
        for frame in &frames {
            frame.write_to(&mut bytes).unwrap();
        }
        let mut input = bytes.as_slice();
        for frame in &frames {
            assert_eq!(Frame::read_from(&mut input).unwrap().as_ref(), Some(frame));
        }
        assert_eq!(Frame::read_from(&mut input).unwrap(), None);
    }

    #[test]
    fn blob_lists_round_trip_and_lies_are_refused() {
        let blobs = vec![b"a".to_vec(), Vec::new(), vec![0xff; 300]];
        let bytes = encode_blobs(&blobs);
        assert_eq!(decode_blobs(&bytes), Some(blobs));
        assert_eq!(decode_blobs(&encode_blobs(&[])), Some(Vec::new()));
        assert_eq!(decode_blobs(&bytes[..bytes.len() - 1]), None);
        assert_eq!(decode_blobs(&[0xff, 0xff, 0xff, 0xff]), None);
        assert_eq!(decode_blobs(&[1, 0, 0, 0, 9, 0, 0, 0, 1]), None);
        let mut trailing = encode_blobs(&[b"x".to_vec()]);
        trailing.push(0);
        assert_eq!(decode_blobs(&trailing), None);
        assert_eq!(decode_blobs(&[]), None);
    }

    #[test]
    fn big_blobs_are_split_into_frames_that_fit() {
        let data = vec![7u8; MAX_FRAME_DATA * 2 + 1];
        let frames = split_frames(Kind::GatherPart, Kind::Gather, 5, &data);
        assert_eq!(frames.len(), 3);
        assert!(frames
            .iter()
            .all(|f| f.aux == 5 && f.data.len() <= MAX_FRAME_DATA));
        assert_eq!(frames[2].kind, Kind::Gather);
        assert_eq!(frames[0].kind, Kind::GatherPart);
        let empty = split_frames(Kind::GatherPart, Kind::Gather, 1, &[]);
        assert_eq!(empty, vec![Frame::new(Kind::Gather, 0, 1, Vec::new())]);
    }

    #[test]
    fn truncated_and_unknown_frames_are_errors() {
        let bytes = Frame::new(Kind::Output, 1, 1, b"abc".to_vec()).encode();
        assert!(Frame::read_from(&mut &bytes[..5]).is_err());
        assert!(Frame::read_from(&mut &bytes[..bytes.len() - 1]).is_err());
        let mut unknown = bytes.clone();
        unknown[0] = 99;
        assert!(Frame::read_from(&mut unknown.as_slice()).is_err());
    }
}
