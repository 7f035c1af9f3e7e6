/*
 * textsafe.h - no terminal control sequence from the data reaches a
 * terminal (issue 35, probe W2): kernel and range names, GPU names, process
 * names and kernel-log fields come from files anyone can hand over, and an
 * ESC, BEL or CR in them would clear the screen, retitle the terminal or
 * spoof a line. Control characters (C0 but tab and newline, DEL, and the
 * C1 range U+0080..U+009F in UTF-8) are shown as '?'.
 */
#ifndef GPUSCOPE_TEXTSAFE_H
#define GPUSCOPE_TEXTSAFE_H

/* Replaces the control characters of s in place (newline and tab too). */
void textsafe_str(char *s);

/* Puts a filter between stdout and file descriptor 1 that replaces the
 * control characters but newline and tab; write errors keep their errno.
 * For commands whose stdout is text for people or for other programs'
 * parsers (never a TUI that writes its own escape sequences). 0, or -1
 * when the filter cannot be made (stdout is left as it was). */
int textsafe_stdout(void);

#endif
