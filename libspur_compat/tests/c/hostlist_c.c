/* libslurm's hostlist and list helpers, no cluster needed. Built with: gcc hostlist_c.c -o hostlist_c -lslurm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <slurm/slurm.h>

static void del(void *x) { free(x); }
static int cmp(void *a, void *b) { return strcmp(*(char **)a, *(char **)b); }
static int find(void *x, void *key) { return !strcmp((char *)x, (char *)key); }

int main(void)
{
	char buf[64], small[6];
	hostlist_t hl = slurm_hostlist_create("n[1-3],m[01-02]");

	printf("count=%d\n", slurm_hostlist_count(hl));
	printf("find(n2)=%d find(x)=%d\n", slurm_hostlist_find(hl, "n2"), slurm_hostlist_find(hl, "x"));
	printf("push=%d push_host=%d\n", slurm_hostlist_push(hl, "n[4-5]"), slurm_hostlist_push_host(hl, "n1"));
	printf("ranged rc=%zd text=%s\n", slurm_hostlist_ranged_string(hl, sizeof(buf), buf), buf);
	printf("small rc=%zd text=%s\n", slurm_hostlist_ranged_string(hl, sizeof(small), small), small);
	slurm_hostlist_uniq(hl);
	char *s = slurm_hostlist_ranged_string_malloc(hl);
	printf("uniq=%s count=%d\n", s, slurm_hostlist_count(hl));
	free(s);
	char *first = slurm_hostlist_shift(hl);
	printf("shift=%s count=%d\n", first, slurm_hostlist_count(hl));
	free(first);
	slurm_hostlist_destroy(hl);
	hl = slurm_hostlist_create(NULL);
	printf("empty count=%d shift=%s\n", slurm_hostlist_count(hl), slurm_hostlist_shift(hl) ? "set" : "NULL");
	slurm_hostlist_destroy(hl);

	List l = slurm_list_create(del);
	slurm_list_append(l, strdup("charlie"));
	slurm_list_append(l, strdup("alpha"));
	slurm_list_append(l, strdup("bravo"));
	printf("list count=%d empty=%d\n", slurm_list_count(l), slurm_list_is_empty(l));
	slurm_list_sort(l, cmp);
	ListIterator it = slurm_list_iterator_create(l);
	char *x;
	printf("sorted:");
	while ((x = slurm_list_next(it)))
		printf(" %s", x);
	printf("\n");
	slurm_list_iterator_reset(it);
	printf("find(bravo)=%s\n", (char *)slurm_list_find(it, find, "bravo"));
	slurm_list_iterator_destroy(it);
	x = slurm_list_pop(l);
	printf("pop=%s count=%d\n", x, slurm_list_count(l));
	free(x);
	slurm_list_destroy(l);
	return 0;
}
