/*
 * The service's word on a producer packet.
 *
 * A packet read back from a central buffer is producer data. Before it
 * leaves traced it must parse as a TracePacket at its top level, and it
 * must not carry a field only the service may write (the trusted identity
 * fields, the config, stats, sync markers, service events, ...): a packet
 * that does is dropped and counted, never repaired. The service then
 * appends the fields it vouches for; since protobuf keeps the last value
 * of a repeated scalar, nothing a producer wrote could override them
 * anyway, but the reader of the trace must not see two values.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "traced.h"

/* TracePacket fields a producer may not set (upstream numbers). */
static const uint32_t packet_reserved_fields[] = {
	3,	/* trusted_uid */
	10,	/* trusted_packet_sequence_id */
	33,	/* trace_config */
	35,	/* trace_stats */
	36,	/* synchronization_marker */
	50,	/* compressed_packets */
	69,	/* service_event */
	79,	/* trusted_pid */
	98,	/* machine_id */
	124,	/* trace_provenance */
	125,	/* protovms */
	133,	/* zstd_compressed_packets */
};

/* Protobuf's own cap on a length-delimited field (2^28, as upstream). */
#define PACKET_MAX_FIELD_LEN	(256u * 1024 * 1024)

/* A varint of at most 10 bytes within [*pp, end); -1 if cut short. */
int
packet_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t	*p = *pp;
	uint64_t	 r = 0;
	unsigned	 shift = 0;

	/* Padded (non-minimal) varints are legal: read up to 10 bytes. */
	while (p < end && shift < 64) {
		r |= (uint64_t)(*p & 0x7f) << shift;
		if ((*p++ & 0x80) == 0) {
			*pp = p;
			*v = r;
			return 0;
		}
		shift += 7;
	}
	return -1;
}

int
packet_validate_untrusted(const uint8_t *p, size_t len)
{
	const uint8_t	*end = p + len;
	uint64_t	 key, v;
	uint32_t	 field;
	size_t		 i;

	while (p < end) {
		if (packet_varint(&p, end, &key) == -1)
			return -1;
		if (key >> 3 > UINT32_MAX)
			return -1;
		field = (uint32_t)(key >> 3);
		if (field == 0)
			return -1;
		for (i = 0; i < sizeof(packet_reserved_fields) /
		    sizeof(packet_reserved_fields[0]); i++)
			if (field == packet_reserved_fields[i])
				return -1;
		switch (key & 7) {
		case 0:		/* varint */
			if (packet_varint(&p, end, &v) == -1)
				return -1;
			break;
		case 1:		/* fixed64 */
			if ((size_t)(end - p) < 8)
				return -1;
			p += 8;
			break;
		case 2:		/* length-delimited */
			if (packet_varint(&p, end, &v) == -1 ||
			    v > PACKET_MAX_FIELD_LEN ||
			    v > (uint64_t)(end - p))
				return -1;
			p += v;
			break;
		case 5:		/* fixed32 */
			if ((size_t)(end - p) < 4)
				return -1;
			p += 4;
			break;
		default:	/* groups and undefined wire types */
			return -1;
		}
	}
	return 0;
}
