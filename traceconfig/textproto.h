/*
 * Text-format protobuf parser over protobuf-c descriptors.
 *
 * Overview
 *   The parser fills any protobuf-c message from the protobuf text format
 *   (the format of Perfetto's "--txt" configs). It knows nothing about
 *   TraceConfig itself: every field name, type, enum and nesting comes from
 *   the ProtobufCMessageDescriptor it is given, so it follows the .proto
 *   files under protos/ as they grow. The result is an ordinary unpacked
 *   protobuf-c message: pack it with protobuf_c_message_pack() and free it
 *   with protobuf_c_message_free_unpacked(msg, NULL).
 *
 *   Accepted syntax:
 *
 *     # comment to end of line
 *     duration_ms: 10000                 scalar: name ':' value
 *     buffers { size_kb: 1024 }          message: colon optional,
 *     buffers: < size_kb: 2048 >           '{...}' or '<...>'
 *     ftrace_events: ["a/b", "c/d"]      list for a repeated field
 *     ftrace_events: "e/f"               or one value per line
 *     fill_policy: DISCARD               enum by name, or by number
 *     name: "a\n\x41\101\u00e9" 'b'      escapes; adjacent strings join
 *     x: 0x1f  y: 017  z: -5             hex, octal, negative integers
 *     f: 1.5f  g: -inf  h: nan           floats
 *     b: true / false / True / False / t / f / 1 / 0
 *
 *   Fields may be separated by ',' or ';'. Integers are range-checked
 *   against the field's type. A singular field given twice keeps the last
 *   scalar value, and a message given twice is merged, as the binary
 *   decoder does with repeated occurrences.
 *
 * Errors
 *   On error the parser returns NULL and writes a message of the form
 *     file:LINE:COL: error: what was expected, found what
 *     <the source line>
 *     <caret under the column>
 *   An unknown field name suggests the closest known name. Nothing in the
 *   input can crash the parser: nesting is bounded and every allocation is
 *   checked.
 */
#ifndef FARO_CLI_TEXTPROTO_H
#define FARO_CLI_TEXTPROTO_H

#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

/*
 * Skip fields whose name the descriptor does not know, and enum values it
 * does not know (--txt-lossy): configs from newer tools still load.
 */
#define TEXTPROTO_SKIP_UNKNOWN	0x1

/* Deepest message nesting accepted; deeper input is an error. */
#define TEXTPROTO_MAX_DEPTH	64

/*
 * Parses len bytes of text (no NUL needed) into a new message of type desc.
 * fname names the input in error messages. Returns the message, or NULL
 * with the reason in err (always NUL-terminated when errlen > 0).
 */
ProtobufCMessage *textproto_parse_untrusted(const ProtobufCMessageDescriptor *desc,
	    const char *text, size_t len, const char *fname, int flags,
	    char *err, size_t errlen);

/* Levenshtein distance, used for "did you mean" suggestions. */
size_t	textproto_edit_distance(const char *a, const char *b);

/*
 * The text format of a message given as wire bytes (untrusted), named by
 * desc, laid out as upstream's trace processor prints a trace's config
 * (see textproto_print.c). malloc'd; NULL when out of memory.
 */
char	*textproto_print(const ProtobufCMessageDescriptor *desc,
	    const uint8_t *buf, size_t len);

#endif
