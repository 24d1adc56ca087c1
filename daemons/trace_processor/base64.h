/* Base64 (RFC 4648) encoding. */
#ifndef FARO_TP_BASE64_H
#define FARO_TP_BASE64_H

#include <stddef.h>
#include <stdint.h>

/* Standard base64 with padding; out must hold 4 * ((n + 2) / 3) + 1. */
void	base64_encode(const uint8_t *, size_t, char *out);

#endif
