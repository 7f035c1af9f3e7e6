/*
 * finding.c - a finding's text as its reader sees it (finding.h), for the
 * renderers: diagnose/finding.c's finding_shown makes it (the English it
 * was made in, or its message ids translated and formatted again).
 */
#include "diagnose/finding.h"
#include "report/finding.h"

const char *finding_title(char *buf, size_t cap, const struct finding *f)
{
	return finding_shown(buf, cap, f, -1);
}

const char *finding_action_text(char *buf, size_t cap, const struct finding *f, int k)
{
	return finding_shown(buf, cap, f, k);
}
