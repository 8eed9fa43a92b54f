"""submitit against the target: a plain job, a failing job and a two-task array, waited for through submitit's own
sacct polling; prints what submitit saw."""
import sys

import submitit
from submitit.slurm.slurm import SlurmJob


def square(x):
    return x * x


def fail():
    raise ValueError("c514 failure")


folder, partition = sys.argv[1], sys.argv[2]
executor = submitit.SlurmExecutor(folder=folder)
executor.update_parameters(partition=partition, time=2, ntasks_per_node=1, job_name="c514", signal_delay_s=10)
ok = executor.submit(square, 7)
bad = executor.submit(fail)
array = executor.map_array(square, [2, 3])
jobs = [ok, bad] + array
# The watcher is shared by every job: one sacct call asks for all of them with repeated -j.
command = SlurmJob.watcher._make_command()
print("poll command:", command[:4], sorted(set(command[4::2])) == ["-j"], len(command[4:]) // 2)
print("ok:", ok.result())
try:
    bad.result()
except submitit.core.utils.FailedJobError as e:
    print("bad raised:", "c514 failure" in str(e))
print("array:", [j.result() for j in array])
print("array ids:", [j.job_id.split("_")[1] for j in array])
print("polled:", SlurmJob.watcher.num_calls > 0)
# Fresh watchers (nothing cached) poll once each for all four, with submitit's own command and parser, until
# submitit sees every job done: slurmdbd records a job a moment after its result file is written.
import time

from submitit.slurm.slurm import SlurmInfoWatcher

deadline = time.time() + 60
while True:
    watcher = SlurmInfoWatcher(delay_s=600)
    for job in jobs:
        watcher.register_job(job.job_id)
    watcher.update()
    if all(watcher.is_done(j.job_id, mode="cache") for j in jobs) or time.time() > deadline:
        break
    time.sleep(0.5)
print("fresh watcher:", watcher.num_calls, [watcher.get_state(j.job_id, mode="cache") for j in jobs])
print("node lists:", [bool(watcher.get_info(j.job_id, mode="cache").get("NodeList")) for j in jobs])
