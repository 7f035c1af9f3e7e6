/*
 * demangle.c - kernel names through libstdc++'s __cxa_demangle (demangle.h).
 */
#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/demangle.h"

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

/* The demangler, looked up once for the process (pthread_once: analyses
 * on several threads may ask first at the same time); read-only after. */
static pthread_once_t resolve_once = PTHREAD_ONCE_INIT;
static demangle_fn resolved;

static void resolve_init(void)
{
	void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (h)
		*(void **)&resolved = dlsym(h, "__cxa_demangle");
}

static demangle_fn resolve(void)
{
	pthread_once(&resolve_once, resolve_init);
	return resolved;
}

const char *gs_demangle(const char *name, char *buf, size_t n)
{
	if (!name || name[0] != '_' || name[1] != 'Z' || n == 0)
		return name;
	demangle_fn fn = resolve();
	if (!fn)
		return name;
	int status = -1;
	char *d = fn(name, NULL, NULL, &status);
	if (status != 0 || !d) {
		free(d);
		return name;
	}
	snprintf(buf, n, "%s", d);
	free(d);
	return buf;
}

/* A demangled C++ name made short enough to read on one line: no return
 * type, no parameter list (the template arguments already tell overloads
 * apart), no at::native:: or (anonymous namespace):: qualifiers, and the end
 * cut at w columns (the template arguments that tell kernels apart come
 * first). */
const char *gs_one_line_name(const char *s, char *buf, size_t n, size_t w)
{
	static const char *const drop[] = {"at::native::", "(anonymous namespace)::"};
	if (!n)
		return "";
	if (w >= n)
		w = n - 1;
	if (!strncmp(s, "void ", 5))
		s += 5;
	size_t o = 0;
	int depth = 0, cut = 0;
	for (const char *p = s; *p;) {
		size_t skip = 0;
		for (size_t k = 0; k < sizeof(drop) / sizeof(drop[0]); k++)
			if (!strncmp(p, drop[k], strlen(drop[k])))
				skip = strlen(drop[k]);
		if (skip) {
			p += skip;
			continue;
		}
		if (depth == 0 && *p == '(' && o > 0)
			break; /* the parameter list */
		char c = *p;
		/* a function's parameter list inside the template arguments
		 * (a lambda's enclosing function): "f(at::TensorIterator&)" -> "f()" */
		int params = depth > 0 && c == '(' && o > 0 &&
			     (isalnum((unsigned char)buf[o - 1]) || buf[o - 1] == '_');
		if (o + 2 >= n || o + params + 1 > w) {
			cut = 1;
			break;
		}
		buf[o++] = c;
		if (params) {
			int d = 0;
			for (; *p; p++) {
				d += *p == '(' ? 1 : *p == ')' ? -1 : 0;
				if (d == 0)
					break;
			}
			buf[o++] = ')';
			p += *p != 0;
			continue;
		}
		depth += c == '<' ? 1 : c == '>' && depth > 0 ? -1 : 0;
		p++;
	}
	if (cut && w >= 3) {
		o = o > w - 3 ? w - 3 : o;
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = 0;
	return buf;
}

const char *gs_base_name(const char *s, char *buf, size_t n)
{
	if (!strncmp(s, "void ", 5))
		s += 5;
	int depth = 0;
	const char *start = s, *tmpl = NULL, *end = s + strlen(s);
	for (const char *p = s; *p; p++) {
		if (*p == '<' || *p == '(') {
			/* at a name's start "(" opens "(anonymous namespace)" */
			if (depth == 0 && *p == '(' && p != start) {
				end = p;
				break;
			}
			if (depth == 0 && *p == '<' && !tmpl)
				tmpl = p;
			depth++;
		} else if ((*p == '>' || *p == ')') && depth > 0) {
			depth--;
		} else if (depth == 0 && p[0] == ':' && p[1] == ':') {
			start = p + 2;
			tmpl = NULL;
			p++;
		}
	}
	size_t len = (size_t)((tmpl ? tmpl : end) - start);
	snprintf(buf, n, "%.*s%s", (int)len, start, tmpl ? "<>" : "");
	return buf;
}
