/* Reservations through the C API: slurm_create_reservation, slurm_update_reservation, slurm_delete_reservation,
 * slurm_load_reservations (every field of reserve_info_t), the reservation printers, and Slurm's error numbers,
 * as root and (in a child that became nobody) as an unprivileged user. The windows lie at fixed times in 2030
 * and times print in UTC, so the output does not depend on when it runs.
 * Usage: resv_c NODE */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

/* Exported by libslurm (not declared in its public headers): frees what libslurm xmalloc'd. */
extern void slurm_xfree(void **item);

/* 2030-01-01T00:00:00 UTC. */
#define T0 ((time_t)1893456000)
#define DAY (24 * 3600)

static void report(const char *what, int rc)
{
	if (rc == SLURM_SUCCESS)
		printf("%s: ok\n", what);
	else
		printf("%s: rc=%d errno=%d %s\n", what, rc, slurm_get_errno(),
		       slurm_strerror(slurm_get_errno()));
}

/* slurm_create_reservation's answer: the name (freed with free()) or NULL and errno. */
static char *create(const char *what, resv_desc_msg_t *desc)
{
	char *name = slurm_create_reservation(desc);
	if (name)
		printf("%s: created %s\n", what, name);
	else
		printf("%s: NULL errno=%d %s\n", what, slurm_get_errno(), slurm_strerror(slurm_get_errno()));
	return name;
}

static const char *s(const char *p)
{
	return p ? p : "(null)";
}

static void show_record(reserve_info_t *r)
{
	printf("name=%s node_list=%s node_cnt=%u core_cnt=%u node_inx=", s(r->name), s(r->node_list),
	       r->node_cnt, r->core_cnt);
	for (int i = 0; r->node_inx && r->node_inx[i] >= 0; i++)
		printf("%d,", r->node_inx[i]);
	printf(" start=T0%+ld end=T0%+ld flags=%#llx users=%s accounts=%s groups=%s partition=%s\n",
	       (long)(r->start_time - T0), (long)(r->end_time - T0), (unsigned long long)r->flags, s(r->users),
	       s(r->accounts), s(r->groups), s(r->partition));
	printf("  features=%s licenses=%s burst_buffer=%s tres_str=%s max_start_delay=%u purge_comp_time=%u "
	       "resv_watts=%u core_spec_cnt=%u core_spec=%s\n",
	       s(r->features), s(r->licenses), s(r->burst_buffer), s(r->tres_str), r->max_start_delay,
	       r->purge_comp_time, r->resv_watts, r->core_spec_cnt, r->core_spec ? "set" : "(null)");
}

/* The whole-message printer's text with its "as of" time (the load's clock) left out. */
static void print_msg(reserve_info_msg_t *msg, int one_liner)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return;
	slurm_print_reservation_info_msg(f, msg, one_liner);
	fclose(f);
	char *as_of = strstr(text, " as of ");
	char *comma = as_of ? strchr(as_of, ',') : NULL;
	if (as_of && comma)
		printf("%.*s as of {TIME}%s", (int)(as_of - text), text, comma);
	else
		fputs(text, stdout);
	free(text);
}

static void load_and_show(const char *what)
{
	reserve_info_msg_t *msg = NULL;
	int rc = slurm_load_reservations(0, &msg);
	if (rc != SLURM_SUCCESS) {
		report(what, rc);
		return;
	}
	printf("%s: record_count=%u last_update_set=%d\n", what, msg->record_count, msg->last_update > 0);
	for (uint32_t i = 0; i < msg->record_count; i++)
		show_record(&msg->reservation_array[i]);
	print_msg(msg, 0);
	print_msg(msg, 1);
	for (uint32_t i = 0; i < msg->record_count; i++) {
		char *text = slurm_sprint_reservation_info(&msg->reservation_array[i], 1);
		printf("sprint: %s", s(text));
		slurm_xfree((void **)&text);
		slurm_print_reservation_info(stdout, &msg->reservation_array[i], 0);
	}
	slurm_free_reservation_info_msg(msg);
}

/* What an unprivileged user gets, in a child running as nobody, before the parent's first call. */
static void as_nobody(const char *node)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		resv_desc_msg_t desc;
		slurm_init_resv_desc_msg(&desc);
		desc.name = "c416x";
		desc.start_time = T0;
		desc.duration = 60;
		desc.node_list = (char *)node;
		desc.users = "root";
		free(create("nobody create", &desc));
		desc.name = "c416a";
		report("nobody update", slurm_update_reservation(&desc));
		reservation_name_msg_t del = { .name = "c416a" };
		report("nobody delete", slurm_delete_reservation(&del));
		fflush(stdout);
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s NODE\n", argv[0]);
		return 2;
	}
	const char *node = argv[1];
	setenv("TZ", "UTC", 1);
	tzset();
	as_nobody(node);
	load_and_show("empty");

	/* Anonymous, counted, in a partition: Slurm names it after the account and a counter. Made first, since
	 * Slurm lists reservations in the order they were made and Spur by name (docs/compatibility.md). */
	resv_desc_msg_t desc;
	slurm_init_resv_desc_msg(&desc);
	uint32_t one_node[] = { 1, 0 };
	desc.start_time = T0 + DAY;
	desc.end_time = T0 + DAY + 2 * 3600;
	desc.node_cnt = one_node;
	desc.accounts = "acct416";
	desc.partition = "debug";
	desc.flags = RESERVE_FLAG_IGN_JOBS;
	char *anonymous = create("create anonymous", &desc);

	slurm_init_resv_desc_msg(&desc);
	desc.name = "c416a";
	desc.start_time = T0;
	desc.duration = 60;
	desc.node_list = (char *)node;
	desc.users = "root";
	desc.flags = RESERVE_FLAG_MAINT | RESERVE_FLAG_IGN_JOBS;
	free(create("create c416a", &desc));

	/* Refusals: the name taken, an unknown node and partition, no users or accounts. */
	slurm_init_resv_desc_msg(&desc);
	desc.name = "c416a";
	desc.start_time = T0 + 10 * DAY;
	desc.duration = 60;
	desc.node_list = (char *)node;
	desc.users = "root";
	desc.flags = RESERVE_FLAG_IGN_JOBS;
	free(create("create duplicate name", &desc));
	desc.name = "c416b";
	desc.node_list = "nosuchnode416";
	free(create("create unknown node", &desc));
	desc.node_list = "ALL";
	desc.partition = "nosuch416";
	free(create("create unknown partition", &desc));
	desc.node_list = (char *)node;
	desc.partition = NULL;
	desc.users = NULL;
	free(create("create without users", &desc));

	/* Every node of a partition, for as long as Slurm allows (INFINITE: a year), with the flag scontrol adds for
	 * Nodes=ALL PartitionName= (docs/compatibility.md: Spur always reads that pair so). */
	slurm_init_resv_desc_msg(&desc);
	desc.name = "c416c";
	desc.start_time = T0 + 5 * DAY;
	desc.duration = INFINITE;
	desc.node_list = "ALL";
	desc.partition = "debug";
	desc.users = "root";
	desc.flags = RESERVE_FLAG_IGN_JOBS | RESERVE_FLAG_PART_NODES;
	free(create("create c416c", &desc));

	load_and_show("three");

	/* Update: a longer window, MAINT cleared, another user; then a later start, which keeps the duration. */
	slurm_init_resv_desc_msg(&desc);
	desc.name = "c416a";
	desc.duration = 120;
	desc.flags = RESERVE_FLAG_NO_MAINT;
	desc.users = "root,nobody";
	report("update c416a", slurm_update_reservation(&desc));
	slurm_init_resv_desc_msg(&desc);
	desc.name = "c416a";
	desc.start_time = T0 + 3600;
	report("update c416a start", slurm_update_reservation(&desc));
	/* Without MAINT, c416a's window is its own: another reservation may not overlap it. */
	slurm_init_resv_desc_msg(&desc);
	desc.name = "c416b";
	desc.start_time = T0 + 30 * 60;
	desc.duration = 60;
	desc.node_list = (char *)node;
	desc.users = "root";
	desc.flags = RESERVE_FLAG_IGN_JOBS;
	free(create("create overlapping", &desc));
	slurm_init_resv_desc_msg(&desc);
	desc.name = "nosuch416";
	desc.duration = 20;
	report("update unknown", slurm_update_reservation(&desc));
	load_and_show("updated");

	reservation_name_msg_t del = { .name = "nosuch416" };
	report("delete unknown", slurm_delete_reservation(&del));
	del.name = "c416a";
	report("delete c416a", slurm_delete_reservation(&del));
	del.name = "c416c";
	report("delete c416c", slurm_delete_reservation(&del));
	if (anonymous) {
		del.name = anonymous;
		report("delete anonymous", slurm_delete_reservation(&del));
		free(anonymous);
	}
	load_and_show("deleted");
	return 0;
}
