#!/usr/bin/python3
"""Prints a Cray PALS apinfo file (srun --mpi=cray_shasta's PALS_APINFO) field by field: size, mode and owner, the
header, each command, PE and node record (x86-64 C layout, format version 1). The last node's host-name buffer is
shown whole, since Slurm's writer leaves bytes of earlier longer names in it."""
import os
import struct
import sys

path = sys.argv[1]
data = open(path, "rb").read()
st = os.stat(path)
print(f"size={len(data)} mode={st.st_mode & 0o7777:o} uid={st.st_uid}")
fields = struct.unpack_from("<i4xQQQi4xQQi4xQQi4xQQi4xQQi4x", data, 0)
names = ["version", "total_size", "comm_profile_size", "comm_profile_offset", "ncomm_profiles", "cmd_size",
         "cmd_offset", "ncmds", "pe_size", "pe_offset", "npes", "node_size", "node_offset", "nnodes", "nic_size",
         "nic_offset", "nnics"]
print(" ".join(f"{n}={v}" for n, v in zip(names, fields)))
hdr = dict(zip(names, fields))
for i in range(hdr["ncmds"]):
    print("cmd npes=%d pes_per_node=%d cpus_per_pe=%d" % struct.unpack_from("<iii", data, hdr["cmd_offset"] + 12 * i))
for i in range(hdr["npes"]):
    print(f"pe {i}: localidx=%d cmdidx=%d nodeidx=%d" % struct.unpack_from("<iii", data, hdr["pe_offset"] + 12 * i))
for i in range(hdr["nnodes"]):
    at = hdr["node_offset"] + 68 * i
    (nid,) = struct.unpack_from("<i", data, at)
    print(f"node {i}: nid={nid} hostname={data[at + 4:at + 68].rstrip(bytes(1))!r}")
