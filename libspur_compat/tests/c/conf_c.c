/* slurm_conf and the slurm_conf_* calls as libslurm 22.05 fills and answers them (run with SLURM_CONF set). */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <slurm/slurm.h>
#include <slurm/slurmdb.h>

/* libslurm exports these without declaring them in its public headers. */
extern slurm_conf_t slurm_conf;
extern char *slurm_prog_name;
extern int slurm_conf_init(const char *file_name);
extern int slurm_conf_reinit(const char *file_name);
extern int slurm_conf_destroy(void);
extern slurm_conf_t *slurm_conf_lock(void);
extern void slurm_conf_unlock(void);
extern char *slurm_conf_get_nodename(const char *node_hostname);
extern char *slurm_conf_get_aliased_nodename(void);
extern char *slurm_conf_get_hostname(const char *node_name);
extern char *slurm_conf_get_nodeaddr(const char *node_hostname);
extern char *slurm_conf_get_address(const char *node_name);
extern char *slurm_conf_get_bcast_address(const char *node_name);
extern char *slurm_conf_get_aliases(const char *node_hostname);
extern uint16_t slurm_conf_get_port(const char *node_name);
extern void slurm_xfree_ptr(void *);

#define S(f) printf("%s=%s\n", #f, slurm_conf.f ? slurm_conf.f : "(null)")
#define U(f) printf("%s=%llu\n", #f, (unsigned long long) slurm_conf.f)

static void show(const char *label, char *s)
{
	printf("%s: %s\n", label, s ? s : "(null)");
	slurm_xfree_ptr(s);
}

static void fields(void)
{
	S(cluster_name); U(control_cnt);
	for (uint32_t i = 0; i < slurm_conf.control_cnt; i++)
		printf("control[%u]=%s %s\n", i, slurm_conf.control_machine[i],
		       slurm_conf.control_addr[i]);
	U(slurmctld_port); U(slurmctld_port_count); U(slurmd_port);
	S(slurmd_spooldir); S(slurm_user_name); U(slurm_user_id);
	S(slurmd_user_name); U(slurmd_user_id); U(prolog_flags);
	S(authtype); S(authalttypes); S(authalt_params); S(cred_type);
	S(mpi_default); S(select_type); U(select_type_param); S(schedtype);
	S(proctrack_type); S(task_plugin); S(switch_type); S(accounting_storage_type);
	S(job_acct_gather_type); S(job_comp_type); S(job_comp_loc); S(gres_plugins);
	S(state_save_location); S(slurmctld_pidfile); S(slurmd_pidfile);
	S(slurmctld_logfile); S(slurmd_logfile); S(priority_type); S(tmp_fs);
	S(suspend_program); S(resume_program); U(preempt_mode); S(preempt_type);
	U(def_mem_per_cpu); U(max_mem_per_cpu); U(min_job_age); U(max_job_cnt);
	U(max_array_sz); U(inactive_limit); U(kill_wait); U(wait_time);
	U(slurmctld_timeout); U(slurmd_timeout); U(msg_timeout); U(tree_width);
	U(first_job_id); U(max_job_id); U(max_step_cnt); U(ret2service);
	U(tcp_timeout); U(epilog_msg_time); U(batch_start_timeout); U(over_time_limit);
	S(prolog); S(epilog); S(plugindir); S(launch_type); S(topology_plugin);
	S(route_plugin); S(node_features_plugins); S(job_container_plugin);
	S(ext_sensors_type); S(acct_gather_energy_type); S(slurm_conf);
}

int main(int argc, char **argv)
{
	char host[256];
	const char *conf = getenv("SLURM_CONF");

	setvbuf(stdout, NULL, _IOLBF, 0);

	printf("before init: cluster_name=%s working_cluster_rec=%p prog_name=%s\n",
	       slurm_conf.cluster_name ? slurm_conf.cluster_name : "(null)",
	       (void *) working_cluster_rec, slurm_prog_name ? "set" : "(null)");
	slurm_init(NULL);
	fields();
	printf("working_cluster_rec=%p\n", (void *) working_cluster_rec);
	printf("conf_init again: %d\n", slurm_conf_init(NULL));
	printf("lock is &slurm_conf: %d\n", slurm_conf_lock() == &slurm_conf);
	slurm_conf_unlock();

	gethostname(host, sizeof(host));
	char *node = slurm_conf_get_nodename(host);
	printf("nodename(host) is set: %d\n", node != NULL);
	char *aliased = slurm_conf_get_aliased_nodename();
	printf("aliased equals nodename: %d\n",
	       node && aliased && !strcmp(node, aliased));
	slurm_xfree_ptr(aliased);
	show("nodename(nosuch)", slurm_conf_get_nodename("nosuch"));
	if (node) {
		char *h = slurm_conf_get_hostname(node);
		printf("hostname(node) equals host: %d\n", h && !strcmp(h, host));
		slurm_xfree_ptr(h);
		show("address(node)", slurm_conf_get_address(node));
		show("nodeaddr(host)", slurm_conf_get_nodeaddr(host));
		show("bcast(node)", slurm_conf_get_bcast_address(node));
		char *a = slurm_conf_get_aliases(host);
		printf("aliases(host) equals node: %d\n", a && !strcmp(a, node));
		slurm_xfree_ptr(a);
		printf("port(node) is slurmd_port: %d\n",
		       slurm_conf_get_port(node) == slurm_conf.slurmd_port);
	}
	slurm_xfree_ptr(node);
	show("hostname(nosuch)", slurm_conf_get_hostname("nosuch"));
	show("address(nosuch)", slurm_conf_get_address("nosuch"));
	printf("port(nosuch)=%u\n", slurm_conf_get_port("nosuch"));

	printf("destroy: %d\n", slurm_conf_destroy());
	printf("destroy again: %d\n", slurm_conf_destroy());
	printf("init(path): %d\n", slurm_conf_init(conf));
	S(cluster_name); U(slurmd_port);
	printf("reinit: %d\n", slurm_conf_reinit(NULL));
	S(cluster_name); U(control_cnt);
	return 0;
}
