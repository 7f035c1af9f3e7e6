/*
 * fixture_cases.h - reads the pasted-message fixtures (tests/fixtures/oom/,
 * tests/fixtures/nccl/): each case is "# source: URL", then "# KEY: VALUE"
 * lines, then the message's lines, then a line "%%". Included by the tests
 * that use them (test_oom.c, test_nccl_log.c).
 */
#ifndef GPUSCOPE_TEST_FIXTURE_CASES_H
#define GPUSCOPE_TEST_FIXTURE_CASES_H

#include <stdio.h>
#include <string.h>

#define CASE_KEYS 16

struct fixture_case {
	char source[512];
	char key[CASE_KEYS][16], value[CASE_KEYS][256];
	int n_keys;
	char msg[16384];
	size_t len;
};

/* The value of the first "# KEY:" line, or NULL; from (an index) lets a
 * caller walk repeated keys. */
static inline const char *case_value(const struct fixture_case *k, const char *key, int *from)
{
	for (int i = from ? *from : 0; i < k->n_keys; i++)
		if (!strcmp(k->key[i], key)) {
			if (from)
				*from = i + 1;
			return k->value[i];
		}
	return NULL;
}

/* The value of a "# KEY:" line the case must have (the test fails
 * without it). Needs cmocka.h included before this header. */
static inline const char *case_need(const struct fixture_case *k, const char *key)
{
	const char *v = case_value(k, key, NULL);
	if (!v)
		fail_msg("%s: no '# %s:' line", k->source, key);
	return v;
}

/* Calls check(case, ctx) for every case of path; the number of cases, or
 * -1 when the file is unreadable or malformed (a case without its "%%",
 * a line too long for its field). */
static inline int each_fixture_case(const char *path,
				    void (*check)(const struct fixture_case *, void *), void *ctx)
{
	static char line[8192];
	static struct fixture_case k;
	FILE *f = fopen(path, "r");
	int n = 0, in = 0, bad = 0;
	if (!f)
		return -1;
	while (!bad && fgets(line, sizeof(line), f)) {
		size_t l = strlen(line), v = strcspn(line, "\n");
		if (!strncmp(line, "# source: ", 10)) {
			memset(&k, 0, sizeof(k));
			bad = v - 10 >= sizeof(k.source);
			if (!bad)
				memcpy(k.source, line + 10, v - 10);
			in = 1;
		} else if (!in) {
			continue;
		} else if (line[0] == '#' && line[1] == ' ' && strchr(line, ':')) {
			const char *colon = strchr(line, ':');
			size_t kl = (size_t)(colon - line - 2), vl = v - (size_t)(colon + 2 - line);
			bad = k.n_keys >= CASE_KEYS || kl >= sizeof(k.key[0]) ||
			      vl >= sizeof(k.value[0]) || colon[1] != ' ';
			if (!bad) {
				memcpy(k.key[k.n_keys], line + 2, kl);
				memcpy(k.value[k.n_keys], colon + 2, vl);
				k.n_keys++;
			}
		} else if (!strcmp(line, "%%\n")) {
			check(&k, ctx);
			n++;
			in = 0;
		} else {
			bad = k.len + l >= sizeof(k.msg);
			if (!bad) {
				memcpy(k.msg + k.len, line, l);
				k.len += l;
			}
		}
	}
	fclose(f);
	return bad || in ? -1 : n;
}

#endif
