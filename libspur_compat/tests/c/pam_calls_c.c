/* The libslurm calls pam_slurm_adopt makes that need no cluster, printed so real libslurm and libspur_compat can be
 * compared: slurm_cgroup_conf (Slurm's cgroup_conf_t, declared here as libslurm.so.38 lays it out), its init and
 * destroy, slurm_autodetect_cgroup_version, slurm_callerid_get_own_netinfo on a loopback connection, and the
 * stepd calls on a directory without steps and on descriptors that are not step connections. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <slurm/slurm.h>

/* Slurm 22.05's protocol version (38 << 8), not in the public header. */
#define SLURM_PROTOCOL_VERSION (38 << 8)

typedef struct {
	bool cgroup_automount; char *cgroup_mountpoint; char *cgroup_prepend; bool constrain_cores;
	bool constrain_ram_space; float allowed_ram_space; float max_ram_percent; uint64_t min_ram_space;
	bool constrain_kmem_space; float allowed_kmem_space; float max_kmem_percent; uint64_t min_kmem_space;
	bool constrain_swap_space; float allowed_swap_space; float max_swap_percent; uint64_t memory_swappiness;
	bool constrain_devices; char *cgroup_plugin; bool ignore_systemd; bool ignore_systemd_on_failure;
} cgroup_conf_t;
typedef struct { uint32_t port_dst; uint32_t port_src; struct in6_addr ip_dst; struct in6_addr ip_src; int af; } callerid_conn_t;

extern cgroup_conf_t slurm_cgroup_conf;
extern int slurm_cgroup_conf_init(void);
extern void slurm_cgroup_conf_destroy(void);
extern char *slurm_autodetect_cgroup_version(void);
extern int slurm_callerid_get_own_netinfo(callerid_conn_t *conn);
extern List slurm_stepd_available(const char *directory, const char *nodename);
extern int slurm_stepd_connect(const char *directory, const char *nodename, slurm_step_id_t *step_id, uint16_t *protocol_version);
extern uid_t slurm_stepd_get_uid(int fd, uint16_t protocol_version);
extern int slurm_stepd_add_extern_pid(int fd, uint16_t protocol_version, pid_t pid);
extern int slurm_stepd_get_x11_display(int fd, uint16_t protocol_version, char **xauthority);
extern int slurm_stepd_get_namespace_fd(int fd, uint16_t protocol_version);

static void show(const char *when)
{
	cgroup_conf_t *c = &slurm_cgroup_conf;
	printf("%s: automount=%d mountpoint=%s prepend=%s cores=%d ram=%d allowed_ram=%.1f max_ram=%.1f min_ram=%lu\n",
	       when, c->cgroup_automount, c->cgroup_mountpoint ? c->cgroup_mountpoint : "(null)",
	       c->cgroup_prepend ? c->cgroup_prepend : "(null)", c->constrain_cores, c->constrain_ram_space,
	       c->allowed_ram_space, c->max_ram_percent, (unsigned long)c->min_ram_space);
	printf("  kmem=%d allowed_kmem=%.1f max_kmem=%.1f min_kmem=%lu swap=%d allowed_swap=%.1f max_swap=%.1f swappiness=%lu\n",
	       c->constrain_kmem_space, c->allowed_kmem_space, c->max_kmem_percent, (unsigned long)c->min_kmem_space,
	       c->constrain_swap_space, c->allowed_swap_space, c->max_swap_percent, (unsigned long)c->memory_swappiness);
	printf("  devices=%d plugin=%s ignore_systemd=%d on_failure=%d\n", c->constrain_devices,
	       c->cgroup_plugin ? c->cgroup_plugin : "(null)", c->ignore_systemd, c->ignore_systemd_on_failure);
}

int main(int argc, char **argv)
{
	int rc;
	show("before");
	rc = slurm_cgroup_conf_init();
	printf("init=%d\n", rc);
	show("after init");
	printf("init again=%d\n", slurm_cgroup_conf_init());
	slurm_cgroup_conf_destroy();
	show("after destroy");
	char *v = slurm_autodetect_cgroup_version();
	printf("autodetect=%s\n", v ? v : "(null)");

	/* A loopback connection: the first socket among our descriptors is the listener, as libslurm finds it. */
	int l = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	bind(l, (struct sockaddr *)&a, sizeof(a));
	listen(l, 1);
	getsockname(l, (struct sockaddr *)&a, &len);
	int c = socket(AF_INET, SOCK_STREAM, 0);
	connect(c, (struct sockaddr *)&a, sizeof(a));
	callerid_conn_t conn;
	memset(&conn, 0, sizeof(conn));
	rc = slurm_callerid_get_own_netinfo(&conn);
	char dst[INET6_ADDRSTRLEN] = "", src[INET6_ADDRSTRLEN] = "";
	inet_ntop(conn.af, &conn.ip_dst, dst, sizeof(dst));
	inet_ntop(conn.af, &conn.ip_src, src, sizeof(src));
	printf("netinfo=%d af=%s dst=%s src=%s dst_port_is_listener=%d src_port=%u\n", rc,
	       conn.af == AF_INET ? "inet" : "other", dst, src, conn.port_dst == ntohs(a.sin_port), conn.port_src);
	close(c);
	close(l);

	List steps = slurm_stepd_available(argc > 1 ? argv[1] : "/nonexistent", "nonode");
	printf("available=%s count=%d\n", steps ? "list" : "NULL", steps ? slurm_list_count(steps) : -1);
	if (steps)
		slurm_list_destroy(steps);
	slurm_step_id_t id = { .job_id = 7, .step_het_comp = NO_VAL, .step_id = SLURM_EXTERN_CONT };
	uint16_t pv = 77;
	errno = 0;
	int fd = slurm_stepd_connect(argc > 1 ? argv[1] : "/nonexistent", "nonode", &id, &pv);
	printf("connect=%d errno=%s protocol_version=%u\n", fd, strerror(errno), pv);
	printf("get_uid(-1, 0)=%d get_uid(-1, current)=%d\n", (int)slurm_stepd_get_uid(-1, 0),
	       (int)slurm_stepd_get_uid(-1, SLURM_PROTOCOL_VERSION));
	printf("add_extern_pid(-1)=%d\n", slurm_stepd_add_extern_pid(-1, SLURM_PROTOCOL_VERSION, getpid()));
	char *xauth = (char *)1;
	printf("x11(-1)=%d xauthority=%s\n", slurm_stepd_get_x11_display(-1, SLURM_PROTOCOL_VERSION, &xauth),
	       xauth ? "set" : "NULL");
	printf("namespace_fd(-1)=%d\n", slurm_stepd_get_namespace_fd(-1, SLURM_PROTOCOL_VERSION));
	return 0;
}
