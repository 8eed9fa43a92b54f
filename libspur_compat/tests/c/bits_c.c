/* slurm_bit_*, slurm_bitfmt2int and slurmdb_get_qos_complete_str_bitstr on many inputs, printed; run against the
 * real libslurm.so.38 and against libspur_compat.so (libspur_compat/tests/helpers_c.rs), same expected output.
 * The bit functions are not in <slurm/slurm.h>: their prototypes (Slurm 22.05's src/common/bitstring.h) are
 * declared here. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <slurm/slurm.h>
#include <slurm/slurmdb.h>

bitstr_t *slurm_bit_alloc(bitoff_t nbits);
bitstr_t *slurm_bit_realloc(bitstr_t **b, bitoff_t nbits);
void slurm_bit_free(bitstr_t **b);
int slurm_bit_test(bitstr_t *b, bitoff_t bit);
void slurm_bit_set(bitstr_t *b, bitoff_t bit);
void slurm_bit_clear(bitstr_t *b, bitoff_t bit);
void slurm_bit_nclear(bitstr_t *b, bitoff_t start, bitoff_t stop);
void slurm_bit_nset(bitstr_t *b, bitoff_t start, bitoff_t stop);
void slurm_bit_set_all(bitstr_t *b);
void slurm_bit_clear_all(bitstr_t *b);
bitoff_t slurm_bit_ffc(bitstr_t *b);
bitoff_t slurm_bit_ffs(bitstr_t *b);
bitoff_t slurm_bit_fls(bitstr_t *b);
bitoff_t slurm_bit_nffs(bitstr_t *b, int32_t n);
bitoff_t slurm_bit_nffc(bitstr_t *b, int32_t n);
bitoff_t slurm_bit_noc(bitstr_t *b, int32_t n, int32_t seed);
bitoff_t slurm_bit_size(bitstr_t *b);
void slurm_bit_and(bitstr_t *b1, bitstr_t *b2);
void slurm_bit_not(bitstr_t *b);
void slurm_bit_or(bitstr_t *b1, bitstr_t *b2);
int32_t slurm_bit_set_count(bitstr_t *b);
int32_t slurm_bit_set_count_range(bitstr_t *b, int32_t start, int32_t end);
int32_t slurm_bit_clear_count(bitstr_t *b);
int32_t slurm_bit_clear_count_range(bitstr_t *b, int32_t start, int32_t end);
int32_t slurm_bit_nset_max_count(bitstr_t *b);
bitstr_t *slurm_bit_rotate_copy(bitstr_t *b1, int32_t n, bitoff_t nbits);
void slurm_bit_rotate(bitstr_t *b1, int32_t n);
char *slurm_bit_fmt(char *str, int32_t len, bitstr_t *b);
char *slurm_bit_fmt_full(bitstr_t *b);
int slurm_bit_unfmt(bitstr_t *b, char *str);
int32_t *slurm_bitfmt2int(char *bit_str_ptr);
char *slurm_bit_fmt_hexmask(bitstr_t *b);
char *slurm_bit_fmt_hexmask_trim(bitstr_t *b);
int slurm_bit_unfmt_hexmask(bitstr_t *b, const char *str);
char *slurm_bit_fmt_binmask(bitstr_t *b);
void slurm_bit_unfmt_binmask(bitstr_t *b, const char *str);
void slurm_bit_fill_gaps(bitstr_t *b);
int slurm_bit_super_set(bitstr_t *b1, bitstr_t *b2);
int slurm_bit_overlap(bitstr_t *b1, bitstr_t *b2);
int slurm_bit_overlap_any(bitstr_t *b1, bitstr_t *b2);
int slurm_bit_equal(bitstr_t *b1, bitstr_t *b2);
void slurm_bit_copybits(bitstr_t *dest, bitstr_t *src);
bitstr_t *slurm_bit_copy(bitstr_t *b);
bitstr_t *slurm_bit_pick_cnt(bitstr_t *b, bitoff_t nbits);
bitoff_t slurm_bit_get_bit_num(bitstr_t *b, int32_t pos);
int32_t slurm_bit_get_pos_num(bitstr_t *b, bitoff_t pos);
void slurm_xfree(void **p);
char *slurmdb_get_qos_complete_str_bitstr(List qos_list, bitstr_t *valid_qos);

/* Everything the library returns is released through it (libslurm's blocks carry a header, so free() is wrong
 * for them). */
static void xf(void *p)
{
	slurm_xfree(&p);
}

static void show(const char *what, bitstr_t *b)
{
	char buf[512];
	char *hex = slurm_bit_fmt_hexmask(b), *trim = slurm_bit_fmt_hexmask_trim(b);
	char *full = slurm_bit_fmt_full(b);

	printf("%-14s n=%ld [%s] full=%s hex=%s trim=%s set=%d clear=%d ffs=%ld ffc=%ld fls=%ld max=%d\n", what,
	       (long)slurm_bit_size(b), slurm_bit_fmt(buf, sizeof(buf), b), full ? full : "(null)", hex, trim,
	       slurm_bit_set_count(b), slurm_bit_clear_count(b), (long)slurm_bit_ffs(b), (long)slurm_bit_ffc(b),
	       (long)slurm_bit_fls(b), slurm_bit_nset_max_count(b));
	if (slurm_bit_size(b) <= 130) {
		char *bin = slurm_bit_fmt_binmask(b);
		printf("%-14s bin=%s\n", "", bin);
		xf(bin);
	}
	xf(hex);
	xf(trim);
	xf(full);
}

static bitstr_t *make(bitoff_t n, const char *bits)
{
	bitstr_t *b = slurm_bit_alloc(n);
	if (bits && *bits)
		slurm_bit_unfmt(b, (char *)bits);
	return b;
}

static void ints(const char *s)
{
	int32_t *v = slurm_bitfmt2int((char *)s);
	printf("bitfmt2int(%s) =", s ? s : "NULL");
	if (!v) {
		printf(" NULL\n");
		return;
	}
	for (int i = 0; ; i++) {
		printf(" %d", v[i]);
		if (v[i] == -1)
			break;
	}
	printf("\n");
	slurm_xfree((void **)&v);
}

static int qos_id(void *x, void *key) { (void)x; (void)key; return 0; }

int main(void)
{
	long sizes[] = { 0, 1, 10, 63, 64, 65, 128, 130 };
	char buf[64];

	dup2(1, 2);
	setvbuf(stdout, NULL, _IONBF, 0);
	(void)qos_id;

	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		bitstr_t *b = slurm_bit_alloc(sizes[i]);
		printf("alloc %ld: magic=%lx nbits=%ld\n", sizes[i], (long)b[0], (long)b[1]);
		show("empty", b);
		if (sizes[i] > 0) {
			slurm_bit_set_all(b);
			show("all", b);
			slurm_bit_clear(b, 0);
			slurm_bit_clear(b, sizes[i] - 1);
			show("ends cleared", b);
			slurm_bit_not(b);
			show("not", b);
			slurm_bit_not(b);
			slurm_bit_clear_all(b);
			slurm_bit_not(b);
			show("not of empty", b);
			printf("  words after not: %lx\n", (long)b[2]);
		}
		slurm_bit_free(&b);
		printf("freed -> %p\n", (void *)b);
	}

	/* Ranges, runs and counts on a 130-bit map crossing word boundaries. */
	bitstr_t *b = make(130, "0-3,5,60-70,127-129");
	show("ranges", b);
	slurm_bit_nclear(b, 62, 66);
	show("nclear 62-66", b);
	slurm_bit_nset(b, 10, 9);
	slurm_bit_nset(b, 100, 100);
	show("nset", b);
	for (int n = 1; n <= 5; n++)
		printf("nffs(%d)=%ld nffc(%d)=%ld noc(%d,0)=%ld noc(%d,70)=%ld noc(%d,128)=%ld\n", n,
		       (long)slurm_bit_nffs(b, n), n, (long)slurm_bit_nffc(b, n), n, (long)slurm_bit_noc(b, n, 0), n,
		       (long)slurm_bit_noc(b, n, 70), n, (long)slurm_bit_noc(b, n, 128));
	{
		bitstr_t *t = make(10, "8-9");
		printf("nffs at the end of 10 bits: nffs(1)=%ld nffs(2)=%ld\n", (long)slurm_bit_nffs(t, 1),
		       (long)slurm_bit_nffs(t, 2));
		slurm_bit_free(&t);
	}
	int ranges[][2] = { {0, 0}, {0, 1}, {0, 64}, {3, 3}, {3, 64}, {3, 70}, {64, 128}, {64, 200}, {60, 130},
			    {5, 2}, {127, 130}, {0, 130}, {65, 66} };
	for (unsigned i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
		printf("count_range(%d,%d) set=%d clear=%d\n", ranges[i][0], ranges[i][1],
		       slurm_bit_set_count_range(b, ranges[i][0], ranges[i][1]),
		       slurm_bit_clear_count_range(b, ranges[i][0], ranges[i][1]));
	for (int pos = -1; pos < 25; pos += 3)
		printf("get_bit_num(%d)=%ld\n", pos, (long)slurm_bit_get_bit_num(b, pos));
	printf("get_pos_num(5)=%d get_pos_num(129)=%d\n", slurm_bit_get_pos_num(b, 5),
	       slurm_bit_get_pos_num(b, 129));
	printf("get_pos_num(4)=%d\n", slurm_bit_get_pos_num(b, 4));

	/* fmt truncation. */
	for (int len = 1; len <= 12; len += 3) {
		memset(buf, 'x', sizeof(buf));
		printf("fmt len %d: [%s]\n", len, slurm_bit_fmt(buf, len, b));
	}

	/* Copies, two-map operations. */
	bitstr_t *c = slurm_bit_copy(b);
	printf("copy equal=%d super=%d overlap=%d any=%d\n", slurm_bit_equal(b, c), slurm_bit_super_set(b, c),
	       slurm_bit_overlap(b, c), slurm_bit_overlap_any(b, c));
	slurm_bit_clear(c, 5);
	printf("one less equal=%d super(b,c)=%d super(c,b)=%d overlap=%d\n", slurm_bit_equal(b, c),
	       slurm_bit_super_set(b, c), slurm_bit_super_set(c, b), slurm_bit_overlap(b, c));
	bitstr_t *small = make(70, "1,3,65-69");
	bitstr_t *s2 = slurm_bit_copy(small);
	slurm_bit_and(s2, b);
	show("and (70&130)", s2);
	slurm_bit_or(s2, make(10, "7"));
	show("or (70|10)", s2);
	bitstr_t *big = slurm_bit_copy(b);
	slurm_bit_and(big, small);
	show("and (130&70)", big);
	bitstr_t *e = slurm_bit_alloc(130), *z = slurm_bit_alloc(130);
	printf("overlap none=%d any=%d super(empty,b)=%d super(b,empty)=%d\n", slurm_bit_overlap(e, b),
	       slurm_bit_overlap_any(e, b), slurm_bit_super_set(e, b), slurm_bit_super_set(b, e));
	slurm_bit_not(e);
	slurm_bit_not(z);
	slurm_bit_nclear(z, 0, 129);
	printf("padding: equal(not,not+nclear)=%d super=%d set=%d\n", slurm_bit_equal(e, z),
	       slurm_bit_super_set(z, e), slurm_bit_set_count(z));
	bitstr_t *d = slurm_bit_alloc(130);
	slurm_bit_copybits(d, b);
	printf("copybits equal=%d\n", slurm_bit_equal(d, b));
	printf("equal sizes differ=%d\n", slurm_bit_equal(small, b));
	{
		bitstr_t *g = make(64, "3,9,20");
		slurm_bit_fill_gaps(g);
		show("fill_gaps", g);
		bitstr_t *g2 = slurm_bit_alloc(64);
		slurm_bit_fill_gaps(g2);
		show("fill_gaps 0", g2);
	}

	/* pick_cnt. */
	long picks[] = { 0, 1, 3, 6, 20, 21, 22, 200 };
	for (unsigned i = 0; i < sizeof(picks) / sizeof(picks[0]); i++) {
		bitstr_t *p = slurm_bit_pick_cnt(b, picks[i]);
		char *s = p ? slurm_bit_fmt_full(p) : NULL;
		printf("pick_cnt(%ld) = %s\n", picks[i], p ? (s ? s : "(none)") : "NULL");
		xf(s);
		if (p)
			slurm_bit_free(&p);
	}
	{
		bitstr_t *w = make(128, "0-63,64-70");
		bitstr_t *p = slurm_bit_pick_cnt(w, 66);
		char *s = slurm_bit_fmt_full(p);
		printf("pick_cnt whole word = %s\n", s);
		xf(s);
	}

	/* Rotation. */
	int rots[] = { 0, 1, -1, 5, 64, 129, 130, 131, -200 };
	for (unsigned i = 0; i < sizeof(rots) / sizeof(rots[0]); i++) {
		bitstr_t *r = slurm_bit_copy(b);
		slurm_bit_rotate(r, rots[i]);
		char *s = slurm_bit_fmt_full(r);
		printf("rotate(%d) = %s\n", rots[i], s);
		xf(s);
		bitstr_t *rc = slurm_bit_rotate_copy(small, rots[i], 100);
		s = slurm_bit_fmt_full(rc);
		printf("rotate_copy(70->100, %d) = %s\n", rots[i], s ? s : "(null)");
		xf(s);
	}

	/* Parsing. */
	const char *texts[] = { "0-3,5", "", "7", "1-2,100", "3-1", "a", "1-10:3", "0-9:1", "5-", ",3",
				"[1-2]", "2,,4", "1-7:0", "9-1:2", "1-7:3x", "0-129", "12345678901" };
	for (unsigned i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		bitstr_t *u = make(130, "50");
		int rc = slurm_bit_unfmt(u, (char *)texts[i]);
		char *s = slurm_bit_fmt_full(u);
		printf("unfmt(\"%s\") rc=%d -> %s\n", texts[i], rc, s ? s : "(null)");
		xf(s);
		ints(texts[i]);
	}
	ints(NULL);
	printf("unfmt(NULL) rc=%d\n", slurm_bit_unfmt(b, NULL));

	const char *hexes[] = { "0x1F", "1f", "0X1F", "0x", "", "FFF", "3FF", "7FF", "zz", "0x400", "0x200",
				"0xffffffffffffffffff", "abcdef0123456789" };
	for (unsigned i = 0; i < sizeof(hexes) / sizeof(hexes[0]); i++) {
		bitstr_t *h = make(10, "0");
		bitstr_t *h2 = make(70, "0");
		int rc = slurm_bit_unfmt_hexmask(h, hexes[i]);
		int rc2 = slurm_bit_unfmt_hexmask(h2, hexes[i]);
		char *s = slurm_bit_fmt_full(h), *s2 = slurm_bit_fmt_full(h2);
		printf("unfmt_hexmask(\"%s\") 10: rc=%d %s | 70: rc=%d %s\n", hexes[i], rc, s ? s : "(null)", rc2,
		       s2 ? s2 : "(null)");
		xf(s);
		xf(s2);
	}
	printf("unfmt_hexmask(NULL)=%d\n", slurm_bit_unfmt_hexmask(b, NULL));
	const char *bins[] = { "1011", "", "abc", "111111111111", "0000", "1 1" };
	for (unsigned i = 0; i < sizeof(bins) / sizeof(bins[0]); i++) {
		bitstr_t *h = make(10, "0");
		slurm_bit_unfmt_binmask(h, bins[i]);
		char *s = slurm_bit_fmt_full(h);
		printf("unfmt_binmask(\"%s\") -> %s\n", bins[i], s ? s : "(null)");
		xf(s);
	}

	/* realloc keeps the bits, zeroes the new words. */
	bitstr_t *r = make(10, "1,9");
	slurm_bit_set(r, 20);
	slurm_bit_realloc(&r, 100);
	show("realloc 100", r);
	slurm_bit_set(r, 99);
	slurm_bit_realloc(&r, 10);
	show("realloc 10", r);
	slurm_bit_realloc(&r, 300);
	show("realloc 300", r);
	printf("bit 20 after shrink and grow: %d, bit 99: %d\n", slurm_bit_test(r, 20), slurm_bit_test(r, 99));

	/* QOS names for a valid_qos bitmap. */
	List qos = slurm_list_create(NULL);
	const char *names[] = { "normal", "high", "alpha", NULL, "low" };
	uint32_t ids[] = { 1, 2, 5, 6, 3 };
	for (int i = 0; i < 5; i++) {
		slurmdb_qos_rec_t *q = calloc(1, sizeof(*q));
		q->id = ids[i];
		q->name = (char *)names[i];
		slurm_list_append(qos, q);
	}
	const char *valid[] = { "", "1", "1-3", "0-3", "1,5-7", "4", "0", "0-7" };
	for (unsigned i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
		bitstr_t *v = make(8, valid[i]);
		char *s = slurmdb_get_qos_complete_str_bitstr(qos, v);
		printf("qos_str(%s) = [%s]\n", valid[i], s ? s : "(null)");
		xf(s);
	}
	{
		char *s = slurmdb_get_qos_complete_str_bitstr(NULL, b);
		printf("qos_str(NULL list) = [%s]\n", s);
		xf(s);
		s = slurmdb_get_qos_complete_str_bitstr(qos, NULL);
		printf("qos_str(NULL bitmap) = [%s]\n", s);
		xf(s);
		List empty = slurm_list_create(NULL);
		bitstr_t *v = make(8, "1");
		s = slurmdb_get_qos_complete_str_bitstr(empty, v);
		printf("qos_str(empty list) = [%s]\n", s);
		xf(s);
	}
	return 0;
}
