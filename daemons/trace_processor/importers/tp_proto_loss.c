/*
 * Data loss per sequence, reported per buffer as upstream reports it.
 *
 * The service sets previous_packet_dropped (a DataLossReason bit mask) on
 * a packet that follows lost ones, and on a sequence's first packet,
 * where it only says nothing came before: so the first is not a loss.
 * Each loss is counted once, and once under each cause its bits name.
 * Packets that need incremental state are counted too, with those skipped
 * as the state was not valid: a sequence whose every such packet was
 * skipped never had usable state.
 *
 * A TraceStats packet says which buffer each sequence wrote to
 * (writer_stats); the sums over a buffer's sequences become its
 * traced_buf_* indexed stats, replacing what an earlier TraceStats said.
 */
#include <string.h>

#include "tp_proto.h"

#define LOSS_NCAUSES	8
/* Buffer indexes past this are not believed (as for buffer_stats). */
#define LOSS_MAX_BUF	4096

void
tp_proto_loss_packet(struct tp_seq *s, uint32_t dropped)
{
	int i;

	if (!s->seen) {
		s->seen = 1;
		return;
	}
	if (dropped == 0)
		return;
	s->losses++;
	/* Bit 0 is "lost, cause unknown"; the causes are bits 1 to 8. */
	for (i = 0; i < LOSS_NCAUSES; i++)
		if (dropped & (2u << i))
			s->loss_causes[i]++;
}

/* The buffer and sequence of a WriterStats; -1 when unusable. */
static int
writer_untrusted(const struct pb_field *w, uint32_t *seq, int64_t *buf)
{
	struct pb it;
	struct pb_field f;

	if (w->wire != PB_LEN)
		return -1;
	*seq = 0;
	*buf = 0;
	pb_init(&it, w->data, w->len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 1 && f.wire == PB_VARINT)
			*seq = (uint32_t)f.u;
		else if (f.id == 4 && f.wire == PB_VARINT)
			*buf = (int64_t)(uint32_t)f.u;
	}
	return it.err || *buf >= LOSS_MAX_BUF ? -1 : 0;
}

void
tp_proto_loss_stats(struct tp *tp, const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f;
	struct tp_seq *s;
	uint64_t named[LOSS_MAX_BUF / 64];
	uint32_t seq;
	int64_t b;
	int i, pass;

	/*
	 * Zero the buffers named (each gets its rows), by index as upstream
	 * lists them (its hash map's order, for the few buffers of a
	 * session), then add.
	 */
	memset(named, 0, sizeof(named));
	for (pass = 0; pass < 2; pass++) {
		pb_init(&it, buf, len);
		while (pb_next_untrusted(&it, &f) == 1) {
			if (f.id != 18 || writer_untrusted(&f, &seq, &b) == -1 ||
			    (s = tp_proto_seq_find(tp, seq)) == NULL)
				continue;
			if (pass == 0) {
				named[b / 64] |= 1ULL << (b % 64);
				continue;
			}
			tp_stat_add_indexed(tp,
			    ST_TRACED_BUF_SEQUENCE_PACKET_LOSS, b, s->losses);
			tp_stat_add_indexed(tp,
			    ST_TRACED_BUF_INCREMENTAL_SEQUENCES_DROPPED, b,
			    s->needs_state_skipped > 0 &&
			    s->needs_state_skipped == s->needs_state);
			for (i = 0; i < LOSS_NCAUSES; i++)
				tp_stat_add_indexed(tp,
				    ST_TRACED_BUF_DATA_LOSS_READ_GAP + i, b,
				    s->loss_causes[i]);
		}
		for (b = 0; pass == 0 && b < LOSS_MAX_BUF; b++)
			if (named[b / 64] & (1ULL << (b % 64)))
				for (i = ST_TRACED_BUF_SEQUENCE_PACKET_LOSS;
				    i <= ST_TRACED_BUF_DATA_LOSS_SMB_FULL; i++)
					tp_stat_set_indexed(tp, i, b, 0);
	}
}
