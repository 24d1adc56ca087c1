/*
 * Shared by the proto importer's files: sequence state, interning
 * generations, track descriptors and the per-message parsers.
 */
#ifndef FARO_TP_PROTO_H
#define FARO_TP_PROTO_H

#include "pbdec.h"
#include "tp_int.h"

#define TP_MAX_EXTRA	8

/* One generation of a sequence's incremental state. */
struct tp_gen {
	int		 refs;		/* atomic: tp_proto_ref, tp_proto_unref */
	uint64_t	 serial;	/* tells generations apart, from 1 */
	uint64_t	 seq_key;	/* its sequence's: machine << 32 | id */
	struct tp_hash	 interned;	/* field << 48 ^ iid -> off << 32 | len */
	uint8_t		*arena;
	size_t		 alen, acap;
	/* TracePacketDefaults */
	int		 has_defaults;
	uint32_t	 clock_id;
	int		 has_track_uuid;
	uint64_t	 track_uuid;
	uint64_t	 extra_uuids[TP_MAX_EXTRA];
	size_t		 n_extra;
	uint64_t	 extra_double_uuids[TP_MAX_EXTRA];
	size_t		 n_extra_double;
	/* incremental counters' sums: uuid -> double's bits */
	struct tp_hash	 counters;
	/* TracePacketDefaults.perf_sample_defaults, our copy */
	uint8_t		*perf_defaults;
	size_t		 perf_defaults_len;
	/* ThreadDescriptor of the sequence (legacy) */
	int		 has_thread;
	int64_t		 pid, tid;
};

struct tp_seq {
	uint32_t	 id;
	int		 first_seen;	/* first_packet_on_sequence was seen */
	struct tp_gen	*gen;
	int		 valid;
	/* legacy delta timestamps, in ns */
	int64_t		 ref_ts, ref_thread_ts;
	int64_t		 ref_instr;	/* thread instruction count */
	int		 ftrace_errs_seen;	/* setup errors counted */
	/* data loss, for the per-buffer stats (tp_proto_loss.c) */
	int		 seen;		/* a packet came before */
	uint32_t	 losses;	/* packets after a loss */
	uint32_t	 loss_causes[8];	/* by DataLossReason bit, 2 up */
	uint32_t	 needs_state, needs_state_skipped;
};

struct tp_desc {
	uint64_t	 uuid, parent;
	int		 has_uuid, has_parent;
	char		*name;
	char		*desc;
	int		 has_thread, has_process;
	int64_t		 pid, tid;
	int		 is_counter;
	int		 no_merge;	/* sibling_merge_behavior NONE */
	int		 merge_by_key;	/* BY_SIBLING_MERGE_KEY */
	char		*merge_key;	/* its key */
	/* resolved as merged siblings: the pool's name and scope */
	int		 merged;
	char		*mname;
	int64_t		 m_utid, m_upid;
	int		 separate;	/* disallow_merging_with_system_tracks */
	int		 builtin;
	char		*unit;
	int64_t		 mult;
	int		 incremental;
	/* for the track's source args, as upstream's */
	char		*category;	/* a counter's categories, joined */
	char		*y_axis;	/* a counter's y_axis_share_key */
	int		 child_ordering;	/* 1 lexicographic, 2 chrono-
						 * logical, 3 explicit */
	int		 has_rank;
	int64_t		 rank;		/* sibling_order_rank */
	/* root (uuid 0) only: processes and threads ordered by rank */
	int		 procs_explicit, threads_explicit;
};

struct tp_pkt {
	int64_t		 ts;
	int		 has_ts, has_clock;
	uint32_t	 clock_id;
	uint32_t	 seq;
	uint32_t	 flags;
	uint32_t	 dropped;	/* DataLossReason bits, 0: none */
	int		 first_on_seq;
	int		 has_machine;
	uint32_t	 machine;	/* raw machine_id */
	struct pb_field	 interned;	/* id 0 when absent */
	struct pb_field	 defaults;
	struct pb_field	 data;		/* the oneof payload */
};

/* Largest packet accepted; larger ones are skipped and counted. */
#define TP_MAX_PACKET	(256u << 20)

/* The fields of a packet tokenization needs (payload: the oneof's);
 * -1 when it does not decode. */
int	 tp_proto_packet_scan(const uint8_t *, size_t, struct tp_pkt *);

/* One more holder of g (the parse thread takes some too: atomic). */
static inline void
tp_proto_ref(struct tp_gen *g)
{
	__atomic_add_fetch(&g->refs, 1, __ATOMIC_RELAXED);
}

int	 tp_gen_lookup(const struct tp_gen *, uint32_t field, uint64_t iid,
	    const uint8_t **, size_t *);
int	 tp_gen_string(const struct tp_gen *, uint32_t field, uint64_t iid,
	    uint32_t sfield, const char **, size_t *);
int64_t	 tp_proto_track(struct tp *, uint64_t uuid, struct tp_desc **,
	    const char *ev_name);
/* The thread a uuid's track is of, known before the track is made: a
 * thread's own descriptor (claimed, its thread made); -1 otherwise. */
int64_t	 tp_proto_track_thread(struct tp *, uint64_t uuid);
/* The same for an event of step (tp_track_pool_take's): a descriptor
 * merged with its siblings of one name (or key) gives the track of the
 * pool that is free for it, as upstream's track compressor. */
int64_t	 tp_proto_track_step(struct tp *, uint64_t uuid, struct tp_desc **,
	    const char *ev_name, int step);

/* tp_track_event.c */
int	 tp_proto_te_times(struct tp *, struct tp_seq *, const uint8_t *,
	    size_t, int has_ts, int64_t *ts, int64_t tv[2]);
void	 tp_proto_thread_descriptor(struct tp *, struct tp_seq *,
	    const uint8_t *, size_t);
void	 tp_proto_track_event(struct tp *, struct tp_gen *, int64_t ts,
	    const int64_t tv[2], const uint8_t *, size_t);

/* tp_track_event_fields.c */
int	 tp_te_log_message_untrusted(struct tp *, const struct tp_gen *,
	    int64_t set, int on_thread, const uint8_t *, size_t);
void	 tp_te_active_processes_untrusted(struct tp *, int64_t set,
	    const uint8_t *, size_t);

/* tp_proto_clock.c: clock snapshots and conversion to trace time. */
/* Builtin clock ids (BuiltinClock), as the trace names them. */
#define TP_CLOCK_MONOTONIC		3
#define TP_CLOCK_MONOTONIC_COARSE	4
#define TP_CLOCK_BOOTTIME		6
#define TP_CLOCK_TRACE_FILE		11
void	 tp_clock_snapshot_untrusted(struct tp *, uint32_t seq,
	    const uint8_t *, size_t);
/* An import log at the byte offset of the packet being tokenized (plus
 * off, into it), as upstream's tokenizer logs. */
void	 tp_proto_packet_log(struct tp *, enum tp_stat, ptrdiff_t off,
	    int64_t arg_set_id);
/* A time of a named clock is about to be converted (upstream's stats). */
void	 tp_clock_first_use(struct tp *);
/* A remote machine's RemoteClockSync: its clocks tied to the host's. */
void	 tp_clock_remote_sync_untrusted(struct tp *, const uint8_t *,
	    size_t);
/* A packet's time in clock id (0: the trace's default) of sequence seq;
 * -1 (counted) when it cannot be converted. */
int	 tp_clock_to_trace(struct tp *, uint32_t seq, uint32_t id, int64_t ts,
	    int64_t *out);
/* The same for a packet's own time: failures are logged at the packet's
 * byte offset, as upstream's tokenizer logs them; quiet: not logged nor
 * counted (the packet is tried again at the end). */
/* Whether times convert and named clocks were bridged: what a snapshot
 * no longer changes for a time of the trace clock. */
int	 tp_clock_settled(struct tp *);
int	 tp_clock_plain(struct tp *, uint32_t seq, uint32_t id);
int	 tp_clock_to_trace_at(struct tp *, uint32_t seq, uint32_t id,
	    int64_t ts, int64_t *out, int64_t byte_offset, int quiet);
/* A legacy (Chrome) time, in MONOTONIC; -1 when it cannot be converted
 * (then left as it is, as upstream). */
int	 tp_clock_monotonic_to_trace(struct tp *, int64_t ts, int64_t *out);
void	 tp_clock_free(struct tp *);
/* tp_track_event.c: a StreamingProfilePacket moves its sequence's
 * legacy clock. */
void	 tp_proto_streaming_profile(struct tp *, struct tp_seq *,
	    const uint8_t *, size_t);

/* tp_proto_chrome_process.c: a process descriptor's
 * ChromeProcessDescriptor. */
void	 tp_proto_chrome_process(struct tp *, int64_t upid, const uint8_t *,
	    size_t);

/* tp_proto_system.c */
void	 tp_proto_service_packet(struct tp *, uint32_t field, int *errs_seen,
	    const uint8_t *, size_t);
void	 tp_proto_process_tree(struct tp *, int64_t ts, const uint8_t *,
	    size_t);
void	 tp_proto_process_stats(struct tp *, int64_t ts, const uint8_t *,
	    size_t);
void	 tp_proto_sys_stats(struct tp *, int64_t ts, const uint8_t *, size_t);
/* tp_proto_trigger.c: a Trigger packet (clone: clone_snapshot_trigger). */
void	 tp_proto_trigger(struct tp *, int64_t ts, const uint8_t *, size_t,
	    int clone);
int64_t	 tp_proto_trigger_track(struct tp *);
/* tp_proto_chrome.c: ChromeMetadataPacket (in file order), ChromeTrigger. */
void	 tp_proto_chrome_metadata(struct tp *, const uint8_t *, size_t);
void	 tp_proto_chrome_trigger(struct tp *, int64_t ts, const uint8_t *,
	    size_t);
/* tp_proto_loss.c: a packet's loss report; per-buffer sums. */
void	 tp_proto_loss_packet(struct tp_seq *, uint32_t dropped);
void	 tp_proto_loss_stats(struct tp *, const uint8_t *, size_t);
struct tp_seq *tp_proto_seq_find(struct tp *, uint32_t id);
/* tp_proto_cpu_per_uid.c: a CpuPerUidData packet of sequence seq (gen:
 * its incremental state), read as it is tokenized; its samples come back
 * sorted (SK_COUNTER). */
void	 tp_proto_cpu_per_uid(struct tp *, uint32_t seq, struct tp_gen *,
	    int64_t ts, const uint8_t *, size_t);
void	 tp_proto_cpu_per_uid_sorted(struct tp *, const struct tp_sort_item *);
void	 tp_proto_cpu_per_uid_free(struct tp *);
/* tp_proto_battery.c: a BatteryCounters packet. */
void	 tp_proto_battery(struct tp *, int64_t ts, const uint8_t *, size_t);

/* tp_proto_power.c: power rails, energy estimates, entity residency. The
 * *_tokenize ones read descriptors (and split rail samples) in file
 * order; the energy one says whether it read one (its packet is done). */
void	 tp_proto_power_rails_tokenize(struct tp *, int64_t ts,
	    const uint8_t *, size_t);
void	 tp_proto_power_rail_sorted(struct tp *, int64_t ts, const uint8_t *,
	    size_t);
int	 tp_proto_energy_descriptor_tokenize(struct tp *, const uint8_t *,
	    size_t);
void	 tp_proto_energy_breakdown(struct tp *, int64_t ts, const uint8_t *,
	    size_t);
void	 tp_proto_entity_states_tokenize(struct tp *, const uint8_t *,
	    size_t);
void	 tp_proto_entity_residency(struct tp *, int64_t ts, const uint8_t *,
	    size_t);
void	 tp_proto_power_free(struct tp *);
/* tp_proto_sysprop.c: an AndroidSystemProperty packet, an
 * InitialDisplayState one. */
void	 tp_proto_sysprop(struct tp *, int64_t ts, const uint8_t *, size_t);
void	 tp_proto_initial_display(struct tp *, int64_t ts, const uint8_t *,
	    size_t);

/* tp_ftrace.c */
/* Events are sorted holding a reference to g (may be NULL). */
void	 tp_proto_ftrace_bundle(struct tp *, struct tp_gen *g,
	    const uint8_t *, size_t);

#endif
