//! The PMI server on real socket pairs: MPICH's PMI-1 sequence and a PMI-2 client across two "nodes" joined by a
//! hub thread standing in for srun, and the attacks a task can make on its `PMI_FD`.

use super::*;
use crate::fabric::StepFabric;
use spur_core::wire::step_io::{encode_blobs, split_frames, Frame, Kind};
use std::io::{BufRead, BufReader, Read, Write};
use std::sync::mpsc;

/// Two nodes' servers whose fabrics meet in a hub thread that answers each collective once both gave theirs.
fn two_nodes(ranks: [Vec<u32>; 2], size: u32) -> Vec<Arc<PmiServer>> {
    let (tx, rx) = mpsc::channel::<(usize, Frame)>();
    let mut fabrics = Vec::new();
    for node in 0..2 {
        let tx = Mutex::new(tx.clone());
        let send = move |frame: Frame| {
            tx.lock()
                .map(|t| t.send((node, frame)).is_ok())
                .unwrap_or(false)
        };
        fabrics.push(StepFabric::new(2, Box::new(send)));
    }
    let hub = fabrics.clone();
    std::thread::spawn(move || {
        let mut rounds: HashMap<u32, [Option<Vec<u8>>; 2]> = HashMap::new();
        while let Ok((node, frame)) = rx.recv() {
            assert_eq!(frame.kind, Kind::Gather);
            let round = rounds.entry(frame.aux).or_default();
            round[node] = Some(frame.data);
            if round.iter().all(Option::is_some) {
                let blobs: Vec<Vec<u8>> = round.iter_mut().map(|b| b.take().unwrap()).collect();
                for fabric in &hub {
                    for frame in split_frames(
                        Kind::GatheredPart,
                        Kind::Gathered,
                        frame.aux,
                        &encode_blobs(&blobs),
                    ) {
                        fabric.deliver(frame);
                    }
                }
            }
        }
    });
    ranks
        .into_iter()
        .zip(fabrics)
        .enumerate()
        .map(|(node_index, (local_ranks, fabric))| {
            PmiServer::new(
                StepInfo {
                    job_id: 7,
                    step_id: 0,
                    size,
                    local_ranks,
                    mapping: "(vector,(0,2,1))".to_string(),
                    reserved_ports: None,
                    node_index,
                    ring_width: ring::DEFAULT_WIDTH,
                },
                fabric,
                Box::new(|_, _| {}),
            )
        })
        .collect()
}

/// A PMI-1 client on one task end.
struct Pmi1(BufReader<UnixStream>, UnixStream);

impl Pmi1 {
    fn new(stream: UnixStream) -> Pmi1 {
        Pmi1(BufReader::new(stream.try_clone().unwrap()), stream)
    }
    fn ask(&mut self, line: &str) -> String {
        self.1.write_all(line.as_bytes()).unwrap();
        let mut answer = String::new();
        self.0.read_line(&mut answer).unwrap();
        answer
    }
}

/// A PMI-2 client on one task end.
struct Pmi2(UnixStream);

impl Pmi2 {
    fn ask(&mut self, body: &str) -> String {
        let framed = format!("{:<6}{body}", body.len());
        self.0.write_all(framed.as_bytes()).unwrap();
        let mut len = [0u8; 6];
        self.0.read_exact(&mut len).unwrap();
        let len: usize = std::str::from_utf8(&len).unwrap().trim().parse().unwrap();
        let mut body = vec![0u8; len];
        self.0.read_exact(&mut body).unwrap();
        String::from_utf8(body).unwrap()
    }
}

#[test]
fn mpich_s_pmi1_sequence_fences_across_nodes() {
    let servers = two_nodes([vec![0], vec![1]], 2);
    let ends: Vec<UnixStream> = servers
        .iter()
        .map(|s| s.serve().unwrap().remove(0))
        .collect();
    let threads: Vec<_> = ends
        .into_iter()
        .enumerate()
        .map(|(rank, end)| {
            std::thread::spawn(move || {
                let mut c = Pmi1::new(end);
                let mut seen = Vec::new();
                seen.push(c.ask("cmd=init pmi_version=1 pmi_subversion=1\n"));
                seen.push(c.ask("cmd=get_maxes\n"));
                seen.push(c.ask("cmd=get_appnum\n"));
                seen.push(c.ask("cmd=get_universe_size\n"));
                seen.push(c.ask("cmd=get_my_kvsname\n"));
                seen.push(c.ask("cmd=get kvsname=7.0 key=PMI_process_mapping\n"));
                seen.push(c.ask(&format!(
                    "cmd=put kvsname=7.0 key=card-{rank} value=addr{rank}\n"
                )));
                seen.push(c.ask("cmd=barrier_in\n"));
                seen.push(c.ask(&format!("cmd=get kvsname=7.0 key=card-{}\n", 1 - rank)));
                seen.push(c.ask("cmd=get kvsname=7.0 key=nothing\n"));
                seen.push(c.ask("cmd=finalize\n"));
                seen
            })
        })
        .collect();
    for (rank, thread) in threads.into_iter().enumerate() {
        let seen = thread.join().unwrap();
        assert_eq!(
            seen,
            vec![
                "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1\n".to_string(),
                "cmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=1024\n".to_string(),
                "cmd=appnum rc=0 appnum=-1\n".to_string(),
                "cmd=universe_size rc=0 size=2\n".to_string(),
                "cmd=my_kvsname rc=0 kvsname=7.0\n".to_string(),
                "cmd=get_result rc=0 value=(vector,(0,2,1))\n".to_string(),
                "cmd=put_result rc=0\n".to_string(),
                "cmd=barrier_out rc=0\n".to_string(),
                format!("cmd=get_result rc=0 value=addr{}\n", 1 - rank),
                "cmd=get_result rc=1\n".to_string(),
                "cmd=finalize_ack rc=0\n".to_string(),
            ]
        );
    }
}

#[test]
fn a_pmi2_client_gets_job_node_and_remote_keys() {
    let servers = two_nodes([vec![0, 1], vec![2]], 3);
    let node0 = servers[0].serve().unwrap();
    let node1 = servers[1].serve().unwrap();
    let mut clients: Vec<(u32, Pmi2)> = node0
        .into_iter()
        .zip([0u32, 1])
        .chain(node1.into_iter().zip([2u32]))
        .map(|(end, rank)| (rank, Pmi2(end)))
        .collect();
    for (_, c) in &mut clients {
        c.0.write_all(b"cmd=init pmi_version=2 pmi_subversion=0\n")
            .unwrap();
        let mut line = String::new();
        BufReader::new(c.0.try_clone().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(
            line,
            "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n"
        );
    }
    let (_, first) = &mut clients[0];
    assert_eq!(
        first.ask("cmd=fullinit;pmijobid=7.0;pmirank=0;threaded=FALSE;"),
        "cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=0;size=3;appnum=-1;debugged=FALSE;pmiverbose=FALSE;"
    );
    assert_eq!(
        first.ask("cmd=job-getid;"),
        "cmd=job-getid-response;rc=0;jobid=7.0;"
    );
    assert_eq!(
        first.ask("cmd=info-getjobattr;key=PMI_process_mapping;"),
        "cmd=info-getjobattr-response;rc=0;found=TRUE;value=(vector,(0,2,1));"
    );
    assert_eq!(
        first.ask("cmd=info-getjobattr;key=universeSize;"),
        "cmd=info-getjobattr-response;rc=0;found=TRUE;value=3;"
    );
    assert_eq!(
        first.ask("cmd=info-getjobattr;key=nope;"),
        "cmd=info-getjobattr-response;rc=0;found=FALSE;"
    );
    assert_eq!(
        first.ask("cmd=info-getnodeattr;key=shm;wait=FALSE;"),
        "cmd=info-getnodeattr-response;rc=0;found=FALSE;"
    );
    // A waiting getnodeattr is answered by the node's other task's put.
    let mut second = Pmi2(clients[1].1 .0.try_clone().unwrap());
    let waiter = std::thread::spawn(move || second.ask("cmd=info-getnodeattr;key=shm;wait=TRUE;"));
    std::thread::sleep(std::time::Duration::from_millis(50));
    let (_, first) = &mut clients[0];
    assert_eq!(
        first.ask("cmd=info-putnodeattr;key=shm;value=seg1;"),
        "cmd=info-putnodeattr-response;rc=0;"
    );
    assert_eq!(
        waiter.join().unwrap(),
        "cmd=info-getnodeattr-response;rc=0;found=TRUE;value=seg1;"
    );
    let fences: Vec<_> = clients
        .into_iter()
        .map(|(rank, mut c)| {
            std::thread::spawn(move || {
                assert_eq!(
                    c.ask(&format!("cmd=kvs-put;key=k{rank};value=v{rank};")),
                    "cmd=kvs-put-response;rc=0;"
                );
                assert_eq!(c.ask("cmd=kvs-fence;"), "cmd=kvs-fence-response;rc=0;");
                for other in 0..3 {
                    assert_eq!(
                        c.ask(&format!("cmd=kvs-get;jobid=7.0;srcid=-1;key=k{other};")),
                        format!("cmd=kvs-get-response;rc=0;found=TRUE;value=v{other};")
                    );
                }
                assert_eq!(
                    c.ask("cmd=spawn;ncmds=1;"),
                    "cmd=spawn-response;rc=14;errmsg=spawn failed;"
                );
                assert_eq!(c.ask("cmd=finalize;"), "cmd=finalize-response;rc=0;");
            })
        })
        .collect();
    for fence in fences {
        fence.join().unwrap();
    }
}

#[test]
fn a_failed_fabric_fails_the_fence_instead_of_hanging() {
    let fabric = StepFabric::new(2, Box::new(|_| false));
    let server = PmiServer::new(
        StepInfo {
            job_id: 1,
            step_id: 2,
            size: 2,
            local_ranks: vec![0],
            mapping: "(vector,(0,2,1))".to_string(),
            reserved_ports: None,
            node_index: 0,
            ring_width: ring::DEFAULT_WIDTH,
        },
        fabric,
        Box::new(|_, _| {}),
    );
    let mut c = Pmi1::new(server.serve().unwrap().remove(0));
    c.ask("cmd=init pmi_version=1 pmi_subversion=1\n");
    assert!(c
        .ask("cmd=barrier_in\n")
        .starts_with("cmd=barrier_out rc=1 msg=mpi/pmi2:_fence_failed"));
}

/// A task owns its PMI socket and may send anything: the server must neither crash nor stop serving the step's
/// other tasks, and limits hold.
#[test]
fn hostile_tasks_cannot_crash_wedge_or_bloat_the_server() {
    let (aborts_tx, aborts) = mpsc::channel();
    let aborts_tx = Mutex::new(aborts_tx);
    let server = PmiServer::new(
        StepInfo {
            job_id: 3,
            step_id: 0,
            size: 6,
            local_ranks: vec![0, 1, 2, 3, 4, 5],
            mapping: "(vector,(0,1,6))".to_string(),
            reserved_ports: None,
            node_index: 0,
            ring_width: ring::DEFAULT_WIDTH,
        },
        StepFabric::new(1, Box::new(|_| true)),
        Box::new(move |rank, code| {
            let _ = aborts_tx.lock().map(|t| t.send((rank, code)));
        }),
    );
    let mut ends = server.serve().unwrap().into_iter();
    // 1. A line without end, longer than any request: the connection is closed.
    let mut endless = ends.next().unwrap();
    let _ = endless.write_all(&vec![b'x'; wire::MAX_MESSAGE + 4096]);
    let mut rest = Vec::new();
    assert_eq!(endless.read_to_end(&mut rest).unwrap(), 0);
    // 2. PMI-2 with a length past the limit, and one that is not a number.
    for header in ["999999", "-5    ", "\u{00ff}\u{00fe}  "] {
        let mut c = ends.next().unwrap();
        c.write_all(b"cmd=init pmi_version=2 pmi_subversion=0\n")
            .unwrap();
        let mut line = String::new();
        let mut reader = BufReader::new(c.try_clone().unwrap());
        reader.read_line(&mut line).unwrap();
        c.write_all(header.as_bytes()).unwrap();
        let mut rest = Vec::new();
        reader.read_to_end(&mut rest).unwrap();
        assert!(rest.is_empty(), "{header:?} got an answer");
    }
    // 3. Garbage, non-UTF-8, oversized keys and values, an unknown version: answered or ignored.
    let mut c = Pmi1::new(ends.next().unwrap());
    assert_eq!(
        c.ask("cmd=init pmi_version=1 pmi_subversion=1\n"),
        "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1\n"
    );
    c.1.write_all(b"\xff\xfe garbage\ncmd=\xff\n").unwrap();
    // PMI-1 spawn (several lines) is refused once read whole.
    c.1.write_all(b"mcmd=spawn\nnprocs=2\nexecname=/bin/true\n")
        .unwrap();
    assert_eq!(c.ask("endcmd\n"), "cmd=spawn_result rc=-1\n");
    let long_key = "k".repeat(wire::MAX_KEY + 1);
    assert_eq!(
        c.ask(&format!("cmd=put key={long_key} value=v\n")),
        "cmd=put_result rc=1\n"
    );
    let long_value = "v".repeat(wire::MAX_VALUE + 1);
    assert_eq!(
        c.ask(&format!("cmd=put key=k value={long_value}\n")),
        "cmd=put_result rc=1\n"
    );
    assert_eq!(c.ask("cmd=put key=k\n"), "cmd=put_result rc=1\n");
    assert_eq!(c.ask("cmd=get\n"), "cmd=get_result rc=1\n");
    // Puts stop at the node's bound instead of growing without end.
    let value = "v".repeat(wire::MAX_VALUE);
    let mut refused = false;
    for i in 0..(MAX_PENDING_BYTES / wire::MAX_VALUE + 2) {
        if c.ask(&format!("cmd=put key=k{i} value={value}\n")) == "cmd=put_result rc=1\n" {
            refused = true;
            break;
        }
    }
    assert!(refused);
    // 4. The last task still gets served, and its abort reaches the step.
    let mut last = Pmi1::new(ends.next().unwrap());
    assert_eq!(
        last.ask("cmd=init pmi_version=9 pmi_subversion=9\n"),
        "cmd=response_to_init rc=1 pmi_version=9 pmi_subversion=9\n"
    );
    assert_eq!(
        c.ask("cmd=get_my_kvsname\n"),
        "cmd=my_kvsname rc=0 kvsname=3.0\n"
    );
    c.1.write_all(b"cmd=abort exitcode=7\n").unwrap();
    assert_eq!(aborts.recv().unwrap(), (4, 7));
}

/// MVAPICH's PMIX_Ring over two nodes (ranks 0,1 on the first, 2 on the second), as Slurm's plugin answers it:
/// each task learns the counts before it and its neighbours' values, the ends wrapping round; then again, since a
/// ring may be asked more than once.
#[test]
fn ring_across_nodes_answers_offsets_and_neighbours() {
    let servers = two_nodes([vec![0, 1], vec![2]], 3);
    let ends: Vec<(u32, UnixStream)> = servers
        .iter()
        .zip([vec![0u32, 1], vec![2]])
        .flat_map(|(s, ranks)| ranks.into_iter().zip(s.serve().unwrap()))
        .collect();
    let threads: Vec<_> = ends
        .into_iter()
        .map(|(rank, end)| {
            std::thread::spawn(move || {
                let mut c = Pmi2(end);
                c.0.write_all(b"cmd=init pmi_version=2 pmi_subversion=0\n")
                    .unwrap();
                let mut line = [0u8; 57];
                c.0.read_exact(&mut line).unwrap();
                let mut seen = Vec::new();
                for round in 0..2 {
                    seen.push(c.ask(&format!(
                        "cmd=ring;ring-count={};ring-left=L{rank}.{round};ring-right=R{rank}.{round};",
                        rank + 1
                    )));
                }
                (rank, seen)
            })
        })
        .collect();
    let mut got: Vec<(u32, Vec<String>)> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    got.sort();
    // Counts 1, 2, 3: offsets 0, 1, 3.
    let want = |off: u32, left: u32, right: u32| -> Vec<String> {
        (0..2)
            .map(|round| {
                format!(
                    "cmd=ring-response;rc=0;ring-count={off};ring-left=R{left}.{round};ring-right=L{right}.{round};"
                )
            })
            .collect()
    };
    assert_eq!(got[0], (0, want(0, 2, 1)));
    assert_eq!(got[1], (1, want(1, 0, 2)));
    assert_eq!(got[2], (2, want(3, 1, 0)));
}
