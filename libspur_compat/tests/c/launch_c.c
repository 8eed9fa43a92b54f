/* The step-launch family with the only contexts a libslurm.so.38 program can hold (slurm_step_ctx_create is
 * neither declared nor exported), and slurm_get_node_energy on a cluster without an energy plugin.
 * Calls libslurm crashes on (wait_start and fwd_signal with NULL) are left out so both sides can run it.
 * Usage: launch_c NODE */
#include <stdio.h>
#include <stdint.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

static void energy(char *host) {
    uint16_t count = 77;
    acct_gather_energy_t *readings = (acct_gather_energy_t *)&count;
    slurm_seterrno(0);
    int rc = slurm_get_node_energy(host, 0, 0, &count, &readings);
    printf("energy %s: rc=%d errno=%d (%s) sensors=%u readings=%s\n", host, rc, slurm_get_errno(),
           slurm_strerror(slurm_get_errno()), count, readings ? "set" : "NULL");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: launch_c NODE\n");
        return 2;
    }
    slurm_step_launch_params_t params;
    slurm_step_launch_params_t_init(&params);
    slurm_seterrno(0);
    int rc = slurm_step_launch(NULL, &params, NULL);
    printf("launch: rc=%d errno=%d (%s)\n", rc, slurm_get_errno(), slurm_strerror(slurm_get_errno()));
    slurm_seterrno(0);
    rc = slurm_step_launch_add(NULL, NULL, &params, argv[1]);
    printf("launch_add: rc=%d errno=%d\n", rc, slurm_get_errno());
    slurm_seterrno(0);
    slurm_step_launch_wait_finish(NULL);
    slurm_step_launch_abort(NULL);
    printf("wait_finish, abort: errno=%d\n", slurm_get_errno());
    energy(argv[1]);
    energy("no-such-node-x");
    return 0;
}
