/* squeue in C: loads every job through libslurm's public API and prints every field of job_info_t, one job
 * per line (strings as-is or (null), pointers to opaque data as set/NULL, times as epoch seconds).
 * Built with: gcc squeue_c.c -o squeue_c -lslurm   (against Debian's <slurm/slurm.h>)
 * Usage: squeue_c [--stable] [JOBID...]   --stable leaves out fields that differ between runs and clusters
 * (ids, times, hosts, paths), for comparing real Slurm with Spur; JOBIDs limit the listing to those jobs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

static int stable;
static const char *volatile_fields[] = {
	"job_id", "array_job_id", "accrue_time", "alloc_node", "alloc_sid", "batch_host", "cluster", "command",
	"eligible_time", "end_time", "group_id", "last_sched_eval", "nodes", "sched_nodes", "start_time",
	"std_err", "std_in", "std_out", "submit_time", "user_id", "user_name", "work_dir", "priority",
	"tres_req_str", "tres_alloc_str", "preemptable_time", "resize_time", "pre_sus_time", "suspend_time",
	"start_protocol_ver", "bitflags", "exc_node_inx", "node_inx", "req_node_inx", "job_resrcs",
	"select_jobinfo", "array_bitmap", "deadline", "last_sched_eval", "state_reason", "state_desc",
	"num_cpus", "pn_min_memory", "assoc_id", NULL};

static int skip(const char *name)
{
	if (!stable)
		return 0;
	for (int i = 0; volatile_fields[i]; i++)
		if (!strcmp(volatile_fields[i], name))
			return 1;
	return 0;
}

#define STR(f) do { if (!skip(#f)) printf(" " #f "=%s", j->f ? j->f : "(null)"); } while (0)
#define PTR(f) do { if (!skip(#f)) printf(" " #f "=%s", j->f ? "set" : "NULL"); } while (0)
#define NUM(f) do { if (!skip(#f)) printf(" " #f "=%llu", (unsigned long long)j->f); } while (0)
#define TIME(f) do { if (!skip(#f)) printf(" " #f "=%lld", (long long)j->f); } while (0)

static void print_job(const slurm_job_info_t *j)
{
	STR(account);
	TIME(accrue_time);
	STR(admin_comment);
	STR(alloc_node);
	NUM(alloc_sid);
	PTR(array_bitmap);
	NUM(array_job_id);
	NUM(array_task_id);
	NUM(array_max_tasks);
	STR(array_task_str);
	NUM(assoc_id);
	STR(batch_features);
	NUM(batch_flag);
	STR(batch_host);
	NUM(bitflags);
	NUM(boards_per_node);
	STR(burst_buffer);
	STR(burst_buffer_state);
	STR(cluster);
	STR(cluster_features);
	STR(command);
	STR(comment);
	STR(container);
	NUM(contiguous);
	NUM(core_spec);
	NUM(cores_per_socket);
	printf(" billable_tres=%.2f", j->billable_tres);
	NUM(cpus_per_task);
	NUM(cpu_freq_min);
	NUM(cpu_freq_max);
	NUM(cpu_freq_gov);
	STR(cpus_per_tres);
	STR(cronspec);
	TIME(deadline);
	NUM(delay_boot);
	STR(dependency);
	NUM(derived_ec);
	TIME(eligible_time);
	TIME(end_time);
	STR(exc_nodes);
	PTR(exc_node_inx);
	NUM(exit_code);
	STR(features);
	STR(fed_origin_str);
	NUM(fed_siblings_active);
	STR(fed_siblings_active_str);
	NUM(fed_siblings_viable);
	STR(fed_siblings_viable_str);
	NUM(gres_detail_cnt);
	PTR(gres_detail_str);
	STR(gres_total);
	NUM(group_id);
	NUM(het_job_id);
	STR(het_job_id_set);
	NUM(het_job_offset);
	NUM(job_id);
	PTR(job_resrcs);
	NUM(job_state);
	TIME(last_sched_eval);
	STR(licenses);
	NUM(mail_type);
	STR(mail_user);
	NUM(max_cpus);
	NUM(max_nodes);
	STR(mcs_label);
	STR(mem_per_tres);
	STR(name);
	STR(network);
	STR(nodes);
	NUM(nice);
	PTR(node_inx);
	NUM(ntasks_per_core);
	NUM(ntasks_per_tres);
	NUM(ntasks_per_node);
	NUM(ntasks_per_socket);
	NUM(ntasks_per_board);
	NUM(num_cpus);
	NUM(num_nodes);
	NUM(num_tasks);
	STR(partition);
	STR(prefer);
	NUM(pn_min_memory);
	NUM(pn_min_cpus);
	NUM(pn_min_tmp_disk);
	NUM(power_flags);
	TIME(preempt_time);
	TIME(preemptable_time);
	TIME(pre_sus_time);
	NUM(priority);
	NUM(profile);
	STR(qos);
	NUM(reboot);
	STR(req_nodes);
	PTR(req_node_inx);
	NUM(req_switch);
	NUM(requeue);
	TIME(resize_time);
	NUM(restart_cnt);
	STR(resv_name);
	STR(sched_nodes);
	PTR(select_jobinfo);
	STR(selinux_context);
	NUM(shared);
	NUM(show_flags);
	NUM(site_factor);
	NUM(sockets_per_board);
	NUM(sockets_per_node);
	TIME(start_time);
	NUM(start_protocol_ver);
	STR(state_desc);
	NUM(state_reason);
	STR(std_err);
	STR(std_in);
	STR(std_out);
	TIME(submit_time);
	TIME(suspend_time);
	STR(system_comment);
	NUM(time_limit);
	NUM(time_min);
	NUM(threads_per_core);
	STR(tres_bind);
	STR(tres_freq);
	STR(tres_per_job);
	STR(tres_per_node);
	STR(tres_per_socket);
	STR(tres_per_task);
	STR(tres_req_str);
	STR(tres_alloc_str);
	NUM(user_id);
	STR(user_name);
	NUM(wait4switch);
	STR(wckey);
	STR(work_dir);
	printf("\n");
}

int main(int argc, char **argv)
{
	job_info_msg_t *msg = NULL;
	int first = 1;

	stable = argc > 1 && !strcmp(argv[1], "--stable");
	if (stable)
		first = 2;
	if (slurm_load_jobs((time_t)0, &msg, SHOW_ALL) != SLURM_SUCCESS) {
		slurm_perror("slurm_load_jobs");
		return 1;
	}
	if (first >= argc)
		printf("record_count=%u\n", msg->record_count);
	for (uint32_t i = 0; i < msg->record_count; i++) {
		int listed = first >= argc;
		for (int a = first; a < argc; a++)
			if (strtoul(argv[a], NULL, 10) == msg->job_array[i].job_id)
				listed = 1;
		if (listed)
			print_job(&msg->job_array[i]);
	}
	slurm_free_job_info_msg(msg);
	return 0;
}
