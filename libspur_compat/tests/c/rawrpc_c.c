/* slurm_send_recv_controller_msg with REQUEST_BATCH_SCRIPT, the raw RPC pyslurm's Job.get_batch_script sends.
 * Usage: rawrpc_c JOBID  (a batch job of the caller); prints the answer for it and for an unknown job. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <slurm/slurm.h>
#include <slurm/slurmdb.h>

/* Slurm 22.05's internal message types (src/common/slurm_protocol_defs.h), declared as pyslurm declares them. */
typedef struct {
	uint16_t cnt;
	uint16_t init;
	char *nodelist;
	uint32_t timeout;
	uint16_t tree_width;
} fwd_t;

typedef struct {
	struct sockaddr_storage address;
	void *auth_cred;
	int auth_index;
	uid_t auth_uid;
	bool auth_uid_set;
	uid_t restrict_uid;
	bool restrict_uid_set;
	uint32_t body_offset;
	void *buffer;
	void *conn;
	int conn_fd;
	void *data;
	uint32_t data_size;
	uint16_t flags;
	uint8_t hash_index;
	uint16_t msg_type;
	uint16_t protocol_version;
	fwd_t forward;
	void *forward_struct;
	struct sockaddr_storage orig_addr;
	void *ret_list;
} msg_t;

typedef struct {
	uint32_t job_id;
	uint16_t show_flags;
} job_id_msg;

typedef struct {
	uint32_t return_code;
} rc_msg;

extern void slurm_msg_t_init(msg_t *msg);
extern int slurm_send_recv_controller_msg(msg_t *req, msg_t *resp, slurmdb_cluster_rec_t *cluster);
extern void slurm_free_return_code_msg(rc_msg *msg);
extern void slurm_xfree_ptr(void *);

static void ask(uint32_t job_id)
{
	msg_t req, resp;
	job_id_msg body = { .job_id = job_id };

	slurm_msg_t_init(&req);
	slurm_msg_t_init(&resp);
	req.msg_type = 2051; /* REQUEST_BATCH_SCRIPT */
	req.data = &body;
	int rc = slurm_send_recv_controller_msg(&req, &resp, working_cluster_rec);
	printf("rc=%d type=%u\n", rc, resp.msg_type);
	if (rc)
		printf("errno=%d\n", slurm_get_errno());
	else if (resp.msg_type == 2052) { /* RESPONSE_BATCH_SCRIPT */
		printf("script:\n%s", (char *) resp.data);
		slurm_xfree_ptr(resp.data);
	} else if (resp.msg_type == 8001) { /* RESPONSE_SLURM_RC */
		printf("return_code=%u\n", ((rc_msg *) resp.data)->return_code);
		slurm_free_return_code_msg(resp.data);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	msg_t m;
	memset(&m, 0x55, sizeof(m));
	slurm_msg_t_init(&m);
	printf("init: auth_uid=%u conn_fd=%d msg_type=%u version=%u forward.init=%#x flags=%u data=%p\n",
	       m.auth_uid, m.conn_fd, m.msg_type, m.protocol_version, m.forward.init, m.flags, m.data);
	slurm_init(NULL);
	ask(strtoul(argv[1], NULL, 10));
	ask(999999);
	return 0;
}
