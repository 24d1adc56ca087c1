/*
 * SHA-1, only for the WebSocket handshake (RFC 6455 hashes the client's
 * key with a fixed GUID); not for anything that needs a secure hash.
 */
#ifndef FARO_TP_SHA1_H
#define FARO_TP_SHA1_H

#include <stddef.h>
#include <stdint.h>

void	sha1_digest(const void *, size_t, uint8_t out[20]);

#endif
