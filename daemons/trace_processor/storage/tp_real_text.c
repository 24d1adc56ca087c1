/*
 * A real as text the way upstream shows it (args.display_value casts a
 * real to text). Upstream's SQLite (3.43 and later) writes a double with
 * up to 17 significant digits, fewer when fewer give the same double back
 * (49.47, not 49.469999999999999), while Debian's SQLite 3.40 writes 15
 * (8.71428571428571 for 8.7142857142857135): the same rows need the newer
 * rule, done here as SQL function __intrinsic_cast_string (any other value
 * as CAST(x AS TEXT) gives it: the prelude's cast_string! is this).
 *
 * The rule, as that SQLite's "%!.17g": take the first 18 (or 19)
 * significant digits as it decodes them (sig_digits); if digits 15 and
 * 16 are both 9 (or the value is a whole number, or digits 14 to 16 are
 * 0), try the shorter number the run of 9s rounds up to (or of the digits
 * before the run of 0s) and keep it if it reads back as the same double;
 * else round to 17 digits. Then print as %g with precision 17 (exponent
 * form below 1e-4 and from 1e17), without trailing zeros, always with a
 * digit after the point ("1.0", "1.0e+20").
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"

/* Whether digits z[0..n) times 10^e read back as r. */
static int
same_double(double r, const char *z, int n, int e)
{
	char buf[48];

	snprintf(buf, sizeof(buf), "%.*se%d", n, z, e);
	return strtod(buf, NULL) == r;
}

/*
 * The significant digits of r (> 0, finite) as that SQLite decodes them
 * for 17-digit output: into z (18 or 19 of them, returned), with *dp the
 * digits before the decimal point. It multiplies r's mantissa m (top bit
 * set, r = m * 2^e) by 10^p normalized to 64 bits, p chosen for 18
 * digits, keeps the high half of the product, drops the bits below one
 * past the last digit and rounds that one up: the last digit is not
 * always the correctly rounded one (10.285714285714286 is ...2864755,
 * it takes ...864). For p of 0 to 26 (r from about 1e-9 to 1e17) the
 * power is exact (5^p fits in 64 bits) and so is this; other magnitudes
 * and subnormals take r's correctly rounded 18 digits, where that SQLite
 * may differ in the last one (its powers there are rounded).
 */
static int
sig_digits(double r, char *z, int *dp)
{
	char buf[32];
	uint64_t bits, m, d;
	unsigned __int128 pw = 1;
	int e, p = -1, i;

	memcpy(&bits, &r, sizeof(bits));
	e = (int)(bits >> 52) & 0x7ff;
	if (e != 0) {
		m = bits << 11 | 1ULL << 63;
		e -= 1086;
		p = 17 - (((e + 63) * 78913) >> 18);
	}
	if (p < 0 || p > 26) {
		/* d.ddddddddddddddddde[+-]x */
		snprintf(buf, sizeof(buf), "%.17e", r);
		z[0] = buf[0];
		memcpy(z + 1, buf + 2, 17);
		*dp = atoi(buf + 20) + 1;
		return 18;
	}
	for (i = 0; i < p; i++)
		pw *= 10;
	while (pw < (unsigned __int128)1 << 63)
		pw <<= 1;
	while (pw >> 64 != 0)
		pw >>= 1;	/* only zero bits: 10^p is 5^p * 2^p */
	d = (uint64_t)(((unsigned __int128)m * (uint64_t)pw) >> 64);
	d >>= -(e + ((p * 108853) >> 15) + 2);
	d = (d >> 1) + (d & 1);
	i = snprintf(buf, sizeof(buf), "%" PRIu64, d);
	memcpy(z, buf, (size_t)i);
	*dp = i - p;
	return i;
}

size_t
tp_real_text(double r, char *out, size_t cap)
{
	char buf[64], z[20];
	int e, n, round = 17, jj, i, dp, len = 0;
	const char *sign = r < 0 ? "-" : "";

	if (isnan(r))
		return (size_t)snprintf(out, cap, "NaN");
	if (isinf(r))
		return (size_t)snprintf(out, cap, "%sInf", sign);
	if (r == 0)
		return (size_t)snprintf(out, cap, "0.0");
	r = fabs(r);
	n = sig_digits(r, z, &dp);
	if (z[15] == '9' && z[14] == '9') {
		char up[20];
		int ok;

		/* The digits before the run of 9s, their last one plus one
		 * (it is no 9: no carry); none before: 1, a power of 10. */
		for (jj = 14; jj > 0 && z[jj - 1] == '9'; jj--)
			;
		if (jj == 0) {
			ok = same_double(r, "1", 1, dp);
		} else {
			memcpy(up, z, (size_t)jj);
			up[jj - 1]++;
			ok = same_double(r, up, jj, dp - jj);
		}
		if (ok)
			round = jj + 1;
	} else if (dp >= n || (z[15] == '0' && z[14] == '0' &&
	    z[13] == '0')) {
		for (jj = 13; jj > 1 && z[jj - 1] == '0'; jj--)
			;
		if (same_double(r, z, jj, dp - jj))
			round = jj + 1;
	}
	/* Round to that many digits. */
	n = round;
	if (z[n] >= '5') {
		for (i = n - 1; i >= 0 && z[i] == '9'; i--)
			z[i] = '0';
		if (i >= 0) {
			z[i]++;
		} else {
			memmove(z + 1, z, (size_t)n);
			z[0] = '1';
			dp++;
		}
	}
	while (n > 1 && z[n - 1] == '0')
		n--;
	e = dp - 1;
	len = snprintf(buf, sizeof(buf), "%s", sign);
	if (e < -4 || e >= 17) {
		len += snprintf(buf + len, sizeof(buf) - (size_t)len,
		    "%c.%.*se%c%02d", z[0], n > 1 ? n - 1 : 1,
		    n > 1 ? z + 1 : "0", e < 0 ? '-' : '+', abs(e));
	} else if (dp <= 0) {
		len += snprintf(buf + len, sizeof(buf) - (size_t)len,
		    "0.%.*s%.*s", -dp, "0000", n, z);
	} else {
		for (i = 0; i < dp; i++)
			buf[len++] = i < n ? z[i] : '0';
		buf[len++] = '.';
		if (n > dp) {
			memcpy(buf + len, z + dp, (size_t)(n - dp));
			len += n - dp;
		} else {
			buf[len++] = '0';
		}
		buf[len] = '\0';
	}
	return (size_t)snprintf(out, cap, "%s", buf);
}

static void
fn_real_text(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	char buf[48];
	size_t n;

	(void)argc;
	switch (sqlite3_value_type(argv[0])) {
	case SQLITE_NULL:
		return;
	case SQLITE_FLOAT:
		n = tp_real_text(sqlite3_value_double(argv[0]), buf,
		    sizeof(buf));
		sqlite3_result_text(ctx, buf, (int)n, SQLITE_TRANSIENT);
		return;
	default:
		/* Not a real: as a cast would give it. */
		sqlite3_result_text(ctx, (const char *)sqlite3_value_text(
		    argv[0]), -1, SQLITE_TRANSIENT);
		return;
	}
}

int
tp_real_text_register(struct tp *tp)
{
	if (sqlite3_create_function_v2(tp->db, "__intrinsic_cast_string", 1,
	    SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, fn_real_text, NULL, NULL,
	    NULL) != SQLITE_OK)
		return tp_seterr(tp, "%s: %s", __func__,
		    sqlite3_errmsg(tp->db));
	return 0;
}
