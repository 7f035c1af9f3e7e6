/*
 * i18n.c - the language switch behind _() (see i18n.h).
 *
 * The catalogue is looked for, in order, in $TEXTDOMAINDIR (gettext's own
 * variable), beside the binary (BUILD/locale: the build tree and the unit
 * tests), in ../share/locale relative to the binary (an installed tree, any
 * PREFIX), then in the configured GPUSCOPE_LOCALEDIR. The first that holds
 * zh_CN's gpuscope.mo wins.
 */
#include <libintl.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/i18n.h"

#define DOMAIN "gpuscope"

static enum i18n_lang cur_lang = I18N_EN;
static int bound; /* 1: bound to a directory that has the catalogue */
/* why Chinese was asked for and English stays, until i18n_warning takes it;
 * warned: it was taken (said once a process) */
static char warning[PATH_MAX + 160];
static int warned;
static char localedir[PATH_MAX];
static long missing;
static const char *last_missing;
static int saved_language; /* 1: LANGUAGE was changed; orig_language is what it was */
static char *orig_language;

static int has_catalogue(const char *dir)
{
	char p[PATH_MAX + 64];
	if (snprintf(p, sizeof(p), "%s/zh_CN/LC_MESSAGES/" DOMAIN ".mo", dir) >= (int)sizeof(p))
		return 0;
	return access(p, R_OK) == 0;
}

/* where find_localedir looked, for the warning when it found nothing */
static char looked[3 * PATH_MAX / 4];

static int try_dir(const char *dir)
{
	if (dir && *dir) {
		size_t n = strlen(looked);
		snprintf(looked + n, sizeof(looked) - n, "%s%s", n ? ", " : "", dir);
	}
	if (!dir || !*dir || strlen(dir) >= sizeof(localedir) || !has_catalogue(dir))
		return 0;
	snprintf(localedir, sizeof(localedir), "%s", dir);
	return 1;
}

/* Finds the catalogue directory; 0 when there is none. */
static int find_localedir(void)
{
	char exe[PATH_MAX], dir[PATH_MAX + 32];
	ssize_t n;
	looked[0] = 0;

	if (try_dir(getenv("TEXTDOMAINDIR")))
		return 1;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			snprintf(dir, sizeof(dir), "%s/locale", exe);
			if (try_dir(dir))
				return 1;
			snprintf(dir, sizeof(dir), "%s/../share/locale", exe);
			if (try_dir(dir))
				return 1;
		}
	}
#ifdef GPUSCOPE_LOCALEDIR
	if (try_dir(GPUSCOPE_LOCALEDIR))
		return 1;
#endif
	return 0;
}

static int is_c_locale(const char *name)
{
	return !name || strcmp(name, "C") == 0 || strcmp(name, "POSIX") == 0;
}

static void warn_once(const char *why)
{
	if (!warned && !warning[0])
		snprintf(warning, sizeof(warning), "%s", why);
}

const char *i18n_warning(void)
{
	if (warned || !warning[0])
		return NULL;
	warned = 1;
	return warning;
}

/* Binds the catalogue and makes glibc look Chinese up; 0 on success. */
static int enable_zh(void)
{
	if (!bound) {
		if (!find_localedir()) {
			char why[sizeof(looked) + 96];
			snprintf(why, sizeof(why),
				 "the Chinese message catalogue (zh_CN/LC_MESSAGES/gpuscope.mo) is "
				 "not installed (looked in %s)",
				 looked);
			warn_once(why);
			return -1;
		}
		bindtextdomain(DOMAIN, localedir);
		bind_textdomain_codeset(DOMAIN, "UTF-8");
		/* glibc's own messages (strerror, dlerror) follow LANGUAGE too: in
		 * UTF-8, not as '?' in the C locale's ASCII */
		bind_textdomain_codeset("libc", "UTF-8");
		bound = 1;
	}
	/* invariant 3 (i18n.h): LANGUAGE counts only while LC_MESSAGES is not "C" */
	if (is_c_locale(setlocale(LC_MESSAGES, NULL)) && !setlocale(LC_MESSAGES, "zh_CN.UTF-8") &&
	    !setlocale(LC_MESSAGES, "C.UTF-8") && !setlocale(LC_MESSAGES, "C.utf8")) {
		warn_once("no UTF-8 locale (zh_CN.UTF-8 or C.UTF-8) is installed");
		return -1;
	}
	if (!saved_language) {
		const char *o = getenv("LANGUAGE");
		orig_language = o ? strdup(o) : NULL;
		saved_language = 1;
	}
	setenv("LANGUAGE", "zh_CN", 1);
	/* glibc caches lookups; textdomain() invalidates the cache */
	textdomain(DOMAIN);
	return 0;
}

static int name_is_zh(const char *s)
{
	return s && (s[0] == 'z' || s[0] == 'Z') && (s[1] == 'h' || s[1] == 'H') &&
	       (s[2] == 0 || s[2] == '_' || s[2] == '-' || s[2] == '.' || s[2] == ':' ||
		s[2] == '@');
}

static int name_is_en(const char *s)
{
	return s && (strcmp(s, "C") == 0 || strcmp(s, "POSIX") == 0 || strncmp(s, "C.", 2) == 0 ||
		     ((s[0] == 'e' || s[0] == 'E') && (s[1] == 'n' || s[1] == 'N') &&
		      (s[2] == 0 || s[2] == '_' || s[2] == '-' || s[2] == '.')));
}

int i18n_set_lang(const char *name)
{
	if (name_is_zh(name)) {
		if (cur_lang != I18N_ZH && enable_zh() == 0)
			cur_lang = I18N_ZH;
		return 0;
	}
	if (name_is_en(name)) {
		cur_lang = I18N_EN;
		return 0;
	}
	return -1;
}

void i18n_init(void)
{
	static const char *const vars[] = {"LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"};
	/* numbers and everything else stay in the C locale (invariant 2) */
	setlocale(LC_MESSAGES, "");
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);
		if (!v || !*v)
			continue;
		if (name_is_zh(v))
			i18n_set_lang("zh");
		return;
	}
}

enum i18n_lang i18n_lang(void)
{
	return cur_lang;
}

int i18n_zh(void)
{
	return cur_lang == I18N_ZH;
}

static const char *note(const char *msgid, const char *got)
{
	if (got == msgid) { /* atomic: analyses of several devices translate at once */
		__atomic_fetch_add(&missing, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&last_missing, msgid, __ATOMIC_RELAXED);
	}
	return got;
}

const char *i18n_gettext(const char *msgid)
{
	if (cur_lang == I18N_EN || !msgid || !*msgid)
		return msgid;
	return note(msgid, dgettext(DOMAIN, msgid));
}

const char *i18n_pgettext(const char *ctx, const char *msgid)
{
	char buf[1024];
	if (cur_lang == I18N_EN || !msgid || !*msgid)
		return msgid;
	/* a msgctxt is stored as "CTX\004MSGID" (gettext.h's pgettext) */
	if (snprintf(buf, sizeof(buf), "%s\004%s", ctx, msgid) >= (int)sizeof(buf))
		return note(msgid, msgid);
	const char *t = dgettext(DOMAIN, buf);
	return note(msgid, t == buf ? msgid : t);
}

const char *i18n_ngettext(const char *one, const char *many, unsigned long n)
{
	if (cur_lang == I18N_EN)
		return n == 1 ? one : many;
	const char *t = dngettext(DOMAIN, one, many, n);
	return note(n == 1 ? one : many, t);
}

long i18n_missing(void)
{
	return __atomic_load_n(&missing, __ATOMIC_RELAXED);
}

const char *i18n_last_missing(void)
{
	return __atomic_load_n(&last_missing, __ATOMIC_RELAXED);
}

void i18n_missing_reset(void)
{
	__atomic_store_n(&missing, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&last_missing, NULL, __ATOMIC_RELAXED);
}

void i18n_child_env(void)
{
	if (!saved_language)
		return;
	if (orig_language)
		setenv("LANGUAGE", orig_language, 1);
	else
		unsetenv("LANGUAGE");
}

const char *i18n_localedir(void)
{
	return bound ? localedir : NULL;
}
