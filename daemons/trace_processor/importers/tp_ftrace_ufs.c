/*
 * ufshcd_command: the UFS host controller's command queue as upstream
 * draws it, a count of the commands in flight and a slice per command
 * on the track of its tag, named by its SCSI opcode.
 */
#include <inttypes.h>
#include <stdio.h>

#include "tp_int.h"

#define EV_UFSHCD_COMMAND	406

/* Field numbers of UfshcdCommandFtraceEvent. */
enum { UFS_DOORBELL = 2, UFS_OPCODE = 5, UFS_TAG = 7, UFS_GROUP_ID = 9,
    UFS_STR_T = 10 };

static const struct {
	unsigned	 opcode;
	const char	*name;
} scsi_ops[] = {
	{ 0, "TEST UNIT READY" }, { 3, "REQUEST SENSE" },
	{ 4, "FORMAT UNIT" }, { 8, "READ (6)" }, { 10, "WRITE (6)" },
	{ 18, "INQUIRY" }, { 27, "START STOP UNIT" },
	{ 29, "SEND DIAGNOSTIC" }, { 37, "READ CAPACITY (10)" },
	{ 40, "READ (10)" }, { 42, "WRITE (10)" }, { 47, "VERIFY" },
	{ 52, "PRE-FETCH (10)" }, { 53, "SYNCHRONIZE CACHE (10)" },
	{ 59, "WRITE BUFFER" }, { 60, "READ BUFFER" }, { 66, "UNMAP" },
	{ 85, "MODE SELECT (10)" }, { 90, "MODE SENSE (10)" },
	{ 136, "READ (16)" }, { 138, "WRITE (16)" }, { 144, "PRE-FETCH (16)" },
	{ 145, "SYNCHRONIZE CACHE (16)" }, { 158, "READ CAPACITY (16)" },
	{ 160, "REPORT LUNS" }, { 162, "SECURITY PROTOCOL IN" },
	{ 181, "SECURITY PROTOCOL OUT" },
};

static const char *
scsi_op(uint32_t opcode)
{
	size_t i;

	for (i = 0; i < sizeof(scsi_ops) / sizeof(scsi_ops[0]); i++)
		if (scsi_ops[i].opcode == opcode)
			return scsi_ops[i].name;
	return "UNDEFINED";
}

int
tp_ftrace_ufs_event(struct tp *tp, int64_t ts, uint32_t cpu, int64_t pid,
    uint32_t evid, const struct tp_ftrace_ev *e)
{
	uint64_t doorbell = (uint64_t)e->v[UFS_DOORBELL];
	uint32_t tag = (uint32_t)e->v[UFS_TAG];
	uint32_t gid = (uint32_t)e->v[UFS_GROUP_ID];
	int end = (uint32_t)e->v[UFS_STR_T] == 1;
	char name[64];
	int64_t track;

	(void)cpu;
	(void)pid;
	if (evid != EV_UFSHCD_COMMAND)
		return 0;
	/* In flight: the doorbell's bits, else this command unless it is
	 * a completion. */
	track = tp_track_intern(tp, TT_COUNTER, "io.ufs.command.count",
	    TP_NULL);
	tp_track_kind(tp, track, "ufs_command_count");
	if (track >= 0)
		tp_counter_insert(tp, ts, track, doorbell > 0 ?
		    (double)__builtin_popcountll(doorbell) : end ? 0 : 1,
		    TP_NULL);
	snprintf(name, sizeof(name), "io.ufs.command.tag[%03" PRIu32 "]", tag);
	track = tp_track_intern_idim(tp, TT_TRACK, name, TP_NULL, "ufs_tag",
	    tag);
	tp_track_kind(tp, track, "ufs_command_tag");
	if (end) {
		(void)tp_slice_end(tp, track, ts, NULL, TP_NULL, NULL);
		return 1;
	}
	if (gid > 0)
		snprintf(name, sizeof(name), "%s (GID=0x%" PRIx32 ")",
		    scsi_op((uint32_t)e->v[UFS_OPCODE]), gid);
	else
		snprintf(name, sizeof(name), "%s",
		    scsi_op((uint32_t)e->v[UFS_OPCODE]));
	(void)tp_slice_begin(tp, track, ts, NULL, name, TP_NULL, TP_NULL);
	return 1;
}
