/*
 * finding.c - a finding's text as its reader sees it (finding.h): the
 * English it was made in, or its message ids translated and formatted
 * again with the arguments they were made with, ROCm's names put in.
 */
#include <stdio.h>

#include "diagnose/advice.h"
#include "report/finding.h"
#include "util/i18n.h"

/* m in the reader's language into buf, else the English as it stands. */
static const char *text(char *buf, size_t cap, const struct finding *f, const struct msg *m,
			const char *english, int rocm)
{
	if (!f->msgid || !m->ok || !i18n_zh()) {
		snprintf(buf, cap, "%s", english);
		return buf;
	}
	msg_format(buf, cap, _(m->fmt), m);
	if (rocm)
		adv_rocm_text(buf, cap);
	return buf;
}

const char *finding_title(char *buf, size_t cap, const struct finding *f)
{
	return text(buf, cap, f, &f->title_msg, f->title, f->rocm & 1u);
}

const char *finding_action_text(char *buf, size_t cap, const struct finding *f, int k)
{
	return text(buf, cap, f, &f->action_msg[k], f->actions[k], f->rocm >> (1 + k) & 1u);
}
