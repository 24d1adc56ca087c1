/*
 * check_textproto: the text-format parser over a test-only message with
 * every field kind (tests/traceconfig/textproto_test.proto). Each construct is
 * parsed and checked field by field, and packed to binary to compare with
 * the encoding expected; each error checks the position and the message.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traceconfig/textproto.h"
#include "tests/traceconfig/textproto_test.pb-c.h"

typedef Faro__Test__AllTypes AllTypes;

static char errbuf[1024];

static AllTypes *
parse(const char *text)
{
	ProtobufCMessage *m;

	m = textproto_parse_untrusted(&faro__test__all_types__descriptor,
	    text, strlen(text), "t.txt", 0, errbuf, sizeof(errbuf));
	ck_assert_msg(m != NULL, "parse failed: %s", errbuf);
	return (AllTypes *)m;
}

/* Expects an error whose text contains every string given. */
static void
parse_fail(const char *text, const char *pos, const char *what)
{
	ProtobufCMessage *m;

	m = textproto_parse_untrusted(&faro__test__all_types__descriptor,
	    text, strlen(text), "t.txt", 0, errbuf, sizeof(errbuf));
	ck_assert_msg(m == NULL, "parse of <%s> should fail", text);
	ck_assert_msg(strstr(errbuf, pos) != NULL,
	    "error <%s> lacks position <%s>", errbuf, pos);
	ck_assert_msg(strstr(errbuf, what) != NULL,
	    "error <%s> lacks <%s>", errbuf, what);
}

static void
done(AllTypes *m)
{
	protobuf_c_message_free_unpacked(&m->base, NULL);
}

START_TEST(test_scalars)
{
	AllTypes *m = parse(
	    "i32: -2147483648 i64: -9223372036854775808\n"
	    "u32: 4294967295 u64: 18446744073709551615\n"
	    "s32: -5 s64: 0x7fffffffffffffff f32: 017 f64: 0XFF\n"
	    "sf32: - 12 sf64: -0x10\n"
	    "fl: 1.5f db: 2.5e-3 b: true str: \"hello\"\n");

	ck_assert_int_eq(m->has_i32, 1);
	ck_assert_int_eq(m->i32, INT32_MIN);
	ck_assert(m->i64 == INT64_MIN);
	ck_assert_uint_eq(m->u32, UINT32_MAX);
	ck_assert(m->u64 == UINT64_MAX);
	ck_assert_int_eq(m->s32, -5);
	ck_assert(m->s64 == INT64_MAX);
	ck_assert_uint_eq(m->f32, 15);	/* octal */
	ck_assert(m->f64 == 255);
	ck_assert_int_eq(m->sf32, -12);
	ck_assert(m->sf64 == -16);
	ck_assert(m->fl == 1.5f);
	ck_assert(m->db == 2.5e-3);
	ck_assert_int_eq(m->has_b, 1);
	ck_assert_int_eq(m->b, 1);
	ck_assert_str_eq(m->str, "hello");
	ck_assert_int_eq(m->has_color, 0);
	ck_assert_str_eq(m->with_default, "dflt");
	done(m);
}
END_TEST

START_TEST(test_floats)
{
	AllTypes *m = parse("fl: inf db: -inf reals: [nan, -Infinity, .5, "
	    "1e3, 2, 3F, 1.25E+2, -0.0]");

	ck_assert(isinf(m->fl) && m->fl > 0);
	ck_assert(isinf(m->db) && m->db < 0);
	ck_assert_uint_eq(m->n_reals, 8);
	ck_assert(isnan(m->reals[0]));
	ck_assert(isinf(m->reals[1]) && m->reals[1] < 0);
	ck_assert(m->reals[2] == 0.5);
	ck_assert(m->reals[3] == 1000);
	ck_assert(m->reals[4] == 2);
	ck_assert(m->reals[5] == 3);
	ck_assert(m->reals[6] == 125);
	ck_assert(m->reals[7] == 0 && signbit(m->reals[7]));
	done(m);
}
END_TEST

START_TEST(test_bools)
{
	AllTypes *m = parse("flags: [true, false, True, False, t, f, 1, 0]");
	static const int want[] = { 1, 0, 1, 0, 1, 0, 1, 0 };
	size_t i;

	ck_assert_uint_eq(m->n_flags, 8);
	for (i = 0; i < 8; i++)
		ck_assert_int_eq(m->flags[i], want[i]);
	done(m);
}
END_TEST

START_TEST(test_enums)
{
	AllTypes *m = parse("color: GREEN colors: [RED, 2, -3, NEGATIVE] "
	    "colors: COLOR_UNSPECIFIED inner { fill_policy: DISCARD }");

	ck_assert_int_eq(m->has_color, 1);
	ck_assert_int_eq(m->color, FARO__TEST__COLOR__GREEN);
	ck_assert_uint_eq(m->n_colors, 5);
	ck_assert_int_eq(m->colors[0], FARO__TEST__COLOR__RED);
	ck_assert_int_eq(m->colors[1], FARO__TEST__COLOR__GREEN);
	ck_assert_int_eq(m->colors[2], FARO__TEST__COLOR__NEGATIVE);
	ck_assert_int_eq(m->colors[3], FARO__TEST__COLOR__NEGATIVE);
	ck_assert_int_eq(m->colors[4], FARO__TEST__COLOR__COLOR_UNSPECIFIED);
	ck_assert_int_eq(m->inner->fill_policy,
	    FARO__TEST__INNER__POLICY__DISCARD);
	done(m);
}
END_TEST

START_TEST(test_messages)
{
	/* Colon or not, braces or angles, nested, repeated, merged. */
	AllTypes *m = parse(
	    "buffers { size_kb: 1024 }\n"
	    "buffers: { size_kb: 2048; fill_policy: RING_BUFFER, }\n"
	    "buffers < size_kb: 3 >\n"
	    "buffers: <child { child { size_kb: 9 } }>\n"
	    "inner { size_kb: 1 }\n"
	    "inner { names: \"x\" }\n");

	ck_assert_uint_eq(m->n_buffers, 4);
	ck_assert_uint_eq(m->buffers[0]->size_kb, 1024);
	ck_assert_uint_eq(m->buffers[1]->size_kb, 2048);
	ck_assert_int_eq(m->buffers[1]->fill_policy,
	    FARO__TEST__INNER__POLICY__RING_BUFFER);
	ck_assert_uint_eq(m->buffers[2]->size_kb, 3);
	ck_assert_int_eq(m->buffers[2]->has_fill_policy, 0);
	ck_assert_uint_eq(m->buffers[3]->child->child->size_kb, 9);
	/* Second "inner" merges into the first, as binary decoding does. */
	ck_assert_uint_eq(m->inner->size_kb, 1);
	ck_assert_uint_eq(m->inner->n_names, 1);
	ck_assert_str_eq(m->inner->names[0], "x");
	done(m);
}
END_TEST

START_TEST(test_lists_ok)
{
	AllTypes *m = parse(
	    "events: [\"sched/sched_switch\", 'power/cpu_idle']\n"
	    "events: \"a/b\"\n"
	    "events: []\n"
	    "ids: [1, 0x2, 03]\n"
	    "buffers: [{ size_kb: 1 }, < size_kb: 2 >]\n"
	    "buffers [{ size_kb: 3 }]\n"
	    "blobs: [\"\\x00\\x01\", \"z\"]\n");
	size_t i;

	ck_assert_uint_eq(m->n_events, 3);
	ck_assert_str_eq(m->events[0], "sched/sched_switch");
	ck_assert_str_eq(m->events[1], "power/cpu_idle");
	ck_assert_str_eq(m->events[2], "a/b");
	ck_assert_uint_eq(m->n_ids, 3);
	for (i = 0; i < 3; i++)
		ck_assert_uint_eq(m->ids[i], i + 1);
	ck_assert_uint_eq(m->n_buffers, 3);
	for (i = 0; i < 3; i++)
		ck_assert_uint_eq(m->buffers[i]->size_kb, i + 1);
	ck_assert_uint_eq(m->n_blobs, 2);
	ck_assert_uint_eq(m->blobs[0].len, 2);
	ck_assert(memcmp(m->blobs[0].data, "\0\1", 2) == 0);
	done(m);
}
END_TEST

START_TEST(test_many_repeated)
{
	/* Enough elements to go through several array growths. */
	char *text = malloc(200 * 16);
	size_t off = 0, i;
	AllTypes *m;

	ck_assert_ptr_nonnull(text);
	for (i = 0; i < 200; i++)
		off += (size_t)sprintf(text + off, "ids: %zu\n", i);
	m = parse(text);
	ck_assert_uint_eq(m->n_ids, 200);
	for (i = 0; i < 200; i++)
		ck_assert_uint_eq(m->ids[i], i);
	done(m);
	free(text);
}
END_TEST

START_TEST(test_strings)
{
	AllTypes *m = parse(
	    "str: \"a\\n\\t\\\\\\\"\\'\\x41\\101\\u00e9\\U0001F600\\r\\a\\b\\f\\v\\?\" "
	    "'-single \"q\"'   \"-adj\"\n"
	    "raw: \"\\000\\xff\\7z\"\n");
	const char want[] = "a\n\t\\\"'AA\xc3\xa9\xf0\x9f\x98\x80\r\a\b\f\v?"
	    "-single \"q\"-adj";

	ck_assert_str_eq(m->str, want);
	ck_assert_int_eq(m->has_raw, 1);
	ck_assert_uint_eq(m->raw.len, 4);
	ck_assert(memcmp(m->raw.data, "\0\xff\7z", 4) == 0);
	done(m);
}
END_TEST

START_TEST(test_comments_and_separators)
{
	AllTypes *m = parse(
	    "# leading comment\n"
	    "i32: 1, # trailing comment\n"
	    "u32: 2;\n"
	    "\t\r\n"
	    "str: \"# not a comment\" # comment\n"
	    "# last line without newline");

	ck_assert_int_eq(m->i32, 1);
	ck_assert_uint_eq(m->u32, 2);
	ck_assert_str_eq(m->str, "# not a comment");
	done(m);
}
END_TEST

START_TEST(test_last_wins_and_oneof)
{
	AllTypes *m = parse("i32: 1 i32: 2 str: \"x\" str: \"y\" "
	    "choice_name: \"n\" choice_inner { size_kb: 4 } choice_id: 7 "
	    "with_default: \"other\"");

	ck_assert_int_eq(m->i32, 2);
	ck_assert_str_eq(m->str, "y");
	ck_assert_int_eq(m->choice_case, FARO__TEST__ALL_TYPES__CHOICE_CHOICE_ID);
	ck_assert(m->choice_id == 7);
	ck_assert_str_eq(m->with_default, "other");
	done(m);

	m = parse("choice_inner { size_kb: 4 } choice_inner { names: 'a' }");
	ck_assert_int_eq(m->choice_case,
	    FARO__TEST__ALL_TYPES__CHOICE_CHOICE_INNER);
	ck_assert_uint_eq(m->choice_inner->size_kb, 4);
	ck_assert_uint_eq(m->choice_inner->n_names, 1);
	done(m);
}
END_TEST

START_TEST(test_empty)
{
	AllTypes *m = parse("  # nothing\n");

	ck_assert_int_eq(m->has_i32, 0);
	ck_assert_ptr_null(m->inner);
	done(m);
}
END_TEST

/* Text and binary give the same bytes: pack and compare to a hand encoding. */
START_TEST(test_pack_matches_binary)
{
	AllTypes *m = parse("i32: -1 str: \"ab\" buffers { size_kb: 300 } "
	    "ids: [1, 2] b: t");
	static const uint8_t want[] = {
		0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x01,				/* i32 = -1 */
		0x68, 0x01,			/* b = true */
		0x72, 0x02, 'a', 'b',		/* str */
		0x92, 0x01, 0x03, 0x08, 0xac, 0x02, /* buffers { 300 } */
		0xa0, 0x01, 0x01, 0xa0, 0x01, 0x02, /* ids */
	};
	uint8_t out[64];
	size_t n;

	n = protobuf_c_message_get_packed_size(&m->base);
	ck_assert_uint_eq(n, sizeof(want));
	protobuf_c_message_pack(&m->base, out);
	ck_assert(memcmp(out, want, n) == 0);
	done(m);
}
END_TEST

START_TEST(test_unknown_field)
{
	parse_fail("i32: 1\n  duration: 5", "t.txt:2:3:",
	    "unknown field 'duration' in faro.test.AllTypes "
	    "(did you mean 'duration_ms'?)");
	parse_fail("buffers { size_kv: 1 }", ":1:11:",
	    "(did you mean 'size_kb'?)");
	parse_fail("zzzzzzzzzzzz: 1", ":1:1:", "unknown field 'zzzzzzzzzzzz'");
	ck_assert(strstr(errbuf, "did you mean") == NULL);
	/* The quoted line and caret follow the message. */
	parse_fail("  bogus: 1", ":1:3:", "\n  bogus: 1\n  ^");
}
END_TEST

START_TEST(test_skip_unknown)
{
	const char *text = "bogus: 1 other { x: [1, 2] y < z: \"s\" 'c' > } "
	    "lst: [{a: 1}, -2] i32: 5 neg: -inf";
	ProtobufCMessage *m;

	m = textproto_parse_untrusted(&faro__test__all_types__descriptor,
	    text, strlen(text), "t.txt", TEXTPROTO_SKIP_UNKNOWN, errbuf,
	    sizeof(errbuf));
	ck_assert_msg(m != NULL, "%s", errbuf);
	ck_assert_int_eq(((AllTypes *)m)->i32, 5);
	protobuf_c_message_free_unpacked(m, NULL);

	/* Unknown enum values are dropped too, by name or number. */
	text = "color: PURPLE colors: [RED, PURPLE, 77, GREEN] i32: 3";
	m = textproto_parse_untrusted(&faro__test__all_types__descriptor,
	    text, strlen(text), "t.txt", TEXTPROTO_SKIP_UNKNOWN, errbuf,
	    sizeof(errbuf));
	ck_assert_msg(m != NULL, "%s", errbuf);
	ck_assert_int_eq(((AllTypes *)m)->has_color, 0);
	ck_assert_uint_eq(((AllTypes *)m)->n_colors, 2);
	ck_assert_int_eq(((AllTypes *)m)->colors[1], FARO__TEST__COLOR__GREEN);
	ck_assert_int_eq(((AllTypes *)m)->i32, 3);
	protobuf_c_message_free_unpacked(m, NULL);

	/* Skipping still checks syntax. */
	text = "bogus { x: }";
	m = textproto_parse_untrusted(&faro__test__all_types__descriptor,
	    text, strlen(text), "t.txt", TEXTPROTO_SKIP_UNKNOWN, errbuf,
	    sizeof(errbuf));
	ck_assert_ptr_null(m);
	ck_assert_msg(strstr(errbuf, ":1:12:") != NULL, "%s", errbuf);
}
END_TEST

START_TEST(test_integer_errors)
{
	parse_fail("i32: 2147483648", ":1:6:", "out of range for field 'i32' (int32)");
	parse_fail("i32: -2147483649", ":1:7:", "out of range");
	parse_fail("u32: 4294967296", ":1:6:", "out of range for field 'u32' (uint32)");
	parse_fail("u32: -1", ":1:7:", "negative value not allowed");
	parse_fail("u64: 18446744073709551616", ":1:6:", "out of range");
	parse_fail("i64: 9223372036854775808", ":1:6:", "out of range");
	parse_fail("sf32: 0x80000000", ":1:7:", "out of range");
	parse_fail("i32: 1.5", ":1:6:", "expected an integer (int32) for field 'i32'");
	parse_fail("i32: 08", ":1:6:", "expected an integer");
	parse_fail("i32: 0xg", ":1:6:", "expected an integer");
	parse_fail("i32: abc", ":1:6:", "expected an integer");
	parse_fail("i32: \"1\"", ":1:6:", "expected a value for int32 field 'i32'");
	parse_fail("i32: -", ":1:7:", "expected a value");
}
END_TEST

START_TEST(test_value_errors)
{
	parse_fail("b: yes", ":1:4:", "expected true or false for field 'b'");
	parse_fail("b: 2", ":1:4:", "expected true or false");
	parse_fail("b: -1", ":1:5:", "negative");
	parse_fail("fl: 1e39", ":1:5:", "out of range for field 'fl' (float)");
	parse_fail("db: 1e999", ":1:5:", "out of range");
	parse_fail("db: 0x10", ":1:5:", "expected a number (double)");
	parse_fail("db: 1.2.3", ":1:5:", "expected a number");
	parse_fail("db: infinit", ":1:5:", "expected a number");
	parse_fail("color: GREEM", ":1:8:",
	    "unknown value 'GREEM' for enum faro.test.Color of field 'color' "
	    "(did you mean 'GREEN'?)");
	parse_fail("color: 9", ":1:8:", "9 is not a value of enum faro.test.Color");
	parse_fail("color: \"RED\"", ":1:8:", "expected a value for enum field");
	parse_fail("color: -RED", ":1:9:", "expected a value name of enum");
	parse_fail("str: 5", ":1:6:", "expected a quoted string for string field 'str'");
	parse_fail("raw: x", ":1:6:", "expected a quoted string for bytes field 'raw'");
	parse_fail("str: \"a\\0b\"", ":1:6:", "cannot hold a NUL byte");
}
END_TEST

START_TEST(test_string_errors)
{
	parse_fail("str: \"abc", ":1:6:", "unterminated string");
	parse_fail("str: \"abc\nx\"", ":1:6:", "unterminated string");
	parse_fail("str: 'abc\"", ":1:6:", "unterminated string");
	parse_fail("str: \"ab\\q\"", ":1:9:", "unknown escape \\q");
	parse_fail("str: \"ab\\xZ\"", ":1:9:", "expected hex digits after \\x");
	parse_fail("str: \"\\u12\"", ":1:7:", "expected 4 hex digits after \\u");
	parse_fail("str: \"\\ud800\"", ":1:7:", "not a valid Unicode code point");
	parse_fail("str: \"\\U00110000\"", ":1:7:", "not a valid Unicode");
	parse_fail("str: \"\\400\"", ":1:7:", "above \\377");
}
END_TEST

START_TEST(test_syntax_errors)
{
	parse_fail("i32 1", ":1:5:", "expected ':' after field name 'i32', "
	    "found number '1'");
	parse_fail("i32: [1]", ":1:6:", "field 'i32' is not repeated");
	parse_fail("ids [1]", ":1:5:", "expected ':' before the list");
	parse_fail("ids: [1 2]", ":1:9:", "expected ',' or ']' in the list");
	parse_fail("ids: [1, 2", ":1:11:", "found end of input");
	parse_fail("ids: [1,]", ":1:9:", "expected a value");
	parse_fail("inner: 5", ":1:8:", "expected '{' or '<' to open message field 'inner'");
	parse_fail("inner { size_kb: 1", ":1:19:",
	    "expected a field name or '}' to close Inner, found end of input");
	parse_fail("inner { size_kb: 1 >", ":1:20:", "found punctuation '>'");
	parse_fail("inner < size_kb: 1 }", ":1:20:", "'>' to close Inner");
	parse_fail("}", ":1:1:", "expected a field name, found punctuation '}'");
	parse_fail("i32: 1\n\n   @", ":3:4:", "unexpected character '@'");
	parse_fail("i32: 1 \x01", ":1:8:", "unexpected byte 0x01");
	parse_fail("5: 1", ":1:1:", "expected a field name");
	parse_fail("buffers: [{ size_kb: 1 } { size_kb: 2 }]", ":1:26:",
	    "expected ',' or ']'");
	parse_fail("buffers: [5]", ":1:11:", "'{' or '<' to open message");
}
END_TEST

START_TEST(test_depth_limit)
{
	char *text;
	size_t n = TEXTPROTO_MAX_DEPTH + 2, i, off = 0;

	text = malloc(n * 12 + 16);
	ck_assert_ptr_nonnull(text);
	off += (size_t)sprintf(text, "inner ");
	for (i = 0; i < n; i++)
		off += (size_t)sprintf(text + off, "{ child ");
	text[off] = '\0';
	parse_fail(text, ":1:", "nested deeper than");
	free(text);

	/* Exactly at the limit is fine. */
	text = malloc(TEXTPROTO_MAX_DEPTH * 12 + 16);
	ck_assert_ptr_nonnull(text);
	off = (size_t)sprintf(text, "inner { ");
	for (i = 1; i < TEXTPROTO_MAX_DEPTH; i++)
		off += (size_t)sprintf(text + off, "child { ");
	for (i = 0; i < TEXTPROTO_MAX_DEPTH; i++)
		off += (size_t)sprintf(text + off, "} ");
	done(parse(text));
	free(text);
}
END_TEST

START_TEST(test_error_frees_partial)
{
	/* ASan's leak checker fails this if a partial message leaks. */
	parse_fail("events: 'a' inner { names: ['x', 'y'] child { } } "
	    "buffers { } raw: 'q' choice_name: 'z' str: 'w' i32: x",
	    ":1:", "expected an integer");
	parse_fail("events: ['a', 'b', 5]", ":1:20:", "quoted string");
}
END_TEST

START_TEST(test_tabs_in_caret)
{
	parse_fail("\t\ti32 x", ":1:7:", "\n\t\ti32 x\n\t\t    ^");
}
END_TEST

START_TEST(test_edit_distance)
{
	ck_assert_uint_eq(textproto_edit_distance("", "abc"), 3);
	ck_assert_uint_eq(textproto_edit_distance("kitten", "sitting"), 3);
	ck_assert_uint_eq(textproto_edit_distance("buffers", "buffers"), 0);
	ck_assert_uint_eq(textproto_edit_distance("bufers", "buffers"), 1);
}
END_TEST

START_TEST(test_no_nul_needed)
{
	/* The length bounds the input: bytes after it are never read. */
	const char text[] = "i32: 12345";
	ProtobufCMessage *m;
	char *copy = malloc(7);

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, text, 7);	/* "i32: 12", no NUL */
	m = textproto_parse_untrusted(&faro__test__all_types__descriptor,
	    copy, 7, "t.txt", 0, errbuf, sizeof(errbuf));
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(((AllTypes *)m)->i32, 12);
	protobuf_c_message_free_unpacked(m, NULL);
	free(copy);
}
END_TEST

/* Text -> message -> wire bytes -> text: the printed form of the bytes. */
static char *
print_of(const char *text)
{
	AllTypes *m = parse(text);
	size_t n = protobuf_c_message_get_packed_size(&m->base);
	uint8_t *buf = malloc(n ? n : 1);
	char *out;

	ck_assert_ptr_nonnull(buf);
	protobuf_c_message_pack(&m->base, buf);
	out = textproto_print(&faro__test__all_types__descriptor, buf, n);
	ck_assert_ptr_nonnull(out);
	free(buf);
	done(m);
	return out;
}

START_TEST(test_print)
{
	char *out;

	out = print_of("i32: -5 i64: -6 u32: 7 s32: -8 s64: -9 f32: 10"
	    " sf64: -11 fl: 1.5 db: -0.25 b: true str: \"a\\\"b\\n\\001\""
	    " color: GREEN inner { size_kb: 3 } inner { size_kb: 4 }"
	    " buffers { } ids: [1, 2] colors: [RED, GREEN]");
	ck_assert_str_eq(out, "i32: -5\ni64: -6\nu32: 7\ns32: -8\ns64: -9\n"
	    "f32: 10\nsf64: -11\nfl: 1.500000\ndb: -0.250000\nb: true\n"
	    "str: \"a\\\"b\\n\\001\"\ncolor: GREEN\ninner {\n  size_kb: 4\n}\n"
	    "buffers {\n}\nids: 1\nids: 2\ncolors: RED\ncolors: GREEN");
	free(out);
}
END_TEST

/* Bytes no descriptor explains, and bytes that are not fields at all. */
START_TEST(test_print_untrusted)
{
	static const uint8_t unknown[] = { 0xc8, 0x3e, 0x7f,	/* 1001: 127 */
	    0xd2, 0x3e, 0x02, 'h', 'i',			/* 1002: "hi" */
	    0xdd, 0x3e, 1, 0, 0, 0 };			/* 1003: fixed32 */
	static const uint8_t cut[] = { 0x08, 0x05, 0x12, 0x09, 'a' };
	static const uint8_t badwire[] = { 0x08, 0x01, 0x0b, 0x00 };
	uint8_t deep[400];
	char *out;
	size_t i;

	out = textproto_print(&faro__test__all_types__descriptor, unknown,
	    sizeof(unknown));
	ck_assert_str_eq(out, "1001: 127\n1002: \"hi\"\n1003: 0x00000001");
	free(out);
	/* A length past the end: what is left is shown, not read beyond. */
	out = textproto_print(&faro__test__all_types__descriptor, cut,
	    sizeof(cut));
	ck_assert_str_eq(out, "i32: 5\n# Extra bytes: \"\\022\\ta\"\n");
	free(out);
	out = textproto_print(&faro__test__all_types__descriptor, badwire,
	    sizeof(badwire));
	ck_assert_str_eq(out, "i32: 1\n# Extra bytes: \"\\v\\000\"\n");
	free(out);
	/* inner { inner-less nesting } 200 deep: bounded, no crash. */
	for (i = 0; i + 1 < sizeof(deep); i += 2) {
		deep[i] = 0x8a;		/* field 17, length-delimited ... */
		deep[i + 1] = (uint8_t)(sizeof(deep) - i - 2 < 0x80 ?
		    sizeof(deep) - i - 2 : 0);
	}
	out = textproto_print(&faro__test__all_types__descriptor, deep,
	    sizeof(deep));
	ck_assert_ptr_nonnull(out);
	free(out);
}
END_TEST

static Suite *
textproto_suite(void)
{
	Suite *s = suite_create("textproto");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_scalars);
	tcase_add_test(tc, test_print);
	tcase_add_test(tc, test_print_untrusted);
	tcase_add_test(tc, test_floats);
	tcase_add_test(tc, test_bools);
	tcase_add_test(tc, test_enums);
	tcase_add_test(tc, test_messages);
	tcase_add_test(tc, test_lists_ok);
	tcase_add_test(tc, test_many_repeated);
	tcase_add_test(tc, test_strings);
	tcase_add_test(tc, test_comments_and_separators);
	tcase_add_test(tc, test_last_wins_and_oneof);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_pack_matches_binary);
	tcase_add_test(tc, test_skip_unknown);
	tcase_add_test(tc, test_no_nul_needed);
	tcase_add_test(tc, test_edit_distance);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_test(tc, test_unknown_field);
	tcase_add_test(tc, test_integer_errors);
	tcase_add_test(tc, test_value_errors);
	tcase_add_test(tc, test_string_errors);
	tcase_add_test(tc, test_syntax_errors);
	tcase_add_test(tc, test_depth_limit);
	tcase_add_test(tc, test_error_frees_partial);
	tcase_add_test(tc, test_tabs_in_caret);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(textproto_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
