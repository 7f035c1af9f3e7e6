/*
 * i18n.h - translated messages: GNU gettext, through glibc's libintl.
 *
 * Mark every string a person reads: `_("text")` translates at run time (also
 * a printf format: the compiler checks the English original against the
 * arguments, msgfmt --check the translation), `N_("text")` marks a string in
 * a static table that is translated where it is printed (`_(table[i].title)`),
 * `C_("ctx", "text")` a short string that needs a context (evidence labels;
 * `NC_("ctx", "text")` marks one in a table),
 * `NG_("%d time", "%d times", n)` a plural. xgettext extracts all four
 * (po/README.md); po/zh_CN.po holds the Chinese; the build compiles it into
 * BUILD/locale/zh_CN/LC_MESSAGES/gpuscope.mo.
 *
 * Invariants:
 *  1. English is the msgid itself, so English output never depends on a
 *     catalogue being installed, and `--lang en` is byte-identical to a build
 *     without translations.
 *  2. Only LC_MESSAGES is taken from the environment: numbers, dates and
 *     JSON keep the C locale's forms in every language.
 *  3. Chinese works on a machine whose only locale is C.UTF-8: glibc ignores
 *     LANGUAGE while LC_MESSAGES is "C", so i18n_set_lang() moves LC_MESSAGES
 *     to zh_CN.UTF-8 when it exists, else to C.UTF-8, then sets LANGUAGE.
 */
#ifndef GPUSCOPE_I18N_H
#define GPUSCOPE_I18N_H

#define _(s) i18n_gettext(s)
#define N_(s) s
#define C_(ctx, s) i18n_pgettext(ctx, s)
#define NC_(ctx, s) s
#define NG_(s, p, n) i18n_ngettext(s, p, n)

enum i18n_lang {
	I18N_EN = 0,
	I18N_ZH = 1,
};

/*
 * Picks the language from the environment (LANGUAGE's first entry, else
 * LC_ALL, LC_MESSAGES, LANG: "zh..." is Chinese, anything else English).
 * Called once by main(); safe to call again.
 */
void i18n_init(void);

/*
 * Sets the language by name: "en", "zh", "zh_CN", "zh-CN", "zh_CN.UTF-8"...
 * Returns 0, or -1 for a name that is neither English nor Chinese (the
 * language is then unchanged). When the Chinese catalogue cannot be found or
 * no UTF-8 locale exists, it stays in English and i18n_warning says why.
 */
int i18n_set_lang(const char *name);
/* Why Chinese, asked for by i18n_init or i18n_set_lang, is not used ("the
 * Chinese message catalogue ... is not installed (looked in ...)"): once a
 * process, for the command to say; NULL otherwise. Nothing here prints. */
const char *i18n_warning(void);

enum i18n_lang i18n_lang(void);
/* 1 when messages are printed in Chinese. */
int i18n_zh(void);

/* The translation of msgid, or msgid itself (English, or no translation). */
const char *i18n_gettext(const char *msgid) __attribute__((format_arg(1)));
/* msgid in context ctx (a msgctxt in the .po); msgid when untranslated. */
const char *i18n_pgettext(const char *ctx, const char *msgid) __attribute__((format_arg(2)));
const char *i18n_ngettext(const char *one, const char *many, unsigned long n)
    __attribute__((format_arg(1))) __attribute__((format_arg(2)));

/*
 * Tests: how many lookups found no translation while the language was
 * Chinese (a string was marked but not translated), the last such msgid
 * (NULL when none), and a reset.
 */
long i18n_missing(void);
const char *i18n_last_missing(void);
void i18n_missing_reset(void);

/*
 * Puts LANGUAGE back as the user had it. Chinese output sets LANGUAGE in
 * this process (invariant 3); a command that starts another program (record)
 * calls this in the child before exec, so the program sees its own
 * environment unchanged.
 */
void i18n_child_env(void);

/* The directory the catalogue was bound from, or NULL (English only). */
const char *i18n_localedir(void);

#endif
