/*
 * catalogue.h - the shape of one explanation, shared by the XID catalogue
 * (xid_catalogue.c) and the error-text catalogue (explain_catalogue.c).
 *
 * Every prose field is English marked with N_() and translated where it is
 * printed; a check's command is printed verbatim in every language.
 * Arrays end at the first NULL (or at CAT_MAX).
 */
#ifndef GPUSCOPE_CATALOGUE_H
#define GPUSCOPE_CATALOGUE_H

#define CAT_MAX 6

/* One check to run: a command, and what its output tells (translated). */
struct cat_check {
	const char *cmd;
	const char *why;
};

struct cat_text {
	const char *title;   /* one plain line */
	const char *meaning; /* what happened */
	const char *causes[CAT_MAX];
	struct cat_check checks[CAT_MAX];
	const char *fixes[CAT_MAX]; /* most effective first */
};

#endif
