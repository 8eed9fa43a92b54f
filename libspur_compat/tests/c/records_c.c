/* Functions that only touch the caller's memory: slurmdb_init_* and slurm_step_launch_params_t_init (every byte of
 * the struct after init, from 0xaa-filled memory), the front-end and topology printers on records built here, and
 * the federation printer, and the frees that accept NULL. Needs no running cluster, only its slurm.conf (the
 * federation printer names this cluster `Self`).
 * Built with: gcc records_c.c -o records_c -lslurm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <slurm/slurm.h>
#include <slurm/slurmdb.h>

/* Exported by libslurm (not declared in its public headers): frees what libslurm xmalloc'd. */
extern void slurm_xfree(void **item);

static void dump(const char *name, const void *p, size_t n)
{
	const unsigned char *b = p;
	printf("%s[%zu]:", name, n);
	for (size_t i = 0; i < n; i++)
		printf("%s%02x", i % 8 ? "" : " ", b[i]);
	printf("\n");
}

#define INIT(T, f)                                   \
	do {                                         \
		T x;                                 \
		memset(&x, 0xaa, sizeof(x));         \
		f(&x, 0);                            \
		dump(#f, &x, sizeof(x));             \
		memset(&x, 0, sizeof(x));            \
		f(&x, 1);                            \
		dump(#f "/free", &x, sizeof(x));     \
	} while (0)

static void inits(void)
{
	slurmdb_qos_rec_t q;
	slurm_step_launch_params_t p;

	INIT(slurmdb_assoc_rec_t, slurmdb_init_assoc_rec);
	INIT(slurmdb_clus_res_rec_t, slurmdb_init_clus_res_rec);
	INIT(slurmdb_cluster_rec_t, slurmdb_init_cluster_rec);
	INIT(slurmdb_federation_rec_t, slurmdb_init_federation_rec);
	INIT(slurmdb_res_rec_t, slurmdb_init_res_rec);
	INIT(slurmdb_wckey_rec_t, slurmdb_init_wckey_rec);
	INIT(slurmdb_tres_cond_t, slurmdb_init_tres_cond);
	INIT(slurmdb_cluster_cond_t, slurmdb_init_cluster_cond);
	INIT(slurmdb_federation_cond_t, slurmdb_init_federation_cond);
	INIT(slurmdb_res_cond_t, slurmdb_init_res_cond);
	memset(&q, 0xaa, sizeof(q));
	slurmdb_init_qos_rec(&q, 0, NO_VAL);
	dump("slurmdb_init_qos_rec/NO_VAL", &q, sizeof(q));
	memset(&q, 0xaa, sizeof(q));
	slurmdb_init_qos_rec(&q, 0, INFINITE);
	dump("slurmdb_init_qos_rec/INFINITE", &q, sizeof(q));
	memset(&q, 0, sizeof(q));
	slurmdb_init_qos_rec(&q, 1, 0);
	dump("slurmdb_init_qos_rec/0", &q, sizeof(q));
	memset(&p, 0xaa, sizeof(p));
	slurm_step_launch_params_t_init(&p);
	dump("slurm_step_launch_params_t_init", &p, sizeof(p));
}

static void show_front_end(front_end_info_t *fe)
{
	char *s = slurm_sprint_front_end_table(fe, 0);
	printf("<%s>\n", s);
	slurm_xfree((void **)&s);
	s = slurm_sprint_front_end_table(fe, 1);
	printf("<%s>\n", s);
	slurm_xfree((void **)&s);
}

static void front_ends(void)
{
	front_end_info_t fe;
	front_end_info_msg_t msg;

	memset(&fe, 0, sizeof(fe));
	fe.name = "fe1";
	fe.node_state = NODE_STATE_IDLE;
	fe.version = "22.05.8";
	show_front_end(&fe);
	fe.node_state = NODE_STATE_IDLE | NODE_STATE_DRAIN;
	fe.allow_users = "u1";
	show_front_end(&fe);
	fe.allow_users = NULL;
	fe.deny_groups = "g2";
	fe.node_state = NODE_STATE_ALLOCATED | NODE_STATE_NO_RESPOND;
	fe.reason = "r";
	fe.reason_uid = 65534;
	show_front_end(&fe);
	fe.deny_groups = NULL;
	fe.node_state = NODE_STATE_UNKNOWN;
	fe.reason = "";
	fe.reason_time = 5;
	show_front_end(&fe);
	fe.node_state = NODE_STATE_MIXED | NODE_STATE_FAIL;
	fe.reason = "x";
	fe.reason_time = 0;
	show_front_end(&fe);
	fe.node_state = NODE_STATE_DOWN | NODE_STATE_POWERED_DOWN | NODE_STATE_COMPLETING;
	fe.name = NULL;
	fe.version = NULL;
	show_front_end(&fe);
	fe.name = "fe2";
	fe.allow_groups = "g1";
	fe.allow_users = "u1";
	fe.deny_groups = "g2";
	fe.deny_users = "u2";
	fe.reason = "maint";
	fe.reason_time = 1700000000;
	fe.reason_uid = 0;
	fe.node_state = NODE_STATE_DOWN | NODE_STATE_DRAIN;
	fe.boot_time = 1700000000;
	fe.slurmd_start_time = 1700000100;
	msg.last_update = 1700000000;
	msg.record_count = 1;
	msg.front_end_array = &fe;
	slurm_print_front_end_table(stdout, &fe, 0);
	slurm_print_front_end_info_msg(stdout, &msg, 0);
	slurm_print_front_end_info_msg(stdout, &msg, 1);
	msg.record_count = 0;
	slurm_print_front_end_info_msg(stdout, &msg, 0);
	printf("|\n");
}

static void topology(void)
{
	topo_info_t t[3] = {
		{ .level = 0, .link_speed = 1, .name = "s0", .nodes = "n[1-2]" },
		{ .level = 1, .link_speed = 0, .name = "top", .switches = "s0" },
		{ .level = 2, .link_speed = 7, .name = "sw", .nodes = "a", .switches = "b" },
	};
	topo_info_response_msg_t msg = { .record_count = 3, .topo_array = t };

	slurm_print_topo_record(stdout, &t[0], 0);
	slurm_print_topo_record(stdout, &t[2], 1);
	slurm_print_topo_info_msg(stdout, &msg, 0);
	slurm_print_topo_info_msg(stdout, &msg, 1);
	fflush(stdout);
	msg.record_count = 0;
	slurm_print_topo_info_msg(stdout, &msg, 0);
	fflush(stderr);
	printf("|\n");
}

static void federation(void)
{
	const char *names[3] = { "zeta", "refcluster", "alpha" };
	slurmdb_cluster_rec_t c[3];
	slurmdb_federation_rec_t fed;

	slurmdb_init_federation_rec(&fed, 0);
	fed.name = "fedx";
	fed.cluster_list = slurm_list_create(NULL);
	slurm_print_federation(&fed);
	for (int i = 0; i < 3; i++) {
		slurmdb_init_cluster_rec(&c[i], 0);
		c[i].name = (char *)names[i];
		c[i].control_host = "10.0.0.1";
		c[i].control_port = 40001 + i; /* no target listens there, so nothing normalises it */
		c[i].fed.id = i + 1;
		c[i].fed.state = i;
		slurm_list_append(fed.cluster_list, &c[i]);
	}
	c[1].fed.feature_list = slurm_list_create(NULL);
	slurm_list_append(c[1].fed.feature_list, "fb");
	slurm_list_append(c[1].fed.feature_list, "fa");
	slurm_print_federation(&fed);
	c[0].fed.state = CLUSTER_FED_STATE_ACTIVE | CLUSTER_FED_STATE_DRAIN;
	c[0].fed.sync_sent = 1;
	c[0].fed.recv = (void *)1;
	c[1].fed.state = CLUSTER_FED_STATE_ACTIVE | CLUSTER_FED_STATE_DRAIN | CLUSTER_FED_STATE_REMOVE;
	c[1].control_host = NULL;
	c[2].fed.state = CLUSTER_FED_STATE_INACTIVE | CLUSTER_FED_STATE_REMOVE;
	c[2].fed.sync_recvd = 1;
	c[2].fed.send = (void *)1;
	slurm_print_federation(&fed);
	slurm_list_destroy(c[1].fed.feature_list);
	slurm_list_destroy(fed.cluster_list);
	fed.cluster_list = NULL;
	fed.name = NULL;
	slurm_print_federation(&fed);
	slurm_print_federation(NULL);
	printf("|\n");
}

int main(void)
{
	slurm_init(NULL);
	inits();
	front_ends();
	topology();
	federation();
	slurm_free_assoc_mgr_info_request_members(NULL);
	slurm_free_assoc_mgr_info_msg(NULL);
	slurm_free_assoc_mgr_info_request_msg(NULL);
	slurm_free_priority_factors_response_msg(NULL);
	slurm_job_step_layout_free(NULL);
	slurm_destroy_federation_rec(NULL);
	slurm_destroy_selected_step(NULL);
	printf("NULL frees ok\n");
	return 0;
}
