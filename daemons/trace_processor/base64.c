/*
 * Base64 (RFC 4648, with padding): the WebSocket handshake's accept key,
 * and raw proto bytes kept as text in the metadata table, as upstream
 * keeps them.
 */
#include "config.h"

#include "base64.h"

void
base64_encode(const uint8_t *in, size_t n, char *out)
{
	static const char tab[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i;
	uint32_t v;

	for (i = 0; i + 2 < n; i += 3) {
		v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
		*out++ = tab[v >> 18];
		*out++ = tab[(v >> 12) & 63];
		*out++ = tab[(v >> 6) & 63];
		*out++ = tab[v & 63];
	}
	if (n - i == 1) {
		v = (uint32_t)in[i] << 16;
		*out++ = tab[v >> 18];
		*out++ = tab[(v >> 12) & 63];
		*out++ = '=';
		*out++ = '=';
	} else if (n - i == 2) {
		v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
		*out++ = tab[v >> 18];
		*out++ = tab[(v >> 12) & 63];
		*out++ = tab[(v >> 6) & 63];
		*out++ = '=';
	}
	*out = '\0';
}
