/* slurm_x* memory and string helpers on many inputs, printed; run against the real libslurm.so.38 and against
 * libspur_compat.so (libspur_compat/tests/helpers_c.rs), same expected output. Prototypes from Slurm 22.05's
 * src/common/xmalloc.h and xstring.h (not in <slurm/slurm.h>). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *slurm_xcalloc(size_t, size_t, bool, bool, const char *, int, const char *);
void *slurm_xrecalloc(void **, size_t, size_t, bool, bool, const char *, int, const char *);
size_t slurm_xsize(void *item);
void slurm_xfree(void **);
void slurm_xfree_ptr(void *);
void slurm_xfree_array(void ***);
void slurm_xstrcat(char **str1, const char *str2);
void slurm_xstrcatat(char **str, char **pos, const char *str2);
void slurm_xstrncat(char **str1, const char *str2, size_t len);
void slurm_xstrcatchar(char **str1, char c);
void slurm_xstrftimecat(char **str, const char *fmt);
void slurm_xiso8601timecat(char **str, bool);
void slurm_xrfc5424timecat(char **str, bool);
void slurm_xstrfmtcat(char **str, const char *fmt, ...);
void slurm_xstrfmtcatat(char **str, char **pos, const char *fmt, ...);
void slurm_xmemcat(char **str, char *start, char *end);
char *slurm_xstrdup(const char *str);
char *slurm_xstrdup_printf(const char *fmt, ...);
char *slurm_xstrndup(const char *str, size_t n);
char *slurm_xbasename(char *path);
char *slurm_xdirname(const char *path);
void slurm_xstrsubstitute(char **str, const char *pattern, const char *replacement, const bool all);
char *slurm_xshort_hostname(void);
bool slurm_xstring_is_whitespace(const char *str);
char *slurm_xstrtolower(char *str);
char *slurm_xstrchr(const char *s1, int c);
char *slurm_xstrrchr(const char *s1, int c);
int slurm_xstrcmp(const char *s1, const char *s2);
int slurm_xstrncmp(const char *s1, const char *s2, size_t n);
int slurm_xstrcasecmp(const char *s1, const char *s2);
int slurm_xstrncasecmp(const char *s1, const char *s2, size_t n);
char *slurm_xstrstr(const char *haystack, const char *needle);
char *slurm_xstrcasestr(const char *haystack, const char *needle);

#define S(x) ((x) ? (x) : "(null)")
#define XF(p) slurm_xfree((void **)&(p))

static int sign(int v) { return v < 0 ? -1 : v > 0; }

int main(void)
{
	char *s = NULL, *pos = NULL;

	dup2(1, 2);
	setvbuf(stdout, NULL, _IONBF, 0);

	/* Allocation. */
	printf("xcalloc(0,4)=%p xcalloc(4,0)=%p\n", slurm_xcalloc(0, 4, true, false, __FILE__, __LINE__, __func__),
	       slurm_xcalloc(4, 0, true, false, __FILE__, __LINE__, __func__));
	printf("xcalloc huge try=%p\n", slurm_xcalloc((size_t)1 << 62, 8, true, true, __FILE__, __LINE__, __func__));
	unsigned char *m = slurm_xcalloc(3, 4, true, false, __FILE__, __LINE__, __func__);
	int zero = 1;
	for (int i = 0; i < 12; i++)
		zero &= m[i] == 0;
	printf("xcalloc(3,4) zeroed=%d size>=12:%d\n", zero, slurm_xsize(m) >= 12);
	memset(m, 0xab, 12);
	slurm_xrecalloc((void **)&m, 100, 10, true, false, __FILE__, __LINE__, __func__);
	zero = 1;
	for (int i = 12; i < 1000; i++)
		zero &= m[i] == 0;
	printf("xrecalloc grow kept=%d new zeroed=%d size>=1000:%d\n", m[0] == 0xab && m[11] == 0xab, zero,
	       slurm_xsize(m) >= 1000);
	void *null = NULL;
	printf("xrecalloc(0)=%p\n", slurm_xrecalloc(&null, 0, 1, true, false, __FILE__, __LINE__, __func__));
	slurm_xrecalloc(&null, 2, 8, true, false, __FILE__, __LINE__, __func__);
	printf("xrecalloc(NULL slot) allocated=%d\n", null != NULL);
	XF(null);
	XF(m);
	printf("xfree -> %p\n", (void *)m);
	slurm_xfree((void **)&m); /* NULL is fine */
	char **arr = slurm_xcalloc(4, sizeof(char *), true, false, __FILE__, __LINE__, __func__);
	arr[0] = slurm_xstrdup("a");
	arr[1] = slurm_xstrdup("b");
	slurm_xfree_array((void ***)&arr);
	printf("xfree_array -> %p\n", (void *)arr);

	/* Duplication. */
	printf("xstrdup(NULL)=%p\n", (void *)slurm_xstrdup(NULL));
	s = slurm_xstrdup("abc");
	printf("xstrdup=%s\n", s);
	XF(s);
	s = slurm_xstrndup("abcdef", 3);
	printf("xstrndup 3=%s\n", s);
	XF(s);
	s = slurm_xstrndup("ab", 10);
	printf("xstrndup 10=%s\n", s);
	XF(s);
	printf("xstrndup(NULL)=%p\n", (void *)slurm_xstrndup(NULL, 3));
	s = slurm_xstrdup_printf("%d-%s-%5.2f|%c|%%", 42, "x", 3.14159, 'q');
	printf("xstrdup_printf=%s\n", s);
	XF(s);
	s = slurm_xstrdup_printf("%s", "");
	printf("xstrdup_printf empty=[%s]\n", s);
	XF(s);

	/* Appending. */
	slurm_xstrcat(&s, "one");
	slurm_xstrcat(&s, NULL);
	slurm_xstrcat(&s, "");
	slurm_xstrncat(&s, "twothree", 3);
	slurm_xstrncat(&s, NULL, 2);
	slurm_xstrncat(&s, "ab", 10);
	slurm_xstrcatchar(&s, '!');
	printf("xstrcat chain=%s\n", s);
	for (int i = 0; i < 200; i++)
		slurm_xstrcatchar(&s, 'a' + i % 26);
	printf("grown len=%zu tail=%s\n", strlen(s), s + strlen(s) - 5);
	XF(s);
	slurm_xstrcatchar(&s, 'z');
	printf("xstrcatchar on NULL=%s\n", s);
	XF(s);
	slurm_xstrfmtcat(&s, "%s=%d", "a", 1);
	slurm_xstrfmtcat(&s, ",%s=%d", "b", 2);
	printf("xstrfmtcat=%s\n", s);
	XF(s);
	slurm_xstrcatat(&s, &pos, "first");
	printf("xstrcatat new=%s pos-at=%ld\n", s, (long)(pos - s));
	slurm_xstrcatat(&s, &pos, ",second");
	slurm_xstrcatat(&s, &pos, NULL);
	slurm_xstrfmtcatat(&s, &pos, ",%d", 3);
	printf("xstrcatat=%s pos-at=%ld\n", s, (long)(pos - s));
	pos = s + 2;
	slurm_xstrcatat(&s, &pos, "XY");
	printf("xstrcatat mid=%s pos-at=%ld\n", s, (long)(pos - s));
	XF(s);
	pos = NULL;
	slurm_xstrfmtcatat(&s, &pos, "%s", "fresh");
	printf("xstrfmtcatat new=%s pos-at=%ld\n", s, (long)(pos - s));
	XF(s);
	char mem[] = "hello\0world";
	slurm_xmemcat(&s, mem, mem + 3);
	slurm_xmemcat(&s, mem, mem);
	slurm_xmemcat(&s, mem + 3, mem + 11);
	printf("xmemcat=%s\n", s);
	XF(s);
	slurm_xstrftimecat(&s, "literal %%");
	printf("xstrftimecat=%s\n", s);
	XF(s);
	slurm_xiso8601timecat(&s, false);
	printf("xiso8601 len=%zu T at 10: %c\n", strlen(s), s[10]);
	XF(s);
	slurm_xiso8601timecat(&s, true);
	printf("xiso8601 msec len=%zu dot at 19: %c\n", strlen(s), s[19]);
	XF(s);
	slurm_xrfc5424timecat(&s, false);
	printf("xrfc5424 len=%zu colon at 22: %c\n", strlen(s), s[22]);
	XF(s);
	slurm_xrfc5424timecat(&s, true);
	printf("xrfc5424 msec len=%zu\n", strlen(s));
	XF(s);

	/* Substitution. */
	const char *subs[][3] = { {"aaa", "a", "aa"}, {"abab", "ab", "x"}, {"aabb", "ab", NULL},
				  {"aabb", "ab", ""}, {"abc", "z", "y"}, {"abc", "", "y"}, {"abc", NULL, "y"},
				  {"a.b.c", ".", "::"} };
	for (unsigned i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		for (int all = 0; all < 2; all++) {
			s = slurm_xstrdup(subs[i][0]);
			slurm_xstrsubstitute(&s, subs[i][1], subs[i][2], all);
			printf("xstrsubstitute(%s,%s,%s,%d)=%s\n", subs[i][0], S(subs[i][1]), S(subs[i][2]), all, s);
			XF(s);
		}
	}
	slurm_xstrsubstitute(&s, "a", "b", true);
	printf("xstrsubstitute(NULL)=%p\n", (void *)s);

	/* Paths, case, search. */
	char p1[] = "/a/b/c", p2[] = "file", p3[] = "/top", p4[] = "dir/";
	char *paths[] = { p1, p2, p3, p4 };
	for (int i = 0; i < 4; i++) {
		char *d = slurm_xdirname(paths[i]);
		printf("xbasename(%s)=[%s] xdirname=[%s]\n", paths[i], slurm_xbasename(paths[i]), d);
		XF(d);
	}
	s = slurm_xdirname(NULL);
	printf("xdirname(NULL)=%s\n", s);
	XF(s);
	char low[] = "MiXeD 123 ÄB";
	printf("xstrtolower=%s xstrtolower(NULL)=%p\n", slurm_xstrtolower(low), (void *)slurm_xstrtolower(NULL));
	printf("whitespace: [%d] [%d] [%d] [%d]\n", slurm_xstring_is_whitespace(""),
	       slurm_xstring_is_whitespace(" \t\n"), slurm_xstring_is_whitespace(" x "),
	       slurm_xstring_is_whitespace("\v\f\r"));
	const char *cmp[][2] = { {NULL, NULL}, {NULL, "a"}, {"a", NULL}, {"a", "a"}, {"a", "b"}, {"B", "a"},
				 {"abc", "ABD"}, {"abcd", "abce"}, {"ABC", "abc"} };
	for (unsigned i = 0; i < sizeof(cmp) / sizeof(cmp[0]); i++)
		printf("cmp(%s,%s): strcmp=%d casecmp=%d ncmp3=%d ncasecmp3=%d\n", S(cmp[i][0]), S(cmp[i][1]),
		       sign(slurm_xstrcmp(cmp[i][0], cmp[i][1])), sign(slurm_xstrcasecmp(cmp[i][0], cmp[i][1])),
		       sign(slurm_xstrncmp(cmp[i][0], cmp[i][1], 3)),
		       sign(slurm_xstrncasecmp(cmp[i][0], cmp[i][1], 3)));
	const char *hay = "Hello World hello";
	const char *needles[] = { "world", "World", "hello", "", "xyz", NULL, "HELLO WORLD HELLO!" };
	for (unsigned i = 0; i < sizeof(needles) / sizeof(needles[0]); i++) {
		char *a = slurm_xstrstr(hay, needles[i]), *b = slurm_xstrcasestr(hay, needles[i]);
		printf("search(%s): strstr=%ld casestr=%ld\n", S(needles[i]), a ? (long)(a - hay) : -1L,
		       b ? (long)(b - hay) : -1L);
	}
	printf("casestr(\"\",\"\")=%p strstr(NULL,a)=%p\n", (void *)slurm_xstrcasestr("", ""),
	       (void *)slurm_xstrstr(NULL, "a"));
	printf("xstrchr=%s xstrrchr=%s null=%p %p missing=%p\n", slurm_xstrchr("a.b.c", '.'),
	       slurm_xstrrchr("a.b.c", '.'), (void *)slurm_xstrchr(NULL, 'a'), (void *)slurm_xstrrchr(NULL, 'a'),
	       (void *)slurm_xstrchr("abc", 'z'));
	char host[1024];
	gethostname(host, sizeof(host));
	if (strchr(host, '.'))
		*strchr(host, '.') = '\0';
	s = slurm_xshort_hostname();
	printf("xshort_hostname matches=%d\n", !strcmp(s, host));
	slurm_xfree_ptr(s);
	return 0;
}
