// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace_marker: a line of text in the trace, in the writing thread's ring
 * at that moment (ftrace's trace_marker; shown as `tracing_mark_write:
 * TEXT` by the function tracer, as a comment line by
 * function_graph).  The record is PSD_EXT_MARKER (patchsite-data(5)):
 * word 0 holds the written length << 32 | the stored length, the text
 * follows, NUL-padded to whole words.  Text past PS_MARKER_MAX bytes is
 * cut, as ftrace cuts, and the record keeps the length written, so every
 * reader says what was cut.
 */
#include <errno.h>
#include <string.h>

#include "core/textbuf.h"
#include "record/record.h"
#include "data/format.h"

long patchsite_trace_marker(const char *text)
{
	uint64_t words[1 + PS_MARKER_MAX / 8] = { 0 };
	size_t len, stored;

	if (!text) {
		ps_log(PATCHSITE_LOG_ERROR, "trace_marker: no text");
		return -EINVAL;
	}
	len = strlen(text);
	if (len && text[len - 1] == '\n')
		len--;		/* echo's newline: each marker is a line of its own anyway */
	stored = len > PS_MARKER_MAX ? PS_MARKER_MAX : len;
	words[0] = (uint64_t)len << 32 | stored;
	memcpy(words + 1, text, stored);
	if (!ps_ring_ext(PSD_EXT_MARKER, words, 1 + (unsigned)((stored + 7) / 8))) {
		ps_log(PATCHSITE_LOG_ERROR, "trace_marker: not recorded: this thread has no ring "
		       "(no function or function_graph tracer) or it is full (counted as lost)");
		return -ENOSPC;
	}
	if (stored < len)
		ps_log(PATCHSITE_LOG_WARNING, "trace_marker: %zu bytes written, the first %d kept "
		       "(the limit; the record says it was cut)", len, PS_MARKER_MAX);
	return (long)stored;
}

int ps_marker_write(const char *sub, const char *value, bool append)
{
	long n;

	(void)sub;
	(void)append;	/* `>>` and `>` both add a line, as in ftrace */
	n = patchsite_trace_marker(value);
	return n < 0 ? (int)n : 0;
}
