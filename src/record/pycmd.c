/*
 * pycmd.c - does a command start a Python program (pycmd.h)?
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/pycmd.h"

#define SCRIPT_MAX (64 * 1024)
#define FILES_MAX 64	/* files looked at, beyond the program itself */
#define ARGS_MAX 64	/* a wrapper's arguments looked at */
#define LOOKUPS_MAX 256 /* a script's command words looked up on the path */

enum kind {
	K_OTHER,
	K_PYTHON,	/* an interpreter, or a #! script naming python */
	K_SHELL,	/* a shell's executable */
	K_SHELL_SCRIPT, /* a script a shell runs */
};

struct walk {
	const char *path; /* where programs are looked up */
	int files;	  /* files still allowed to be opened */
	int lookups;	  /* command words still allowed to be looked up */
};

static const char *base_of(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static int is_python_name(const char *base)
{
	return strncmp(base, "python", 6) == 0;
}

static int is_py_file(const char *s, size_t n)
{
	return n > 3 && memcmp(s + n - 3, ".py", 3) == 0;
}

static int is_shell_name(const char *base)
{
	static const char *const shells[] = {"sh", "bash", "dash", "zsh", "ksh", "ash"};
	for (size_t i = 0; i < sizeof(shells) / sizeof(shells[0]); i++)
		if (strcmp(base, shells[i]) == 0)
			return 1;
	return 0;
}

/* file as execvp finds it (a name with a slash as it is, else the first
 * of that name on w->path), an executable regular file, into out; 0 or -1 */
static int resolve(const struct walk *w, const char *file, char *out, size_t cap)
{
	struct stat st;
	if (!*file)
		return -1;
	if (strchr(file, '/'))
		return (size_t)snprintf(out, cap, "%s", file) < cap && stat(out, &st) == 0 &&
			       S_ISREG(st.st_mode) && access(out, X_OK) == 0
			   ? 0
			   : -1;
	for (const char *d = w->path; d;) {
		const char *colon = strchr(d, ':');
		size_t n = colon ? (size_t)(colon - d) : strlen(d);
		if ((size_t)snprintf(out, cap, "%.*s%s%s", (int)n, d, n ? "/" : "", file) < cap &&
		    stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
			return 0;
		d = colon ? colon + 1 : NULL;
	}
	return -1;
}

/* up to cap - 1 bytes of the regular file p, NUL-terminated, into buf;
 * the byte count or -1. Only a regular file is opened (a device's open
 * can do things), without blocking. */
static ssize_t read_head(struct walk *w, const char *p, char *buf, size_t cap)
{
	struct stat st;
	if (w->files <= 0 || stat(p, &st) != 0 || !S_ISREG(st.st_mode))
		return -1;
	w->files--;
	int fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -1;
	ssize_t n = -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		size_t got = 0;
		for (;;) {
			ssize_t r = read(fd, buf + got, cap - 1 - got);
			if (r <= 0)
				break;
			got += (size_t)r;
			if (got == cap - 1)
				break;
		}
		buf[got] = '\0';
		n = (ssize_t)got;
	}
	close(fd);
	return n;
}

/* what the file p (found, executable or a script) is, from its first line */
static enum kind file_kind(struct walk *w, const char *p)
{
	char head[256];
	ssize_t n = read_head(w, p, head, sizeof(head));
	if (n < 2)
		return K_OTHER;
	if (head[0] != '#' || head[1] != '!') {
		/* execvp hands an executable text file without "#!" to /bin/sh */
		if (n >= 4 && memcmp(head, "\177ELF", 4) == 0)
			return K_OTHER;
		return memchr(head, '\0', (size_t)n) ? K_OTHER : K_SHELL_SCRIPT;
	}
	char *nl = strchr(head, '\n');
	if (nl)
		*nl = '\0';
	if (strstr(head, "python"))
		return K_PYTHON;
	/* "#!/bin/bash -e", "#!/usr/bin/env bash": the interpreter's words */
	char *save = NULL;
	for (char *tok = strtok_r(head + 2, " \t\r", &save); tok;
	     tok = strtok_r(NULL, " \t\r", &save)) {
		if (is_shell_name(base_of(tok)))
			return K_SHELL_SCRIPT;
		if (strcmp(base_of(tok), "env") != 0 && tok[0] != '-')
			break;
	}
	return K_OTHER;
}

/* what the program file (as execvp takes it) is */
static enum kind prog_kind(struct walk *w, const char *file, char *resolved, size_t cap)
{
	const char *base = base_of(file);
	if (is_python_name(base))
		return K_PYTHON;
	if (is_shell_name(base))
		return K_SHELL;
	if (resolve(w, file, resolved, cap) < 0)
		return K_OTHER;
	return file_kind(w, resolved);
}

/* 1 when shell text (a script, or sh -c's string) runs Python (rule 3): a
 * word python* or *.py anywhere outside comments, or a command word (a
 * line's first, after ; | & ( ` { or a word such as exec, nohup, env) that
 * is an executable of rule 1 */
static int text_runs_python(struct walk *w, const char *text)
{
	static const char *const keeps[] = {"exec", "then", "do", "else",    "nohup", "time",
					    "env",  "sudo", "!",  "command", "xargs", "srun"};
	int cmdpos = 1;
	for (const char *s = text; *s;) {
		if (*s == '\n' || strchr(";|&(`{", *s)) {
			cmdpos = 1;
			s++;
			continue;
		}
		if (strchr(" \t\r\"'<>)}\\", *s)) {
			s++;
			continue;
		}
		if (*s == '#') { /* a comment: to the end of the line */
			while (*s && *s != '\n')
				s++;
			continue;
		}
		const char *t = s;
		while (*s && !strchr(" \t\r\n;|&()`{}\"'<>\\", *s))
			s++;
		size_t n = (size_t)(s - t);
		char word[512];
		if (n >= sizeof(word))
			continue;
		memcpy(word, t, n);
		word[n] = '\0';
		if (is_python_name(base_of(word)) || is_py_file(word, n))
			return 1;
		if (!cmdpos)
			continue;
		if (strchr(word, '=') && !strchr(word, '/'))
			continue; /* VAR=value before the command */
		int keep = 0;
		for (size_t i = 0; i < sizeof(keeps) / sizeof(keeps[0]); i++)
			keep |= strcmp(word, keeps[i]) == 0;
		cmdpos = keep;
		char p[4096];
		if (!keep && !strchr(word, '$') && w->lookups > 0 && w->lookups-- &&
		    resolve(w, word, p, sizeof(p)) == 0 && file_kind(w, p) == K_PYTHON)
			return 1;
	}
	return 0;
}

static int script_runs_python(struct walk *w, const char *p)
{
	char *buf = malloc(SCRIPT_MAX + 1);
	if (!buf)
		return 0;
	int yes = read_head(w, p, buf, SCRIPT_MAX + 1) > 0 && text_runs_python(w, buf);
	free(buf);
	return yes;
}

/* a shell's arguments: -c STRING, or the script it runs (found as the
 * shell finds it: as named, else on the path) */
static int shell_runs_python(struct walk *w, char *const *argv)
{
	for (int i = 1; argv[i] && i <= ARGS_MAX; i++) {
		const char *a = argv[i];
		/* -c, or -c among single-letter options (bash -lc, sh -ec) */
		if (a[0] == '-' && a[1] != '-' && strchr(a + 1, 'c'))
			return argv[i + 1] && text_runs_python(w, argv[i + 1]);
		if (a[0] == '-' || a[0] == '+')
			continue;
		char p[4096];
		struct stat st;
		if (stat(a, &st) == 0)
			snprintf(p, sizeof(p), "%s", a);
		else if (resolve(w, a, p, sizeof(p)) < 0)
			return 0;
		return is_py_file(a, strlen(a)) || script_runs_python(w, p);
	}
	return 0;
}

int cmd_runs_python(char *const *argv, const char *path)
{
	struct walk w = {path ? path : "/usr/bin:/bin", FILES_MAX + 1, LOOKUPS_MAX};
	char p[4096];
	if (!argv || !argv[0])
		return 0;
	switch (prog_kind(&w, argv[0], p, sizeof(p))) {
	case K_PYTHON:
		return 1;
	case K_SHELL:
		return shell_runs_python(&w, argv);
	case K_SHELL_SCRIPT:
		return script_runs_python(&w, p);
	case K_OTHER:
		break;
	}
	/* a wrapper (rule 2) */
	for (int i = 1; argv[i] && i <= ARGS_MAX; i++) {
		const char *a = argv[i];
		if (a[0] == '-')
			continue;
		if (is_python_name(base_of(a)) || is_py_file(a, strlen(a)))
			return 1;
		switch (prog_kind(&w, a, p, sizeof(p))) {
		case K_PYTHON:
			return 1;
		case K_SHELL:
			return shell_runs_python(&w, argv + i);
		case K_SHELL_SCRIPT:
			if (script_runs_python(&w, p))
				return 1;
			break;
		case K_OTHER:
			break;
		}
	}
	return 0;
}
