/* version.h — the one place the version is defined. */
#ifndef IOPSY_VERSION_H
#define IOPSY_VERSION_H
#define IOPSY_VERSION "0.1.0"
#endif
