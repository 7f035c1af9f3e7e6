/*
 * version.h - gpuscope's version, for the CLI and the files it writes.
 */
#ifndef GPUSCOPE_VERSION_H
#define GPUSCOPE_VERSION_H

#define GPUSCOPE_VERSION "0.1.0"

#endif
