//! `scontrol create NodeName=...` and `scontrol delete NodeName=LIST`: the controller decides (see
//! controller/src/state/node_admin.rs); Slurm's extra first line (`scontrol: error: ...`) comes back as the
//! error's detail.

use spur_core::wire::api::ControlRequest;

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
