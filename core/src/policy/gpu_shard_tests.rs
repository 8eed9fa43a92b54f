use super::*;

fn offer(name: &str, count: u64, files: &[&str]) -> NodeGres {
    NodeGres {
        name: name.to_string(),
        gres_type: Some("a100".to_string()),
        count,
        files: files.iter().map(|f| f.to_string()).collect(),
    }
}

fn strings(files: &[&str]) -> Vec<String> {
    files.iter().map(|f| f.to_string()).collect()
}

#[test]
fn shards_spread_evenly_over_their_files_in_order() {
    let gpus = strings(&[
        "/dev/nvidia0",
        "/dev/nvidia1",
        "/dev/nvidia2",
        "/dev/nvidia3",
    ]);
    let files = shard_unit_files(8, &gpus, &[]);
    assert_eq!(files.len(), 8);
    assert_eq!(files[0], "/dev/nvidia0");
    assert_eq!(files[1], "/dev/nvidia0");
    assert_eq!(files[2], "/dev/nvidia1");
    assert_eq!(files[7], "/dev/nvidia3");
    // A line without File= spreads over the node's GPUs; 6 over 4 leaves one each, as slurmd counts them.
    assert_eq!(shard_unit_files(6, &[], &gpus).len(), 4);
    assert!(shard_unit_files(6, &[], &[]).is_empty());
}

#[test]
fn a_node_maps_each_shard_to_the_gpu_with_its_file() {
    let gpu_files = ["/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia2"];
    let shard_files = shard_unit_files(6, &strings(&gpu_files[1..]), &[]);
    let shard_files: Vec<&str> = shard_files.iter().map(String::as_str).collect();
    let gres = vec![offer("gpu", 3, &gpu_files), offer("shard", 6, &shard_files)];
    let layout = ShardLayout::of(&gres).unwrap();
    assert_eq!(
        layout.gpus,
        vec![
            ShardedGpu {
                gpu: 1,
                shards: vec![0, 1, 2]
            },
            ShardedGpu {
                gpu: 2,
                shards: vec![3, 4, 5]
            },
        ]
    );
    assert_eq!(layout.gpu_of(4), Some(2));
    assert_eq!(layout.shards_of(0), &[] as &[u32]);
    assert_eq!(layout.gpus_of(&[5, 0, 3]), vec![1, 2]);
}

#[test]
fn without_device_files_shards_spread_over_gpu_units_by_count() {
    let gres = vec![offer("gpu", 2, &[]), offer("shard", 5, &[])];
    let layout = ShardLayout::of(&gres).unwrap();
    assert_eq!(layout.shards_of(0), &[0, 1]);
    assert_eq!(layout.shards_of(1), &[2, 3]);
    // The fifth shard fits no GPU evenly: no job gets it.
    assert_eq!(layout.gpu_of(4), None);
    assert_eq!(ShardLayout::of(&[offer("gpu", 2, &[])]), None);
}
