/*
 * demangle.c - kernel names through libstdc++'s __cxa_demangle (demangle.h).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/demangle.h"

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

static demangle_fn resolve(void)
{
	static int tried;
	static demangle_fn fn;
	if (!tried) {
		tried = 1;
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		if (h)
			*(void **)&fn = dlsym(h, "__cxa_demangle");
	}
	return fn;
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
