/* A PMI-2 client on Slurm's own libpmi2 (Debian libpmi2-0-dev): every rank puts a key, fences, reads every rank's
 * key, and uses the job and node attributes; one line per rank on stdout. Run by tests/srun_mpi.rs under
 * `srun --mpi=pmi2`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <slurm/pmi2.h>

#define CHECK(call)                                                          \
    do {                                                                     \
        int rc_ = (call);                                                    \
        if (rc_ != PMI2_SUCCESS) {                                           \
            fprintf(stderr, "%s failed: %d\n", #call, rc_);                  \
            return 1;                                                        \
        }                                                                    \
    } while (0)

int main(void)
{
    int spawned, size, rank, appnum, found, vallen, got = 0;
    char jobid[64], mapping[1024], universe[64], key[64], value[1024], mine[64];

    CHECK(PMI2_Init(&spawned, &size, &rank, &appnum));
    CHECK(PMI2_Job_GetId(jobid, sizeof jobid));
    CHECK(PMI2_Info_GetJobAttr("PMI_process_mapping", mapping, sizeof mapping, &found));
    CHECK(PMI2_Info_GetJobAttr("universeSize", universe, sizeof universe, &found));
    snprintf(key, sizeof key, "card-%d", rank);
    snprintf(mine, sizeof mine, "value-of-%d", rank);
    CHECK(PMI2_KVS_Put(key, mine));
    CHECK(PMI2_KVS_Fence());
    for (int r = 0; r < size; r++) {
        char want[64];
        snprintf(key, sizeof key, "card-%d", r);
        snprintf(want, sizeof want, "value-of-%d", r);
        CHECK(PMI2_KVS_Get(jobid, PMI2_ID_NULL, key, value, sizeof value, &vallen));
        if (strcmp(value, want) == 0)
            got++;
    }
    /* The node's first task puts an attribute the others wait for. */
    if (rank == 0 || strcmp(getenv("SLURM_LOCALID") ? getenv("SLURM_LOCALID") : "", "0") == 0)
        CHECK(PMI2_Info_PutNodeAttr("leader", getenv("SLURMD_NODENAME")));
    CHECK(PMI2_Info_GetNodeAttr("leader", value, sizeof value, &found, 1));
    printf("rank %d of %d spawned=%d appnum=%d jobid=%s universe=%s mapping=%s keys=%d leader=%s\n", rank, size,
           spawned, appnum, jobid, universe, mapping, got, found ? value : "none");
    fflush(stdout);
    CHECK(PMI2_Finalize());
    return 0;
}
