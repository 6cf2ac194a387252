/* pdf.h — the PDF of a report: the HTML report's print layout rendered by headless Chromium
 * (print-to-PDF), the renderer made for exactly that. Chromium runs as a child process with an
 * argument vector (never a shell), in a private temporary folder that holds the HTML (a file name
 * of ours, never a name from a capture), a fresh profile, HOME and caches, with no network (every
 * host name resolves to nothing, no proxy, no background services) and a timeout. */
#ifndef IOPSY_PDF_H
#define IOPSY_PDF_H

#include <stdbool.h>

#include "util.h"

#define PDF_NO_CHROMIUM (-22)  /* no Chromium found */
#define PDF_FAILED (-23)       /* Chromium ran but wrote no PDF (or timed out) */

struct pdf_opts {
	const char *chromium;      /* program; NULL = $IOPSY_CHROMIUM, else chromium / chromium-browser /
	                            * google-chrome in PATH */
	int timeout_s;             /* 0 = 120 s */
	bool require;              /* --require-pdf: a PDF that cannot be made is an error */
	bool caller_group;         /* Chromium stays in the caller's process group (a batch worker's):
	                            * a kill of that group (its deadline, a signal to the run) takes
	                            * Chromium and its helpers too; false: a group of its own, killed
	                            * whole at the timeout */
};

/* Renders the HTML document html (n bytes) to PDF bytes appended to pdf. Returns 0, PDF_NO_CHROMIUM,
 * PDF_FAILED or ERR_IO, the reason appended to why. */
int pdf_render(const char *html, size_t n, const struct pdf_opts *o, struct buf *pdf, struct buf *why);
/* Attaches the n bytes of data to the PDF that starts at offset at of pdf (as pdf_render wrote it)
 * as the embedded file name (an application/json file of description desc, listed in the
 * document's /EmbeddedFiles: `pdfdetach -list`), by an incremental update appended to pdf.
 * Returns 0, or PDF_FAILED (pdf unchanged, why says why) when the PDF is not one a simple update
 * can extend (no classic cross-reference table, an encrypted or already updated file, a catalog
 * with a name dictionary). */
int pdf_attach(struct buf *pdf, size_t at, const char *name, const char *data, size_t n, const char *desc,
	       struct buf *why);
/* The Chromium program that would be used (caller frees), NULL when none is found. */
char *pdf_find_chromium(const char *given);

#endif
