//! `GET /openapi` (and `/openapi/v3`, `.json`, `.yaml`): an OpenAPI 3 description of exactly the endpoints this
//! server answers, written here from the route table (JSON is valid YAML, so one text serves both).

use serde_json::{json, Value};

/// (path, method, operationId, summary, path parameter, query parameters).
type Operation = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
    &'static [&'static str],
);

const OPERATIONS: &[Operation] = &[
    (
        "/slurm/v0.0.38/ping",
        "get",
        "slurm_v0_0_38_ping",
        "ping the controllers",
        None,
        &[],
    ),
    (
        "/slurm/v0.0.38/diag",
        "get",
        "slurm_v0_0_38_diag",
        "controller statistics",
        None,
        &[],
    ),
    (
        "/slurm/v0.0.38/jobs",
        "get",
        "slurm_v0_0_38_get_jobs",
        "list jobs",
        None,
        &["update_time"],
    ),
    (
        "/slurm/v0.0.38/job/{job_id}",
        "get",
        "slurm_v0_0_38_get_job",
        "one job",
        Some("job_id"),
        &[],
    ),
    (
        "/slurm/v0.0.38/job/{job_id}",
        "delete",
        "slurm_v0_0_38_cancel_job",
        "cancel or signal a job",
        Some("job_id"),
        &["signal"],
    ),
    (
        "/slurm/v0.0.38/job/submit",
        "post",
        "slurm_v0_0_38_submit_job",
        "submit a batch job",
        None,
        &[],
    ),
    (
        "/slurm/v0.0.38/nodes",
        "get",
        "slurm_v0_0_38_get_nodes",
        "list nodes",
        None,
        &["update_time"],
    ),
    (
        "/slurm/v0.0.38/node/{node_name}",
        "get",
        "slurm_v0_0_38_get_node",
        "one node",
        Some("node_name"),
        &[],
    ),
    (
        "/slurm/v0.0.38/partitions",
        "get",
        "slurm_v0_0_38_get_partitions",
        "list partitions",
        None,
        &["update_time"],
    ),
    (
        "/slurm/v0.0.38/partition/{partition_name}",
        "get",
        "slurm_v0_0_38_get_partition",
        "one partition",
        Some("partition_name"),
        &[],
    ),
    (
        "/slurm/v0.0.38/reservations",
        "get",
        "slurm_v0_0_38_get_reservations",
        "list reservations",
        None,
        &["update_time"],
    ),
    (
        "/slurm/v0.0.38/reservation/{reservation_name}",
        "get",
        "slurm_v0_0_38_get_reservation",
        "one reservation",
        Some("reservation_name"),
        &[],
    ),
    (
        "/slurm/v0.0.38/licenses",
        "get",
        "slurm_v0_0_38_slurmctld_get_licenses",
        "list licenses",
        None,
        &[],
    ),
];

pub fn document() -> String {
    let mut paths = serde_json::Map::new();
    for (path, method, id, summary, path_param, query) in OPERATIONS {
        let mut parameters: Vec<Value> = Vec::new();
        if let Some(name) = path_param {
            parameters.push(
                json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}}),
            );
        }
        for name in *query {
            parameters.push(json!({"name": name, "in": "query", "required": false, "schema": {"type": "string"}}));
        }
        let mut operation = json!({
            "tags": ["slurm"],
            "operationId": id,
            "summary": summary,
            "responses": {
                "200": {"description": "success", "content": {"application/json": {"schema": {"type": "object"}}}},
                "500": {"description": "the request failed: see errors[]"}
            }
        });
        if !parameters.is_empty() {
            operation["parameters"] = Value::Array(parameters);
        }
        if *method == "post" {
            operation["requestBody"] = json!({
                "required": true,
                "content": {"application/json": {"schema": {
                    "type": "object",
                    "required": ["script"],
                    "properties": {"script": {"type": "string"}, "job": {"type": "object"}}
                }}}
            });
        }
        let entry = paths
            .entry(path.to_string())
            .or_insert_with(|| Value::Object(Default::default()));
        entry[*method] = operation;
    }
    let spec = json!({
        "openapi": "3.0.2",
        "info": {
            "title": "Spur slurmrestd",
            "description": "The Slurm REST API (openapi/v0.0.38) as Spur serves it",
            "version": "v0.0.38"
        },
        "tags": [{"name": "slurm", "description": "methods that query the controller"}],
        "security": [{"user": [], "token": []}],
        "components": {"securitySchemes": {
            "user": {"type": "apiKey", "in": "header", "name": "X-SLURM-USER-NAME"},
            "token": {"type": "apiKey", "in": "header", "name": "X-SLURM-USER-TOKEN"}
        }},
        "paths": paths,
    });
    serde_json::to_string_pretty(&spec).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::super::route::{route, Route};

    #[test]
    fn every_described_operation_is_routed() {
        for (path, method, ..) in super::OPERATIONS {
            let concrete = path
                .replace("{job_id}", "1")
                .replace("{node_name}", "n1")
                .replace("{partition_name}", "p")
                .replace("{reservation_name}", "r");
            assert_ne!(
                route(&method.to_uppercase(), &concrete),
                Route::NotFound,
                "{method} {path}"
            );
        }
        let spec: serde_json::Value = serde_json::from_str(&super::document()).unwrap();
        assert!(spec["paths"]["/slurm/v0.0.38/job/{job_id}"]["delete"].is_object());
    }
}
