/*
 * fixture_file.h - what the fixture tests share: a .xz fixture (the larger
 * recordings) decompressed into a temporary file.
 */
#ifndef GPUSCOPE_TEST_FIXTURE_FILE_H
#define GPUSCOPE_TEST_FIXTURE_FILE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A .xz file decompressed into a temporary file named in tmp; tmp stays ""
 * for any other file. -1 on failure. */
static inline int fixture_unxz(const char *path, char *tmp, size_t n)
{
	size_t len = strlen(path);
	if (len < 3 || strcmp(path + len - 3, ".xz") != 0)
		return 0;
	snprintf(tmp, n, "/tmp/gs-fixture-XXXXXX");
	int fd = mkstemp(tmp);
	if (fd < 0)
		return -1;
	close(fd);
	char cmd[4096 + 64];
	int w = snprintf(cmd, sizeof(cmd), "xz -dc '%.4000s' > '%.40s'", path, tmp);
	if (w < 0 || (size_t)w >= sizeof(cmd) || len > 4000 || system(cmd) != 0) {
		unlink(tmp);
		*tmp = 0;
		return -1;
	}
	return 0;
}

#endif
